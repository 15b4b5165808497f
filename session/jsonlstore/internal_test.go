package jsonlstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

// line returns a transcript line of an entry with uuid u.
func line(u string, extra string) string {
	return fmt.Sprintf(`{"uuid":%q,"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"type":"text","text":%q}]}%s}`, u, "hi", extra)
}

func TestLastEntry(t *testing.T) {
	t.Parallel()
	big := line("big", `,"pad":"`+strings.Repeat("x", 3*tailChunk+17)+`"`)
	for _, c := range []struct {
		name, data string
		uuid       string
		torn       bool
	}{
		{"empty", "", "", false},
		{"one", line("a", "") + "\n", "a", false},
		{"two", line("a", "") + "\n" + line("b", "") + "\n", "b", false},
		{"torn", line("a", "") + "\n" + `{"uuid":"c","type":"us`, "a", true},
		{"torn only", `{"uuid":"c","type":"us`, "", true},
		{"torn newline only", "\n", "", false},
		{"crlf", line("a", "") + "\r\n", "a", false},
		{"foreign without uuid last", line("a", "") + "\n" + `{"type":"file-history-snapshot","messageId":"m"}` + "\n", "a", false},
		{"side chain last", line("a", "") + "\n" + line("side", `,"isSidechain":true`) + "\n", "a", false},
		{"malformed last", line("a", "") + "\nnot json\n\n", "a", false},
		{"big last line", line("a", "") + "\n" + big + "\n", "big", false},
		{"big torn line", line("a", "") + "\n" + big[:len(big)-5], "a", true},
		{"torn line complete but its newline", line("a", "") + "\n" + line("b", ""), "b", true},
		{"torn after blank lines", line("a", "") + "\n\n\n" + `{"uu`, "a", true},
		{"big before", big + "\n" + line("z", "") + "\n", "z", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			u, torn, err := lastEntry(strings.NewReader(c.data), int64(len(c.data)))
			if err != nil || u != c.uuid || torn != c.torn {
				t.Errorf("lastEntry = %q, %v, %v; want %q, %v", u, torn, err, c.uuid, c.torn)
			}
		})
	}
}

func TestEndsTurn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		e    session.Entry
		want bool
	}{
		{"assistant text", session.Entry{Type: "assistant", Message: json.RawMessage(`{"role":"assistant","parts":[{"type":"text","text":"done"}]}`)}, true},
		{"assistant tool call", session.Entry{Type: "assistant", Message: json.RawMessage(`{"role":"assistant","parts":[{"type":"text","text":"x"},{"type":"tool_call","id":"1","name":"ls"}]}`)}, false},
		{"claude code text", session.Entry{Type: "assistant", Message: json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"x"}]}`)}, true},
		{"claude code tool use", session.Entry{Type: "assistant", Message: json.RawMessage(`{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"Bash","input":{}}]}`)}, false},
		{"user", session.Entry{Type: "user", Message: json.RawMessage(`{"role":"user","parts":[{"type":"text","text":"x"}]}`)}, false},
		{"tool result", session.Entry{Type: "tool_result", ToolResult: &session.ToolResult{ID: "1"}}, false},
		{"no message", session.Entry{Type: "assistant"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := session.EndsTurn(&c.e); got != c.want {
				t.Errorf("EndsTurn = %v, want %v", got, c.want)
			}
		})
	}
}

// TestSyncsAtTurn: under the turn policy a turn's end and the compact
// boundaries that cannot be redone for free are synced; an automatic
// local compaction is not.
func TestSyncsAtTurn(t *testing.T) {
	t.Parallel()
	bnd := func(m *session.CompactMetadata) session.Entry {
		return session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary, CompactMetadata: m}
	}
	for _, c := range []struct {
		name string
		e    session.Entry
		want bool
	}{
		{"turn end", session.Entry{Type: "assistant", Message: json.RawMessage(`{"role":"assistant","parts":[{"type":"text","text":"done"}]}`)}, true},
		{"tool call", session.Entry{Type: "assistant", Message: json.RawMessage(`{"role":"assistant","parts":[{"type":"tool_call","id":"1","name":"ls"}]}`)}, false},
		{"auto tiered", bnd(&session.CompactMetadata{Trigger: "auto", Strategy: "tiered", Level: "L2"}), false},
		{"auto extractive summary", bnd(&session.CompactMetadata{Trigger: "auto", Level: "L3", Summarizer: "extractive"}), false},
		{"auto model summary", bnd(&session.CompactMetadata{Trigger: "auto", Level: "L3", Summarizer: "llm:anthropic/claude-haiku-4-5"}), true},
		{"auto summary with usage", bnd(&session.CompactMetadata{Trigger: "auto", Usage: &chat.Usage{InputTokens: 9000}}), true},
		{"manual", bnd(&session.CompactMetadata{Trigger: "manual", Level: "L1"}), true},
		{"fork", bnd(&session.CompactMetadata{Trigger: session.TriggerFork}), true},
		{"rewind", bnd(&session.CompactMetadata{Trigger: session.TriggerRewind}), true},
		{"boundary without metadata", bnd(nil), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := session.SyncsAtTurn(&c.e); got != c.want {
				t.Errorf("SyncsAtTurn = %v, want %v", got, c.want)
			}
		})
	}
}

// TestWriteAtomicMode checks that a file written through a temporary file
// is 0600 whatever it replaces: the rename keeps the temporary file's
// mode, so this is the temporary file's mode too.
func TestWriteAtomicMode(t *testing.T) {
	t.Parallel()
	dst := filepath.Join(t.TempDir(), "x.meta.json")
	if err := os.WriteFile(dst, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(dst, []byte("new\n"), true); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != fileMode {
		t.Errorf("mode %v, want %v", st.Mode().Perm(), os.FileMode(fileMode))
	}
	if b, _ := os.ReadFile(dst); string(b) != "new\n" {
		t.Errorf("content %q", b)
	}
	des, _ := os.ReadDir(filepath.Dir(dst))
	if len(des) != 1 {
		t.Errorf("temporary files left: %v", des)
	}
}
