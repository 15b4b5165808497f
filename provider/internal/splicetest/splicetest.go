// Package splicetest holds the tests shared by the provider adapters'
// Body (package splice): requests that stress the encoding, and the
// comparison with the SDK's own json.Marshal of the same params.
package splicetest

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

// Encoder writes a request's body: an adapter's Body, or the oracle,
// json.Marshal of the SDK's whole params.
type Encoder func(provider.Request) ([]byte, error)

// Same fails t unless body and oracle write the same bytes for req, or
// both fail.
func Same(t testing.TB, name string, body, oracle Encoder, req provider.Request) {
	t.Helper()
	want, werr := oracle(req)
	got, gerr := body(req)
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

// Odd checks body against oracle on text that encoding/json escapes (<,
// >, &, U+2028, invalid UTF-8), tool calls and results, tool schemas,
// cache breakpoints, no messages, and a tool schema holding the
// placeholder (the whole params marshaled then).
func Odd(t *testing.T, body, oracle Encoder) {
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
	marked := []chat.ToolDef{{Name: "x", Description: "\x00agentctx:messages\x00", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":["\u0000agentctx:messages\u0000"]}}}`)}}
	for _, c := range []struct {
		name string
		req  provider.Request
	}{
		{"odd text", provider.Request{Messages: msgs, Tools: tools, Temperature: &temp, CacheKey: "s-<1>", MaxTokens: 100}},
		{"cache points", provider.Request{Messages: msgs, Tools: tools, CacheAfter: []int{0, 2, 3}}},
		{"one message", provider.Request{Messages: msgs[1:2]}},
		{"system alone", provider.Request{Messages: msgs[:1]}},
		{"no messages", provider.Request{}},
		{"placeholder in a tool", provider.Request{Messages: msgs, Tools: marked}},
	} {
		Same(t, c.name, body, oracle, c.req)
	}
}

// Real checks body against oracle on every trajectory in ../shared/data
// the API takes as it is, whole, with two cache breakpoints.
func Real(t *testing.T, body, oracle Encoder) {
	n := 0
	for _, f := range sharedtest.Files(t) {
		ts, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tr := range ts {
			if _, err := oracle(provider.Request{Messages: tr.Messages, Tools: tr.Tools}); err != nil {
				continue
			}
			last := len(tr.Messages) - 1
			Same(t, filepath.Base(f), body, oracle, provider.Request{Messages: tr.Messages, Tools: tr.Tools, CacheAfter: []int{last / 2, last}, CacheKey: "k"})
			n++
		}
	}
	if n == 0 {
		t.Fatal("no trajectory compared")
	}
	t.Logf("%d trajectories compared", n)
}

// Fuzz checks body against oracle with arbitrary text in every place a
// message holds it.
func Fuzz(f *testing.F, body, oracle Encoder) {
	f.Add("hello", "<b>&amp;</b>", "\u2028", `{"a":"<"}`, "desc")
	f.Add("\xff", "\x00", `"\u0000agentctx:messages\u0000"`, `{}`, "\x00agentctx:messages\x00")
	f.Fuzz(func(t *testing.T, user, assistant, result, args, desc string) {
		if !json.Valid([]byte(args)) {
			args = `{}`
		}
		Same(t, "fuzz", body, oracle, provider.Request{
			Messages: []chat.Message{
				chat.NewText(chat.RoleUser, user),
				{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: assistant}, chat.ToolCall{ID: "c1", Name: "t", Arguments: []byte(args)}}},
				chat.NewToolResult("c1", "t", result, false),
			},
			Tools: []chat.ToolDef{{Name: "t", Description: desc}},
		})
	})
}

// Bench measures body against oracle on a conversation of 100 rounds (a
// tool call and a 600-byte result each, about 85 KB of JSON).
func Bench(b *testing.B, body, oracle Encoder) {
	msgs := []chat.Message{chat.NewText(chat.RoleSystem, "You are a coding agent."), chat.NewText(chat.RoleUser, "Fix the failing test.")}
	for i := range 100 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "bash", Arguments: []byte(`{"command":"go test ./... -run TestParse"}`)}}},
			chat.NewToolResult(id, "bash", strings.Repeat("--- FAIL: TestParse (0.00s) parse_test.go:42: got <nil>, want \"x\"\n", 8), false))
	}
	req := provider.Request{Messages: msgs, Tools: []chat.ToolDef{{Name: "bash", Description: "Runs a shell command."}}}
	for _, c := range []struct {
		name string
		enc  Encoder
	}{{"spliced", body}, {"sdk", oracle}} {
		b.Run(c.name, func(b *testing.B) {
			out, err := c.enc(req)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.enc(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
