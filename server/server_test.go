package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session"
)

// TestTurn drives one agent turn through the API: create, user message,
// request in each provider shape, a reply with a tool call, its result,
// the next request, inspect, export.
func TestTurn(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, true)
	id := ts.createSession(t, tokenA, map[string]any{"model": "gpt-4o", "system_prompt": "You are terse.", "tools": []any{readFileTool}, "metadata": map[string]string{"team": "x"}})
	base := "/v1/sessions/" + id

	var added addedBody
	ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"What is in main.go?"}]}`).must(t, 200).decode(t, &added)
	if added.Added != 1 || added.Format != FormatOpenAI {
		t.Fatalf("added %+v", added)
	}

	for _, f := range []Format{FormatOpenAI, FormatAnthropic, FormatChat} {
		var req requestView
		ts.call(t, "POST", base+"/request", tokenA, map[string]string{"format": string(f)}).must(t, 200).decode(t, &req)
		if req.Format != f || req.Tokens <= 0 || req.Budget <= 0 || len(req.Rows) == 0 {
			t.Fatalf("%s: request %+v", f, req)
		}
		sum := 0
		for _, r := range req.Rows {
			sum += r.Tokens
		}
		if sum != req.Tokens {
			t.Errorf("%s: rows sum to %d, tokens %d", f, sum, req.Tokens)
		}
		// The entry count, as a read of the session gives it.
		var sess struct {
			Entries int `json:"entries"`
		}
		ts.call(t, "GET", base, tokenA, nil).must(t, 200).decode(t, &sess)
		if req.Entries != sess.Entries || req.Entries < added.Entries {
			t.Errorf("%s: request gives %d entries, the session %d (%d after the message)", f, req.Entries, sess.Entries, added.Entries)
		}
		body := string(req.Body)
		if !strings.Contains(body, "What is in main.go?") || !strings.Contains(body, "You are terse.") {
			t.Errorf("%s: body lacks the messages: %s", f, body)
		}
		switch f {
		case FormatOpenAI:
			if !strings.Contains(body, `"max_completion_tokens"`) || !strings.Contains(body, `"type":"function"`) {
				t.Errorf("openai body: %s", body)
			}
			if err := providertest.ValidateOpenAI(req.Body); err != nil {
				t.Errorf("openai body: %v", err)
			}
		case FormatAnthropic:
			if !strings.Contains(body, `"system"`) || !strings.Contains(body, `"input_schema"`) {
				t.Errorf("anthropic body: %s", body)
			}
			if err := providertest.ValidateAnthropic(req.Body); err != nil {
				t.Errorf("anthropic body: %v", err)
			}
		}
	}

	ts.call(t, "POST", base+"/reply", tokenA, replyToolCall).must(t, 200).decode(t, &added)
	if len(added.ToolCalls) != 1 || added.ToolCalls[0].ID != "call_1" || added.ToolCalls[0].Name != "read_file" ||
		added.Usage == nil || added.Usage.InputTokens != 120 || added.Format != FormatOpenAI {
		t.Fatalf("reply: %+v", added)
	}
	ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"tool","tool_call_id":"call_1","content":"package main\n\nfunc main() {}\n"}]}`).must(t, 200)

	var req requestView
	ts.call(t, "POST", base+"/request", tokenA, nil).must(t, 200).decode(t, &req)
	if !strings.Contains(string(req.Body), `"tool_call_id":"call_1"`) {
		t.Errorf("next request lacks the tool result: %s", req.Body)
	}
	added = addedBody{}
	ts.call(t, "POST", base+"/reply", tokenA, replyText).must(t, 200).decode(t, &added)
	if added.Text != "main.go is empty." || len(added.ToolCalls) != 0 {
		t.Errorf("final reply: %+v", added)
	}
	// The turn's end (its state saved, when due) is in the answer's count.
	var sess struct {
		Entries int `json:"entries"`
	}
	ts.call(t, "GET", base, tokenA, nil).must(t, 200).decode(t, &sess)
	if added.Entries != sess.Entries {
		t.Errorf("final reply: %d entries, the session %d", added.Entries, sess.Entries)
	}

	var in inspectView
	ts.call(t, "GET", base+"/inspect", tokenA, nil).must(t, 200).decode(t, &in)
	// Every request handed out counts (the server records a request's
	// reminders as it hands it out): one per format, then one more.
	if in.Window.Messages != 4 || in.Model != "gpt-4o" || in.Stats.Requests != 4 || in.Session.Metadata["team"] != "x" {
		t.Errorf("inspect: %+v", in)
	}
	if _, ok := in.Session.Metadata[TenantKey]; ok {
		t.Error("inspect shows the tenant key")
	}

	res := ts.call(t, "GET", base+"/export", tokenA, nil).must(t, 200)
	var msgs int
	for line := range strings.Lines(string(res.Body)) {
		e, err := session.DecodeLine([]byte(line))
		if err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		if e.SessionID != id {
			t.Errorf("entry of session %q", e.SessionID)
		}
		ms, err := e.Messages()
		if err != nil {
			t.Fatal(err)
		}
		msgs += len(ms)
	}
	if msgs != 4 {
		t.Errorf("export holds %d messages, want 4:\n%s", msgs, res.Body)
	}

	var list listBody
	ts.call(t, "GET", "/v1/sessions", tokenA, nil).must(t, 200).decode(t, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != id || list.Sessions[0].Title != "What is in main.go?" {
		t.Errorf("list: %+v", list)
	}
	ts.call(t, "DELETE", base, tokenA, nil).must(t, http.StatusNoContent)
	ts.call(t, "GET", base, tokenA, nil).problem(t, 404, CodeNotFound)
}

