package session_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/google/go-cmp/cmp"
)

func TestNewMessageEntryRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		m        chat.Message
		wantType string
		// check inspects the entry's fields beyond the round trip.
		check func(t *testing.T, e session.Entry)
	}{
		{name: "user text", m: user("hello <b> & \"x\""), wantType: session.TypeUser},
		{name: "system", m: system("you are an agent"), wantType: session.TypeSystem},
		{name: "assistant with everything", wantType: session.TypeAssistant, m: chat.Message{
			Role: chat.RoleAssistant, ID: "msg_1", Model: "claude-opus-4-6", Name: "bot",
			Usage: &chat.Usage{InputTokens: 3, OutputTokens: 9, CacheReadTokens: 100, CacheWriteTokens: 7, ReasoningTokens: 2},
			Parts: []chat.Part{
				chat.Thinking{Text: "hmm", Signature: "sig"},
				chat.Text{Text: "let me look"},
				chat.ToolCall{ID: "c1", Name: "Read", Arguments: rawJSON(`{"file_path":"/a.go"}`)},
				chat.ToolCall{ID: "c2", Name: "Bash", Arguments: rawJSON("{\n  \"command\": \"ls\"\n}")},
				chat.ToolCall{ID: "c3", Name: "Raw", Arguments: rawJSON(`not json`)},
			},
		}},
		{name: "empty parts kept apart from nil", m: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{}}, wantType: session.TypeAssistant},
		{name: "user image", m: chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: "see"}, chat.Image{Source: "image/png", Width: 10, Height: 20, Bytes: 300}}}, wantType: session.TypeUser},
		{name: "tool result", m: chat.NewToolResult("c1", "Read", "package main\n", false), wantType: session.TypeToolResult,
			check: func(t *testing.T, e session.Entry) {
				if e.Message != nil || e.ToolResult == nil || string(e.ToolResult.Output) != `"package main\n"` || e.ToolResult.Error != nil {
					t.Errorf("entry = %+v, toolResult %+v; want Output a JSON string, no Error, no Message", e, e.ToolResult)
				}
			}},
		{name: "empty tool result", m: chat.NewToolResult("c1", "Read", "", false), wantType: session.TypeToolResult},
		{name: "error result", m: chat.NewToolResult("c2", "Bash", "exit 1: not found", true), wantType: session.TypeToolResult,
			check: func(t *testing.T, e session.Entry) {
				if e.ToolResult.Output != nil || e.ToolResult.Error == nil || *e.ToolResult.Error != "exit 1: not found" {
					t.Errorf("toolResult = %+v; want Error alone", e.ToolResult)
				}
			}},
		{name: "empty error result", m: chat.NewToolResult("c2", "Bash", "", true), wantType: session.TypeToolResult},
		{name: "tool result with id", wantType: session.TypeToolResult,
			m: chat.Message{Role: chat.RoleTool, ID: "u-9", Name: "n", Parts: []chat.Part{chat.ToolResult{ToolCallID: "c1", Content: "<ok>"}}},
			check: func(t *testing.T, e session.Entry) {
				if strings.Contains(string(e.Message), "parts") || !strings.Contains(string(e.Message), `"id":"u-9"`) {
					t.Errorf("Message = %s; want the head without parts", e.Message)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := mustEntry(t, tt.m)
			if e.Type != tt.wantType {
				t.Errorf("Type = %q, want %q", e.Type, tt.wantType)
			}
			if tt.check != nil {
				tt.check(t, e)
			}
			// Through the line format and back.
			line, err := session.MarshalLine(e)
			if err != nil {
				t.Fatalf("MarshalLine: %v", err)
			}
			d, err := session.DecodeLine(line)
			if err != nil {
				t.Fatalf("DecodeLine(%s): %v", line, err)
			}
			got, err := d.Messages()
			if err != nil {
				t.Fatalf("Messages: %v", err)
			}
			if diff := cmp.Diff([]chat.Message{tt.m}, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s\nline: %s", diff, line)
			}
		})
	}
}

func TestNewMessageEntryErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    chat.Message
	}{
		{"unknown role", chat.Message{Role: "robot", Parts: []chat.Part{chat.Text{Text: "x"}}}},
		{"tool message without result", chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.Text{Text: "x"}}}},
		{"tool message with two parts", chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: "a"}, chat.Text{Text: "x"}}}},
		{"nil part", chat.Message{Role: chat.RoleUser, Parts: []chat.Part{nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := session.NewMessageEntry(tt.m)
			if !errors.Is(err, session.ErrInvalidEntry) {
				t.Errorf("error = %v, want ErrInvalidEntry", err)
			}
		})
	}
}

