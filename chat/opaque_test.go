package chat

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// onePixelPNG is a valid 1×1 PNG.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// TestAnthropicCarriesEveryElement reads a request holding every element
// type the Messages API sends today (and one yet to come), converts it to
// the model and back, and checks that each element the model does not
// interpret comes back byte for byte in its place.
func TestAnthropicCarriesEveryElement(t *testing.T) {
	t.Parallel()
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >>\n2 0 obj << /Type /Page >>\n3 0 obj << /Type /Page >>\n"))
	blocks := map[string]string{
		"tool_reference": `{"type":"tool_reference","tool_name":"WebFetch"}`,
		"image_result":   `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + onePixelPNG + `"}}`,
		"search_result":  `{"type":"search_result","source":"https://x","title":"T","content":[{"type":"text","text":"found it"}]}`,
		"document":       `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf + `"},"cache_control":{"type":"ephemeral"}}`,
		"server_tool":    `{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"query":"go"}}`,
		"web_result":     `{"type":"web_search_tool_result","tool_use_id":"srv_1","content":[{"type":"web_search_result","url":"https://go.dev","title":"Go"}]}`,
		"compaction":     `{"type":"compaction","content":"Summary: the user asked for X; Y was done."}`,
		"future":         `{"type":"hologram_2031","payload":{"z":[1,2,3]}}`,
	}
	wire := `{"system":[{"type":"text","text":"You are Claude Code."}],"messages":[
		{"role":"user","content":[{"type":"text","text":"hi"},` + blocks["document"] + `]},
		{"role":"system","content":"Mid-conversation instructions."},
		{"role":"assistant","content":[` + blocks["compaction"] + `,{"type":"text","text":"ok"},` + blocks["server_tool"] + `,` + blocks["web_result"] + `,{"type":"tool_use","id":"t1","name":"ToolSearch","input":{}},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.png"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[` + blocks["tool_reference"] + `]},{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"the image:"},` + blocks["image_result"] + `]},` + blocks["search_result"] + `,` + blocks["future"] + `]}]}`
	var req anthropicRequest
	if err := json.Unmarshal([]byte(wire), &req); err != nil {
		t.Fatal(err)
	}
	msgs, err := WireReader{KeepMedia: true}.FromAnthropic(req.System, req.Messages)
	if err != nil {
		t.Fatalf("FromAnthropic: %v", err)
	}
	// The roles in order: system prompt, user, the system message in
	// place, assistant, two tool results, user.
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	if got, want := strings.Join(roles, ","), "system,user,system,assistant,tool,tool,user"; got != want {
		t.Fatalf("roles = %s, want %s", got, want)
	}
	kinds := map[string]Opaque{}
	for _, m := range msgs {
		for _, o := range m.Opaques() {
			kinds[o.Kind+"@"+string(m.Role)] = o
		}
	}
	for _, k := range []string{"document@user", "compaction@assistant", "server_tool_use@assistant", "web_search_tool_result@assistant", "tool_reference@tool", "image@tool", "search_result@user", "hologram_2031@user"} {
		if _, ok := kinds[k]; !ok {
			t.Errorf("no opaque part %s; have %v", k, keys(kinds))
		}
	}
	if o := kinds["compaction@assistant"]; !o.Boundary || !strings.Contains(o.Text, "the user asked for X") {
		t.Errorf("compaction = %+v, want a boundary carrying its summary", o)
	}
	if !msgs[3].IsBoundary() {
		t.Error("the assistant message with a compaction block is not a boundary")
	}
	if o := kinds["image@tool"]; !o.Media || o.Tokens != ImageTokens(1, 1) {
		t.Errorf("image in a tool result = %+v, want media of %d tokens", o, ImageTokens(1, 1))
	}
	if o := kinds["document@user"]; !o.Media || o.Tokens != 2*PDFPageTokens {
		t.Errorf("document = tokens %d, want 2 pages × %d", o.Tokens, PDFPageTokens)
	}
	if o := kinds["search_result@user"]; !strings.Contains(o.Text, "found it") {
		t.Errorf("search result text = %q", o.Text)
	}
	if r, att, err := msgs[5].ToolParts(); err != nil || r.Content != "the image:" || len(att) != 1 {
		t.Errorf("tool message = %+v, %d attached, %v", r, len(att), err)
	}

	// Back to the wire: every opaque block is there byte for byte.
	system, out, err := ToAnthropic(msgs)
	if err != nil {
		t.Fatalf("ToAnthropic: %v", err)
	}
	b, err := json.Marshal(anthropicRequest{System: system, Messages: out})
	if err != nil {
		t.Fatal(err)
	}
	for name, blk := range blocks {
		if !strings.Contains(string(b), blk) {
			t.Errorf("%s not carried byte for byte:\n%s\nnot in\n%s", name, blk, b)
		}
	}
	if !strings.Contains(string(b), `{"role":"system","content":[{"type":"text","text":"Mid-conversation instructions."}]}`) {
		t.Errorf("the system message in messages is not in place: %s", b)
	}

	// Through the session's JSON form and back, nothing changes.
	for i, m := range msgs {
		j, err := m.MarshalJSON()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		var back Message
		if err := back.UnmarshalJSON(j); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		j2, _ := back.MarshalJSON()
		if string(j) != string(j2) {
			t.Errorf("message %d JSON round trip:\n%s\n%s", i, j, j2)
		}
	}
}

