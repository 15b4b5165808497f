package transcript_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

// stats summarizes a trajectory for the checks on real files.
type stats struct {
	Messages, System, User, Assistant, Tool int
	Calls, Usage                            int
}

func statsOf(msgs []chat.Message) stats {
	var s stats
	s.Messages = len(msgs)
	for _, m := range msgs {
		switch m.Role {
		case chat.RoleSystem:
			s.System++
		case chat.RoleUser:
			s.User++
		case chat.RoleAssistant:
			s.Assistant++
		case chat.RoleTool:
			s.Tool++
		}
		s.Calls += len(m.ToolCalls())
		if m.Usage != nil {
			s.Usage++
		}
	}
	return s
}

// Known facts about the shared data (SOURCES.md, FORMATS.md), measured by
// hand with jq: one response per message.id or per token_count, one tool
// message per result.
var realStats = map[string][]stats{
	"claude-code/6c2214d7-b87e-4432-8e41-22ba294ea584/subagents/agent-afc096d.jsonl":         {{Messages: 67, User: 1, Assistant: 18, Tool: 48, Calls: 48, Usage: 18}},
	"claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl":                                 {{Messages: 323, User: 3, Assistant: 143, Tool: 177, Calls: 177, Usage: 143}},
	"claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-acompact-f46190.jsonl": {{Messages: 7, User: 6, Assistant: 1, Usage: 1}},
	"claude-code/short.jsonl":      {{Messages: 5, User: 2, Assistant: 1, Tool: 2, Calls: 2, Usage: 1}},
	"claude-code/tool_heavy.jsonl": {{Messages: 17, User: 7, Assistant: 4, Tool: 6, Calls: 6, Usage: 4}},
	"codex/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl": {{Messages: 154, System: 5, User: 3, Assistant: 28, Tool: 118, Calls: 118, Usage: 28}},
	"codex/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl": {{Messages: 255, System: 16, User: 13, Assistant: 83, Tool: 143, Calls: 144, Usage: 83}},
	"codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl": {{Messages: 10, System: 5, User: 4, Assistant: 1, Calls: 1, Usage: 1}},
	// 122 records: 121 messages and the exit record.
	"mini-swe-agent/deepseek_bench_dev/pydicom__pydicom-1694.traj.json": {{Messages: 121, System: 1, User: 1, Assistant: 60, Tool: 59, Calls: 60, Usage: 60}},
	// 3 runs, 23 + 33 + 49 = 105 tool calls.
	"openhands/output.jsonl": {
		{Messages: 47, System: 1, User: 1, Assistant: 23, Tool: 22, Calls: 23, Usage: 23},
		{Messages: 68, System: 1, User: 2, Assistant: 33, Tool: 32, Calls: 33, Usage: 33},
		{Messages: 101, System: 1, User: 2, Assistant: 49, Tool: 49, Calls: 49, Usage: 49},
	},
	"swe-agent/marshmallow-code__marshmallow-1867.traj": {{Messages: 28, System: 1, User: 1, Assistant: 13, Tool: 13, Calls: 13}},
	// 12 model calls; the last (submit) has no observation.
	"swe-agent/pydicom__pydicom-1458.traj": {{Messages: 26, System: 1, User: 2, Assistant: 12, Tool: 11, Calls: 12}},
}

