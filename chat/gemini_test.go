package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// geminiRequest is the part of a generateContent request the tests read.
type geminiRequest struct {
	SystemInstruction *GeminiContent  `json:"systemInstruction,omitempty"`
	Contents          []GeminiContent `json:"contents"`
}

// geminiElems returns each element of a request's "contents" as written.
func geminiElems(t testing.TB, data []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	return req.Contents
}

// marshalContents writes contents as a proxy does: without HTML escaping.
func marshalContents(t testing.TB, cs []GeminiContent) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(cs))
	for i, c := range cs {
		b, err := jsonx.MarshalNoEscape(c)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestGeminiCLIRoundTrip: the contents of a request Gemini CLI 0.61.0 sent
// (a bug-fix run: function calls with ids and thought signatures, their
// output responses) come back from Gemini → model → Gemini byte for byte,
// element by element, and the messages pair every call with its result.
func TestGeminiCLIRoundTrip(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/gemini-cli-contents.json")
	if err != nil {
		t.Fatal(err)
	}
	var req geminiRequest
	if err := json.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	msgs, err := FromGemini(nil, req.Contents)
	if err != nil {
		t.Fatal(err)
	}
	calls, results, sigs := 0, 0, 0
	open := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case ToolCall:
				calls++
				open[p.ID] = p.Name
			case ToolResult:
				results++
				if open[p.ToolCallID] != p.ToolName || p.ToolName == "" {
					t.Errorf("result %q (%s) answers no open call", p.ToolCallID, p.ToolName)
				}
				delete(open, p.ToolCallID)
				if strings.HasPrefix(p.Content, `{`) {
					t.Errorf("result %q: content is the response object, not its output: %.40s", p.ToolCallID, p.Content)
				}
			case Thinking:
				if p.Signature == "" || p.Text != "" {
					t.Errorf("thinking %+v: want a signature alone", p)
				}
				sigs++
			}
		}
	}
	if calls == 0 || calls != results || sigs != calls || len(open) != 0 {
		t.Fatalf("%d calls, %d results, %d signatures, %d open", calls, results, sigs, len(open))
	}
	system, back, err := ToGemini(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if system != nil {
		t.Errorf("system = %+v, want none", system)
	}
	want := geminiElems(t, data)
	got := marshalContents(t, back)
	if len(got) != len(want) {
		t.Fatalf("%d contents, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("contents[%d] changed:\n got %.300s\nwant %.300s", i, got[i], want[i])
		}
	}
}