func strp(s string) *string { return &s }

func TestEntryMessages(t *testing.T) {
	t.Parallel()
	tr := func(id, content string, isErr bool) chat.Message {
		return chat.Message{Role: chat.RoleTool, ID: "u1", Parts: []chat.Part{chat.ToolResult{ToolCallID: id, Content: content, IsError: isErr}}}
	}
	tests := []struct {
		name    string
		e       session.Entry
		want    []chat.Message
		wantErr bool
	}{
		{
			name: "claude code user string",
			e:    session.Entry{UUID: "u1", Type: "user", Message: rawJSON(`{"role":"user","content":"fix the bug"}`)},
			want: []chat.Message{{Role: chat.RoleUser, ID: "u1", Parts: []chat.Part{chat.Text{Text: "fix the bug"}}}},
		},
		{
			name: "claude code tool results then text",
			e: session.Entry{UUID: "u1", Type: "user", Message: rawJSON(`{"role":"user","content":[
				{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":false},
				{"type":"text","text":"and also"},
				{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":""}},{"type":"text","text":"b"}],"is_error":true}]}`)},
			want: []chat.Message{tr("t1", "ok", false), tr("t2", "a\n[image: image/png]\nb", true), {Role: chat.RoleUser, ID: "u1", Parts: []chat.Part{chat.Text{Text: "and also"}}}},
		},
		{
			name: "claude code odd blocks become text",
			e: session.Entry{UUID: "u1", Type: "user", Message: rawJSON(`{"role":"user","content":[
				{"type":"document","source":{}},{"type":"image","source":{"type":"file","file_id":"f"}},{"type":"mystery","text":"kept"},{"type":"mystery"},"bare",{"type":"text","text":5}]}`)},
			want: []chat.Message{{Role: chat.RoleUser, ID: "u1", Parts: []chat.Part{
				chat.Text{Text: "[document]"}, chat.Text{Text: "[image]"}, chat.Text{Text: "kept"}, chat.Text{Text: "bare"}, chat.Text{Text: "5"},
			}}},
		},
		{
			name: "claude code empty content array",
			e:    session.Entry{UUID: "u1", Type: "user", Message: rawJSON(`{"role":"user","content":[]}`)},
			want: nil,
		},
		{
			name: "claude code assistant with float usage and server tool",
			e: session.Entry{UUID: "a1", Type: "assistant", Message: rawJSON(`{"model":"claude-opus-4-6","id":"msg_1","type":"message","role":"assistant",
				"content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"server_tool_use","id":"s1","name":"web_search","input":{"q":"go"}},{"type":"web_search_tool_result","content":[{"type":"text","text":"result"}]}],
				"usage":{"input_tokens":3.0,"cache_creation_input_tokens":"10","cache_read_input_tokens":1e2,"output_tokens":null,"service_tier":"standard"}}`)},
			want: []chat.Message{{Role: chat.RoleAssistant, ID: "msg_1", Model: "claude-opus-4-6",
				Usage: &chat.Usage{InputTokens: 3, CacheWriteTokens: 10, CacheReadTokens: 100},
				Parts: []chat.Part{chat.Thinking{Text: "t", Signature: "s"}, chat.ToolCall{ID: "s1", Name: "web_search", Arguments: rawJSON(`{"q":"go"}`)}, chat.Text{Text: "result"}}}},
		},
		{
			name: "claude code all-zero usage is none",
			e:    session.Entry{Type: "assistant", Message: rawJSON(`{"role":"assistant","content":"hi","usage":{"input_tokens":0,"output_tokens":0}}`)},
			want: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "hi"}}}},
		},
		{
			name: "tool_use entry",
			e:    session.Entry{Type: session.TypeToolUse, Tool: &session.ToolUse{ID: "c1", Name: "Bash", Input: rawJSON(`{"command":"ls"}`)}},
			want: []chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "c1", Name: "Bash", Arguments: rawJSON(`{"command":"ls"}`)}}}},
		},
		{
			name: "tool_result with non-string output",
			e:    session.Entry{Type: session.TypeToolResult, ToolResult: &session.ToolResult{ID: "c1", Output: rawJSON(`{"files":[1,2]}`)}},
			want: []chat.Message{chat.NewToolResult("c1", "", `{"files":[1,2]}`, false)},
		},
		{
			name: "tool_result with output and error",
			e:    session.Entry{Type: session.TypeToolResult, ToolResult: &session.ToolResult{ID: "c1", Name: "Bash", Output: rawJSON(`"partial"`), Error: strp("exit 2")}},
			want: []chat.Message{chat.NewToolResult("c1", "Bash", "partial\nexit 2", true)},
		},
		{
			name: "tool_result with null output and empty error",
			e:    session.Entry{Type: session.TypeToolResult, ToolResult: &session.ToolResult{ID: "c1", Output: rawJSON(`null`), Error: strp("")}},
			want: []chat.Message{chat.NewToolResult("c1", "", "", true)},
		},
		{name: "boundary", e: session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary, Message: rawJSON(`{"role":"system","parts":[]}`)}},
		{name: "foreign", e: session.Entry{Type: "progress", Message: rawJSON(`{"role":"user","content":"x"}`)}},
		{name: "claude code system line without message", e: session.Entry{Type: session.TypeSystem, Subtype: "local_command"}},
		{name: "null message", e: session.Entry{Type: session.TypeUser, Message: rawJSON(`null`)}},
		{name: "bad role", e: session.Entry{Type: session.TypeUser, Message: rawJSON(`{"role":"robot","parts":[]}`)}, wantErr: true},
		{name: "tool_use block in a user line", e: session.Entry{UUID: "u1", Type: session.TypeUser, Message: rawJSON(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"y"}, {"type":"tool_use","id":"a","name":"b","input":{}}]}`)},
			want: []chat.Message{tr("x", "y", false)}},
		{name: "not JSON", e: session.Entry{Type: session.TypeUser, Message: rawJSON(`{"role":`)}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.e.Messages()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Messages() error = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Messages() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessagesMergesAndNames(t *testing.T) {
	t.Parallel()
	// A Claude Code response over four lines, its parallel tool calls
	// interleaved with their results, as in FORMATS.md §4.
	data := lines(
		ccLine("u1", "", "user", `{"role":"user","content":"look around"}`),
		ccLine("a1", "u1", "assistant", `{"model":"m","id":"msg_A","role":"assistant","content":[{"type":"text","text":"sure"}],"usage":{"input_tokens":10,"output_tokens":1}}`),
		ccLine("a2", "a1", "assistant", `{"model":"m","id":"msg_A","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}],"usage":{"input_tokens":10,"output_tokens":5}}`),
		ccLine("r1", "a2", "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"A"}]}`),
		ccLine("a3", "r1", "assistant", `{"model":"m","id":"msg_A","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":10,"output_tokens":9}}`),
		ccLine("a3b", "a3", "assistant", `{"model":"m","id":"msg_A","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}}]}`),
		ccLine("r2", "a3", "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"B"}]}`),
		ccLine("x1", "r2", "assistant", `{"model":"<synthetic>","id":"msg_S","role":"assistant","content":[{"type":"text","text":"API Error"}]}`),
		ccLine("bad", "x1", "user", `{"role":"user","parts":[{"type":"nope"}]}`),
		ccLine("u2", "bad", "user", `{"role":"user","content":"now grep"}`),
		`{"type":"tool_use","uuid":"s1","parentUuid":"u2","tool":{"id":"t3","name":"Grep","input":{"pattern":"x"}}}`,
		`{"type":"tool_result","uuid":"s2","parentUuid":"s1","toolResult":{"id":"t3","output":"found"}}`,
	)
	es, _ := read(t, "t.jsonl", data)
	got, ps := session.Messages(es)
	want := []chat.Message{
		{Role: chat.RoleUser, ID: "u1", Parts: []chat.Part{chat.Text{Text: "look around"}}},
		{Role: chat.RoleAssistant, ID: "msg_A", Model: "m", Usage: &chat.Usage{InputTokens: 10, OutputTokens: 9}, Parts: []chat.Part{
			chat.Text{Text: "sure"},
			chat.ToolCall{ID: "t1", Name: "Read", Arguments: rawJSON(`{"file_path":"a"}`)},
			chat.ToolCall{ID: "t2", Name: "Bash", Arguments: rawJSON(`{"command":"ls"}`)},
		}},
		{Role: chat.RoleTool, ID: "r1", Parts: []chat.Part{chat.ToolResult{ToolCallID: "t1", ToolName: "Read", Content: "A"}}},
		{Role: chat.RoleTool, ID: "r2", Parts: []chat.Part{chat.ToolResult{ToolCallID: "t2", ToolName: "Bash", Content: "B"}}},
		// The synthetic line and the unreadable one are skipped; the
		// tool_use entry makes its own assistant message (a user message
		// came between), and agentctx's tool_result entry keeps its
		// (empty) name.
		{Role: chat.RoleUser, ID: "u2", Parts: []chat.Part{chat.Text{Text: "now grep"}}},
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "t3", Name: "Grep", Arguments: rawJSON(`{"pattern":"x"}`)}}},
		chat.NewToolResult("t3", "", "found", false),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Messages (-want +got):\n%s", diff)
	}
	if len(ps) != 1 || ps[0].Kind != session.ProblemUnreadable || ps[0].UUID != "bad" || ps[0].Line != 9 || ps[0].Offset == 0 {
		t.Errorf("problems = %+v, want one unreadable-message at line 9 naming uuid bad", ps)
	}
}