// TestTenantIsolation checks that a second tenant gets 404 on every
// session route with the first tenant's id, and does not see it listed;
// and that a request without a valid token gets 401.
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, true)
	id := ts.createSession(t, tokenA, map[string]any{"tools": []any{readFileTool}})
	base := "/v1/sessions/" + id
	ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"hi"}]}`).must(t, 200)
	ts.call(t, "POST", base+"/reply", tokenA, replyToolCall).must(t, 200)
	ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"tool","tool_call_id":"call_1","content":"x"}]}`).must(t, 200)

	bodies := map[string]any{
		"/v1/sessions/{id}/messages": `{"messages":[{"role":"user","content":"steal"}]}`,
		"/v1/sessions/{id}/reply":    replyText,
		"/v1/sessions/{id}/compact":  `{}`,
		"/v1/sessions/{id}/request":  `{}`,
		"/v1/sessions/{id}/pins":     `{"text":"Never edit gen/."}`,
		"/v1/sessions/{id}/fork":     `{}`,
		"/v1/sessions/{id}/rewind":   `{"to":0}`,
	}
	n := 0
	for _, rt := range routes {
		if !strings.Contains(rt.path, "{id}") {
			continue
		}
		n++
		path := strings.ReplaceAll(strings.ReplaceAll(rt.path, "{id}", id), "{call_id}", "call_1")
		path = strings.ReplaceAll(path, "{pin}", "p1")
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			ts.call(t, rt.method, path, tokenB, bodies[rt.path]).problem(t, 404, CodeNotFound)
			ts.call(t, rt.method, path, "", bodies[rt.path]).problem(t, 401, CodeUnauthorized)
			ts.call(t, rt.method, path, "not-a-token-of-this-server", bodies[rt.path]).problem(t, 401, CodeUnauthorized)
		})
	}
	if n < 10 {
		t.Fatalf("only %d session routes", n)
	}
	var list listBody
	ts.call(t, "GET", "/v1/sessions", tokenB, nil).must(t, 200).decode(t, &list)
	if len(list.Sessions) != 0 {
		t.Errorf("tenant B lists %+v", list.Sessions)
	}
	// Nothing of tenant B's attempts reached the session.
	var in inspectView
	ts.call(t, "GET", base+"/inspect", tokenA, nil).must(t, 200).decode(t, &in)
	if in.Window.Messages != 3 {
		t.Errorf("tenant A's session holds %d messages, want 3", in.Window.Messages)
	}
	// The tenant key is the server's.
	ts.call(t, "POST", "/v1/sessions", tokenB, map[string]any{"metadata": map[string]string{TenantKey: "acme"}}).problem(t, 400, CodeBadRequest)
}