// TestGeminiConvert: each shape of the wire converts to the messages
// expected, and those messages back to the normal form (the input itself
// where nothing is normalised).
func TestGeminiConvert(t *testing.T) {
	t.Parallel()
	pngData, _ := tinyPNG(t, 40, 30)
	tests := []struct {
		name string
		wire string // a request: systemInstruction and contents
		want []Message
		back string // "" when the same as wire
	}{
		{
			name: "text turns and a system instruction",
			wire: `{"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"parts":[{"text":"<session_context/>"},{"text":"fix the test"}],"role":"user"},{"parts":[{"text":"Done."}],"role":"model"}]}`,
			want: []Message{
				NewText(RoleSystem, "Be brief."),
				{Role: RoleUser, Parts: []Part{Text{Text: "<session_context/>"}, Text{Text: "fix the test"}}},
				{Role: RoleAssistant, Parts: []Part{Text{Text: "Done."}}},
			},
		},
		{
			name: "parallel calls without ids: paired by name and order, signature on the first",
			wire: `{"contents":[{"parts":[{"text":"go"}],"role":"user"},` +
				`{"parts":[{"text":"Reading both.","thoughtSignature":"c2lnMQ=="},{"functionCall":{"args":{"p":"a"},"name":"read"}},{"functionCall":{"args":{"p":"b"},"name":"read"}}],"role":"model"},` +
				`{"parts":[{"functionResponse":{"name":"read","response":{"output":"A"}}},{"functionResponse":{"name":"read","response":{"output":"B"}}}],"role":"user"},` +
				`{"parts":[{"functionCall":{"args":{},"name":"read"},"thoughtSignature":"c2lnMg=="}],"role":"model"},` +
				`{"parts":[{"functionResponse":{"name":"read","response":{"error":"no such file"}}}],"role":"user"}]}`,
			want: []Message{
				NewText(RoleUser, "go"),
				{Role: RoleAssistant, Parts: []Part{Thinking{Signature: "c2lnMQ=="}, Text{Text: "Reading both."},
					ToolCall{ID: "read#1", Name: "read", Arguments: json.RawMessage(`{"p":"a"}`)},
					ToolCall{ID: "read#2", Name: "read", Arguments: json.RawMessage(`{"p":"b"}`)}}},
				NewToolResult("read#1", "read", "A", false),
				NewToolResult("read#2", "read", "B", false),
				{Role: RoleAssistant, Parts: []Part{Thinking{Signature: "c2lnMg=="}, ToolCall{ID: "read#3", Name: "read", Arguments: json.RawMessage(`{}`)}}},
				NewToolResult("read#3", "read", "no such file", true),
			},
		},
		{
			name: "thoughts, a call with an id, a response object of another shape",
			wire: `{"contents":[{"parts":[{"text":"go"}],"role":"user"},` +
				`{"parts":[{"text":"**Planning**","thought":true,"thoughtSignature":"dA=="},{"text":"","thought":true},{"functionCall":{"id":"c1","args":{"q":"<x>"},"name":"search"}}],"role":"model"},` +
				`{"parts":[{"functionResponse":{"name":"search","response":{"result":[1,2],"count":2},"id":"c1"}}],"role":"user"}]}`,
			want: []Message{
				NewText(RoleUser, "go"),
				{Role: RoleAssistant, Parts: []Part{Thinking{Text: "**Planning**", Signature: "dA=="}, Thinking{}, ToolCall{ID: "c1", Name: "search", Arguments: json.RawMessage(`{"q":"<x>"}`)}}},
				NewToolResult("c1", "search", `{"result":[1,2],"count":2}`, false),
			},
		},
		{
			name: "media, code and parts of kinds to come are opaque",
			wire: `{"contents":[{"parts":[{"text":"see"},{"inlineData":{"mimeType":"image/png","data":"` + pngData + `"}},{"fileData":{"mimeType":"video/mp4","fileUri":"https://f/v"}},{"text":"x","videoMetadata":{"fps":1}}],"role":"user"},` +
				`{"parts":[{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1\n"}},{"toolCall":{"name":"g"}}],"role":"model"}]}`,
			want: []Message{
				{Role: RoleUser, Parts: []Part{Text{Text: "see"},
					Opaque{Wire: WireGemini, Kind: "inlineData", Raw: json.RawMessage(`{"inlineData":{"mimeType":"image/png","data":"` + pngData + `"}}`), Media: true, Tokens: ImageTokens(40, 30)},
					Opaque{Wire: WireGemini, Kind: "fileData", Raw: json.RawMessage(`{"fileData":{"mimeType":"video/mp4","fileUri":"https://f/v"}}`), Media: true, Tokens: GeminiFileTokens},
					Opaque{Wire: WireGemini, Kind: "text", Raw: json.RawMessage(`{"text":"x","videoMetadata":{"fps":1}}`), Text: "x"},
				}},
				{Role: RoleAssistant, Parts: []Part{
					Opaque{Wire: WireGemini, Kind: "executableCode", Raw: json.RawMessage(`{"executableCode":{"language":"PYTHON","code":"print(1)"}}`), Text: "print(1)"},
					Opaque{Wire: WireGemini, Kind: "codeExecutionResult", Raw: json.RawMessage(`{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1\n"}}`), Text: "1\n"},
					Opaque{Wire: WireGemini, Kind: "toolCall", Raw: json.RawMessage(`{"toolCall":{"name":"g"}}`)},
				}},
			},
		},
		{
			name: "a multimodal response and text after responses",
			wire: `{"contents":[{"parts":[{"functionCall":{"id":"s","args":{},"name":"shot"}}],"role":"model"},` +
				`{"parts":[{"functionResponse":{"name":"shot","response":{"output":"taken"},"id":"s","parts":[{"inlineData":{"mimeType":"image/png","data":"` + pngData + `"}}]}},{"text":"and now?"}],"role":"user"}]}`,
			want: []Message{
				{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "s", Name: "shot", Arguments: json.RawMessage(`{}`)}}},
				{Role: RoleTool, Parts: []Part{ToolResult{ToolCallID: "s", ToolName: "shot", Content: "taken"},
					Opaque{Wire: WireGemini, Kind: "inlineData", Raw: json.RawMessage(`{"inlineData":{"mimeType":"image/png","data":"` + pngData + `"}}`), Media: true, Tokens: ImageTokens(40, 30)}}},
				NewText(RoleUser, "and now?"),
			},
			back: `{"contents":[{"parts":[{"functionCall":{"id":"s","args":{},"name":"shot"}}],"role":"model"},` +
				`{"parts":[{"functionResponse":{"name":"shot","response":{"output":"taken"},"id":"s","parts":[{"inlineData":{"mimeType":"image/png","data":"` + pngData + `"}}]}}],"role":"user"},{"parts":[{"text":"and now?"}],"role":"user"}]}`,
		},
		{
			name: "normalised: a role left out, a response of one content field, spaces",
			wire: `{"contents":[{"parts":[{"text":"hi"}]},{"parts":[{"functionCall":{"name":"f","args":{ "a" : 1 }}}],"role":"model"},{"parts":[{"functionResponse":{"name":"f","response":{"content":"x"}}}],"role":"user"}]}`,
			want: []Message{
				NewText(RoleUser, "hi"),
				{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "f#1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}}},
				NewToolResult("f#1", "f", `{"content":"x"}`, false),
			},
			back: `{"contents":[{"parts":[{"text":"hi"}],"role":"user"},{"parts":[{"functionCall":{"args":{"a":1},"name":"f"}}],"role":"model"},{"parts":[{"functionResponse":{"name":"f","response":{"content":"x"}}}],"role":"user"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var req geminiRequest
			if err := json.Unmarshal([]byte(tt.wire), &req); err != nil {
				t.Fatal(err)
			}
			got, err := FromGemini(req.SystemInstruction, req.Contents)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("FromGemini (-want +got):\n%s", diff)
			}
			system, contents, err := ToGemini(got)
			if err != nil {
				t.Fatal(err)
			}
			b, err := jsonx.MarshalNoEscape(geminiRequest{SystemInstruction: system, Contents: contents})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.back
			if want == "" {
				want = tt.wire
			}
			if string(b) != want {
				t.Errorf("ToGemini:\n got %s\nwant %s", b, want)
			}
		})
	}
}

// TestGeminiErrors: wire errors name the element and part; messages the
// wire cannot hold name the message and part. Both wrap ErrInvalid.
func TestGeminiErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ wire, want string }{
		{`{"contents":[{"parts":[{"text":"a"}],"role":"user"},{"parts":[],"role":"system"}]}`, `contents[1].role: "system"`},
		{`{"contents":[{"parts":[{"text":"a"},{"functionCall":{"name":"f"}}],"role":"user"}]}`, "contents[0].parts[1]: a functionCall"},
		{`{"contents":[{"parts":[{"text":"a"}]},{"parts":[{"functionResponse":{"name":"f"}}],"role":"model"}]}`, "contents[1].parts[0]: a functionResponse"},
		{`{"contents":[{"parts":[{"functionResponse":{"name":"f","parts":[1]}}],"role":"user"}]}`, "contents[0].parts[0]: functionResponse.parts[0]"},
	} {
		var req geminiRequest
		if err := json.Unmarshal([]byte(tt.wire), &req); err != nil {
			t.Fatal(err)
		}
		_, err := FromGemini(req.SystemInstruction, req.Contents)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("FromGemini(%s) = %v, want an ErrInvalid naming %q", tt.wire, err, tt.want)
		}
	}
	for _, tt := range []struct {
		msgs []Message
		want string
	}{
		{[]Message{{Role: RoleUser, Parts: []Part{Text{Text: "a"}, Image{Source: "image/png"}}}}, "message 0: parts[1]: an image"},
		{[]Message{NewText(RoleUser, "a"), {Role: RoleUser, Parts: []Part{ToolCall{ID: "x"}}}}, "message 1: parts[0]"},
		{[]Message{{Role: RoleTool, Parts: []Part{Text{Text: "a"}}}}, "message 0"},
		{[]Message{{Role: "robot"}}, `role "robot"`},
	} {
		_, _, err := ToGemini(tt.msgs)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("ToGemini(%+v) = %v, want an ErrInvalid naming %q", tt.msgs, err, tt.want)
		}
	}
	var p GeminiPart
	if err := json.Unmarshal([]byte(`{"functionCall":null}`), &p); err == nil {
		t.Error("a null functionCall was read")
	}
}

// TestGeminiToolMessages: tool results of another wire's history (no
// names, ids of the Gemini form, error flags, opaque parts of another
// wire) are written as the API wants them.
func TestGeminiToolMessages(t *testing.T) {
	t.Parallel()
	msgs := []Message{
		NewText(RoleUser, "go"),
		NewAssistant("", ToolCall{ID: "grep#1", Name: "grep", Arguments: json.RawMessage(`{"q":"x"}`)}, ToolCall{ID: "c9", Name: "ls"}),
		NewToolResult("grep#1", "", "a.go:1", false),
		{Role: RoleTool, Parts: []Part{ToolResult{ToolCallID: "c9", Content: `{"output":"x"}`, IsError: false}, Opaque{Wire: WireAnthropic, Kind: "image", Raw: json.RawMessage(`{}`)}}},
		{Role: RoleSystem, Parts: []Part{Text{Text: "late system"}}},
	}
	_, contents, err := ToGemini(msgs)
	if err != nil {
		t.Fatal(err)
	}
	got := marshalContents(t, contents)
	want := []string{
		`{"parts":[{"text":"go"}],"role":"user"}`,
		`{"parts":[{"functionCall":{"args":{"q":"x"},"name":"grep"}},{"functionCall":{"id":"c9","name":"ls"}}],"role":"model"}`,
		`{"parts":[{"functionResponse":{"name":"grep","response":{"output":"a.go:1"}}},{"functionResponse":{"name":"ls","response":{"output":"{\"output\":\"x\"}\n[anthropic image]"},"id":"c9"}}],"role":"user"}`,
		`{"parts":[{"text":"late system"}],"role":"user"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d contents: %s", len(got), got)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("contents[%d]:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	back, err := FromGemini(nil, contents)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := back[3].ToolResult(); r.Content != "{\"output\":\"x\"}\n[anthropic image]" {
		t.Errorf("a JSON-looking output read back as %q", r.Content)
	}
}

func TestUsageFromGemini(t *testing.T) {
	t.Parallel()
	var u GeminiUsage
	if err := json.Unmarshal([]byte(`{"promptTokenCount":1200,"cachedContentTokenCount":1000,"candidatesTokenCount":40,"thoughtsTokenCount":60,"totalTokenCount":1300}`), &u); err != nil {
		t.Fatal(err)
	}
	got := UsageFromGemini(u)
	want := Usage{InputTokens: 200, CacheReadTokens: 1000, OutputTokens: 100, ReasoningTokens: 60}
	if got != want || got.PromptTokens() != 1200 {
		t.Errorf("UsageFromGemini = %+v, want %+v", got, want)
	}
	if err := UsageFromGemini(GeminiUsage{PromptTokenCount: -5}).Validate(); err == nil {
		t.Error("a negative prompt count passed Validate")
	}
}

// FuzzGemini: whatever FromGemini accepts converts back; the result is
// the normal form, a fixed point of Gemini → model → Gemini; an error
// names the element (contents[i]); nothing panics.
func FuzzGemini(f *testing.F) {
	pngData, _ := tinyPNG(f, 2, 3)
	for _, s := range []string{
		`{"systemInstruction":{"parts":[{"text":"s"}],"role":"user"},"contents":[{"parts":[{"text":"a"},{"text":"b"}],"role":"user"},{"parts":[{"text":"t","thought":true,"thoughtSignature":"x"},{"functionCall":{"id":"c","args":{"a":1},"name":"f"},"thoughtSignature":"y"}],"role":"model"},{"parts":[{"functionResponse":{"name":"f","response":{"output":"o"},"id":"c"}}],"role":"user"}]}`,
		`{"contents":[{"parts":[{"functionCall":{"name":"f"}},{"functionCall":{"name":"f"}}],"role":"model"},{"parts":[{"functionResponse":{"name":"f","response":{"error":"e"}}},{"functionResponse":{"name":"f","response":{"a":[1]}}},{"text":"u"}],"role":"user"}]}`,
		`{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"` + pngData + `"}},{"fileData":{"fileUri":"u"}},{"text":"","thoughtSignature":"s"}]},{"parts":[{"thoughtSignature":"z","thought":true},{"text":""}],"role":"model"},{"parts":[{"functionResponse":{"name":"g","response":null,"parts":[{"inlineData":{}}]}}],"role":""}]}`,
		`{"contents":[{"parts":[],"role":"model"},{"parts":[{"x":1}],"role":"user"},{"parts":[{"text":"a"}],"role":"system"}]}`,
		// A response without a name, paired by id (found by fuzzing).
		`{"contents":[{"parts":[{"functionCall":{"id":"c","name":"0"}}],"role":"model"},{"parts":[{"functionResponse":{"id":"c"}}],"role":"user"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var wire geminiRequest
		if json.Unmarshal(data, &wire) != nil {
			return
		}
		ours, err := FromGemini(wire.SystemInstruction, wire.Contents)
		if err != nil {
			if !strings.Contains(err.Error(), "contents[") || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error names no element: %v", err)
			}
			return
		}
		system, norm, err := ToGemini(ours)
		if err != nil {
			t.Fatalf("ToGemini(FromGemini(wire)): %v", err)
		}
		b, err := jsonx.MarshalNoEscape(geminiRequest{SystemInstruction: system, Contents: norm})
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var decoded geminiRequest
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatalf("unmarshal our own JSON: %v\n%s", err, b)
		}
		back, err := FromGemini(decoded.SystemInstruction, decoded.Contents)
		if err != nil {
			t.Fatalf("FromGemini of our own output: %v\n%s", err, b)
		}
		// Opaque parts come back compacted, as encoding/json writes them.
		if diff := cmp.Diff(ours, back, equateJSON); diff != "" {
			t.Fatalf("messages changed by a round trip (-first +second):\n%s\n%s", diff, b)
		}
		system2, norm2, err := ToGemini(back)
		if err != nil {
			t.Fatalf("ToGemini again: %v", err)
		}
		b2, err := jsonx.MarshalNoEscape(geminiRequest{SystemInstruction: system2, Contents: norm2})
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if !bytes.Equal(b, b2) {
			t.Fatalf("normal form is not a fixed point:\n%s\n%s", b, b2)
		}
	})
}
