package transcript

import (
	"maps"
	"os"
	"strings"
	"testing"
)

// TestNonContextKindsInREADME: every known non-context kind of every
// reader's table is named in docs/transcripts.md's per-format table, on its
// format's row (issue 28: each reader lists its kinds in one table,
// documented there).
func TestNonContextKindsInREADME(t *testing.T) {
	data, err := os.ReadFile("../docs/transcripts.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[Format]string{}
	for line := range strings.SplitSeq(string(data), "\n") {
		for _, f := range Formats() {
			if strings.HasPrefix(line, "| `"+string(f)+"`") {
				rows[f] = line
			}
		}
	}
	for _, f := range Formats() {
		kinds := NonContextKinds(f)
		for _, k := range nonContextNames(kinds) {
			if !strings.Contains(rows[f], "`"+k+"`") {
				t.Errorf("docs/transcripts.md's %s row does not name the known non-context kind `%s`", f, k)
			}
		}
	}
}

// TestNonContextCounted: each reader counts its known non-context records
// by kind, and leaves them out of Dropped and Problems.
func TestNonContextCounted(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[string]int
	}{
		{"codex", `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s1"}}
{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}
{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}
{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{"id":"abc"}}}
{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}}
`, map[string]int{"event_msg": 1, "ghost_snapshot": 1}},
		{"copilot-cli", `{"type":"session.start","id":"e1","data":{"sessionId":"s1"}}
{"type":"user.message","id":"e2","data":{"content":"hi"}}
{"type":"assistant.turn_start","id":"e3","data":{"turnId":"0"}}
{"type":"assistant.message","id":"e4","data":{"messageId":"m1","content":"ok"}}
{"type":"assistant.turn_end","id":"e5","data":{"turnId":"0"}}
`, map[string]int{"assistant.turn_start": 1, "assistant.turn_end": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trs, err := Read(strings.NewReader(tc.in), tc.name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			tr := trs[0]
			if len(tr.Dropped) > 0 || len(tr.Problems) > 0 {
				t.Errorf("dropped %v, problems %v; want none", tr.Dropped, tr.Problems)
			}
			if !maps.Equal(tr.NonContext, tc.want) {
				t.Errorf("non-context %v, want %v", tr.NonContext, tc.want)
			}
		})
	}
}