// TestProblems checks the error responses: problem objects with stable
// codes and details that name what is wrong.
func TestProblems(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{MaxBodyBytes: 4096}, false)
	id := ts.createSession(t, "", nil)
	base := "/v1/sessions/" + id
	for _, c := range []struct {
		name, method, path string
		body               any
		status             int
		code, detail       string
	}{
		{"bad json", "POST", base + "/messages", `{"messages": [}`, 400, CodeBadRequest, "offset"},
		{"unknown field", "POST", base + "/messages", `{"messages":[{"role":"user","content":"x"}],"extra":1}`, 400, CodeBadRequest, `"extra"`},
		{"no messages", "POST", base + "/messages", `{"messages":[]}`, 400, CodeBadRequest, "at least one"},
		{"bad role", "POST", base + "/messages", `{"format":"chat","messages":[{"role":"boss","parts":[]}]}`, 400, CodeBadRequest, "messages[0]"},
		{"mixed formats", "POST", base + "/messages", `{"messages":[{"role":"tool","tool_call_id":"a","content":"x"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}]}`, 400, CodeBadRequest, "format"},
		{"bad format", "POST", base + "/request", `{"format":"gemini"}`, 400, CodeBadRequest, "gemini"},
		{"not a reply", "POST", base + "/reply", `{"hello":1}`, 400, CodeBadRequest, "choices"},
		{"user reply", "POST", base + "/reply", `{"role":"user","parts":[{"type":"text","text":"x"}]}`, 400, CodeBadRequest, "assistant"},
		{"too large", "POST", base + "/messages", `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 5000) + `"}]}`, 413, CodeTooLarge, "4096"},
		{"trailing data", "POST", base + "/compact", `{} {}`, 400, CodeBadRequest, "after the JSON"},
		{"no route", "GET", "/v2/nothing", nil, 404, CodeNotFound, "no route"},
		{"method", "PUT", "/v1/sessions", nil, 405, CodeMethodNotAllowed, "allowed"},
		{"no session", "GET", "/v1/sessions/0000-none", nil, 404, CodeNotFound, ""},
		{"invalid id", "POST", "/v1/sessions/a..b/request", nil, 400, CodeInvalidID, `".."`},
		{"invalid id read", "GET", "/v1/sessions/a..b", nil, 400, CodeInvalidID, `".."`},
		{"invalid id in the body", "POST", "/v1/sessions", map[string]string{"id": "a..b"}, 400, CodeInvalidID, `".."`},
		{"no output", "GET", base + "/outputs/call_404", nil, 404, CodeNotFound, "call_404"},
		{"exists", "POST", "/v1/sessions", map[string]string{"id": id}, 409, CodeExists, ""},
		{"relative project", "POST", "/v1/sessions", map[string]string{"project": "src"}, 400, CodeBadRequest, "absolute"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := ts.call(t, c.method, c.path, "", c.body).problem(t, c.status, c.code)
			if !strings.Contains(p.Detail, c.detail) || p.Type != problemBase+c.code || p.Title == "" {
				t.Errorf("problem %+v: want detail with %q", p, c.detail)
			}
		})
	}
	// The session is untouched by the failed calls.
	var in inspectView
	ts.call(t, "GET", base+"/inspect", "", nil).must(t, 200).decode(t, &in)
	if in.Window.Messages != 0 {
		t.Errorf("window holds %d messages", in.Window.Messages)
	}
}

// TestHealth checks /healthz, /readyz and /openapi.json, which need no
// token, and readyz's answer when the store is gone.
func TestHealth(t *testing.T) {
	t.Parallel()
	st, err := openJSONL(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Options{Store: st}, true)
	ts.call(t, "GET", "/healthz", "", nil).must(t, 200)
	ts.call(t, "GET", "/readyz", "", nil).must(t, 200)
	res := ts.call(t, "GET", "/openapi.json", "", nil).must(t, 200)
	if string(res.Body) != string(OpenAPI()) {
		t.Error("/openapi.json is not the embedded document")
	}
	_ = st.Close()
	ts.call(t, "GET", "/readyz", "", nil).problem(t, 503, CodeUnavailable)
	ts.call(t, "GET", "/healthz", "", nil).must(t, 200)
}

