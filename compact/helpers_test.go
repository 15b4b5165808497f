package compact_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
)

// quarterCounter is a fast deterministic stand-in for a tokenizer: one
// token per 4 bytes, rounded up (a CJK rune, 3 bytes, is about one token).
type quarterCounter struct{}

func (quarterCounter) Count(s string) int { return (len(s) + 3) / 4 }
func (quarterCounter) Name() string       { return "quarter" }

func newWindow(t testing.TB, opts window.Options, msgs ...chat.Message) *window.Window {
	t.Helper()
	if opts.Counter == nil {
		opts.Counter = quarterCounter{}
	}
	w, err := window.New(opts)
	if err != nil {
		t.Fatalf("window.New: %v", err)
	}
	for i, m := range msgs {
		if err := w.Add(m); err != nil {
			t.Fatalf("Add #%d: %v", i, err)
		}
	}
	return w
}

func sys(s string) chat.Message  { return chat.NewText(chat.RoleSystem, s) }
func user(s string) chat.Message { return chat.NewText(chat.RoleUser, s) }
func asst(s string) chat.Message { return chat.NewText(chat.RoleAssistant, s) }

// round returns an assistant message calling tool on path with id, and
// its result.
func round(id, tool, path, content string) []chat.Message {
	// path for a search's directory and the seeds' tools, file_path for
	// Claude Code's Read and Edit (read, edit).
	args, _ := json.Marshal(map[string]string{"path": path, "file_path": path})
	return []chat.Message{
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: tool, Arguments: args}}},
		chat.NewToolResult(id, tool, content, false),
	}
}

// lines returns text of exactly n runes made of numbered lines.
func lines(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d: some tool output text\n", i)
	}
	return b.String()[:n]
}

func repeatRunes(s string, n int) string {
	r := []rune(strings.Repeat(s, n/utf8.RuneCountInString(s)+1))
	return string(r[:n])
}

func concat(parts ...[]chat.Message) []chat.Message {
	var out []chat.Message
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func one(m chat.Message) []chat.Message { return []chat.Message{m} }

// checkWindow fails t unless w is sound and its accounting is right.
func checkWindow(t testing.TB, w *window.Window) {
	t.Helper()
	if vs := w.Check(); len(vs) > 0 {
		t.Fatalf("Check: %v", vs)
	}
	if got, want := w.Tokens(), token.Messages(w.Counter(), w.Overhead(), w.Messages())+w.Reserved(); got != want {
		t.Fatalf("Tokens() = %d, recount %d", got, want)
	}
}

// checkRecords fails t unless recs describe, consistently, a compaction of
// w from size before: sizes chain, levels escalate, the last record
// matches the window.
func checkRecords(t testing.TB, recs []compact.Record, strategy string, before int, w *window.Window) {
	t.Helper()
	prev, last := before, compact.LevelNone
	for i, r := range recs {
		if r.Strategy != strategy || r.Budget != w.Budget() {
			t.Fatalf("record %d: strategy %q budget %d, want %q %d", i, r.Strategy, r.Budget, strategy, w.Budget())
		}
		if r.TokensBefore != prev {
			t.Fatalf("record %d (%s): TokensBefore %d, want the previous size %d", i, r.Level, r.TokensBefore, prev)
		}
		ok := r.Level > last && r.Level >= compact.LevelL1 && r.Level <= compact.LevelCut
		switch r.Level {
		case compact.LevelMask, compact.LevelTruncate:
			ok = i == 0 // masking (or opencode's prune) and truncation come first, then escalation
		case compact.LevelSummary:
			ok = last <= compact.LevelL1 // a summary comes after a prune or an L1 cut at most
		}
		if !ok {
			t.Fatalf("record %d: level %s after %s", i, r.Level, last)
		}
		if want := w.Budget() > 0 && r.TokensAfter > w.Budget(); r.OverBudget != want {
			t.Fatalf("record %d (%s): OverBudget %v with %d of %d tokens", i, r.Level, r.OverBudget, r.TokensAfter, w.Budget())
		}
		if r.MessagesRemoved < 0 || r.RoundsRemoved < 0 || r.RoundsRemoved > r.MessagesRemoved || r.ResultsCut < 0 || r.MessagesCut < 0 {
			t.Fatalf("record %d: impossible counts %+v", i, r)
		}
		if r.TokensRemoved() != r.TokensBefore-r.TokensAfter {
			t.Fatalf("record %d: TokensRemoved %d", i, r.TokensRemoved())
		}
		prev = r.TokensAfter
		switch r.Level {
		case compact.LevelMask:
		case compact.LevelSummary, compact.LevelTruncate:
			last = compact.LevelNone // the tiered levels may follow from L1
		default:
			last = r.Level
		}
	}
	if prev != w.Size() {
		t.Fatalf("last record says %d tokens, window has %d", prev, w.Size())
	}
}

func levels(recs []compact.Record) []compact.Level {
	out := []compact.Level{}
	for _, r := range recs {
		out = append(out, r.Level)
	}
	return out
}

// ids returns the ID of every message of w.
func ids(w *window.Window) []string {
	var out []string
	for _, m := range w.Messages() {
		out = append(out, m.ID)
	}
	return out
}

// withIDs sets each message's ID to m<index>, so messages can be followed
// through compaction.
func withIDs(msgs []chat.Message) []chat.Message {
	for i := range msgs {
		msgs[i].ID = fmt.Sprintf("m%d", i)
	}
	return msgs
}

// openCalls counts the calls of id that no result in msgs answers. With
// every result paired (Check passes), that is calls minus results.
func openCalls(msgs []chat.Message, id string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == chat.RoleAssistant {
			for _, c := range m.ToolCalls() {
				if c.ID == id {
					n++
				}
			}
		}
		if r, ok := m.ToolResult(); ok && m.Role == chat.RoleTool && r.ToolCallID == id {
			n--
		}
	}
	return n
}