func TestMessagesToolUseJoinsAssistant(t *testing.T) {
	t.Parallel()
	es := []session.Entry{
		mustEntry(t, user("go")),
		mustEntry(t, asst("reading")),
		{Type: session.TypeToolUse, Tool: &session.ToolUse{ID: "c1", Name: "Read"}},
		{Type: session.TypeToolUse, Tool: &session.ToolUse{ID: "c2", Name: "Read"}},
		mustEntry(t, chat.NewToolResult("c1", "Read", "a", false)),
		mustEntry(t, chat.NewToolResult("c2", "Read", "b", false)),
	}
	got, ps := session.Messages(es)
	want := []chat.Message{
		user("go"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "reading"}, chat.ToolCall{ID: "c1", Name: "Read"}, chat.ToolCall{ID: "c2", Name: "Read"}}},
		chat.NewToolResult("c1", "Read", "a", false),
		chat.NewToolResult("c2", "Read", "b", false),
	}
	if diff := cmp.Diff(want, got); diff != "" || len(ps) > 0 {
		t.Errorf("Messages (-want +got):\n%s\nproblems %v", diff, ps)
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 100)
	tests := []struct{ in, want string }{
		{"", ""},
		{" \n\t\n", ""},
		{"fix   the\tbug\nsecond line", "fix the bug"},
		{"\n\n  first non-empty  \n", "first non-empty"},
		{strings.Repeat("a", 80), strings.Repeat("a", 80)},
		{strings.Repeat("a", 81), strings.Repeat("a", 79) + "…"},
		{long, strings.Repeat("é", 79) + "…"},
		{"日本語のテキスト " + strings.Repeat("字", 90), "日本語のテキスト " + strings.Repeat("字", 70) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got := session.Title(tt.in)
			if got != tt.want {
				t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if n := len([]rune(got)); n > session.MaxTitleRunes {
				t.Errorf("Title has %d runes, more than %d", n, session.MaxTitleRunes)
			}
		})
	}
}