// TestMessageFormats adds the same exchange in each format and checks the
// window holds the same messages.
func TestMessageFormats(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, false)
	exchanges := map[string]string{
		"chat": `{"format":"chat","messages":[{"role":"user","parts":[{"type":"text","text":"list files"}]},
			{"role":"assistant","parts":[{"type":"tool_call","id":"t1","name":"bash","arguments":{"cmd":"ls"}}]},
			{"role":"tool","parts":[{"type":"tool_result","tool_call_id":"t1","tool_name":"bash","content":"a.go"}]}]}`,
		"openai": `{"messages":[{"role":"user","content":"list files"},
			{"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]},
			{"role":"tool","tool_call_id":"t1","content":"a.go"}]}`,
		"anthropic": `{"messages":[{"role":"user","content":"list files"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"bash","input":{"cmd":"ls"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]}]}`,
	}
	var want []byte
	for _, f := range []string{"chat", "openai", "anthropic"} {
		id := ts.createSession(t, "", nil)
		var added addedBody
		ts.call(t, "POST", "/v1/sessions/"+id+"/messages", "", exchanges[f]).must(t, 200).decode(t, &added)
		if string(added.Format) != f || added.Added != 3 {
			t.Errorf("%s: %+v", f, added)
		}
		var req requestView
		ts.call(t, "POST", "/v1/sessions/"+id+"/request", "", map[string]string{"format": "chat"}).must(t, 200).decode(t, &req)
		var body chatBody
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(body.Messages)
		if want == nil {
			want = got
		} else if string(got) != string(want) {
			t.Errorf("%s: messages\n%s\nwant\n%s", f, got, want)
		}
	}
}

