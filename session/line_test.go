package session_test

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/agentctx/agentctx/session"
)

// TestDecodeLineSharesRaw checks that the JSON values an entry keeps raw
// (message, state, the tool's input, the tool result's output) are Raw's
// own bytes, not copies: a loaded transcript holds each line once.
// Appending to one of them must not write into Raw.
func TestDecodeLineSharesRaw(t *testing.T) {
	t.Parallel()
	line := `{"type":"tool_result","uuid":"u","message":{"role":"tool"},"state":{"a":1},` +
		`"tool":{"id":"c","name":"bash","input":{"command":"ls"}},` +
		`"toolResult":{"id":"c","output":"x","Output":"the later key, in any case, wins"}}`
	e, err := session.DecodeLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	in := func(part []byte) bool {
		if len(part) == 0 {
			return false
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(e.Raw)))
		p := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
		return p >= start && p+uintptr(len(part)) <= start+uintptr(len(e.Raw))
	}
	for name, part := range map[string][]byte{
		"message": e.Message, "state": e.State, "tool input": e.Tool.Input, "tool output": e.ToolResult.Output,
	} {
		if !in(part) {
			t.Errorf("%s %q is not within Raw", name, part)
		}
		if cap(part) != len(part) {
			t.Errorf("%s: capacity %d past its %d bytes: an append would write into Raw", name, cap(part), len(part))
		}
	}
	if got := string(e.ToolResult.Output); got != `"the later key, in any case, wins"` {
		t.Errorf("output %s, want the later key's", got)
	}
	if got := string(e.Tool.Input); got != `{"command":"ls"}` {
		t.Errorf("input %s", got)
	}
}

// TestDecodeLineTypeError checks that a field of the wrong JSON type is
// reported with the field's path and the public type it should have.
func TestDecodeLineTypeError(t *testing.T) {
	t.Parallel()
	_, err := session.DecodeLine([]byte(`{"type":"tool_use","tool":5}`))
	if !errors.Is(err, session.ErrMalformed) {
		t.Fatalf("err %v, want ErrMalformed", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `field "tool": number is not a session.ToolUse`) {
		t.Errorf("error %q does not name the field and its type session.ToolUse", msg)
	}
}
