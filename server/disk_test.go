package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoServerFileReads checks that a session cannot have a file of the
// server's disk put into its requests: a tool call that "read" a server
// file, then a summarizing compaction (whose summary and rehydration
// re-read the files read, in a local agent) leave the file's content out.
func TestNoServerFileReads(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("SERVER-SECRET-CONTENT\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Options{}, true)
	id := ts.createSession(t, tokenA, map[string]any{"tools": []any{readFileTool}, "project": filepath.Dir(secret)})
	base := "/v1/sessions/" + id
	for i, name := range []string{"secret.txt", secret} {
		call := "call_" + string(rune('a'+i))
		ts.call(t, "POST", base+"/messages", tokenA, map[string]any{"format": "chat", "messages": []any{
			map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": "read " + name + " please " + strings.Repeat("and more ", 50)}}},
			map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "tool_call", "id": call, "name": "read_file", "arguments": map[string]string{"path": name}}}},
			map[string]any{"role": "tool", "parts": []any{map[string]any{"type": "tool_result", "tool_call_id": call, "tool_name": "read_file", "content": "the agent's copy " + strings.Repeat("line\n", 50)}}},
			map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "text": "done " + strings.Repeat("words ", 50)}}},
		}}).must(t, 200)
	}
	var c compactView
	ts.call(t, "POST", base+"/compact", tokenA, `{"instructions":"keep the file names"}`).must(t, 200).decode(t, &c)
	if len(c.Compactions) == 0 {
		t.Fatal("nothing compacted")
	}
	// The entry count, as a read of the session gives it (the
	// compaction's entries included).
	var sess struct {
		Entries int `json:"entries"`
	}
	ts.call(t, "GET", base, tokenA, nil).must(t, 200).decode(t, &sess)
	if c.Entries != sess.Entries || c.Entries < 2 {
		t.Errorf("the compaction gives %d entries, the session %d", c.Entries, sess.Entries)
	}
	for _, f := range []string{"openai", "chat"} {
		res := ts.call(t, "POST", base+"/request", tokenA, map[string]string{"format": f}).must(t, 200)
		if strings.Contains(string(res.Body), "SERVER-SECRET") {
			t.Fatalf("%s request holds the server file's content: %s", f, res.Body)
		}
	}
	exp := ts.call(t, "GET", base+"/export", tokenA, nil).must(t, 200)
	if strings.Contains(string(exp.Body), "SERVER-SECRET") {
		t.Fatal("the session holds the server file's content")
	}
}
