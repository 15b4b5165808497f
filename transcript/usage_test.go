package transcript_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/transcript"
)

// TestImplausibleUsageDropped: usage records with a negative count or one
// above chat.MaxCallTokens (a sessions list once showed 1,099,511,627,776
// tokens, 2^40) are dropped by every reader, counted in DroppedUsage and
// reported as a Problem naming the message; plausible ones are kept.
func TestImplausibleUsageDropped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		format transcript.Format
		input  string
		kept   int // messages that keep a usage
		drops  int
		reason string // in the first problem
	}{
		{
			name:   "claude code 2^40 and negative",
			format: transcript.FormatClaudeCode,
			input: lines(
				ccUser1,
				`{"type":"assistant","sessionId":"s1","uuid":"a1","message":{"id":"m1","role":"assistant","content":"one","usage":{"input_tokens":1099511627776,"output_tokens":5}}}`,
				`{"type":"user","sessionId":"s1","uuid":"u2","message":{"role":"user","content":"more"}}`,
				`{"type":"assistant","sessionId":"s1","uuid":"a2","message":{"id":"m2","role":"assistant","content":"two","usage":{"input_tokens":10,"cache_read_input_tokens":-3,"output_tokens":5}}}`,
				`{"type":"user","sessionId":"s1","uuid":"u3","message":{"role":"user","content":"again"}}`,
				`{"type":"assistant","sessionId":"s1","uuid":"a3","message":{"id":"m3","role":"assistant","content":"three","usage":{"input_tokens":10,"cache_read_input_tokens":3000,"output_tokens":5}}}`,
				`{"type":"system","subtype":"compact_boundary","sessionId":"s1","uuid":"b1","compactMetadata":{"trigger":"auto","preTokens":"5e12"}}`,
			),
			kept: 1, drops: 3, reason: `message 1 (id "m1")`,
		},
		{
			name:   "codex token_count above the limit",
			format: transcript.FormatCodex,
			input: lines(
				`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`,
				`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"yo"}]}}`,
				`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":200000000,"output_tokens":1}}}}`,
			),
			kept: 0, drops: 1, reason: "message 1",
		},
		{
			name:   "mini-swe-agent negative completion tokens",
			format: transcript.FormatMiniSWEAgent,
			input: `{"info":{"mini_version":"2.2.7"},"messages":[{"role":"user","content":"hi"},
 {"role":"assistant","content":"yo","extra":{"response":{"usage":{"prompt_tokens":12,"completion_tokens":-4}}}},
 {"role":"user","content":"again"},
 {"role":"assistant","content":"ok","extra":{"response":{"usage":{"prompt_tokens":12,"completion_tokens":4}}}}]}`,
			kept: 1, drops: 1, reason: "message 1",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := readOne(t, tc.format, tc.input)
			kept := 0
			for _, m := range tr.Messages {
				if m.Usage == nil {
					continue
				}
				kept++
				if err := m.Usage.Validate(); err != nil {
					t.Errorf("kept an implausible usage: %v", err)
				}
			}
			if kept != tc.kept || tr.DroppedUsage != tc.drops {
				t.Fatalf("kept %d usages, dropped %d; want %d, %d (problems %v)", kept, tr.DroppedUsage, tc.kept, tc.drops, tr.Problems)
			}
			var found int
			for _, p := range tr.Problems {
				if errors.Is(p.Err, chat.ErrImplausibleUsage) {
					if found == 0 && !strings.Contains(p.Err.Error(), tc.reason) {
						t.Errorf("first dropped usage is reported as %q, want it to name %s", p.Err, tc.reason)
					}
					found++
				}
			}
			if found != tc.drops {
				t.Errorf("%d problems report a dropped usage, want %d: %v", found, tc.drops, tr.Problems)
			}
			for _, c := range tr.Compactions {
				if c.PreTokens < 0 || c.PreTokens > chat.MaxCallTokens {
					t.Errorf("compaction keeps PreTokens %d", c.PreTokens)
				}
			}
		})
	}
}
