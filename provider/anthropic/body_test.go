package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/transcript"
)

// sdkBody is Body as the SDK alone writes it: json.Marshal of the whole
// params, the messages compacted again by each level (the oracle of the
// spliced encoding).
func sdkBody(t testing.TB, req provider.Request) ([]byte, error) {
	t.Helper()
	m := &Model{model: DefaultModel, maxTokens: provider.DefaultMaxTokens}
	p, err := m.params(req, req.Model)
	if err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// sameBody fails t unless Body(req) is sdkBody's bytes, or both fail.
func sameBody(t testing.TB, name string, req provider.Request) {
	t.Helper()
	if req.Model == "" {
		req.Model = DefaultModel
	}
	want, werr := sdkBody(t, req)
	got, gerr := Body(req)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s: Body error %v, the SDK's %v", name, gerr, werr)
	}
	if werr == nil && !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: Body differs from the SDK's json.Marshal at byte %d of %d/%d:\n got …%s…\nwant …%s…", name, i, len(got), len(want),
			got[max(i-60, 0):min(i+60, len(got))], want[max(i-60, 0):min(i+60, len(want))])
	}
}

// TestBodyIsTheSDKs checks that Body, which encodes the messages once,
// writes the very bytes json.Marshal writes for the SDK's params: on
// text that encoding/json escapes (<, >, &, U+2028, invalid UTF-8), tool
// calls and results, tool schemas, and a tool description holding the
// placeholder (the whole params marshaled then).
func TestBodyIsTheSDKs(t *testing.T) {
	odd := "a <b> & c\u2028d\u2029e \xff\xfe f \"q\" \\ \t\n 日本 🙂 \x00 </script>"
	msgs := []chat.Message{
		chat.NewText(chat.RoleSystem, "You are <careful> & brief. "+odd),
		chat.NewText(chat.RoleUser, odd),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: odd},
			chat.ToolCall{ID: "call_1", Name: "bash", Arguments: []byte(`{"command":"grep -n '<T>' a.go && echo \u2028"}`)}}},
		chat.NewToolResult("call_1", "bash", odd, false),
		chat.NewText(chat.RoleUser, `"\u0000agentctx:messages\u0000"`),
	}
	temp := 0.2
	tools := []chat.ToolDef{{Name: "bash", Description: "Runs <cmd> & returns its output", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"a <shell> line"}}}`)}}
	sameBody(t, "odd text", provider.Request{Messages: msgs, Tools: tools, Temperature: &temp, CacheKey: "s-<1>", MaxTokens: 100})
	// Cache breakpoints: their messages are encoded again with
	// cache_control on their last block (withCacheControl).
	sameBody(t, "cache points", provider.Request{Messages: msgs, Tools: tools, CacheAfter: []int{0, 2, 3}})
	sameBody(t, "one message", provider.Request{Messages: msgs[1:2]})
	sameBody(t, "system alone", provider.Request{Messages: msgs[:1]})
	sameBody(t, "no messages", provider.Request{})
	// The placeholder in a tool's description: Body cannot tell it from
	// the messages' place and marshals the whole params.
	marked := []chat.ToolDef{{Name: "x", Description: "\x00agentctx:messages\x00", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":["\u0000agentctx:messages\u0000"]}}}`)}}
	sameBody(t, "placeholder in a tool", provider.Request{Messages: msgs, Tools: marked})
}

// TestBodyIsTheSDKsOnRealTrajectories checks Body against the SDK's
// json.Marshal on every trajectory in ../shared/data, whole.
func TestBodyIsTheSDKsOnRealTrajectories(t *testing.T) {
	n := 0
	for _, f := range sharedtest.Files(t) {
		ts, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tr := range ts {
			if _, err := sdkBody(t, provider.Request{Model: DefaultModel, Messages: tr.Messages, Tools: tr.Tools}); err != nil {
				continue // not a conversation the API takes as it is
			}
			last := len(tr.Messages) - 1
			sameBody(t, filepath.Base(f), provider.Request{Messages: tr.Messages, Tools: tr.Tools, CacheAfter: []int{last / 2, last}})
			n++
		}
	}
	if n == 0 {
		t.Fatal("no trajectory compared")
	}
	t.Logf("%d trajectories compared", n)
}

// FuzzBody checks Body against the SDK's json.Marshal on arbitrary text
// in every place a message holds it.
func FuzzBody(f *testing.F) {
	f.Add("hello", "<b>&amp;</b>", "\u2028", `{"a":"<"}`, "desc")
	f.Add("\xff", "\x00", `"\u0000agentctx:messages\u0000"`, `{}`, "\x00agentctx:messages\x00")
	f.Fuzz(func(t *testing.T, user, assistant, result, args, desc string) {
		if !json.Valid([]byte(args)) {
			args = `{}`
		}
		req := provider.Request{
			Messages: []chat.Message{
				chat.NewText(chat.RoleUser, user),
				{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: assistant}, chat.ToolCall{ID: "c1", Name: "t", Arguments: []byte(args)}}},
				chat.NewToolResult("c1", "t", result, false),
			},
			Tools: []chat.ToolDef{{Name: "t", Description: desc}},
		}
		sameBody(t, "fuzz", req)
	})
}

// BenchmarkBody measures Body on a conversation of 100 rounds (a tool
// call and a 600-byte result each, 84 KB of JSON) against the SDK's
// json.Marshal of the same params, which scans the messages three times.
func BenchmarkBody(b *testing.B) {
	msgs := []chat.Message{chat.NewText(chat.RoleSystem, "You are a coding agent."), chat.NewText(chat.RoleUser, "Fix the failing test.")}
	for i := range 100 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "bash", Arguments: []byte(`{"command":"go test ./... -run TestParse"}`)}}},
			chat.NewToolResult(id, "bash", strings.Repeat("--- FAIL: TestParse (0.00s) parse_test.go:42: got <nil>, want \"x\"\n", 8), false))
	}
	req := provider.Request{Model: DefaultModel, Messages: msgs, Tools: []chat.ToolDef{{Name: "bash", Description: "Runs a shell command."}}}
	for _, c := range []struct {
		name string
		body func() ([]byte, error)
	}{
		{"spliced", func() ([]byte, error) { return Body(req) }},
		{"sdk", func() ([]byte, error) { return sdkBody(b, req) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			out, err := c.body()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.body(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
