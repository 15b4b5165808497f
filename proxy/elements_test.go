package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// captureUpstream answers every model request with a short answer of wire
// w and keeps the last body it received.
type captureUpstream struct {
	w    Wire
	last []byte
}

func (u *captureUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(r.Body)
	u.last = buf.Bytes()
	body := `{"id":"r","model":"m","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":1,"output_tokens":1}}`
	switch u.w {
	case WireOpenAI:
		body = `{"id":"c","model":"m","choices":[{"message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`
	case WireResponses:
		body = `{"id":"r","model":"m","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}],"usage":{"input_tokens":1,"output_tokens":1}}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: httpBody(body), Request: r}, nil
}

func httpBody(s string) *readCloser { return &readCloser{strings.NewReader(s)} }

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// filler is a tool output of about n bytes.
func filler(i, n int) string {
	var b strings.Builder
	for j := 0; b.Len() < n; j++ {
		fmt.Fprintf(&b, "output line %d of step %d: the quick brown fox jumps over the lazy dog\n", j, i)
	}
	s, _ := json.Marshal(b.String())
	return string(s)
}

// TestEveryElementManaged: a request over the budget that holds, early in
// its history and in its last turn, an element of each type the wires
// carry (the list and one type yet to come) is managed (not
// forwarded for want of reading it), its upstream count is within the
// budget, and each element sent is sent byte for byte.
func TestEveryElementManaged(t *testing.T) {
	type tc struct {
		name string
		wire Wire
		path string
		// body builds the request with elem placed both early and last.
		body func(elem string) string
		elem string
	}
	anthropicBody := func(user bool) func(string) string {
		return func(elem string) string {
			var msgs []string
			add := func(e string) {
				if user {
					msgs = append(msgs, `{"role":"user","content":[{"type":"text","text":"look:"},`+e+`]}`, `{"role":"assistant","content":"seen"}`)
				} else {
					msgs = append(msgs, `{"role":"user","content":"go on"}`, `{"role":"assistant","content":[`+e+`,{"type":"text","text":"done"}]}`)
				}
			}
			msgs = append(msgs, `{"role":"user","content":"fix the test"}`, `{"role":"assistant","content":"ok"}`)
			add(elem)
			for i := 0; i < 12; i++ {
				id := fmt.Sprintf("toolu_%d", i)
				msgs = append(msgs,
					fmt.Sprintf(`{"role":"user","content":"step %d"}`, i),
					fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"cat f%d"}}]}`, id, i),
					fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%s}]}`, id, filler(i, 3000)),
					`{"role":"assistant","content":"next"}`)
			}
			add(elem)
			msgs = append(msgs, `{"role":"user","content":"and now?"}`)
			return `{"model":"claude-sonnet-4-5","max_tokens":1000,"system":"You are an agent.","messages":[` + strings.Join(msgs, ",") + `]}`
		}
	}
	responsesBody := func(elem string) string {
		items := []string{`{"type":"message","role":"developer","content":"You are Codex."}`, `{"type":"message","role":"user","content":"fix the test"}`, elem}
		for i := 0; i < 12; i++ {
			items = append(items,
				fmt.Sprintf(`{"type":"function_call","call_id":"c%d","name":"shell","arguments":"{\"command\":\"cat f%d\"}"}`, i, i),
				fmt.Sprintf(`{"type":"function_call_output","call_id":"c%d","output":%s}`, i, filler(i, 3000)))
		}
		items = append(items, elem, `{"type":"message","role":"user","content":"and now?"}`)
		return `{"model":"gpt-5.5","input":[` + strings.Join(items, ",") + `]}`
	}
	openAIBody := func(elem string) string {
		msgs := []string{`{"role":"developer","content":"You are an agent."}`, `{"role":"user","content":"fix the test"}`, elem}
		for i := 0; i < 12; i++ {
			msgs = append(msgs,
				fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"shell","arguments":"{}"}}]}`, i),
				fmt.Sprintf(`{"role":"tool","tool_call_id":"c%d","content":%s}`, i, filler(i, 3000)))
		}
		msgs = append(msgs, elem, `{"role":"user","content":"and now?"}`)
		return `{"model":"gpt-4o","messages":[` + strings.Join(msgs, ",") + `]}`
	}
	var cases []tc
	for _, e := range []struct{ name, elem string }{
		{"document", `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"the spec"},"title":"spec"}`},
		{"search_result", `{"type":"search_result","source":"https://x","title":"T","content":[{"type":"text","text":"found"}]}`},
		{"image", `{"type":"image","source":{"type":"url","url":"https://x/a.png"}}`},
		{"future", `{"type":"hologram_2031","payload":{"z":1}}`},
	} {
		cases = append(cases, tc{"anthropic/user/" + e.name, WireAnthropic, "/v1/messages", anthropicBody(true), e.elem})
	}
	for _, e := range []struct{ name, elem string }{
		{"compaction", `{"type":"compaction","content":"Summary of what came before."}`},
		{"server_tool_use", `{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"query":"q"}}`},
		{"web_search_tool_result", `{"type":"web_search_tool_result","tool_use_id":"srv_0","content":[]}`},
		{"redacted_thinking", `{"type":"redacted_thinking","data":"EncRyPtEd"}`},
	} {
		cases = append(cases, tc{"anthropic/assistant/" + e.name, WireAnthropic, "/v1/messages", anthropicBody(false), e.elem})
	}
	for _, e := range []struct{ name, elem string }{
		{"additional_tools", `{"type":"additional_tools","role":"developer","tools":[{"type":"function","name":"exec","parameters":{}}]}`},
		{"compaction", `{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA"}`},
		{"reasoning", `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAB"}`},
		{"web_search_call", `{"type":"web_search_call","id":"ws_1","status":"completed"}`},
		{"local_shell_call", `{"type":"local_shell_call","id":"lsc_1","call_id":"ls1","status":"completed","action":{"type":"exec","command":["ls"]}}`},
		{"computer_call", `{"type":"computer_call","id":"cc_1","call_id":"cu1","action":{"type":"screenshot"},"pending_safety_checks":[],"status":"completed"}`},
		{"mcp_list_tools", `{"type":"mcp_list_tools","id":"mcpl_1","server_label":"s","tools":[]}`},
		{"item_reference", `{"type":"item_reference","id":"msg_9"}`},
		{"ghost_snapshot", `{"type":"ghost_snapshot","ghost_commit":{"id":"abc"}}`},
		{"future", `{"type":"hologram_call","id":"h1"}`},
	} {
		cases = append(cases, tc{"responses/" + e.name, WireResponses, "/v1/responses", responsesBody, e.elem})
	}
	for _, e := range []struct{ name, elem string }{
		{"developer", `{"role":"developer","content":"Mid-way instructions."}`},
		{"audio", `{"role":"user","content":[{"type":"text","text":"hear"},{"type":"input_audio","input_audio":{"data":"UklG","format":"wav"}}]}`},
		{"file", `{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}}]}`},
		{"image", `{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/a.png"}}]}`},
		{"refusal", `{"role":"assistant","content":[{"type":"refusal","refusal":"no"}]}`},
	} {
		cases = append(cases, tc{"openai/" + e.name, WireOpenAI, "/v1/chat/completions", openAIBody, e.elem})
	}
	kept := 0
	defer func() {
		// Most of them are recent enough to be kept.
		if kept < len(cases)*2/3 {
			t.Errorf("%d of %d elements kept", kept, len(cases))
		}
	}()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := &captureUpstream{w: c.wire}
			u, _ := url.Parse("http://upstream.invalid")
			var ex Exchange
			p, err := New(Options{Upstream: u, Budget: 8000, Client: &http.Client{Transport: up, Timeout: 10 * time.Second}, Observe: func(e Exchange) { ex = e }})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			body := []byte(c.body(c.elem))
			if !json.Valid(body) {
				t.Fatalf("test body is not JSON: %s", body)
			}
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, c.path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			p.ServeHTTP(w, req)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if ex.Err != "" || !ex.Managed {
				t.Fatalf("not managed: %q", ex.Err)
			}
			if ex.SentTokens > 8000 {
				t.Errorf("sent %d tokens, budget 8000", ex.SentTokens)
			}
			if !json.Valid(up.last) || len(up.last) >= len(body) {
				t.Fatalf("sent %d bytes of %d (valid %v)", len(up.last), len(body), json.Valid(up.last))
			}
			// Compaction keeps the element whole or drops it whole:
			// where anything of it was sent (its longest string), it was
			// sent byte for byte.
			var compact bytes.Buffer
			_ = json.Compact(&compact, []byte(c.elem))
			whole := bytes.Contains(up.last, []byte(c.elem)) || bytes.Contains(up.last, compact.Bytes())
			if marker := longestString(c.elem); bytes.Contains(up.last, []byte(marker)) && !whole {
				t.Errorf("the element was rewritten (%q sent, not the element):\n%s", marker, up.last)
			}
			if whole {
				kept++
			}
		})
	}
}

// longestString returns the longest string value in a JSON value.
func longestString(raw string) string {
	var v any
	_ = json.Unmarshal([]byte(raw), &v)
	best := ""
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			if len(x) > len(best) {
				best = x
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return best
}