// TestEvents subscribes to a session's events and checks that a reply's
// usage arrives as a Server-Sent Event.
func TestEvents(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, true)
	id := ts.createSession(t, tokenA, map[string]any{"tools": []any{readFileTool}})
	base := "/v1/sessions/" + id
	events := subscribe(t, ts, id, tokenA)
	ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"hi"}]}`).must(t, 200)
	ts.call(t, "POST", base+"/request", tokenA, nil).must(t, 200)
	ts.call(t, "POST", base+"/reply", tokenA, replyToolCall).must(t, 200)
	select {
	case ev := <-events:
		if ev.Kind != "usage" || ev.Usage == nil || ev.Usage.PromptTokens != 120 || ev.Usage.OutputTokens != 20 || ev.Session != id || ev.Seq == 0 || ev.Usage.RequestTokens == 0 {
			t.Errorf("event %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no usage event")
	}
	// Another tenant cannot subscribe.
	ts.call(t, "GET", base+"/events", tokenB, nil).problem(t, 404, CodeNotFound)
}

// TestStaleCache checks that a server whose cached Engine missed writes
// by another server (sharing the store) resumes the session before using
// it: the next request carries the other server's message.
func TestStaleCache(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	a := newTestServer(t, Options{Store: st}, true)
	b := newTestServer(t, Options{Store: st}, true)
	id := a.createSession(t, tokenA, nil)
	base := "/v1/sessions/" + id
	a.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"first, through A"}]}`).must(t, 200)
	a.call(t, "POST", base+"/reply", tokenA, replyText).must(t, 200)
	// B writes the session while A keeps its Engine cached.
	b.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"second, through B"}]}`).must(t, 200)
	var req requestView
	a.call(t, "POST", base+"/request", tokenA, map[string]string{"format": "chat"}).must(t, 200).decode(t, &req)
	for _, want := range []string{"first, through A", "main.go is empty.", "second, through B"} {
		if !strings.Contains(string(req.Body), want) {
			t.Errorf("A's request lacks %q: %s", want, req.Body)
		}
	}
}

// TestRestart checks that a new server over the same store continues a
// session where the old one stopped.
func TestRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := openJSONL(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestServer(t, Options{Store: st}, false)
	id := a.createSession(t, "", map[string]any{"model": "claude-sonnet-4-5", "budget": 50000, "system_prompt": "Be brief."})
	base := "/v1/sessions/" + id
	a.call(t, "POST", base+"/messages", "", `{"messages":[{"role":"user","content":"before the restart"}]}`).must(t, 200)
	var before requestView
	a.call(t, "POST", base+"/request", "", nil).must(t, 200).decode(t, &before)
	a.http.Close()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := openJSONL(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	b := newTestServer(t, Options{Store: st2}, false)
	var after requestView
	b.call(t, "POST", base+"/request", "", nil).must(t, 200).decode(t, &after)
	if string(after.Body) != string(before.Body) || after.Budget != 50000 {
		t.Errorf("after the restart:\n%s\nbefore:\n%s", after.Body, before.Body)
	}
}

// TestCacheEviction keeps one Engine in memory and works on three
// sessions in turn: each is resumed from the store when needed.
func TestCacheEviction(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{CacheSessions: 1}, false)
	ids := []string{ts.createSession(t, "", nil), ts.createSession(t, "", nil), ts.createSession(t, "", nil)}
	for round := range 3 {
		for i, id := range ids {
			msg := map[string]any{"messages": []any{map[string]string{"role": "user", "content": strings.Repeat("x", i+1) + " round " + string(rune('0'+round))}}}
			ts.call(t, "POST", "/v1/sessions/"+id+"/messages", "", msg).must(t, 200)
			ts.call(t, "POST", "/v1/sessions/"+id+"/reply", "", replyText).must(t, 200)
		}
	}
	for i, id := range ids {
		var in inspectView
		ts.call(t, "GET", "/v1/sessions/"+id+"/inspect", "", nil).must(t, 200).decode(t, &in)
		if in.Window.Messages != 6 {
			t.Errorf("session %d holds %d messages, want 6", i, in.Window.Messages)
		}
	}
	ts.mu.Lock()
	n := len(ts.handles)
	ts.mu.Unlock()
	if n > 2 {
		t.Errorf("%d handles kept with a cache of 1", n)
	}
}

// TestRoutesInOpenAPI checks that every route registered is in the
// OpenAPI document with its method, and every operation of the document
// is a route.
func TestRoutesInOpenAPI(t *testing.T) {
	t.Parallel()
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q, want 3.1", doc.OpenAPI)
	}
	var registered, documented []string
	for _, rt := range routes {
		registered = append(registered, rt.method+" "+rt.path)
	}
	for path, ops := range doc.Paths {
		for m := range ops {
			if m == "parameters" {
				continue
			}
			documented = append(documented, strings.ToUpper(m)+" "+path)
		}
	}
	slices.Sort(registered)
	slices.Sort(documented)
	if !slices.Equal(registered, documented) {
		t.Errorf("routes\n%v\ndocumented\n%v", registered, documented)
	}
	specValidator(t) // the document parses as OpenAPI 3.1
}

// TestAccessLog checks the access records: method, route pattern, status,
// bytes, duration and tenant, never the token.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	ts := newTestServer(t, Options{Logger: newJSONLogger(&buf)}, true)
	id := ts.createSession(t, tokenA, nil)
	ts.call(t, "GET", "/v1/sessions/"+id, tokenB, nil).must(t, 404)
	var recs []map[string]any
	for line := range strings.Lines(buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["msg"] == "request" {
			recs = append(recs, m)
		}
	}
	if len(recs) != 2 {
		t.Fatalf("%d access records:\n%s", len(recs), buf.String())
	}
	if r := recs[1]; r["method"] != "GET" || r["route"] != "/v1/sessions/{id}" || r["status"] != float64(404) || r["tenant"] != "globex" || r["bytes"] == float64(0) || r["duration"] == nil {
		t.Errorf("record %v", r)
	}
	if strings.Contains(buf.String(), tokenA) || strings.Contains(buf.String(), tokenB) {
		t.Error("a token is in the log")
	}
}

// TestServerTiming: every response, an error's included, carries a
// Server-Timing header "app;dur=D" whose D (milliseconds) is no more than
// the duration the access log gives the same request, then the phases the
// request spent time in, each no more than D: reading the body, waiting
// for the session, the store's writes, a compaction.
func TestServerTiming(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	ts := newTestServer(t, Options{Logger: newJSONLogger(&buf)}, true)
	id := ts.createSession(t, tokenA, nil)
	base := "/v1/sessions/" + id
	calls := []struct {
		r    result
		want []string // the phases the call must name
	}{
		{ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"What is in main.go?"}]}`).must(t, 200), []string{TimingRead, TimingLock, TimingStore}},
		{ts.call(t, "POST", base+"/request", tokenA, nil).must(t, 200), []string{TimingLock}},
		{ts.call(t, "GET", "/v1/sessions/"+id, tokenB, nil).must(t, 404), nil},
		{ts.call(t, "POST", base+"/messages", "", `{"messages":[]}`).must(t, 401), nil},
		{ts.call(t, "POST", base+"/compact", tokenA, `{}`).must(t, 200), []string{TimingRead, TimingLock, TimingCompact}},
	}
	var durs []float64
	for line := range strings.Lines(buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["msg"] == "request" {
			durs = append(durs, m["duration"].(float64)/1e6) // slog's JSON: nanoseconds
		}
	}
	if len(durs) != len(calls)+1 { // and the session's creation
		t.Fatalf("%d access records for %d calls:\n%s", len(durs), len(calls)+1, buf.String())
	}
	for i, c := range calls {
		h := c.r.Header.Get("Server-Timing")
		ms, err := parseServerTiming(h)
		if err != nil {
			t.Fatalf("call %d (%d): Server-Timing %q: %v", i, c.r.Status, h, err)
		}
		app, ok := ms[ServerTimingMetric]
		if !ok || !strings.HasPrefix(h, ServerTimingMetric+";") {
			t.Fatalf("call %d (%d): Server-Timing %q, want %s;dur=… first", i, c.r.Status, h, ServerTimingMetric)
		}
		if app < 0 || app > durs[i+1]+0.001 {
			t.Errorf("call %d (%d): Server-Timing %q, access log %.3f ms", i, c.r.Status, h, durs[i+1])
		}
		for name, d := range ms {
			if name != ServerTimingMetric && (d <= 0 || d > app+0.001) {
				t.Errorf("call %d (%d): Server-Timing %q: %s %.3f ms, want in (0, %.3f]", i, c.r.Status, h, name, d, app)
			}
		}
		for _, name := range c.want {
			if _, ok := ms[name]; !ok {
				t.Errorf("call %d (%d): Server-Timing %q has no %s", i, c.r.Status, h, name)
			}
		}
		if len(c.want) == 0 && len(ms) != 1 {
			t.Errorf("call %d (%d): Server-Timing %q, want %s alone", i, c.r.Status, h, ServerTimingMetric)
		}
	}
}

