package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// raw is a shorthand for tool-call arguments in tests.
func raw(s string) json.RawMessage { return json.RawMessage(s) }

// encoders are the ways a caller may encode a Message; the JSON form must
// survive each of them.
var encoders = map[string]func(v any) ([]byte, error){
	"Marshal": json.Marshal,
	"MarshalIndent": func(v any) ([]byte, error) {
		return json.MarshalIndent(v, "", "  ")
	},
	"EncoderNoEscape": func(v any) ([]byte, error) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		err := enc.Encode(v)
		return buf.Bytes(), err
	},
}

func TestMessageJSONRoundTrip(t *testing.T) {
	t.Parallel()
	call := func(args json.RawMessage) Message {
		return Message{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "c1", Name: "bash", Arguments: args}}}
	}
	tests := map[string]Message{
		"every part": {
			Role: RoleAssistant, Name: "agent", ID: "msg_1", Model: "gpt-4o",
			Usage: &Usage{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 30, CacheWriteTokens: 40, ReasoningTokens: 5},
			Parts: []Part{
				Thinking{Text: "hmm", Signature: "sig", Encrypted: "enc"},
				Text{Text: "Let me look."},
				ToolCall{ID: "call_1", Name: "bash", Arguments: raw(`{"command":"ls"}`)},
				Image{Source: "https://example.com/a.png", Width: 640, Height: 480, Bytes: 12345},
			},
		},
		"tool result":        {Role: RoleTool, Parts: []Part{ToolResult{ToolCallID: "call_1", ToolName: "bash", Content: "exit 1", IsError: true}}},
		"tool result plain":  NewToolResult("call_1", "", "", false),
		"zero usage":         {Role: RoleAssistant, Usage: &Usage{}},
		"nil parts":          {Role: RoleUser},
		"empty parts":        {Role: RoleUser, Parts: []Part{}},
		"empty text":         NewText(RoleUser, ""),
		"empty parts fields": {Role: RoleAssistant, Parts: []Part{Thinking{}, Image{}, ToolCall{}}},
		"unicode":            NewText(RoleSystem, "héllo 世界 🎉 \u2028 <b>&amp;</b> \"q\" \\ \x00"),
		"args compact":       call(raw(`{"a":1,"b":[true,null]}`)),
		"args indented":      call(raw("{\n  \"a\": 1\n}")),
		"args html":          call(raw(`{"cmd":"cd /x && ls > out <in"}`)),
		"args escaped html":  call(raw(`{"cmd":"a \u0026\u0026 b \u003c c"}`)),
		"args line sep":      call(raw("{\"s\":\"a\u2028b\u2029c\"}")),
		"args escaped sep":   call(raw(`{"s":"a\u2028b"}`)),
		"args backslash u":   call(raw(`{"s":"\\u003c"}`)),
		"args upper escape":  call(raw(`{"s":"\u003C"}`)),
		"args ascii escape":  call(raw(`{"s":"\u00e9\ud83c\udf89"}`)),
		"args unicode":       call(raw(`{"q":"日本語 🎉"}`)),
		"args invalid":       call(raw(`{"a":`)),
		"args string":        call(raw(`"not json {"`)),
		"args number":        call(raw(`42`)),
		"args null":          call(raw(`null`)),
		"args empty":         call(json.RawMessage{}),
		"args nil":           call(nil),
		"args space around":  call(raw(` {"a":1} `)),
	}
	for name, m := range tests {
		for enc, marshal := range encoders {
			t.Run(name+"/"+enc, func(t *testing.T) {
				t.Parallel()
				b, err := marshal(m)
				if err != nil {
					t.Fatalf("marshal: %v", err)
				}
				var got Message
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatalf("unmarshal %s: %v", b, err)
				}
				if diff := cmp.Diff(m, got); diff != "" {
					t.Errorf("round trip through %s (-want +got):\n%s", b, diff)
				}
			})
		}
	}
}