func TestObserve(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 2, 10, 21, 0, 0, 0, time.UTC)
	at := func(e session.Entry, sec int) session.Entry {
		e.Timestamp = t0.Add(time.Duration(sec) * time.Second)
		return e
	}
	raw := func(l string) session.Entry {
		e, err := session.DecodeLine([]byte(l))
		if err != nil {
			t.Fatalf("DecodeLine: %v", err)
		}
		return e
	}
	summary := mustEntry(t, user("summary of earlier work"))
	summary.IsCompactSummary = true
	withUsage := mustEntry(t, chat.Message{Role: chat.RoleAssistant, Model: "gpt-4o", Usage: &chat.Usage{InputTokens: 100, CacheReadTokens: 50}, Parts: []chat.Part{chat.Text{Text: "ok"}}})
	side := mustEntry(t, user("sub-agent task"))
	side.IsSidechain = true
	es := []session.Entry{
		at(raw(`{"type":"file-history-snapshot","messageId":"x"}`), 1),
		at(side, 2),
		at(raw(ccLine("m1", "", "user", `{"role":"user","content":"<local-command-caveat>Caveat: generated</local-command-caveat>"}`, `"isMeta":true`)), 3),
		at(raw(ccLine("m2", "m1", "user", `{"role":"user","content":"<command-name>/mcp</command-name>"}`)), 4),
		at(summary, 5),
		at(mustEntry(t, chat.NewToolResult("c", "Bash", "out", false)), 6),
		at(raw(ccLine("m3", "m2", "user", `{"role":"user","content":"  Make the   build\ngreen please"}`)), 30),
		at(withUsage, 7),
		at(raw(ccLine("m4", "m3", "assistant", `{"role":"assistant","model":"<synthetic>","content":"API error","usage":{"input_tokens":1}}`)), 8),
		at(raw(ccLine("m5", "m4", "assistant", `{"role":"assistant","model":"claude-opus-4-6","content":"done","usage":{"input_tokens":2.0,"cache_read_input_tokens":1000,"cache_creation_input_tokens":20}}`)), 9),
		at(mustEntry(t, user("later prompt")), 10),
	}
	var s session.Session
	for _, e := range es {
		s.Observe(e)
	}
	want := session.Session{
		Title: "Make the build", LastActivity: t0.Add(30 * time.Second), Model: "claude-opus-4-6",
		Entries: len(es), Messages: 9, PromptTokens: 1022,
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("after the entries (-want +got):\n%s", diff)
	}
	s.Observe(session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary, CompactMetadata: &session.CompactMetadata{PostTokens: 4000}})
	s.Observe(mustEntry(t, user("after")))
	if s.Compactions != 1 || s.Messages != 1 || s.PromptTokens != 4000 || s.Entries != len(es)+2 {
		t.Errorf("after a boundary: %+v; want 1 compaction, 1 message, prompt tokens 4000 (postTokens)", s)
	}
}