// parseServerTiming returns the metrics of a Server-Timing header by
// name, each its dur in milliseconds; an error for a metric without one
// or named twice.
func parseServerTiming(h string) (map[string]float64, error) {
	out := map[string]float64{}
	for m := range strings.SplitSeq(h, ",") {
		name, param, ok := strings.Cut(strings.TrimSpace(m), ";dur=")
		if !ok {
			return nil, fmt.Errorf("metric %q has no dur", m)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("metric %q twice", name)
		}
		d, err := strconv.ParseFloat(param, 64)
		if err != nil {
			return nil, fmt.Errorf("metric %q: %w", m, err)
		}
		out[name] = d
	}
	return out, nil
}

// TestParseTokens checks the tokens file's rules.
func TestParseTokens(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		n        int
		bad      string
	}{
		{"tenants", "# c\n\n" + tokenA + " acme\n" + tokenB + "\n", 2, ""},
		{"short", "short acme\n", 0, "line 1"},
		{"bad tenant", tokenA + " a/b\n", 0, "tenant"},
		{"tenant with ..", tokenA + " a..b\n", 0, "tenant"},
		{"tenant starting with .", tokenA + " .a\n", 0, "tenant"},
		{"three fields", tokenA + " a b\n", 0, "fields"},
		{"twice", tokenA + "\n" + tokenA + " x\n", 0, "line 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk, err := ParseTokens(strings.NewReader(c.in))
			if c.bad != "" {
				if err == nil || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("error %v, want one with %q", err, c.bad)
				}
				return
			}
			if err != nil || tk.Len() != c.n {
				t.Fatalf("%d tokens, %v", tk.Len(), err)
			}
			r, _ := http.NewRequestWithContext(context.Background(), "GET", "/", nil)
			r.Header.Set("Authorization", "Bearer "+tokenB)
			if tenant, ok := tk.tenant(r); !ok || tenant != DefaultTenant {
				t.Errorf("tenant %q %v", tenant, ok)
			}
		})
	}
}

