package reminder

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/secret/secrettest"
	"github.com/google/go-cmp/cmp"
)

// FuzzSecurityGenerator checks that the security reminder never holds a
// secret it warns about and knows every kind secret.Find reports.
func FuzzSecurityGenerator(f *testing.F) {
	for _, s := range []string{
		"", "password = \"Tr0ub4dor&3xK9\"", secrettest.AWSKeyID, "aws_secret_access_key=" + secrettest.AWSSecret,
		secrettest.PEM, secrettest.PEMJSON, secrettest.PGP, secrettest.GitHubPAT, secrettest.GitHubFG, secrettest.OpenAI, secrettest.OpenAIProj, secrettest.Anthropic,
		secrettest.Slack, secrettest.Google, secrettest.Stripe, secrettest.JWT, "token: ${{ secrets.X }}", "sk-learn task-runner",
		"-----BEGIN RSA PRIVATE KEY-----\\n", "eyJ.eyJ.x", "secret=\"\\\"", "api_key:`aB3dE5gH7jK9`",
		"ключ " + secrettest.Google + " 日本",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := secret.Find(text)
		for _, s := range got {
			if _, ok := secretLabels[s.Kind]; !ok {
				t.Fatalf("unknown kind %q", s.Kind)
			}
		}
		// The security reminder never holds a finding's bytes.
		for _, r := range SecurityGenerator().Generate(State{Results: []chat.ToolResult{{ToolCallID: "c", ToolName: "t", Content: text}}}) {
			if !utf8.ValidString(r.Text) && utf8.ValidString(text) {
				t.Fatalf("invalid UTF-8 reminder from valid input")
			}
			for _, s := range got {
				if v := text[s.Offset : s.Offset+s.Length]; len(v) >= 8 && strings.Contains(r.Text, v) {
					t.Fatalf("reminder holds secret %q", v)
				}
			}
		}
	})
}

func FuzzTodosFromCall(f *testing.F) {
	for _, s := range []struct{ name, args string }{
		{"TodoWrite", `{"todos":[{"content":"a","status":"in_progress","activeForm":"A","priority":"high","id":"1"}]}`},
		{"todo_write", `{"todos":[]}`},
		{"write_todos", `{"todos":[{"description":"d","status":"pending"}]}`},
		{"update_plan", `{"explanation":"e","plan":[{"step":"s","status":"completed"}]}`},
		{"update_plan", `"{\"plan\":[{\"step\":\"s\",\"status\":\"pending\"}]}"`},
		{"update_plan", `"[REDACTED_ARGUMENTS len=460 sha=f353e6e8]"`},
		{"task_tracker", `{"command":"plan","task_list":[{"id":1,"title":"t","status":"done"}]}`},
		{"task_tracker", `{"command":"view"}`},
		{"Bash", `{"command":"ls"}`},
		{"TodoWrite", `{"todos":[{"content":1}]}`},
		{"TodoWrite", `{`},
	} {
		f.Add(s.name, s.args)
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		call := chat.ToolCall{ID: "c", Name: name, Arguments: json.RawMessage(args)}
		got, ok := TodosFromCall(call)
		if !ok {
			if got != nil {
				t.Fatalf("false with a list: %v", got)
			}
			return
		}
		if got == nil {
			t.Fatal("true with a nil list")
		}
		for i, td := range got {
			if td.Content == "" || td.Status == "" {
				t.Fatalf("item %d without content or status: %+v", i, td)
			}
		}
		again, ok2 := TodosFromCall(call)
		if !ok2 || !cmp.Equal(got, again) {
			t.Fatalf("not deterministic: %v vs %v", got, again)
		}
		if TodoHash(got) != TodoHash(again) {
			t.Fatal("hash not deterministic")
		}
	})
}
