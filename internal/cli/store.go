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
const storeHelp = "session store URL: jsonl:DIR, sqlite:PATH (sqlite: alone: sessions.db in the --home folder), postgres://… or a folder (default $AGENTCTX_STORE, else JSONL files in the --home folder; serve: SQLite)"

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
// --store, the JSONL store at home, as agentctx has always kept
// sessions. The caller closes it.
func openSessions(e *env, home string) (session.Store, error) {
	return storeurl.Open(e.store, storeurl.Options{Home: home, Logger: e.logger, Version: "agentctx"})
}

// openStore opens the JSONL session store for the commands that work on
// its files (check, compact): the store of openSessions, which must be a
// JSONL one. The caller closes it.
func openStore(e *env, home string) (*jsonlstore.Store, error) {
	st, err := openSessions(e, home)
	if err != nil {
		return nil, err
	}
	js, ok := st.(*jsonlstore.Store)
	if !ok {
		_ = st.Close()
		return nil, fmt.Errorf("this command works on JSONL session files; --store %s is not a JSONL store (copy the session with 'agentctx sessions copy --from %s --to jsonl:DIR' and run it there)", e.store, e.store)
	}
	return js, nil
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
