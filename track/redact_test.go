package track

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/secret/secrettest"
)

// TestRecordRedacts: previews, search queries and summaries, failed
// commands and their error lines keep no secret, in the state or in the
// section.
func TestRecordRedacts(t *testing.T) {
	t.Parallel()
	aws, gh := secrettest.AWSKeyID, secrettest.GitHubPAT
	tr := New(Options{Stat: noStat})
	tr.Record(call("Read", map[string]any{"file_path": ".env"}), ok("AWS_ACCESS_KEY_ID="+aws+"\nREGION=eu\n"))
	tr.Record(call("Grep", map[string]any{"pattern": gh}), ok("config.yml:3: token: "+gh))
	tr.Record(call("Bash", map[string]any{"command": "curl -H 'Authorization: token " + gh + "' api"}), bad("Exit code 22\ncurl: (22) 401 for key "+aws))
	want := State{
		Files:       []FileRead{{Path: ".env", Preview: "AWS_ACCESS_KEY_ID=[REDACTED aws_access_key_id]\nREGION=eu", Reads: 1}},
		Searches:    []Search{{Query: "[REDACTED github_token]", Summary: "config.yml:3: token: [REDACTED github_token]"}},
		Commands:    []FailedCommand{{Command: "curl -H 'Authorization: token [REDACTED github_token]' api", Error: "curl: (22) 401 for key [REDACTED aws_access_key_id]", Failures: 1}},
		SearchCount: 1,
	}
	if diff := cmp.Diff(want, tr.State(), ignoreCalls); diff != "" {
		t.Errorf("state mismatch (-want +got):\n%s", diff)
	}
	js, _ := json.Marshal(tr.State())
	for _, text := range []string{string(js), tr.Section()} {
		if strings.Contains(text, aws) || strings.Contains(text, gh) {
			t.Errorf("secret kept:\n%s", text)
		}
	}
}

// TestSetStateRedacts: a state saved before redaction existed is redacted
// when it is restored.
func TestSetStateRedacts(t *testing.T) {
	t.Parallel()
	aws := secrettest.AWSKeyID
	tr := New(Options{Stat: noStat})
	old := State{
		Files:    []FileRead{{Path: ".env", Preview: "KEY=" + aws, Reads: 1}},
		Commands: []FailedCommand{{Command: "aws --key " + aws, Error: "bad key " + aws, Failures: 1}},
		Searches: []Search{{Query: aws, Summary: "x: " + aws}},
	}
	tr.SetState(old)
	js, _ := json.Marshal(tr.State())
	if strings.Contains(string(js), aws) || strings.Contains(tr.Section(), aws) {
		t.Errorf("restored state keeps the secret: %s", js)
	}
	if !strings.Contains(old.Files[0].Preview, aws) {
		t.Error("SetState modified its argument")
	}
}
