package chat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
)

// stdCommand is ToolCall.Command decoded by encoding/json alone: the
// reference FuzzCommand compares the fast path with.
func stdCommand(args []byte) string {
	if len(args) == 0 || args[0] != '{' {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "cmd"} {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil {
			if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
				return argv[2]
			}
			return strings.Join(argv, " ")
		}
	}
	return ""
}

// FuzzCommand: Command reads the arguments as encoding/json does.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{`{"command":"grep -r foo ."}`, `{"cmd":["bash","-lc","ls"]}`, `{"cmd":["git","status"]}`,
		`{"command": "a\u00e9\ud800"}`, `{"command":1,"cmd":"x"}`, `{"command":"x","command":"y"}`, `{"Command":"x"}`,
		`{"command":"\xff"}`, `{"command":["a",1]}`, `{"command":null}`, `[1]`, `{`, `{"command":"x"} trailing`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		if got, want := (chat.ToolCall{Arguments: json.RawMessage(args)}).Command(), stdCommand([]byte(args)); got != want {
			t.Fatalf("Command(%q) = %q, encoding/json reads %q", args, got, want)
		}
	})
}
