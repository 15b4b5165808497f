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
	"github.com/spf13/pflag"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
	"github.com/agentctx/agentctx/session/storeurl"
)

// homeHelp documents --home and AGENTCTX_HOME for every command that opens
// the session store.
const homeHelp = "session store folder (default $AGENTCTX_HOME, else $XDG_DATA_HOME/agentctx, else ~/.local/share/agentctx)"

// storeHelp documents --store and AGENTCTX_STORE.
const storeHelp = "session store URL: sqlite:PATH (sqlite: alone: sessions.db in the --home folder), jsonl:DIR, postgres://… or a folder of JSONL files (default $AGENTCTX_STORE, else sessions.db in the --home folder, the store every command shares)"

// storeEnv is the environment variable that names the session store when
// --store is not given.
const storeEnv = "AGENTCTX_STORE"

// addHomeFlag adds --home and --store to cmd's persistent flags; --store
// sets e.store, its default $AGENTCTX_STORE.
func addHomeFlag(cmd *cobra.Command, e *env, home *string) {
	cmd.PersistentFlags().StringVar(home, "home", "", homeHelp)
	addStoreFlag(cmd.PersistentFlags(), e)
}

// addStoreFlag adds --store to fs, setting e.store.
func addStoreFlag(fs *pflag.FlagSet, e *env) {
	fs.StringVar(&e.store, "store", os.Getenv(storeEnv), storeHelp)
}

// openSessions opens the session store e.store names (storeurl), its
// default locations in home (default jsonlstore.DefaultRoot): with no
// --store, the SQLite database sessions.db in home, which every command
// and server shares. The first time, opening it copies the JSONL session
// files of the previous default into it and says so on stderr. The
// caller closes it.
func openSessions(e *env, home string) (session.Store, error) {
	return storeurl.Open(e.store, storeurl.Options{Home: home, Logger: e.logger, Version: "agentctx", Migrated: func(m storeurl.Migration) { printMigration(e, m) }})
}

// printMigration tells the user what opening the default store copied
// from the JSONL files of the previous default, and what it could not.
func printMigration(e *env, m storeurl.Migration) {
	if m.Copied > 0 {
		fmt.Fprintf(e.stderr, "agentctx: copied %s from the JSONL files in %s into %s, the store every command now shares; the files are kept as they were\n",
			nouns(m.Copied, "session", "sessions"), homeShort(m.From), homeShort(m.To))
	}
	for _, err := range m.Failed {
		fmt.Fprintf(e.stderr, "agentctx: not copied: %v\n", err)
	}
	if n := len(m.Failed); n > 0 {
		fmt.Fprintf(e.stderr, "agentctx: %s kept in the JSONL files only (--store jsonl:%s reads them); repair with 'agentctx sessions check --store jsonl:%s --repair --in-place ID' and the next command copies them\n",
			nouns(n, "session", "sessions"), homeShort(m.From), homeShort(m.From))
	}
}

// dataDir returns the folder of st's data, where agentctx keeps files
// beside the sessions (the chat history): a JSONL store's root, an SQLite
// database's folder, else the default data folder ("" when unknown).
func dataDir(st session.Store) string {
	switch st := st.(type) {
	case *jsonlstore.Store:
		return st.Root()
	case *sqlitestore.Store:
		return filepath.Dir(st.Path())
	}
	d, _ := jsonlstore.DefaultRoot()
	return d
}

// closeStore closes st and reports a failure that no other error hides.
func closeStore(st session.Store, err *error) {
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
	case errors.Is(err, session.ErrNotFound) && fileLike(id):
		return fmt.Errorf("%s %s: no such file, nor a stored session of that id ('agentctx sessions list --all' shows them)", op, id)
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
