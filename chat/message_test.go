package chat

import (
	"errors"
	"reflect"
	"strings"
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

func TestUsageValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		u    Usage
		bad  string // the field named in the error, or "" for valid
	}{
		{"zero", Usage{}, ""},
		{"typical", Usage{InputTokens: 3, OutputTokens: 500, CacheReadTokens: 150_000, CacheWriteTokens: 2_000}, ""},
		{"at the limit", Usage{InputTokens: MaxCallTokens}, ""},
		{"2^40 tokens", Usage{InputTokens: 1 << 40}, "input_tokens"},
		{"one past the limit", Usage{OutputTokens: MaxCallTokens + 1}, "output_tokens"},
		{"negative cache read", Usage{CacheReadTokens: -1}, "cache_read_tokens"},
		{"negative reasoning", Usage{ReasoningTokens: -7}, "reasoning_tokens"},
		{"huge cache write", Usage{CacheWriteTokens: 1 << 53}, "cache_write_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.u.Validate()
			if tc.bad == "" {
				if err != nil {
					t.Fatalf("Validate(%+v) = %v, want nil", tc.u, err)
				}
				return
			}
			if !errors.Is(err, ErrImplausibleUsage) || !strings.Contains(err.Error(), tc.bad) {
				t.Fatalf("Validate(%+v) = %v, want ErrImplausibleUsage naming %s", tc.u, err, tc.bad)
			}
		})
	}
}
