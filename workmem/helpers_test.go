package workmem

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// fixedClock returns a clock that advances one second per call.
func fixedClock() func() time.Time {
	t := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func newTest(tb testing.TB, opts Options) *ActiveContext {
	tb.Helper()
	if opts.Now == nil {
		opts.Now = fixedClock()
	}
	return New("Fix the failing test in pkg/foo", opts)
}
