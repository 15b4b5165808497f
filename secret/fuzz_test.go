package secret

import (
	"strings"
	"testing"

	"github.com/agentctx/agentctx/secret/secrettest"
)

// seeds are the fuzz targets' starting inputs: every fake, near misses,
// escapes, adjacent secrets and markers.
func seeds() []string {
	return []string{
		"", "password = \"Tr0ub4dor&3xK9\"", fakeAWSKeyID, "aws_secret_access_key=" + fakeAWSSecret,
		fakePEM, fakePEMJSON, fakePGP, fakeGitHubPAT, fakeGitHubFG, fakeOpenAI, fakeOpenAIPr, fakeAnthropic,
		fakeSlack, fakeGoogle, fakeStripe, fakeJWT, "token: ${{ secrets.X }}", "sk-learn task-runner",
		"-----BEGIN RSA PRIVATE KEY-----\\n", "eyJ.eyJ.x", "secret=\"\\\"", "api_key:`aB3dE5gH7jK9`",
		"ключ " + fakeGoogle + " 日本",
		fakeAWSKeyID + fakeAWSKeyID, fakeGitHubPAT + "," + fakeAWSKeyID, "x" + fakeAWSKeyID + " " + fakeAWSKeyID,
		"token = [REDACTED github_token]", MarkerPrefix + KindJWT + "]" + fakeJWT,
		secrettest.Password + " password=" + secrettest.Password,
		secrettest.GitLabPAT, secrettest.SlackWebhook, secrettest.AzureConn, secrettest.URLWithPass,
		"https://u:p@h", "x://:@", "DB_PASSWORD=" + secrettest.EnvHashPass, `PASSWORD="` + secrettest.EnvHashQuoted + `"`,
		secrettest.TwilioAPIKey, secrettest.TwilioAccount, secrettest.SendGrid, secrettest.Mailgun, secrettest.HuggingFace,
		"HEROKU_API_KEY=" + "4bab3c67-5dad-4aa9-b562-9bc51d01b14b", "glpat-" + secrettest.GitLabPAT,
	}
}

func FuzzFind(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		end := 0
		for i, s := range Find(text) {
			if s.Length <= 0 || s.Offset < end || s.Offset+s.Length > len(text) {
				t.Fatalf("finding %d %+v out of range or overlapping (previous end %d, len %d)", i, s, end, len(text))
			}
			end = s.Offset + s.Length
		}
	})
}

// FuzzRedact: the output holds no value Find reports in the input, Find
// reports nothing in it, and redacting it again changes nothing.
func FuzzRedact(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		out := Redact(text)
		for _, s := range Find(text) {
			if v := text[s.Offset : s.Offset+s.Length]; strings.Contains(out, v) {
				t.Fatalf("Redact(%q) = %q holds the %s %q", text, out, s.Kind, v)
			}
		}
		if got := Find(out); got != nil {
			t.Fatalf("Redact(%q) = %q, in which Find reports %+v", text, out, got)
		}
		if again := Redact(out); again != out {
			t.Fatalf("not idempotent: Redact(%q) = %q, then %q", text, out, again)
		}
	})
}
