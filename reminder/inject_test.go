package reminder

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/google/go-cmp/cmp"
)

var twoReminders = []Reminder{
	{Key: "a", Kind: KindSecurity, Text: "first line\nsecond"},
	{Key: "b", Kind: KindTodo, Text: "todo"},
}

const twoRendered = "<system-reminder>\nfirst line\nsecond\n</system-reminder>\n<system-reminder>\ntodo\n</system-reminder>\n"

func TestRender(t *testing.T) {
	t.Parallel()
	if got := Render(nil); got != "" {
		t.Errorf("Render(nil) = %q", got)
	}
	if got := Render(twoReminders); got != twoRendered {
		t.Errorf("Render = %q, want %q", got, twoRendered)
	}
}

// deepCopy copies msgs through their JSON form, which holds every field.
func deepCopy(t *testing.T, msgs []chat.Message) []chat.Message {
	t.Helper()
	data, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var out []chat.Message
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestInject(t *testing.T) {
	t.Parallel()
	sys := chat.NewText(chat.RoleSystem, "You are a coding agent.")
	user := chat.Message{Role: chat.RoleUser, ID: "u1", Parts: []chat.Part{chat.Text{Text: "fix the bug"}, chat.Image{Source: "image/png", Width: 2, Height: 2}}}
	call := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "reading"}, chat.ToolCall{ID: "t1", Name: "Read", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}
	result := chat.NewToolResult("t1", "Read", "package a", false)
	answer := chat.NewText(chat.RoleAssistant, "done")
	rendered := chat.Text{Text: twoRendered}

	tests := []struct {
		name   string
		msgs   []chat.Message
		rs     []Reminder
		want   []chat.Message
		wantOK bool
	}{
		{"user last", []chat.Message{sys, user}, twoReminders, []chat.Message{sys, {
			Role: chat.RoleUser, ID: "u1", Parts: []chat.Part{rendered, chat.Text{Text: "fix the bug"}, chat.Image{Source: "image/png", Width: 2, Height: 2}},
		}}, true},
		{"tool last", []chat.Message{sys, user, call, result}, twoReminders, []chat.Message{sys, user, call, result, {
			Role: chat.RoleUser, Parts: []chat.Part{rendered},
		}}, true},
		{"assistant last", []chat.Message{sys, user, answer}, twoReminders, []chat.Message{sys, user, answer}, false},
		{"system only", []chat.Message{sys}, twoReminders, []chat.Message{sys}, false},
		{"empty", nil, twoReminders, []chat.Message{}, false},
		{"no reminders", []chat.Message{sys, user}, nil, []chat.Message{sys, user}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Give the input slice spare capacity, so an append in place
			// would go unnoticed by a length check alone.
			in := make([]chat.Message, len(tt.msgs), len(tt.msgs)+4)
			copy(in, tt.msgs)
			before := deepCopy(t, in)
			got, ok := Inject(in, tt.rs)
			if ok != tt.wantOK {
				t.Errorf("ok = %v, want %v", ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, deepCopy(t, in)); diff != "" {
				t.Errorf("input modified (-before +after):\n%s", diff)
			}
			if ok && len(in) > 0 && len(got) > 0 && &got[0] == &in[0] {
				t.Error("result shares the input's backing array")
			}
			if spare := in[len(in):cap(in)]; len(spare) > 0 && spare[0].Role != "" {
				t.Errorf("input's spare capacity written: %+v", spare[0])
			}
		})
	}
}

func TestInjectThenConvert(t *testing.T) {
	t.Parallel()
	// The appended user message after tool results converts for both
	// providers: Anthropic merges it into the tool-result turn.
	msgs := []chat.Message{
		chat.NewText(chat.RoleUser, "go"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "t1", Name: "Bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}},
		chat.NewToolResult("t1", "Bash", "a.go", false),
	}
	out, ok := Inject(msgs, twoReminders)
	if !ok {
		t.Fatal("not injected")
	}
	_, am, err := chat.ToAnthropic(out)
	if err != nil {
		t.Fatalf("ToAnthropic: %v", err)
	}
	if len(am) != 3 || am[2].Role != "user" {
		t.Fatalf("Anthropic messages: %d, last role %q; want 3 with the reminder merged into the user turn", len(am), am[len(am)-1].Role)
	}
	last := am[2].Content
	if len(last) != 2 || last[0].Type != "tool_result" || last[1].Type != "text" || last[1].Text != twoRendered {
		t.Errorf("Anthropic last turn: %+v", last)
	}
	om, err := chat.ToOpenAI(out)
	if err != nil {
		t.Fatalf("ToOpenAI: %v", err)
	}
	if len(om) != 4 || om[3].Role != "user" {
		t.Errorf("OpenAI messages: %+v", om)
	}
}

// TestInjectInPlace: the caller's slice holds the result (the last user
// message replaced by its clone with the reminders, or a user message
// appended), and the original last message and its parts are unchanged.
func TestInjectInPlace(t *testing.T) {
	rs := []Reminder{{Kind: "todo", Text: "check the list"}}
	user := chat.NewText(chat.RoleUser, "hello")
	msgs := []chat.Message{chat.NewText(chat.RoleSystem, "sys"), user}
	out, ok := InjectInPlace(msgs, rs)
	if !ok || len(out) != 2 || &out[0] != &msgs[0] {
		t.Fatalf("InjectInPlace(user last) = %d messages, %v, same slice %v", len(out), ok, len(out) > 0 && &out[0] == &msgs[0])
	}
	if got := out[1].Text(); !strings.HasPrefix(got, BlockOpen+"check the list") || !strings.HasSuffix(got, "hello") {
		t.Errorf("injected text = %q", got)
	}
	if user.Text() != "hello" || len(user.Parts) != 1 {
		t.Errorf("the original message changed: %+v", user)
	}
	tool := chat.NewToolResult("c1", "Bash", "ok", false)
	msgs = make([]chat.Message, 2, 3)
	msgs[0], msgs[1] = chat.NewText(chat.RoleUser, "run it"), tool
	out, ok = InjectInPlace(msgs, rs)
	if !ok || len(out) != 3 || &out[0] != &msgs[0] || out[2].Role != chat.RoleUser {
		t.Fatalf("InjectInPlace(tool last) = %+v, %v", out, ok)
	}
	if out, ok := InjectInPlace([]chat.Message{chat.NewText(chat.RoleAssistant, "hi")}, rs); ok || len(out) != 1 {
		t.Errorf("InjectInPlace(assistant last) = %d messages, %v; want unchanged, false", len(out), ok)
	}
}
