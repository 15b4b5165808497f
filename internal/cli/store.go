package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// homeHelp documents --home and AGENTCTX_HOME for every command that opens
// the session store.
const homeHelp = "session store folder (default $AGENTCTX_HOME, else $XDG_DATA_HOME/agentctx, else ~/.local/share/agentctx)"

// addHomeFlag adds --home to cmd's persistent flags.
func addHomeFlag(cmd *cobra.Command, home *string) {
	cmd.PersistentFlags().StringVar(home, "home", "", homeHelp)
}

// openStore opens the JSONL session store at home (default
// jsonlstore.DefaultRoot). The caller closes it.
func openStore(e *env, home string) (*jsonlstore.Store, error) {
	st, err := jsonlstore.Open(jsonlstore.Options{Root: home, Logger: e.logger, Version: "agentctx"})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// closeStore closes st and reports a failure that no other error hides.
func closeStore(st *jsonlstore.Store, err *error) {
	if cerr := st.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}

// storeError rewrites a store error into a message that tells the user
// what to do, for the sentinels a command line meets.
func storeError(op, id string, err error) error {
	switch {
	case errors.Is(err, session.ErrSessionBusy):
		return fmt.Errorf("%s %s: another process is writing this session (an agent still running?); try again when it has finished", op, id)
	case errors.Is(err, session.ErrNotFound):
		return fmt.Errorf("%s %s: no such session; 'agentctx sessions list --all' shows the stored ones", op, id)
	case errors.Is(err, session.ErrInvalidID):
		return usageError{fmt.Errorf("%s: %w", op, err)}
	}
	return fmt.Errorf("%s %s: %w", op, id, err)
}

// projectFlag resolves a --project value, or the current folder when it is
// empty, to an absolute path.
func projectFlag(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current folder: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return abs, nil
}

// isFile reports whether arg names an existing regular file (rather than a
// session id).
func isFile(arg string) bool {
	st, err := os.Stat(arg)
	return err == nil && st.Mode().IsRegular()
}

// ago formats how long before now t was: "just now", "5m ago", "3h ago",
// "2d ago", then the date after 30 days; "-" for the zero time.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
	return t.Local().Format("2006-01-02")
}

// cut returns s on one line, at most n runes, with "…" when cut.
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// homeShort replaces the user's home folder at the start of p with "~".
func homeShort(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~" + string(filepath.Separator) + rest
	}
	return p
}
