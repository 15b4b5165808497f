package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestBudgetNotPositive: a zero or negative --budget is a usage error in
// every command that has the flag (0 silently meant "the default", which
// leaving the flag out already says).
func TestBudgetNotPositive(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(file, []byte(`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"0", "-5"} {
		for _, args := range [][]string{
			{"replay", file},
			{"report", file, "-o", filepath.Join(dir, "r.html")},
			{"inspect", file, "--home", home},
			{"compact", file, "--dry-run", "--home", home},
			{"context", dir},
			{"chat", dir, "-p", "hi", "--home", home},
			{"proxy", "--upstream", "http://127.0.0.1:1"},
			{"eval", file},
		} {
			// A command that took the budget would go on to serve or
			// call a model: the deadline stops it (a failure, not a hang).
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			var out, errb bytes.Buffer
			code := Main(ctx, append(args, "--budget", b), strings.NewReader(""), &out, &errb)
			cancel()
			errOut := errb.String()
			if code != ExitUsage || !strings.Contains(errOut, "--budget "+b+": want a positive number of tokens") {
				t.Errorf("%s --budget %s: exit %d, stderr %q; want a usage error (%d) naming --budget", args[0], b, code, errOut, ExitUsage)
			}
		}
	}
}

// TestCheckJSONRepairedTruthful: `sessions check --json` says "repaired"
// only when --repair was given and repaired something (it printed
// "repaired": true on every problem that loading works around, with
// nothing written). Without --repair that flag is "recovered".
func TestCheckJSONRepairedTruthful(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	lines := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","parentUuid":"gone","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}` + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	type problem struct {
		Kind      string `json:"kind"`
		Recovered bool   `json:"recovered"`
		Repaired  *bool  `json:"repaired"`
	}
	type report struct {
		Problems []problem `json:"problems"`
	}
	var plain struct {
		Report   report          `json:"report"`
		Repaired json.RawMessage `json:"repaired"`
	}
	code, out, errOut := run(t, "sessions", "check", "--json", file)
	if code != ExitError {
		t.Fatalf("exit %d, stderr %q; want %d (a dangling parent)", code, errOut, ExitError)
	}
	if err := json.Unmarshal([]byte(out), &plain); err != nil {
		t.Fatal(err)
	}
	if len(plain.Repaired) > 0 || len(plain.Report.Problems) != 1 {
		t.Fatalf("without --repair: %s; want one problem and no repaired section", out)
	}
	if p := plain.Report.Problems[0]; p.Repaired != nil || !p.Recovered {
		t.Errorf("without --repair the problem says repaired %v, recovered %v; want no repaired key, recovered true: %s", p.Repaired, p.Recovered, out)
	}

	var fixed struct {
		Report   report `json:"report"`
		Repaired struct {
			Fixes []problem `json:"fixes"`
		} `json:"repaired"`
	}
	code, out, errOut = run(t, "sessions", "check", "--json", "--repair", "--out", filepath.Join(dir, "fixed.jsonl"), file)
	if code != ExitOK {
		t.Fatalf("--repair: exit %d, stderr %q", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &fixed); err != nil {
		t.Fatal(err)
	}
	if f := fixed.Repaired.Fixes; len(f) != 1 || f[0].Repaired == nil || !*f[0].Repaired {
		t.Errorf("--repair: fixes %+v; want the relinked parent marked repaired: %s", f, out)
	}
	if p := fixed.Report.Problems; len(p) != 1 || p[0].Repaired != nil {
		t.Errorf("--repair: the original's report %+v marks a problem repaired; the copy was: %s", p, out)
	}
}
