package session_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/session"
)

// TestHistory leaves out what compaction wrote after each boundary: the
// messages agentctx's boundary announces, Claude Code's summary entry.
func TestHistory(t *testing.T) {
	t.Parallel()
	user := func(text string) string { return `{"role":"user","content":"` + text + `"}` }
	data := lines(
		ccLine("u1", "", "user", user("first")),
		ccLine("a1", "u1", "assistant", `{"role":"assistant","content":[{"type":"text","text":"ok"}]}`),
		`{"parentUuid":null,"logicalParentUuid":"a1","type":"system","subtype":"compact_boundary","uuid":"b1","sessionId":"s1","compactMetadata":{"trigger":"auto","preTokens":50,"messages":2}}`,
		ccLine("n1", "b1", "user", user("note of what was removed")),
		ccLine("k1", "n1", "assistant", `{"role":"assistant","content":[{"type":"text","text":"ok"}]}`),
		ccLine("u2", "k1", "user", user("second")),
		`{"parentUuid":null,"logicalParentUuid":"u2","type":"system","subtype":"compact_boundary","uuid":"b2","sessionId":"s1","compactMetadata":{"trigger":"manual","preTokens":60}}`,
		ccLine("s2", "b2", "user", user("summary"), `"isCompactSummary":true`),
		ccLine("u3", "s2", "user", user("third")),
	)
	es, _ := read(t, "s.jsonl", data)
	resolved, _ := session.Resolve(es)
	got := uuids(session.History(resolved))
	want := []string{"u1", "a1", "b1", "u2", "b2", "u3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
	msgs, _ := session.Messages(session.History(resolved))
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Text())
	}
	if diff := cmp.Diff([]string{"first", "ok", "second", "third"}, texts); diff != "" {
		t.Errorf("messages of the history (-want +got):\n%s", diff)
	}
}
