package transcript_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

const (
	aiderChat = "testdata/aider/.aider.chat.history.md"
	aiderLLM  = "testdata/aider/.aider.llm.history"
)

// TestReadAiderChat reads an .aider.chat.history.md built from aider's
// io.py (user_input, ai_output, tool_output) and read as its own
// split_chat_history_markdown reads it: two runs, commands, notices and
// usage reports.
func TestReadAiderChat(t *testing.T) {
	t.Parallel()
	trs, err := transcript.ReadFile(aiderChat, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 2 || trs[0].Format != transcript.FormatAider {
		t.Fatalf("got %d trajectories of format %q, want 2 of aider", len(trs), trs[0].Format)
	}
	want := [][]string{{
		"user text=\"greet() should say \\\"Hello, NAME!\\\" with the name capitalized\"",
		"assistant text=\"I'll capitalize the name in `greet`.\\n\\ngreet.py\\n```python\\n<<<<<<< SEARCH\\n    return f\\\"Hello, {name}!\\\"\\n=======\\n    return f\\\"Hello, {name.capitalize()}!\\\"\\n>>>>>>> REPLACE\\n```\" usage=in600/out96/cr0/cw2500/r0",
		"user text=\"does it handle an empty name?\"",
		"assistant text=\"No: `\\\"\\\".capitalize()` is `\\\"\\\"`, so `greet(\\\"\\\")` returns `\\\"Hello, !\\\"`.\" usage=in400/out31/cr2500/cw0/r0",
	}, {
		"user text=\"say hi\"",
		"assistant text=\"Hi! How can I help?\" usage=in1200/out9/cr0/cw0/r0",
	}}
	models := []string{"anthropic/claude-3-7-sonnet-20250219", "gpt-4o"}
	starts := []time.Time{time.Date(2025, 3, 14, 16, 2, 11, 0, time.UTC), time.Date(2025, 3, 15, 9, 40, 0, 0, time.UTC)}
	for i, tr := range trs {
		if diff := cmp.Diff(want[i], render(tr.Messages)); diff != "" {
			t.Errorf("run %d: messages (-want +got):\n%s", i, diff)
		}
		if tr.Index != i || tr.Model != models[i] || !tr.Started.Equal(starts[i]) {
			t.Errorf("run %d: index %d, model %q, started %v", i, tr.Index, tr.Model, tr.Started)
		}
	}
}

// TestReadAiderLLM reads an .aider.llm.history built from aider's
// io.log_llm_history and utils.format_messages: three requests, the
// second of which rebuilds its prompt (history first, then the changed
// file), and a message whose list content spans several lines.
func TestReadAiderLLM(t *testing.T) {
	t.Parallel()
	tr := readExample(t, aiderLLM, transcript.FormatAider)
	want := []string{
		"system text=\"Act as an expert software developer.\\nAlways use best practices when coding.\\n\\nDescribe each change with a *SEARCH/REPLACE block*.\"",
		"user text=\"I have *added these files to the chat* so you can go ahead and edit them.\\n\\ngreet.py\\n```\\ndef greet(name):\\n    return f\\\"Hello, {name}!\\\"\\n```\"",
		"user text=\"Ok, any changes I propose will be to those files.\"",
		"user text=\"greet() should say \\\"Hello, NAME!\\\" with the name capitalized\"",
		"assistant text=\"I'll capitalize the name in `greet`.\\n\\ngreet.py\\n```python\\n<<<<<<< SEARCH\\n    return f\\\"Hello, {name}!\\\"\\n=======\\n    return f\\\"Hello, {name.capitalize()}!\\\"\\n>>>>>>> REPLACE\\n```\"",
		"user text=\"greet() should say \\\"Hello, NAME!\\\" with the name capitalized\"",
		"user text=\"I'll capitalize the name in `greet`.\"",
		"user text=\"I have *added these files to the chat* so you can go ahead and edit them.\\n\\ngreet.py\\n```\\ndef greet(name):\\n    return f\\\"Hello, {name.capitalize()}!\\\"\\n```\"",
		"user text=\"Ok, any changes I propose will be to those files.\"",
		"user text=\"does it handle an empty name?\"",
		"assistant text=\"No: `\\\"\\\".capitalize()` is `\\\"\\\"`, so `greet(\\\"\\\")` returns `\\\"Hello, !\\\"`.\"",
		"user text=\"Handle it: return \\\"Hello!\\\" for an empty name.\\ntype: text\\ntext: see the screenshot\\ncontinued on a second line\"",
		"assistant text=\"greet.py\\n```python\\n<<<<<<< SEARCH\\n    return f\\\"Hello, {name.capitalize()}!\\\"\\n=======\\n    if not name:\\n        return \\\"Hello!\\\"\\n    return f\\\"Hello, {name.capitalize()}!\\\"\\n>>>>>>> REPLACE\\n```\"",
	}
	if diff := cmp.Diff(want, render(tr.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	calls, _, _, _ := countCalls(tr.Messages)
	if calls != 3 {
		t.Errorf("%d model calls, want 3", calls)
	}
	if len(tr.Compactions) != 1 || tr.Compactions[0].At != 5 || len(tr.Compactions[0].Replacement) != 1 || tr.Compactions[0].Replacement[0].Role != "system" {
		t.Errorf("compactions %+v, want one at 5 keeping the system prompt", tr.Compactions)
	}
	if want := time.Date(2025, 3, 14, 16, 2, 40, 0, time.UTC); !tr.Started.Equal(want) || len(tr.Times) != len(tr.Messages) {
		t.Errorf("started %v, %d times for %d messages", tr.Started, len(tr.Times), len(tr.Messages))
	}
}

func TestReadAider(t *testing.T) {
	t.Parallel()
	runCases(t, transcript.FormatAider, []readCase{
		{
			name: "CRLF, rounded counts, commands, a reply without a report",
			input: "# aider chat started at 2025-01-01 00:00:00\r\n\r\n#### /code make it faster  \r\n#### and smaller  \r\n\r\nDone.\r\n\r\n" +
				"> Tokens: 12k sent, 1.5k received. Cost: $0.04 message, $0.04 session.  \r\n\r\n#### /tokens  \r\n\r\n#### <blank>  \r\n\r\n#### why?  \r\n\r\nBecause.\r\n",
			want: []string{
				`user text="make it faster\nand smaller"`,
				`assistant text="Done." usage=in12000/out1500/cr0/cw0/r0`,
				`user text="why?"`,
				`assistant text="Because."`,
			},
		},
		{
			name:  "an interrupted request",
			input: "TO LLM 2025-01-01T00:00:00\n-------\nUSER hi\nTO LLM 2025-01-01T00:00:09\n-------\nUSER hi\nLLM RESPONSE 2025-01-01T00:00:10\nASSISTANT hello\n",
			want: []string{
				`user text="hi"`,
				`assistant text="hello"`,
			},
		},
	})
}

func TestDetectAider(t *testing.T) {
	t.Parallel()
	checkDetect(t, []detectCase{
		{"chat history", string(mustRead(t, aiderChat)), transcript.FormatAider},
		{"llm history", string(mustRead(t, aiderLLM)), transcript.FormatAider},
		{"a response first", "LLM RESPONSE 2025-01-01T00:00:00\nASSISTANT x\n", ""},
		{"other markdown", "# Notes\n\n#### not aider\n", ""},
	})
}

func TestHostileAider(t *testing.T) {
	t.Parallel()
	variants := map[string]string{
		"no heading":   "#### hi\n\nhello\n",
		"huge line":    "# aider chat started at 2025-01-01 00:00:00\n#### " + strings.Repeat("w", 4<<20) + "\n",
		"huge count":   "# aider chat started at x\n#### a\n\nb\n\n> Tokens: 99999999999999k sent, 1e9 received.\n",
		"only headers": "TO LLM 2025-01-01T00:00:00\nLLM RESPONSE 2025-01-01T00:00:00\nTO LLM 2025-01-01T00:00:00\n",
		"no separator": "TO LLM 2025-01-01T00:00:00\nSYSTEM a\nUSER b\nASSISTANT c\nLLM RESPONSE bad-time\n",
		"binary":       "# aider chat started at \x00\xff\n#### \xfe\n",
	}
	for _, path := range []string{aiderChat, aiderLLM} {
		checkHostile(t, transcript.FormatAider, mustRead(t, path), variants)
	}
}

func FuzzReadAider(f *testing.F) {
	f.Add(mustReadF(f, aiderChat))
	f.Add(mustReadF(f, aiderLLM))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatAider, data) })
}

