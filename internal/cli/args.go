package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/session"
)

// The checks of arguments and flags that several commands share.

// fileOrID resolves the FILE-or-ID argument arg of command op (inspect,
// report, compact, sessions check): it reports whether arg is a file to
// read rather than a stored session's id. An argument that is neither an
// existing file nor a possible session id (it holds a path separator, "..",
// …) is an error naming it, "no such file", which exits 1 ([ExitError]) as
// a missing transcript does in replay and a missing session everywhere; so
// is a folder.
func fileOrID(op, arg string) (file bool, err error) {
	st, serr := os.Stat(arg)
	switch {
	case serr == nil && st.Mode().IsRegular():
		return true, nil
	case serr == nil && st.IsDir():
		return false, fmt.Errorf("%s %s: a folder, not a file or a session id", op, arg)
	case session.ValidateID(arg) != nil:
		return false, noSuchFile(op, arg)
	}
	return false, nil
}

// noSuchFile is the error of command op given path, a file that does not
// exist.
func noSuchFile(op, path string) error {
	return fmt.Errorf("%s %s: no such file", op, path)
}

// fileLike reports whether arg, a valid session id that names no stored
// session, reads as a file name (it ends in an extension transcripts and
// session files have), so that "not found" names a file too.
func fileLike(arg string) bool {
	switch filepath.Ext(arg) {
	case ".jsonl", ".json", ".traj", ".md", ".db", ".txt", ".log", ".html":
		return true
	}
	return false
}

// checkBudget returns a usage error when --budget of cmd was given a
// value that is not a positive number of tokens: 0 does not mean "the
// default" (leaving the flag out does), and a negative budget means
// nothing.
func checkBudget(cmd *cobra.Command, budget int) error {
	if budget > 0 || (budget == 0 && !cmd.Flags().Changed("budget")) {
		return nil
	}
	return usageError{fmt.Errorf("--budget %d: want a positive number of tokens (leave the flag out for the default)", budget)}
}