// TestMessageJSONForm pins the JSON form: the session store depends on it.
func TestMessageJSONForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{
			name: "assistant",
			m: Message{
				Role: RoleAssistant, Name: "a", ID: "m1", Model: "claude-sonnet-4-5",
				Usage: &Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4, ReasoningTokens: 5},
				Parts: []Part{
					Thinking{Text: "t", Signature: "s", Encrypted: "e"},
					Text{Text: "x < y"},
					ToolCall{ID: "c1", Name: "bash", Arguments: raw(`{"command":"ls"}`)},
					ToolCall{ID: "c2", Name: "bash", Arguments: raw(`{"command": "ls"}`)},
					ToolCall{ID: "c3", Name: "noargs"},
					Image{Source: "image/png", Width: 1, Height: 2, Bytes: 3},
				},
			},
			want: `{"role":"assistant","name":"a","id":"m1","model":"claude-sonnet-4-5",` +
				`"usage":{"input_tokens":1,"output_tokens":2,"cache_read_tokens":3,"cache_write_tokens":4,"reasoning_tokens":5},` +
				`"parts":[{"type":"thinking","text":"t","signature":"s","encrypted":"e"},` +
				`{"type":"text","text":"x < y"},` +
				`{"type":"tool_call","id":"c1","name":"bash","arguments":{"command":"ls"}},` +
				`{"type":"tool_call","id":"c2","name":"bash","raw_arguments":"{\"command\": \"ls\"}"},` +
				`{"type":"tool_call","id":"c3","name":"noargs"},` +
				`{"type":"image","source":"image/png","width":1,"height":2,"bytes":3}]}`,
		},
		{
			name: "tool",
			m:    NewToolResult("c1", "bash", "", true),
			want: `{"role":"tool","parts":[{"type":"tool_result","tool_call_id":"c1","tool_name":"bash","content":"","is_error":true}]}`,
		},
		{
			name: "empty",
			m:    Message{Role: RoleUser, Parts: []Part{}},
			want: `{"role":"user","parts":[]}`,
		},
		{
			name: "nil parts",
			m:    Message{Role: RoleUser},
			want: `{"role":"user"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("MarshalJSON:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestMessageJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"invalid role", `{"role":"bot","parts":[]}`, `role "bot" is not valid`},
		{"missing role", `{"parts":[]}`, `role "" is not valid`},
		{"unknown part type", `{"role":"user","parts":[{"type":"text","text":"a"},{"type":"video"}]}`, `parts[1]: unknown part type "video"`},
		{"missing part type", `{"role":"user","parts":[{"text":"a"}]}`, `parts[0]: type is missing`},
		{"part not an object", `{"role":"user","parts":[1]}`, `parts[0]: bad part`},
		{"both arguments", `{"role":"assistant","parts":[{"type":"tool_call","arguments":{},"raw_arguments":"{}"}]}`, `parts[0]: tool call has both arguments and raw_arguments`},
		{"parts not an array", `{"role":"user","parts":{}}`, `chat: message json: json: cannot unmarshal`},
		{"bad usage", `{"role":"user","usage":{"input_tokens":"x"}}`, `chat: message json: json: cannot unmarshal`},
		{"not an object", `[]`, `chat: message json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m Message
			err := json.Unmarshal([]byte(tt.in), &m)
			if err == nil {
				t.Fatalf("Unmarshal(%s) = nil error, want %q", tt.in, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
				t.Errorf("Unmarshal(%s) = %v, want ErrInvalid containing %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestMessageMarshalJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"invalid role", Message{Role: "bot"}, `chat: message json: role "bot" is not valid`},
		{"nil part", Message{Role: RoleUser, Parts: []Part{Text{}, nil}}, `chat: message json: parts[1]: part is nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.m.MarshalJSON()
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrInvalid) {
				t.Errorf("MarshalJSON() = %v, want ErrInvalid %q", err, tt.want)
			}
		})
	}
}

// referenceMessageJSON is MarshalJSON as it was before the parts were
// joined by hand: jsonMessage, parts and all, through encoding/json.
func referenceMessageJSON(m Message) ([]byte, error) {
	out := jsonMessage{Role: m.Role, Name: m.Name, ID: m.ID, Model: m.Model, Usage: m.Usage}
	if m.Parts != nil {
		out.Parts = make([]json.RawMessage, 0, len(m.Parts))
	}
	for _, p := range m.Parts {
		b, err := marshalPart(p)
		if err != nil {
			return nil, err
		}
		out.Parts = append(out.Parts, b)
	}
	return jsonx.MarshalNoEscape(out)
}

// checkMessageJSONBytes fails t when m's MarshalJSON differs from
// referenceMessageJSON's bytes.
func checkMessageJSONBytes(t *testing.T, m Message) {
	t.Helper()
	got, err := m.MarshalJSON()
	want, werr := referenceMessageJSON(m)
	if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("MarshalJSON = %s, %v\nwant %s, %v", got, err, want, werr)
	}
}

// TestMessageJSONBytes: the message JSON is byte for byte encoding/json's
// encoding of jsonMessage, with no parts, empty parts and every kind.
func TestMessageJSONBytes(t *testing.T) {
	t.Parallel()
	for _, m := range []Message{
		{Role: RoleUser},
		{Role: RoleUser, Parts: []Part{}},
		NewText(RoleUser, "a <b> & \u2028 \"c\"\n"),
		{Role: RoleAssistant, Name: "n", ID: "msg_1", Model: "m", Usage: &Usage{InputTokens: 3, OutputTokens: 4}, Parts: []Part{
			Thinking{Text: "t", Signature: "s"}, Text{Text: "x"},
			ToolCall{ID: "1", Name: "bash", Arguments: raw(`{"command": "ls <a>"}`)},
			ToolCall{ID: "2", Name: "bash", Arguments: raw(`not json`)},
			Image{Source: "image/png", Width: 2, Height: 3, Bytes: 4},
			Opaque{Wire: "anthropic", Kind: "server_tool_use", Raw: raw(`{"type":"server_tool_use"}`), Tokens: 5},
		}},
		NewToolResult("1", "bash", strings.Repeat("out\n", 100), true),
	} {
		checkMessageJSONBytes(t, m)
	}
}

func FuzzMessageJSON(f *testing.F) {
	seeds := []Message{
		{Role: RoleAssistant, Usage: &Usage{InputTokens: 1}, Parts: []Part{
			Thinking{Text: "t", Signature: "s"}, Text{Text: "a&b"},
			ToolCall{ID: "1", Name: "n", Arguments: raw(`{"a": "<b>"}`)},
			ToolCall{ID: "2", Name: "n", Arguments: raw(`{"a":1}`)},
			Image{Source: "image/png", Width: 2},
		}},
		NewToolResult("1", "n", "out", true),
		{Role: RoleUser, Parts: []Part{}},
	}
	for _, m := range seeds {
		b, err := json.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"role":"assistant","parts":[{"type":"tool_call","arguments":{"a" : "\u003c\\u0026"}}]}`))
	f.Add([]byte(`{"role":"assistant","parts":[{"type":"tool_call","raw_arguments":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fast decoder (internal/jsonx) reads what encoding/json alone
		// reads, errors included: outside (jsonx.Unmarshal) and inside
		// (UnmarshalJSON's own reading).
		jsonx.StdOnly.Store(true)
		var std Message
		stdErr := json.Unmarshal(data, &std)
		jsonx.StdOnly.Store(false)
		var fast Message
		fastErr := jsonx.Unmarshal(data, &fast)
		var m Message
		err := json.Unmarshal(data, &m)
		for name, got := range map[string]struct {
			m   Message
			err error
		}{"jsonx.Unmarshal": {fast, fastErr}, "json.Unmarshal": {m, err}} {
			if fmt.Sprint(got.err) != fmt.Sprint(stdErr) {
				t.Fatalf("%s: error %v, encoding/json alone %v", name, got.err, stdErr)
			}
			if diff := cmp.Diff(std, got.m); diff != "" {
				t.Fatalf("%s decoded otherwise than encoding/json alone (-std +got):\n%s", name, diff)
			}
		}
		if err != nil {
			return
		}
		checkMessageJSONBytes(t, m)
		for name, marshal := range encoders {
			b, err := marshal(m)
			if err != nil {
				t.Fatalf("%s of a decoded message: %v", name, err)
			}
			var got Message
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("Unmarshal(%s(m)) = %v; m's JSON:\n%s", name, err, b)
			}
			if diff := cmp.Diff(m, got); diff != "" {
				t.Fatalf("%s then Unmarshal changed the message (-want +got):\n%s", name, diff)
			}
		}
	})
}

func ExampleMessage_MarshalJSON() {
	m := Message{Role: RoleAssistant, Parts: []Part{
		Text{Text: "Listing."},
		ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
	}}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	var back Message
	if err := json.Unmarshal(b, &back); err != nil {
		panic(err)
	}
	fmt.Println(string(back.ToolCalls()[0].Arguments))
	// Output:
	// {"role":"assistant","parts":[{"type":"text","text":"Listing."},{"type":"tool_call","id":"c1","name":"bash","arguments":{"command":"ls"}}]}
	// {"command":"ls"}
}

// BenchmarkMessageJSON encodes a tool result of 16 KB and an assistant
// message with 2 KB of text and a tool call with 4 KB of arguments: as
// MarshalJSON does it, and as encoding/json did it whole
// (referenceMessageJSON).
func BenchmarkMessageJSON(b *testing.B) {
	args, err := json.Marshal(map[string]string{"path": "main.go", "content": strings.Repeat("func main() { fmt.Println(\"<hi>\") }\n", 110)})
	if err != nil {
		b.Fatal(err)
	}
	msgs := []Message{
		NewToolResult("call_1", "read_file", strings.Repeat("12\tif err != nil { return err }\n", 500), false),
		{Role: RoleAssistant, Parts: []Part{Text{Text: strings.Repeat("I will write the file. ", 90)}, ToolCall{ID: "call_2", Name: "write_file", Arguments: args}}},
	}
	for _, c := range []struct {
		name string
		enc  func(Message) ([]byte, error)
	}{{"MarshalJSON", Message.MarshalJSON}, {"encoding/json", referenceMessageJSON}} {
		b.Run(c.name, func(b *testing.B) {
			var n int64
			for b.Loop() {
				n = 0
				for _, m := range msgs {
					out, err := c.enc(m)
					if err != nil {
						b.Fatal(err)
					}
					n += int64(len(out))
				}
			}
			b.SetBytes(n)
		})
	}
}