// TestReadAiderEditFeedback: the feedback of an edit aider could not
// apply is the user message aider sends, not a reply of the model (issue
// 28: 3 phantom calls), and an answer to aider's "Add file to the chat?"
// written as a #### input is no user message. The fixture is built from
// aider's source (io.py append_chat_history, base_coder.py
// apply_updates), not a real history.
func TestReadAiderEditFeedback(t *testing.T) {
	t.Parallel()
	trs, err := transcript.ReadFile("testdata/aider/edit-retry.aider.chat.history.md", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := trs[0]
	var roles []string
	for _, m := range tr.Messages {
		roles = append(roles, string(m.Role))
	}
	if diff := cmp.Diff([]string{"user", "assistant", "user", "assistant"}, roles); diff != "" {
		t.Fatalf("roles (-want +got):\n%s", diff)
	}
	fb := tr.Messages[2].Text()
	if !strings.HasPrefix(fb, "# 1 SEARCH/REPLACE block failed to match!") || !strings.HasSuffix(fb, "docstrings, etc") {
		t.Errorf("feedback = %q", fb)
	}
	if u := tr.Messages[3].Usage; u == nil || u.InputTokens != 2300 {
		t.Errorf("second reply's usage %+v, want 2.3k sent", u)
	}
	if tr.NonContext["confirmation"] != 1 {
		t.Errorf("non-context %v, want 1 confirmation", tr.NonContext)
	}
}