func TestObserveUndecodable(t *testing.T) {
	t.Parallel()
	var s session.Session
	s.Observe(session.Entry{Type: session.TypeUser, Message: json.RawMessage(`{"role":"user","parts":[{"type":"x"}]}`)})
	s.Observe(session.Entry{Type: session.TypeAssistant, Message: json.RawMessage(`{"model":7,"usage":"lots"}`)})
	if s.Entries != 2 || s.Messages != 2 || s.Title != "" || s.Model != "" || s.PromptTokens != 0 {
		t.Errorf("Observe = %+v; want the entries counted and nothing else", s)
	}
}

// TestImplausibleUsage: a usage record with a negative count or one above
// chat.MaxCallTokens (2^40 tokens once reached `sessions list`) is read as
// no usage, in both message forms, by Messages and by Observe.
func TestImplausibleUsage(t *testing.T) {
	t.Parallel()
	decode := func(l string) session.Entry {
		e, err := session.DecodeLine([]byte(l))
		if err != nil {
			t.Fatalf("DecodeLine: %v", err)
		}
		return e
	}
	good := decode(ccLine("g", "", "assistant", `{"role":"assistant","model":"m","content":"ok","usage":{"input_tokens":7,"cache_read_input_tokens":1000}}`))
	for _, tc := range []struct {
		name string
		e    session.Entry
	}{
		{"claude 2^40", decode(ccLine("a", "", "assistant", `{"role":"assistant","model":"m","content":"ok","usage":{"input_tokens":1099511627776,"output_tokens":1}}`))},
		{"claude negative", decode(ccLine("b", "", "assistant", `{"role":"assistant","model":"m","content":"ok","usage":{"input_tokens":5,"cache_read_input_tokens":-5}}`))},
		{"chat form huge", decode(`{"type":"assistant","uuid":"c","message":{"role":"assistant","parts":[{"type":"text","text":"ok"}],"usage":{"input_tokens":100000001,"output_tokens":1}}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := tc.e.Messages()
			if err != nil || len(msgs) != 1 {
				t.Fatalf("Messages = %d, %v", len(msgs), err)
			}
			if msgs[0].Usage != nil {
				t.Errorf("Messages kept usage %+v", *msgs[0].Usage)
			}
			var s session.Session
			s.Observe(good)
			s.Observe(tc.e)
			if s.PromptTokens != 1007 {
				t.Errorf("Observe: PromptTokens = %d, want 1007 (the last plausible usage)", s.PromptTokens)
			}
		})
	}
}