// TestAnthropicReply adds an Anthropic Messages response as the reply,
// its usage with cache reads, and a chat-form reply.
func TestAnthropicReply(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, false)
	id := ts.createSession(t, "", map[string]any{"model": "claude-sonnet-4-5", "tools": []any{readFileTool}})
	base := "/v1/sessions/" + id
	ts.call(t, "POST", base+"/messages", "", `{"format":"openai","system":"only anthropic has it","messages":[{"role":"user","content":"hi"}]}`).problem(t, 400, CodeBadRequest)
	ts.call(t, "POST", base+"/messages", "", `{"format":"anthropic","messages":[{"role":"user","content":"hi"}]}`).must(t, 200)
	var added addedBody
	ts.call(t, "POST", base+"/reply", "", `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"reading"},{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.go"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"cache_read_input_tokens":90,"output_tokens":7}}`).must(t, 200).decode(t, &added)
	if added.Format != FormatAnthropic || added.Text != "reading" || len(added.ToolCalls) != 1 || added.ToolCalls[0].ID != "toolu_1" ||
		added.Usage == nil || added.Usage.PromptTokens() != 100 {
		t.Fatalf("reply: %+v %+v", added, added.Usage)
	}
	ts.call(t, "POST", base+"/messages", "", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package a"}]}]}`).must(t, 200)
	added = addedBody{}
	ts.call(t, "POST", base+"/reply?format=chat", "", `{"role":"assistant","parts":[{"type":"text","text":"done"}]}`).must(t, 200).decode(t, &added)
	if added.Format != FormatChat || added.Text != "done" {
		t.Fatalf("chat reply: %+v", added)
	}
	var in inspectView
	ts.call(t, "GET", base+"/inspect", "", nil).must(t, 200).decode(t, &in)
	if in.Window.Messages != 4 || in.Window.Anchor.Reported != 100 {
		t.Errorf("window %+v", in.Window)
	}
}

// TestEngineKeptAcrossTurns: a server that alone writes a session keeps
// its Engine across turns, compactions, recalls and inspections: the
// entry count it expects is the store's after each request, so it never
// resumes the session (issue 29: the count is kept from the Engine's own
// appends, no longer read back from the store after each request).
func TestEngineKeptAcrossTurns(t *testing.T) {
	t.Parallel()
	for _, st := range tenantStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			ts := newTestServer(t, Options{Store: st.open(t), Logger: newJSONLogger(&logs)}, true)
			id := ts.createSession(t, tokenA, map[string]any{"budget": 3000})
			base := "/v1/sessions/" + id
			for i := range 12 {
				call := fmt.Sprintf(`{"id":"c%d","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f%d.go\"}"}}]},"finish_reason":"tool_calls"}]}`, i, i, i)
				ts.call(t, "POST", base+"/messages", tokenA, map[string]any{"messages": []any{map[string]string{"role": "user", "content": fmt.Sprintf("turn %d: %s", i, strings.Repeat("word ", 200))}}}).must(t, 200)
				ts.call(t, "POST", base+"/request", tokenA, map[string]string{"format": "chat"}).must(t, 200)
				ts.call(t, "POST", base+"/reply", tokenA, call).must(t, 200)
				result := map[string]any{"messages": []any{map[string]string{"role": "tool", "tool_call_id": fmt.Sprintf("call_%d", i), "content": strings.Repeat(fmt.Sprintf("line %d\n", i), 400)}}}
				ts.call(t, "POST", base+"/messages", tokenA, result).must(t, 200)
				ts.call(t, "GET", base+fmt.Sprintf("/outputs/call_%d", i), tokenA, nil).must(t, 200)
				ts.call(t, "GET", base+"/inspect", tokenA, nil).must(t, 200)
				if i%4 == 3 {
					ts.call(t, "POST", base+"/compact", tokenA, nil).must(t, 200)
				}
			}
			var in inspectView
			ts.call(t, "GET", base+"/inspect", tokenA, nil).must(t, 200).decode(t, &in)
			if in.Session.Compactions == 0 {
				t.Errorf("no compaction in 12 turns at 3,000 tokens: %+v", in)
			}
			if strings.Contains(logs.String(), "session changed in the store") {
				t.Errorf("the server resumed a session only it wrote:\n%s", logs.String())
			}
		})
	}
}

