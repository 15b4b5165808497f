package chat

import (
	"reflect"
	"testing"
)

func TestNewAssistant(t *testing.T) {
	t.Parallel()
	c1 := ToolCall{ID: "a", Name: "Read", Arguments: []byte(`{"file_path":"x.go"}`)}
	c2 := ToolCall{ID: "b", Name: "Bash", Arguments: []byte(`{"command":"ls"}`)}
	for _, tc := range []struct {
		name  string
		text  string
		calls []ToolCall
		want  Message
	}{
		{"text only", "done", nil, Message{Role: RoleAssistant, Parts: []Part{Text{Text: "done"}}}},
		{"calls only", "", []ToolCall{c1, c2}, Message{Role: RoleAssistant, Parts: []Part{c1, c2}}},
		{"both", "reading", []ToolCall{c1}, Message{Role: RoleAssistant, Parts: []Part{Text{Text: "reading"}, c1}}},
	} {
		got := NewAssistant(tc.text, tc.calls...)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: NewAssistant = %+v, want %+v", tc.name, got, tc.want)
		}
		if calls := got.ToolCalls(); len(calls) != len(tc.calls) || got.Text() != tc.text {
			t.Errorf("%s: calls %v, text %q", tc.name, calls, got.Text())
		}
	}
}
