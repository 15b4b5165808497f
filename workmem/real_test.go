package workmem

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
)

// TestRealPlans checks plan extraction on the numbered and bulleted lists
// found in assistant texts of the shared trajectories.
func TestRealPlans(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	tests := []struct {
		file, marker string // marker: a substring of the assistant text
		steps        int
		first, last  string
	}{
		{"claude-code/6c2214d7-b87e-4432-8e41-22ba294ea584/subagents/agent-afc096d.jsonl", "Integrates Oban", 5,
			"Discovers and displays tmux panes (focusing on Claude Code sessions)", "Integrates Oban for background job queuing"},
		{"mini-swe-agent/deepseek_bench_dev/pydicom__pydicom-1694.traj.json", "is at column 8", 6,
			"json_dataset = {} is at column 8", "json_dataset[json_key] = data_element.to_json_dict( is at column 16"},
		{"openhands/output.jsonl", "Explored the repository structure", 2,
			"Explored the repository structure and identified relevant files.", "Modified the idseqsingle rule in parser.c to set the AST_FLAG_IN_PARENS flag."},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			t.Parallel()
			trs, err := transcript.ReadFile(filepath.Join(root, tc.file), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tr := range trs {
				for _, m := range tr.Messages {
					if m.Role != chat.RoleAssistant || !strings.Contains(m.Text(), tc.marker) {
						continue
					}
					found = true
					s := ExtractSteps(m.Text())
					if len(s) != tc.steps || s[0].Description != tc.first || s[len(s)-1].Description != tc.last {
						t.Errorf("steps = %d %+v", len(s), s)
					}
				}
			}
			if !found {
				t.Fatalf("no assistant message contains %q", tc.marker)
			}
		})
	}
}

// TestRealReplay feeds every shared trajectory to an ActiveContext message
// by message and checks the invariants on real data: every tool call and
// result is recorded, BuildContext fits its budget, and the state survives
// the JSON round trip.
func TestRealReplay(t *testing.T) {
	t.Parallel()
	files, err := transcript.Collect([]string{sharedtest.Dir(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		trs, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			continue // unreadable files are the transcript package's concern
		}
		for _, tr := range trs {
			a := New(firstUser(tr.Messages), Options{Now: fixedClock()})
			calls, results := 0, 0
			for _, m := range tr.Messages {
				a.ObserveMessage(m)
				for _, p := range m.Parts {
					switch p.(type) {
					case chat.ToolCall:
						calls++
					case chat.ToolResult:
						results++
					}
				}
			}
			s := a.Stats()
			if s.TotalActions != calls || s.TotalObservations != results {
				t.Errorf("%s#%d: actions %d observations %d, want %d %d", f, tr.Index, s.TotalActions, s.TotalObservations, calls, results)
			}
			for _, budget := range []int{50, 2000} {
				out, n := a.BuildContextTokens(budget)
				if c := a.counter.Count(out); c > budget || c != n {
					t.Errorf("%s#%d: BuildContext(%d) is %d tokens, BuildContextTokens says %d", f, tr.Index, budget, c, n)
				}
			}
			roundTrip(t, a)
		}
	}
}

func firstUser(msgs []chat.Message) string {
	for _, m := range msgs {
		if m.Role == chat.RoleUser {
			return m.Text()
		}
	}
	return ""
}
