package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitListening waits up to 30 s for a server command to print the line
// re matches on out, and returns re's first group (its URL).
func waitListening(t *testing.T, out, errb *lockedBuffer, re *regexp.Regexp) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("not listening: %q %q", out.String(), errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeRefusesOpenListenWithoutTokens checks that serve without
// tokens will not listen beyond loopback.
func TestServeRefusesOpenListenWithoutTokens(t *testing.T) {
	t.Setenv(envTokensFile, "")
	code, _, errOut := run(t, "serve", "--listen", "0.0.0.0:0", "--home", t.TempDir())
	if code != ExitUsage || !strings.Contains(errOut, "not a loopback address") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestServeStartsAndStops runs serve with a tokens file from the
// environment, checks a token works, and stops it as SIGINT does: exit 0.
func TestServeStartsAndStops(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("secret-token-0123456789 acme\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envTokensFile, tokens)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--store", "jsonl:" + t.TempDir()}, strings.NewReader(""), &out, &errb)
	}()
	url := waitListening(t, &out, &errb, regexp.MustCompile(`listening on (http://\S+) \(1 bearer tokens\)`))
	for token, want := range map[string]int{"secret-token-0123456789": 200, "": 401} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", url+"/v1/sessions", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("token %q: %d, want %d", token, resp.StatusCode, want)
		}
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "stopped") || strings.Contains(errb.String(), "secret-token") {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

// TestServeDefaultsToSQLite: with no --store and no $AGENTCTX_STORE the
// service keeps its sessions in SQLite, sessions.db in the --home folder
// (the command line's other commands keep JSONL files there).
func TestServeDefaultsToSQLite(t *testing.T) {
	t.Setenv(storeEnv, "")
	t.Setenv(envTokensFile, "")
	home := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--home", home}, strings.NewReader(""), &out, &errb)
	}()
	url := waitListening(t, &out, &errb, regexp.MustCompile(`listening on (http://\S+)`))
	resp, err := http.Post(url+"/v1/sessions", "application/json", strings.NewReader(`{"model":"gpt-4o"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		t.Fatalf("create session: %d", resp.StatusCode)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(home, "sessions.db")); err != nil {
		t.Errorf("no SQLite database in the home folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "projects")); err == nil {
		t.Error("serve wrote JSONL session files by default")
	}
}

// TestRedactURL: a store URL's password never reaches the log.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:hunter2@db:5432/agentctx?schema=x": "postgres://u:xxxxx@db:5432/agentctx?schema=x",
		"sqlite:/var/lib/s.db":                           "sqlite:/var/lib/s.db",
		"postgres://u:%zz@db":                            "postgres:…",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