// TestRequestAdd: POST .../request with "add" adds the messages first, in
// the same call, and hands out what POST .../messages then POST
// .../request would have: the same request body byte for byte, the same
// entry count, the same limiter cut; a bad message there answers 400
// naming it under add, and adds nothing.
func TestRequestAdd(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, false)
	create := map[string]any{"model": "gpt-4o", "budget": 4000, "tools": []any{readFileTool}}
	two, one := ts.createSession(t, "", create), ts.createSession(t, "", create)
	user := `{"messages":[{"role":"user","content":"What is in main.go?"}]}`
	for _, id := range []string{two, one} {
		// The messages and reply routes answer the entry count as a read
		// of the session gives it.
		var msgs, reply addedBody
		ts.call(t, "POST", "/v1/sessions/"+id+"/messages", "", user).must(t, 200).decode(t, &msgs)
		if n := ts.entries(t, id); msgs.Entries != n {
			t.Errorf("messages: %d entries, the session %d", msgs.Entries, n)
		}
		ts.call(t, "POST", "/v1/sessions/"+id+"/request", "", nil).must(t, 200)
		ts.call(t, "POST", "/v1/sessions/"+id+"/reply", "", replyToolCall).must(t, 200).decode(t, &reply)
		if n := ts.entries(t, id); reply.Entries != n || n <= msgs.Entries {
			t.Errorf("reply: %d entries, the session %d (%d after the messages)", reply.Entries, n, msgs.Entries)
		}
	}
	// A result the limiter cuts at this budget.
	output := strings.Repeat("func f() { return 42 } // main.go line\n", 1200)
	tool, err := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "tool", "tool_call_id": "call_1", "content": output}}})
	if err != nil {
		t.Fatal(err)
	}
	var added addedBody
	ts.call(t, "POST", "/v1/sessions/"+two+"/messages", "", tool).must(t, 200).decode(t, &added)
	var want, got requestView
	ts.call(t, "POST", "/v1/sessions/"+two+"/request", "", `{"format":"anthropic"}`).must(t, 200).decode(t, &want)
	before := ts.entries(t, one)
	ts.call(t, "POST", "/v1/sessions/"+one+"/request", "", `{"format":"anthropic","add":`+string(tool)+`}`).must(t, 200).decode(t, &got)
	if added.Limited != 1 || got.Added != 1 || got.Limited != added.Limited {
		t.Errorf("messages route: %d added, %d limited; request with add: %d added, %d limited", added.Added, added.Limited, got.Added, got.Limited)
	}
	if !bytes.Equal(got.Body, want.Body) || got.Tokens != want.Tokens || got.Entries != want.Entries || got.Entries <= before {
		t.Errorf("request with add: %d tokens, %d entries (%d before); in two calls: %d tokens, %d entries\n%s\n%s", got.Tokens, got.Entries, before, want.Tokens, want.Entries, got.Body, want.Body)
	}
	if n := ts.entries(t, one); n != got.Entries {
		t.Errorf("the session has %d entries, the answer says %d", n, got.Entries)
	}
	// A bad message: 400 naming it, nothing added, no request recorded.
	before = ts.entries(t, one)
	for body, field := range map[string]string{
		`{"add":{"messages":[{"role":"user","content":"ok"},{"role":"boss","content":"x"}]}}`: "add: chat: openai: messages[1]",
		`{"add":{"format":"chat","messages":[{"role":"user","parts":7}]}}`:                    "add.messages[0]",
		`{"add":{"messages":[]}}`:                                                             "add.messages",
		`{"add":{"format":"xml","messages":[{"role":"user"}]}}`:                               "add.format",
		`{"add":{"system":"s","messages":[{"role":"user","content":"x"}],"format":"openai"}}`: "add.system",
	} {
		p := ts.call(t, "POST", "/v1/sessions/"+one+"/request", "", body).problem(t, 400, CodeBadRequest)
		if !strings.HasPrefix(p.Detail, field) {
			t.Errorf("%s: detail %q does not name %s", body, p.Detail, field)
		}
	}
	if n := ts.entries(t, one); n != before {
		t.Errorf("bad adds changed the session: %d entries, %d before", n, before)
	}
}

// entries is session id's entry count, as a read of the session gives it.
func (ts *testServer) entries(t testing.TB, id string) int {
	t.Helper()
	var sess struct {
		Entries int `json:"entries"`
	}
	ts.call(t, "GET", "/v1/sessions/"+id, "", nil).must(t, 200).decode(t, &sess)
	return sess.Entries
}
