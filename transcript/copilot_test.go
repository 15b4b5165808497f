package transcript_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

const copilotExample = "testdata/copilot-cli/0e9c5b7a-3f21-4d8e-b6a4-8c2d1e0f9a7b/events.jsonl"

// TestReadCopilotExample reads a Copilot CLI events.jsonl built from the
// Copilot SDK's session-events schema: five API calls, one of them
// written as two assistant.message events sharing an apiCallId, a failed
// tool, and a sub-agent whose events are skipped.
func TestReadCopilotExample(t *testing.T) {
	t.Parallel()
	tr := readExample(t, copilotExample, transcript.FormatCopilotCLI)
	want := []string{
		"user text=\"The login form accepts an empty password. Fix it.\\n\\n<current_datetime>2025-11-02T14:20:05Z</current_datetime>\"",
		"assistant think=\"The validation probably lives in src/auth.\" text=\"I'll look for the login validation.\" call=toolu_vrtx_01/grep{\"pattern\":\"password\",\"path\":\"src\"}",
		"tool result=toolu_vrtx_01/grep=\"src/auth/login.ts:12:  if (user === '') return false;\"",
		"assistant call=toolu_vrtx_02/view{\"path\":\"src/auth/login.ts\"} call=toolu_vrtx_03/bash{\"command\":\"npm test -- login\",\"description\":\"Run the login tests\"}",
		"tool result=toolu_vrtx_02/view=\"1. export function login(user: string, password: string) {\\n12.   if (user === '') return false;\\n13.   return check(user, password);\\n14. }\"",
		"tool result=toolu_vrtx_03/bash=\"Command failed with exit code 1: 1 failing test (empty password accepted)\"!",
		"assistant call=toolu_vrtx_04/task{\"agent_type\":\"explore\",\"prompt\":\"Find other callers of login().\"}",
		"tool result=toolu_vrtx_04/task=\"login() is called only from src/pages/Login.tsx:30.\"",
		"assistant text=\"I'll reject an empty password too.\" call=toolu_vrtx_05/edit{\"path\":\"src/auth/login.ts\",\"old_str\":\"if (user === '') return false;\",\"new_str\":\"if (user === '' || password === '') return false;\"}",
		"tool result=toolu_vrtx_05/edit=\"File src/auth/login.ts updated with changes.\"",
		"assistant text=\"Fixed: `login` now rejects an empty password.\"",
	}
	if diff := cmp.Diff(want, render(tr.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	calls, toolCalls, results, paired := countCalls(tr.Messages)
	if calls != 5 || toolCalls != 5 || results != 5 || paired != 5 {
		t.Errorf("calls %d, tool calls %d, results %d, paired %d; want 5 each", calls, toolCalls, results, paired)
	}
	if tr.ID != "0e9c5b7a-3f21-4d8e-b6a4-8c2d1e0f9a7b" || tr.Model != "claude-sonnet-4.5" || tr.CWD != "/home/dev/webapp" || tr.GitBranch != "fix-login" {
		t.Errorf("id %q, model %q, cwd %q, branch %q", tr.ID, tr.Model, tr.CWD, tr.GitBranch)
	}
	if want := time.Date(2025, 11, 2, 14, 20, 0, 0, time.UTC); !tr.Started.Equal(want) || len(tr.Times) != len(tr.Messages) {
		t.Errorf("started %v, %d times for %d messages", tr.Started, len(tr.Times), len(tr.Messages))
	}
	for i, m := range tr.Messages {
		if m.Usage != nil {
			t.Errorf("message %d has usage %+v; events.jsonl records none per call", i, *m.Usage)
		}
	}
	if len(tr.Problems) > 0 {
		t.Errorf("problems %v", tr.Problems)
	}
}

func TestReadCopilot(t *testing.T) {
	t.Parallel()
	ev := func(typ, data string) string {
		return `{"type":"` + typ + `","data":` + data + `,"id":"e","timestamp":"2025-01-01T00:00:00Z","parentId":null}`
	}
	runCases(t, transcript.FormatCopilotCLI, []readCase{
		{
			name: "reasoning event, compaction, content without transformedContent",
			input: lines(ev("user.message", `{"content":"go"}`),
				ev("assistant.reasoning", `{"reasoningId":"r","content":"plan"}`),
				ev("assistant.message", `{"messageId":"m","content":"ok","reasoningOpaque":"OPQ","toolRequests":[{"toolCallId":"c","name":"bash","arguments":{"command":"ls"}}]}`),
				ev("tool.execution_complete", `{"toolCallId":"c","success":true,"result":{"content":"a"}}`),
				ev("session.compaction_complete", `{"success":true}`),
				ev("assistant.message", `{"messageId":"n","content":"done"}`)),
			want: []string{
				`user text="go"`,
				`assistant think="plan" think=""/enc=OPQ text="ok" call=c/bash{"command":"ls"}`,
				`tool result=c/bash="a"`,
				`assistant text="done"`,
			},
		},
	})
}

// TestReadCopilotCompaction checks that a successful compaction is
// recorded with its size, and a failed one is not.
func TestReadCopilotCompaction(t *testing.T) {
	t.Parallel()
	tr := readOne(t, transcript.FormatCopilotCLI, lines(
		`{"type":"user.message","data":{"content":"go"},"id":"a"}`,
		`{"type":"session.compaction_complete","data":{"success":false,"error":"too short"},"id":"b"}`,
		`{"type":"assistant.message","data":{"messageId":"m","content":"x"},"id":"c"}`,
		`{"type":"session.compaction_complete","data":{"success":true,"preCompactionTokens":91000,"summaryContent":"the summary"},"id":"d"}`,
		`{"type":"user.message","data":{"content":"more"},"id":"e"}`))
	want := []transcript.Compaction{{At: 2, PreTokens: 91000, Summary: "the summary"}}
	if diff := cmp.Diff(want, tr.Compactions); diff != "" {
		t.Errorf("compactions (-want +got):\n%s", diff)
	}
}

func TestDetectCopilot(t *testing.T) {
	t.Parallel()
	checkDetect(t, []detectCase{
		{"example", string(mustRead(t, copilotExample)), transcript.FormatCopilotCLI},
		{"one event", `{"type":"user.message","data":{"content":"x"},"id":"e","timestamp":"t","parentId":null}`, transcript.FormatCopilotCLI},
		{"unknown dotted type", `{"type":"foo.bar","data":{},"id":"e"}`, ""},
		{"data not an object", `{"type":"user.message","data":"x","id":"e"}`, ""},
	})
}

func TestHostileCopilot(t *testing.T) {
	t.Parallel()
	checkHostile(t, transcript.FormatCopilotCLI, mustRead(t, copilotExample), map[string]string{
		"wrong types": lines(`{"type":"assistant.message","data":{"content":7,"toolRequests":{"a":1},"apiCallId":[]},"id":"e"}`,
			`{"type":"tool.execution_complete","data":{"toolCallId":5,"success":"no","result":"x","error":[]},"id":"f"}`,
			`{"type":5,"data":null}`, `[]`, `"s"`),
		"huge field": lines(`{"type":"user.message","data":{"content":"`+strings.Repeat("z", 4<<20)+`"},"id":"e"}`,
			`{"type":"assistant.message","data":{"toolRequests":[{"toolCallId":"c","name":"f","arguments":"`+strings.Repeat("{", 1<<16)+`"}]},"id":"f"}`),
		"garbage only": lines(`{"a":`, `}}`),
	})
}

func FuzzReadCopilot(f *testing.F) {
	f.Add(mustReadF(f, copilotExample))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatCopilotCLI, data) })
}

// TestReadCopilotSystemMessage: a system.message event is the system
// prompt Copilot CLI sent (issue 28: it was dropped silently, the peak
// prompt half its true size). Events built from the session-events
// schema (github.com/github/copilot-sdk, SystemMessageData).
func TestReadCopilotSystemMessage(t *testing.T) {
	t.Parallel()
	input := lines(
		`{"type":"session.start","id":"e1","timestamp":"2026-11-27T00:00:00Z","data":{"sessionId":"s1","startTime":"2026-11-27T00:00:00Z"}}`,
		`{"type":"system.message","id":"e2","timestamp":"2026-11-27T00:00:01Z","data":{"role":"system","content":"You are the GitHub Copilot CLI."}}`,
		`{"type":"user.message","id":"e3","timestamp":"2026-11-27T00:00:02Z","data":{"content":"hi"}}`,
		`{"type":"assistant.message","id":"e4","timestamp":"2026-11-27T00:00:03Z","data":{"messageId":"m1","content":"hello"}}`,
	)
	tr := readOne(t, transcript.FormatCopilotCLI, input)
	want := []string{`system text="You are the GitHub Copilot CLI."`, `user text="hi"`, `assistant text="hello"`}
	if diff := cmp.Diff(want, render(tr.Messages)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
