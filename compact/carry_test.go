package compact_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/window"
)

// instructionPhase is a stretch of history holding one user instruction
// followed by enough tool rounds to fill a 4,000-token window.
func instructionPhase(k int, instruction string) []chat.Message {
	msgs := []chat.Message{user(fmt.Sprintf("phase %d. %s", k, instruction))}
	for i := range 8 {
		msgs = append(msgs, round(fmt.Sprintf("p%dc%d", k, i), "Read", fmt.Sprintf("src/p%d_%d.go", k, i), lines(1800))...)
		msgs = append(msgs, asst(fmt.Sprintf("read file %d of phase %d", i, k)))
	}
	return msgs
}

// TestInstructionsSurviveSummaries: after three successive summaries,
// by the extractive summarizer and by a model that ignores the user's
// instructions, every instruction sentence of every summarized span is
// in the window verbatim, and the summary names every span it covers.
func TestInstructionsSurviveSummaries(t *testing.T) {
	t.Parallel()
	instructions := []string{
		"Never edit the generated files under gen/.",
		"Always run the tests with -race before you commit.",
		"No, use the lexer instead of regular expressions.",
	}
	for _, tc := range []struct {
		name string
		sum  compact.Summarizer
	}{
		{"extractive", nil},
		{"model ignoring them", fixed("## Primary request\nwork on the phases")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{Budget: 4000}, sys("you are a coding agent"), user("work through the phases"))
			s := &compact.Summarize{Summarizer: tc.sum}
			for k, in := range instructions {
				for _, m := range instructionPhase(k, in) {
					if err := w.Add(m); err != nil {
						t.Fatal(err)
					}
				}
				s.State.Calls += compact.DefaultMinCallsBetween
				recs, err := s.Compact(context.Background(), w)
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) == 0 || recs[0].Level != compact.LevelSummary {
					t.Fatalf("phase %d: records %+v, want a summary", k, recs)
				}
				if want := fmt.Sprintf("s%d", k+1); recs[0].Span != want || len(recs[0].SpanMessages) == 0 {
					t.Fatalf("phase %d: span %q with %d messages, want %s", k, recs[0].Span, len(recs[0].SpanMessages), want)
				}
				checkWindow(t, w)
			}
			note := w.At(w.Note()).Text()
			for _, in := range instructions {
				if !strings.Contains(note, "- "+in+"\n") {
					t.Errorf("instruction %q lost after three summaries:\n%s", in, note)
				}
			}
			if got := compact.SummarySpans(note); !slices.Equal(got, []string{"s1", "s2", "s3"}) {
				t.Errorf("spans named %v, want s1 s2 s3", got)
			}
		})
	}
}

// TestCarriedInstructionsCap: over the cap, the newest sentences are
// kept, in order, each once.
func TestCarriedInstructionsCap(t *testing.T) {
	t.Parallel()
	var msgs []chat.Message
	for i := range 200 {
		msgs = append(msgs, user(fmt.Sprintf("Never touch file number %d in this repository.", i)))
	}
	msgs = append(msgs, user("Never touch file number 199 in this repository."))
	got := compact.CarriedInstructions(compact.SummaryRequest{Messages: msgs, MaxTokens: 800}, quarterCounter{})
	if len(got) == 0 || len(got) >= 200 {
		t.Fatalf("%d sentences kept, want a capped share", len(got))
	}
	if last := got[len(got)-1]; last != "Never touch file number 199 in this repository." {
		t.Fatalf("last kept %q, want the newest", last)
	}
	sum := 0
	for _, s := range got {
		sum += quarterCounter{}.Count("- "+s) + 1
	}
	if sum > compact.InstructionTokens(800) {
		t.Fatalf("%d tokens kept, over the cap of %d", sum, compact.InstructionTokens(800))
	}
	// A previous summary's section is carried first.
	prev := compact.SummaryHeader + "\n\n" + compact.SecInstructions + "\n- Only change the parser package.\n\n## Focus\n  x"
	got = compact.CarriedInstructions(compact.SummaryRequest{Previous: prev, Messages: msgs[:1]}, nil)
	if !slices.Equal(got, []string{"Only change the parser package.", "Never touch file number 0 in this repository."}) {
		t.Fatalf("carried %q", got)
	}
}
