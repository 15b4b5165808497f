package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
	"github.com/agentctx/agentctx/session/storeurl"
)

// startServer runs the command args (serve or proxy) until the test ends
// and returns the URL its "listening on" line names.
func startServer(t *testing.T, re *regexp.Regexp, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() { done <- Main(ctx, args, strings.NewReader(""), &out, &errb) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("%s: exit %d: %s", args[0], code, errb.String())
		}
	})
	return waitListening(t, &out, &errb, re)
}

// httpJSON sends a JSON request and decodes the JSON answer into out,
// failing the test on a status other than want.
func httpJSON(t *testing.T, method, url, body string, want int, out any, header ...string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, data)
		}
	}
}

// listedIDs returns the ids `agentctx sessions list --all --json` prints.
func listedIDs(t *testing.T) []string {
	t.Helper()
	code, out, errOut := run(t, "sessions", "list", "--all", "--json")
	if code != ExitOK {
		t.Fatalf("sessions list: exit %d: %s", code, errOut)
	}
	var ids []string
	for line := range strings.Lines(out) {
		var s session.Session
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("sessions list --json: %v in %q", err, line)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// TestOneStoreForAllCommands: with no --store, chat, serve, proxy,
// replay --save and the sessions commands share one store, while serve
// and proxy run: what each writes the others see.
func TestOneStoreForAllCommands(t *testing.T) {
	t.Setenv(storeEnv, "")
	t.Setenv(envTokensFile, "")
	home := t.TempDir()
	t.Setenv("AGENTCTX_HOME", home)
	up := providertest.NewOpenAI(providertest.Options{Script: func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "Hello from the scripted model."}
	}})
	defer up.Close()
	t.Setenv("AGENTCTX_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", up.BaseURL)
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("AGENTCTX_MODEL", "gpt-4o")

	serveURL := startServer(t, regexp.MustCompile(`listening on (http://\S+)`), "serve", "--listen", "127.0.0.1:0")
	proxyURL := startServer(t, regexp.MustCompile(`listening on (http://\S+),`), "proxy", "--upstream", up.URL, "--listen", "127.0.0.1:0")

	// chat (print mode) writes a session.
	project := t.TempDir()
	if code, out, errOut := run(t, "chat", project, "-p", "say hello to the shared store"); code != ExitOK || !strings.Contains(out, "Hello from the scripted model") {
		t.Fatalf("chat: exit %d, %q %q", code, out, errOut)
	}
	// The service creates one.
	var created struct {
		ID string `json:"id"`
	}
	httpJSON(t, "POST", serveURL+"/v1/sessions", `{"model":"gpt-4o","project":"`+project+`"}`, http.StatusCreated, &created)
	// The proxy stores one.
	body := `{"model":"gpt-4o","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"Fix the bug."}]}`
	httpJSON(t, "POST", proxyURL+"/v1/chat/completions", body, http.StatusOK, nil, "Authorization", "Bearer sk-test")
	// replay --save stores one.
	traj := filepath.Join(t.TempDir(), "claude.jsonl")
	writeTestFile(t, traj, claudeTranscript)
	if code, _, errOut := run(t, "replay", traj, "--save"); code != ExitOK {
		t.Fatalf("replay --save: exit %d: %s", code, errOut)
	}

	ids := listedIDs(t)
	var chatID, proxyID, savedID string
	for _, id := range ids {
		code, out, _ := run(t, "sessions", "show", id, "--json")
		switch {
		case code != ExitOK:
			t.Errorf("sessions show %s: exit %d", id, code)
		case strings.Contains(out, "say hello to the shared store"):
			chatID = id
		case regexp.MustCompile(`^proxy-[0-9a-f]{20}$`).MatchString(id):
			proxyID = id
		case id != created.ID:
			savedID = id
		}
	}
	if chatID == "" || proxyID == "" || savedID == "" || !slices.Contains(ids, created.ID) || len(ids) != 4 {
		t.Fatalf("sessions list sees %q; want chat's, serve's %s, proxy's and replay's", ids, created.ID)
	}
	// The running service sees the sessions the other commands wrote.
	var listed struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	httpJSON(t, "GET", serveURL+"/v1/sessions", "", http.StatusOK, &listed)
	var seen []string
	for _, s := range listed.Sessions {
		seen = append(seen, s.ID)
	}
	slices.Sort(seen)
	slices.Sort(ids)
	if !slices.Equal(seen, ids) {
		t.Errorf("serve lists %q, sessions list %q", seen, ids)
	}
	httpJSON(t, "GET", serveURL+"/v1/sessions/"+chatID, "", http.StatusOK, nil)
	// inspect reads the service's session and the proxy's.
	for _, id := range []string{created.ID, proxyID} {
		if code, _, errOut := run(t, "inspect", id, "--json"); code != ExitOK {
			t.Errorf("inspect %s: exit %d: %s", id, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(home, sqlitestore.FileName)); err != nil {
		t.Errorf("the shared store is not %s in the home folder: %v", sqlitestore.FileName, err)
	}
	if _, err := os.Stat(filepath.Join(home, "projects")); err == nil {
		t.Error("a command wrote JSONL session files by default")
	}
}

// claudeTranscript is a two-turn Claude Code transcript for replay --save.
const claudeTranscript = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-02T10:00:00Z","cwd":"/tmp/p","message":{"role":"user","content":"list the files"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-02T10:00:05Z","cwd":"/tmp/p","message":{"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Here they are."}],"usage":{"input_tokens":120,"output_tokens":8}}}
`

// TestDefaultStoreMigratesJSONL: sessions kept as JSONL files in the
// data folder (the previous default) are copied into the shared store by
// the first command, which says so once; every command then sees them;
// the files stay as they were.
func TestDefaultStoreMigratesJSONL(t *testing.T) {
	t.Setenv(storeEnv, "")
	home := t.TempDir()
	t.Setenv("AGENTCTX_HOME", home)
	js, err := jsonlstore.Open(jsonlstore.Options{Root: home, Version: "agentctx"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, text := range []string{"first old session", "second old session"} {
		s, err := js.Create(t.Context(), session.Session{Project: t.TempDir(), Origin: "chat"})
		if err != nil {
			t.Fatal(err)
		}
		e, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, text))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.Append(t.Context(), s.ID, e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	if err := js.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	before := map[string][]byte{}
	for _, f := range files {
		before[f], _ = os.ReadFile(f)
	}

	code, out, errOut := run(t, "sessions", "list", "--all")
	if code != ExitOK || !strings.Contains(errOut, "copied 2 sessions from the JSONL files in") || !strings.Contains(out, ids[0]) || !strings.Contains(out, ids[1]) {
		t.Fatalf("first command: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = run(t, "inspect", ids[1], "--json")
	if code != ExitOK || errOut != "" || !strings.Contains(out, ids[1]) {
		t.Fatalf("inspect after the migration: exit %d, %.300q %q", code, out, errOut)
	}
	// The sessions are in the database the service opens.
	db, err := storeurl.Open("sqlite:", storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := db.List(t.Context(), session.ListOptions{})
	_ = db.Close()
	if err != nil || len(ss) != 2 {
		t.Fatalf("the database holds %d sessions (%v), want 2", len(ss), err)
	}
	for f, b := range before {
		if now, err := os.ReadFile(f); err != nil || !bytes.Equal(now, b) {
			t.Errorf("%s changed or went: %v", f, err)
		}
	}
}

// storedLines returns the lines of stored session id in the default
// store of home, as stored.
func storedLines(t *testing.T, home, id string) []string {
	t.Helper()
	st, err := storeurl.Open("", storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, entries, err := st.(session.Exporter).Export(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for e, err := range entries {
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(e.Raw))
	}
	return lines
}

// storedCount returns how many sessions the SQLite database in folder dir
// holds (0 when there is none).
func storedCount(t *testing.T, dir string) int {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, sqlitestore.FileName)); err != nil {
		return 0
	}
	st, err := storeurl.Open("sqlite:", storeurl.Options{Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ss, err := st.List(t.Context(), session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(ss)
}