func TestReadRealFiles(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	for _, path := range sharedtest.Files(t) {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			trs, err := transcript.ReadFile(path, transcript.Options{})
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			wantFormat := map[string]transcript.Format{
				"claude-code": transcript.FormatClaudeCode, "codex": transcript.FormatCodex,
				"mini-swe-agent": transcript.FormatMiniSWEAgent, "openhands": transcript.FormatOpenHands,
				"swe-agent": transcript.FormatSWEAgent,
			}[strings.Split(rel, "/")[0]]
			if f, err := transcript.Detect(data); err != nil || f != wantFormat {
				t.Errorf("Detect = %q, %v; want %q", f, err, wantFormat)
			}
			var got []stats
			for _, tr := range trs {
				if tr.Format != wantFormat || tr.File != path {
					t.Errorf("trajectory %d: format %q file %q", tr.Index, tr.Format, tr.File)
				}
				if len(tr.Problems) > 0 {
					t.Errorf("trajectory %d: problems %v", tr.Index, tr.Problems)
				}
				checkPairs(t, tr.Messages)
				checkShape(t, tr.Messages)
				got = append(got, statsOf(tr.Messages))
			}
			if want, ok := realStats[rel]; ok {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("stats (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// checkShape asserts the message-level rules: valid roles, one ToolResult
// per tool message and none elsewhere, tool calls only on assistant
// messages with JSON arguments.
func checkShape(t *testing.T, msgs []chat.Message) {
	t.Helper()
	for i, m := range msgs {
		if !m.Role.Valid() {
			t.Errorf("message %d: role %q", i, m.Role)
		}
		results := 0
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ToolResult:
				results++
			case chat.ToolCall:
				if m.Role != chat.RoleAssistant {
					t.Errorf("message %d: tool call on a %s message", i, m.Role)
				}
				if !json.Valid(p.Arguments) {
					t.Errorf("message %d: call %s arguments are not JSON: %s", i, p.ID, p.Arguments)
				}
			}
		}
		if (m.Role == chat.RoleTool) != (results == 1) || results > 1 {
			t.Errorf("message %d: role %s with %d tool results", i, m.Role, results)
		}
	}
}

func realFile(t *testing.T, rel string) []*transcript.Trajectory {
	t.Helper()
	trs, err := transcript.ReadFile(filepath.Join(sharedtest.Dir(t), filepath.FromSlash(rel)), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return trs
}

func TestRealFacts(t *testing.T) {
	t.Parallel()
	t.Run("claude code compaction", func(t *testing.T) {
		t.Parallel()
		tr := realFile(t, "claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")[0]
		if len(tr.Compactions) != 1 {
			t.Fatalf("got %d compactions, want 1", len(tr.Compactions))
		}
		c := tr.Compactions[0]
		if c.Trigger != "auto" || c.PreTokens != 167731 || c.At != 160 {
			t.Errorf("compaction = trigger %q pre %d at %d; want auto 167731 160", c.Trigger, c.PreTokens, c.At)
		}
		m := tr.Messages[c.At]
		if m.Role != chat.RoleUser || m.Text() != c.Summary || !strings.HasPrefix(c.Summary, "This session is being continued") {
			t.Errorf("Messages[At] is not the summary: %s %.60q", m.Role, m.Text())
		}
		if tr.ID != "8463c716-a2ea-4c14-9efa-87158ebd9f20" || tr.Model != "claude-opus-4-6" {
			t.Errorf("ID, Model = %q, %q", tr.ID, tr.Model)
		}
	})
	t.Run("claude code compaction call", func(t *testing.T) {
		t.Parallel()
		tr := realFile(t, "claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-acompact-f46190.jsonl")[0]
		last := tr.Messages[len(tr.Messages)-1]
		if last.Usage == nil || last.Usage.PromptTokens() != 169910 {
			t.Errorf("summary call usage = %+v, want a 169,910-token prompt", last.Usage)
		}
	})
	t.Run("claude code sub-agent parallel calls", func(t *testing.T) {
		t.Parallel()
		tr := realFile(t, "claude-code/6c2214d7-b87e-4432-8e41-22ba294ea584/subagents/agent-afc096d.jsonl")[0]
		multi := 0
		for _, m := range tr.Messages {
			if len(m.ToolCalls()) > 1 {
				multi++
			}
		}
		if multi == 0 {
			t.Errorf("no response with several tool calls; merging by message.id failed")
		}
		if tr.Model != "claude-haiku-4-5-20251001" {
			t.Errorf("Model = %q", tr.Model)
		}
	})
	t.Run("codex", func(t *testing.T) {
		t.Parallel()
		tr := realFile(t, "codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl")[0]
		want := chat.Usage{InputTokens: 34469 - 3456, CacheReadTokens: 3456, OutputTokens: 431, ReasoningTokens: 264}
		var got *chat.Usage
		for _, m := range tr.Messages {
			if m.Usage != nil {
				got = m.Usage
			}
		}
		if got == nil || *got != want {
			t.Errorf("usage = %+v, want %+v", got, want)
		}
		if tr.ID != "019c8a70-dda7-7f33-98ea-f30553347322" || tr.Model != "gpt-5.3-codex" {
			t.Errorf("ID, Model = %q, %q", tr.ID, tr.Model)
		}
	})
	t.Run("mini-swe-agent", func(t *testing.T) {
		t.Parallel()
		tr := realFile(t, "mini-swe-agent/deepseek_bench_dev/pydicom__pydicom-1694.traj.json")[0]
		first, last := -1, -1
		for _, m := range tr.Messages {
			if m.Usage != nil {
				if first < 0 {
					first = m.Usage.PromptTokens()
				}
				last = m.Usage.PromptTokens()
			}
		}
		if first != 1868 || last != 26308 {
			t.Errorf("prompt grows %d → %d, want 1,868 → 26,308", first, last)
		}
		if tr.ID != "pydicom__pydicom-1694" || tr.Model != "deepseek/deepseek-chat" {
			t.Errorf("ID, Model = %q, %q", tr.ID, tr.Model)
		}
	})
	t.Run("openhands", func(t *testing.T) {
		t.Parallel()
		trs := realFile(t, "openhands/output.jsonl")
		calls := 0
		for i, tr := range trs {
			if tr.Index != i || len(tr.Tools) != 4 || tr.Model != "openai/openrouter-llama-4-maverick" || !strings.HasPrefix(tr.ID, "ponylang__ponyc-") {
				t.Errorf("trajectory %d: index %d, %d tools, model %q, id %q", i, tr.Index, len(tr.Tools), tr.Model, tr.ID)
			}
			calls += statsOf(tr.Messages).Calls
		}
		if len(trs) != 3 || calls != 105 {
			t.Errorf("%d trajectories with %d tool calls, want 3 with 105", len(trs), calls)
		}
	})
	t.Run("swe-agent reused ids", func(t *testing.T) {
		t.Parallel()
		tr := realFile(t, "swe-agent/marshmallow-code__marshmallow-1867.traj")[0]
		ids := map[string]int{}
		for _, m := range tr.Messages {
			for _, c := range m.ToolCalls() {
				ids[c.ID]++
			}
		}
		if ids["call_5iDdbOYybq7L19vqXmR0DPaU"] != 4 {
			t.Errorf("reused id count = %d, want 4", ids["call_5iDdbOYybq7L19vqXmR0DPaU"])
		}
		p := chat.Pair(tr.Messages)
		if p.Dangling != 0 {
			t.Errorf("dangling = %d, want 0", p.Dangling)
		}
	})
}

// TestForcedWrongFormatRealFiles: every shared file read under every
// other format is refused, the error naming the file's own format (issue
// 28: a forced --format that reads no call, or fails on the other
// format's syntax, says which format the file is in), or read with its
// model calls (a mini-swe-agent trajectory is an OpenAI message list).
func TestForcedWrongFormatRealFiles(t *testing.T) {
	t.Parallel()
	for _, path := range sharedtest.Files(t) {
		own, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, f := range transcript.Formats() {
			if f == own[0].Format {
				continue
			}
			trs, err := transcript.ReadFile(path, transcript.Options{Format: f})
			var fe *transcript.FormatError
			switch {
			case err == nil:
				if calls(trs) == 0 {
					t.Errorf("%s read as %s: no model call and no error", path, f)
				}
			case !errors.As(err, &fe) || fe.Closest != own[0].Format:
				t.Errorf("%s read as %s: %v; want an error naming %s", path, f, err, own[0].Format)
			}
		}
	}
}

// calls counts the assistant messages of trs: one per model call.
func calls(trs []*transcript.Trajectory) int {
	n := 0
	for _, tr := range trs {
		n += statsOf(tr.Messages).Assistant
	}
	return n
}