// TestOpaqueRawKeptExactly: raw bytes that encoding/json would rewrite when
// embedded (indentation, HTML escapes) survive the session JSON form.
func TestOpaqueRawKeptExactly(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`{"a":1}`, "{\n  \"a\": \"<b>\"\n}", `{"a":"\u003c"}`} {
		m := Message{Role: RoleUser, Parts: []Part{Opaque{Wire: WireAnthropic, Kind: "x", Raw: json.RawMessage(raw)}}}
		j, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Message
		if err := json.Unmarshal(j, &back); err != nil {
			t.Fatal(err)
		}
		if got := string(back.Parts[0].(Opaque).Raw); got != raw {
			t.Errorf("raw %q came back as %q (JSON %s)", raw, got, j)
		}
	}
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"user","parts":[{"type":"opaque","raw":{},"raw_text":"{}"}]}`), &m); err == nil {
		t.Error("an opaque part with raw and raw_text decoded, want an error")
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestOpenAICarriesEveryPart: audio, file and refusal parts, an image in a
// tool message and, with KeepMedia, images come back in place.
func TestOpenAICarriesEveryPart(t *testing.T) {
	t.Parallel()
	parts := map[string]string{
		"audio":   `{"type":"input_audio","input_audio":{"data":"UklGR","format":"wav"}}`,
		"file":    `{"type":"file","file":{"file_id":"file-1"}}`,
		"refusal": `{"type":"refusal","refusal":"I can't help with that."}`,
		"image":   `{"type":"image_url","image_url":{"url":"data:image/png;base64,` + onePixelPNG + `","detail":"low"}}`,
		"future":  `{"type":"hologram","hologram":{"z":1}}`,
	}
	wire := `[{"role":"developer","content":"Be brief."},
		{"role":"user","content":[{"type":"text","text":"listen"},` + parts["audio"] + `,` + parts["file"] + `,` + parts["future"] + `]},
		{"role":"assistant","content":[` + parts["refusal"] + `],"tool_calls":[{"id":"c1","type":"function","function":{"name":"shot","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"here"},` + parts["image"] + `]}]`
	var in []OpenAIMessage
	if err := json.Unmarshal([]byte(wire), &in); err != nil {
		t.Fatal(err)
	}
	msgs, err := WireReader{KeepMedia: true}.FromOpenAI(in)
	if err != nil {
		t.Fatalf("FromOpenAI: %v", err)
	}
	if msgs[0].Role != RoleSystem {
		t.Errorf("developer role read as %s", msgs[0].Role)
	}
	if r, att, err := msgs[3].ToolParts(); err != nil || r.Content != "here" || len(att) != 1 || att[0].Tokens != ImageTokens(1, 1) {
		t.Errorf("tool message: %+v %+v %v", r, att, err)
	}
	if o := msgs[2].Opaques(); len(o) != 1 || o[0].Text != "I can't help with that." {
		t.Errorf("refusal: %+v", o)
	}
	out, err := ToOpenAI(msgs)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	for name, p := range parts {
		if !strings.Contains(string(b), p) {
			t.Errorf("%s not carried: %s not in %s", name, p, b)
		}
	}
}
