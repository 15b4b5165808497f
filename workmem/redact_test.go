package workmem

import (
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret/secrettest"
)

// TestMemoryRedacts: nothing the memory keeps from messages or the agent
// holds a secret: task, thought, plan, arguments, observations, findings,
// reflection, in the state and in BuildContext.
func TestMemoryRedacts(t *testing.T) {
	t.Parallel()
	aws, gh := secrettest.AWSKeyID, secrettest.GitHubPAT
	a := New("deploy with key "+aws, Options{Now: fixedClock()})
	a.ObserveMessage(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.Text{Text: "Plan:\n1. export KEY=" + aws + "\n2. push with " + gh},
		chat.ToolCall{ID: "c1", Name: "Bash", Arguments: []byte(`{"command":"git push https://x:` + gh + `@github.com/o/r"}`)},
		// A PEM key in JSON: its escaped line breaks are part of the span.
		chat.ToolCall{ID: "c2", Name: "Write", Arguments: []byte(`{"file_path":"k.pem","content":"` + secrettest.PEMJSON + `"}`)},
	}})
	a.Observe(chat.ToolResult{ToolCallID: "c1", Content: "Exit code 128\nfatal: token " + gh + " rejected"})
	a.Observe(chat.ToolResult{ToolCallID: "c2", Content: "ok"})
	a.AddFinding(Finding{Finding: "the key is " + aws, Evidence: ".env:1 " + aws})
	a.EndRound("pushed with " + gh)
	js, err := a.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"state": string(js), "context": a.BuildContext(4000)} {
		for _, s := range []string{aws, gh, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"} {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %q:\n%s", name, s, text)
			}
		}
	}
	if !strings.Contains(string(js), "[REDACTED github_token]") {
		t.Errorf("no marker in the state:\n%s", js)
	}
	b, err := FromJSON(js, Options{})
	if err != nil {
		t.Fatalf("the redacted state does not round-trip: %v", err)
	}
	if again, _ := b.ToJSON(); string(again) != string(js) {
		t.Errorf("round trip changed the state:\n%s\n%s", js, again)
	}
}

// TestFromJSONRedacts: a state saved before redaction existed is redacted
// when it is restored; a redacted state round-trips unchanged.
func TestFromJSONRedacts(t *testing.T) {
	t.Parallel()
	gh := secrettest.GitHubPAT
	old := `{"version":1,"task":"push with ` + gh + `","scratchpad":[{"finding":"token ` + gh + `","importance":5,"round":1}],` +
		`"rounds":[{"iteration":1,"thought":"use ` + gh + `","actions":[{"tool":"Bash","arguments":{"command":"echo ` + gh + `"}}],` +
		`"observations":[{"tool":"Bash","got_new_info":true,"result_type":"command","key_facts":["error: ` + gh + `"],"size":3,"raw":"` + gh + `"}],` +
		`"start":"2025-01-02T03:04:05Z"}],"plan":{"text":"1. a ` + gh + `\n2. b","steps":[{"description":"a ` + gh + `","status":"pending"},{"description":"b","status":"pending"}],"created":1,"updated":1}}`
	a, err := FromJSON([]byte(old), Options{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := a.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), gh) || strings.Contains(a.BuildContext(4000), gh) {
		t.Errorf("restored state keeps the secret:\n%s", js)
	}
	b, err := FromJSON(js, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := b.ToJSON(); string(again) != string(js) {
		t.Errorf("a redacted state changed in the round trip:\n%s\n%s", js, again)
	}
}
