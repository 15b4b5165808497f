package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingFile: a path that does not exist, given where a FILE or a
// session id goes, is "no such file" naming it, with one exit code
// everywhere: 1, as replay answers a missing transcript and every command
// a missing session (it was "invalid session id …: holds a path
// separator", exit 2, and "neither a file nor a session id", exit 1).
func TestMissingFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, path := range []string{filepath.Join(t.TempDir(), "missing", "x.jsonl"), "missing/x.jsonl", "x-missing.jsonl"} {
		for _, args := range [][]string{
			{"inspect", path, "--home", home},
			{"report", path, "-o", filepath.Join(t.TempDir(), "r.html"), "--home", home},
			{"compact", path, "--dry-run", "--home", home},
			{"sessions", "show", path, "--home", home},
			{"sessions", "check", path, "--home", home},
			{"replay", path},
		} {
			code, _, errOut := run(t, args...)
			if code != ExitError || !strings.Contains(errOut, "no such file") || !strings.Contains(errOut, path) {
				t.Errorf("%s: exit %d, stderr %q; want exit %d and \"no such file\" naming %s", strings.Join(args[:len(args)-2], " "), code, errOut, ExitError, path)
			}
		}
	}
}
