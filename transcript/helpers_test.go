package transcript_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

// render turns messages into one readable line each, for cmp.Diff.
func render(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		var b strings.Builder
		b.WriteString(string(m.Role))
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				fmt.Fprintf(&b, " text=%q", p.Text)
			case chat.ToolCall:
				fmt.Fprintf(&b, " call=%s/%s%s", p.ID, p.Name, p.Arguments)
			case chat.ToolResult:
				fmt.Fprintf(&b, " result=%s/%s=%q", p.ToolCallID, p.ToolName, p.Content)
				if p.IsError {
					b.WriteString("!")
				}
			case chat.Thinking:
				fmt.Fprintf(&b, " think=%q", p.Text)
				if p.Signature != "" {
					fmt.Fprintf(&b, "/sig=%s", p.Signature)
				}
				if p.Encrypted != "" {
					fmt.Fprintf(&b, "/enc=%s", p.Encrypted)
				}
			case chat.Image:
				fmt.Fprintf(&b, " image=%s/%d", p.Source, p.Bytes)
			case chat.Opaque:
				fmt.Fprintf(&b, " opaque=%s/%s%s", p.Kind, p.Raw, p.Text)
			}
		}
		if u := m.Usage; u != nil {
			fmt.Fprintf(&b, " usage=in%d/out%d/cr%d/cw%d/r%d", u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens)
		}
		out = append(out, b.String())
	}
	return out
}

// lines joins JSONL records.
func lines(ls ...string) string {
	return strings.Join(ls, "\n") + "\n"
}

// readOne reads input as format f and requires exactly one trajectory.
func readOne(t *testing.T, f transcript.Format, input string) *transcript.Trajectory {
	t.Helper()
	trs, err := transcript.Read(strings.NewReader(input), "test", transcript.Options{Format: f})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(trs) != 1 {
		t.Fatalf("Read: got %d trajectories, want 1", len(trs))
	}
	checkPairs(t, trs[0].Messages)
	return trs[0]
}

// checkPairs asserts the reader invariant: no orphan tool result.
func checkPairs(t testing.TB, msgs []chat.Message) {
	t.Helper()
	if p := chat.Pair(msgs); len(p.Orphans) > 0 {
		t.Errorf("orphan tool results at %v", p.Orphans)
	}
}

type readCase struct {
	name  string
	input string
	want  []string
}

func runCases(t *testing.T, f transcript.Format, cases []readCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := readOne(t, f, tc.input)
			if diff := cmp.Diff(tc.want, render(tr.Messages)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if len(tr.Problems) > 0 {
				t.Errorf("unexpected problems: %v", tr.Problems)
			}
		})
	}
}
