package server

import (
	"encoding/json"
	"testing"
)

// TestAnthropicSystemTwice: Anthropic-shape messages posted twice with
// the same top-level system (a client that sends its system prompt with
// every turn) leave the session's requests valid: the repeated system is
// not appended again (on main each post put one more copy of it in
// mid-conversation, a role "system" message among the messages; the
// review saw every later request refused with 400). A different system
// is kept once, in its place.
func TestAnthropicSystemTwice(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, false)
	id := ts.createSession(t, "", nil)
	post := func(system, text string) {
		ts.call(t, "POST", "/v1/sessions/"+id+"/messages", "", map[string]any{
			"format": "anthropic", "system": system,
			"messages": []any{map[string]any{"role": "user", "content": text}},
		}).must(t, 200)
	}
	request := func() (system json.RawMessage, roles []string) {
		var rv requestView
		ts.call(t, "POST", "/v1/sessions/"+id+"/request", "", map[string]any{"format": "anthropic"}).must(t, 200).decode(t, &rv)
		var body struct {
			System   json.RawMessage `json:"system"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(rv.Body, &body); err != nil {
			t.Fatal(err)
		}
		for _, m := range body.Messages {
			roles = append(roles, m.Role)
		}
		return body.System, roles
	}
	post("be brief", "hi")
	ts.call(t, "POST", "/v1/sessions/"+id+"/reply", "", `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":5,"output_tokens":1}}`).must(t, 200)
	post("be brief", "again")
	system, roles := request()
	for _, r := range roles {
		if r == "system" {
			t.Errorf("a system message among the messages: %v", roles)
		}
	}
	if string(system) == "" || !json.Valid(system) {
		t.Errorf("system %s", system)
	}
	ts.call(t, "POST", "/v1/sessions/"+id+"/request", "", nil).must(t, 200)
	post("be verbose", "third")
	post("be verbose", "fourth")
	system, roles = request()
	systems := 0
	for _, r := range roles {
		if r == "system" {
			systems++
		}
	}
	if systems != 1 {
		t.Errorf("a new system prompt posted twice: %d system messages in %v (system %s)", systems, roles, system)
	}
}
