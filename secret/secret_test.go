package secret

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/secret/secrettest"
)

// The fakes of package secrettest, under short names.
var (
	fakeAWSKeyID  = secrettest.AWSKeyID
	fakeAWSSTS    = secrettest.AWSSTS
	fakeAWSSecret = secrettest.AWSSecret
	fakeGitHubPAT = secrettest.GitHubPAT
	fakeGitHubS2S = secrettest.GitHubS2S
	fakeGitHubFG  = secrettest.GitHubFG
	fakeOpenAI    = secrettest.OpenAI
	fakeOpenAIPr  = secrettest.OpenAIProj
	fakeAnthropic = secrettest.Anthropic
	fakeSlack     = secrettest.Slack
	fakeGoogle    = secrettest.Google
	fakeStripe    = secrettest.Stripe
	fakeStripeRK  = secrettest.StripeRK
	fakeJWT       = secrettest.JWT
	fakePEMBody   = secrettest.PEMBody
	fakePEM       = secrettest.PEM
	fakePEMJSON   = secrettest.PEMJSON
	fakePGP       = secrettest.PGP
	fakePassword  = secrettest.Password
)

var b64 = secrettest.B64

// found is a Span with its bytes, for readable diffs.
type found struct {
	Kind, Value string
}

func findAll(text string) []found {
	var out []found
	for _, s := range Find(text) {
		out = append(out, found{s.Kind, text[s.Offset : s.Offset+s.Length]})
	}
	return out
}

func TestFindPositives(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []found
	}{
		{"aws key id", "aws_access_key_id = " + fakeAWSKeyID + "\n", []found{{KindAWSAccessKeyID, fakeAWSKeyID}}},
		{"aws sts key id", "export AWS_ACCESS_KEY_ID=" + fakeAWSSTS, []found{{KindAWSAccessKeyID, fakeAWSSTS}}},
		{"aws secret ini", "[default]\naws_secret_access_key = " + fakeAWSSecret + "\n", []found{{KindAWSSecretAccessKey, fakeAWSSecret}}},
		{"aws secret env upper", "export AWS_SECRET_ACCESS_KEY=\"" + fakeAWSSecret + "\"", []found{{KindAWSSecretAccessKey, fakeAWSSecret}}},
		{"aws secret prefixed name", "MY_AWS_SECRET_ACCESS_KEY: " + fakeAWSSecret, []found{{KindAWSSecretAccessKey, fakeAWSSecret}}},
		{"rsa private key", "key.pem:\n" + fakePEM + "\n", []found{{KindPrivateKey, fakePEM}}},
		{"private key in json", `{"type":"service_account","private_key":"` + fakePEMJSON + `"}`, []found{{KindPrivateKey, strings.TrimSuffix(fakePEMJSON, `\n`)}}},
		{"pgp private key", fakePGP, []found{{KindPrivateKey, fakePGP}}},
		{"private key without end", "-----BEGIN EC " + "PRIVATE KEY-----\n" + fakePEMBody[:100] + "\n\nls: done", []found{{KindPrivateKey, "-----BEGIN EC " + "PRIVATE KEY-----\n" + fakePEMBody[:100]}}},
		{"github classic", "token: " + fakeGitHubPAT, []found{{KindGitHubToken, fakeGitHubPAT}}},
		{"github app", "GH=" + fakeGitHubS2S + ".", []found{{KindGitHubToken, fakeGitHubS2S}}},
		{"github fine-grained", "remote: https://x:" + fakeGitHubFG + "@github.com/o/r", []found{{KindGitHubToken, fakeGitHubFG}}},
		{"openai legacy", "OPENAI_API_KEY=" + fakeOpenAI, []found{{KindOpenAIKey, fakeOpenAI}}},
		{"openai project", `client = OpenAI(api_key="` + fakeOpenAIPr + `")`, []found{{KindOpenAIKey, fakeOpenAIPr}}},
		{"anthropic", "x-api-key: " + fakeAnthropic, []found{{KindAnthropicKey, fakeAnthropic}}},
		{"slack", "SLACK_BOT_TOKEN=" + fakeSlack, []found{{KindSlackToken, fakeSlack}}},
		{"google", `"key": "` + fakeGoogle + `"`, []found{{KindGoogleAPIKey, fakeGoogle}}},
		{"stripe secret", "Stripe.api_key = '" + fakeStripe + "'", []found{{KindStripeKey, fakeStripe}}},
		{"stripe restricted", fakeStripeRK, []found{{KindStripeKey, fakeStripeRK}}},
		{"jwt bearer", "Authorization: Bearer " + fakeJWT + "\r\n", []found{{KindJWT, fakeJWT}}},
		{"jwt in token assignment wins over generic", `token = "` + fakeJWT + `"`, []found{{KindJWT, fakeJWT}}},
		{"generic quoted", `DB_PASSWORD = "` + fakePassword + `"`, []found{{KindGeneric, fakePassword}}},
		{"generic json", `{"client_secret": "9f8e7d6c5b4a3x2w1v0u"}`, []found{{KindGeneric, "9f8e7d6c5b4a3x2w1v0u"}}},
		{"generic escaped json", `"{\"api_key\": \"Qz8Wx2Ec4Rv6Tb\"}"`, []found{{KindGeneric, "Qz8Wx2Ec4Rv6Tb"}}},
		{"generic env unquoted", "SESSION_SECRET=Zk29fjQ0pLw8Xr3T\n", []found{{KindGeneric, "Zk29fjQ0pLw8Xr3T"}}},
		{"generic yaml", "  password: Gh7Kp2Lm9Qr4\n", []found{{KindGeneric, "Gh7Kp2Lm9Qr4"}}},
		{"generic go", `const apiKey = "aB3dE5gH7jK9"`, []found{{KindGeneric, "aB3dE5gH7jK9"}}},
		{"several sorted", fakeGoogle + " and " + fakeAWSKeyID + " and " + fakeSlack, []found{
			{KindGoogleAPIKey, fakeGoogle}, {KindAWSAccessKeyID, fakeAWSKeyID}, {KindSlackToken, fakeSlack},
		}},
		{"after multibyte text", "ключ: " + fakeGitHubPAT, []found{{KindGitHubToken, fakeGitHubPAT}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, findAll(tt.text)); diff != "" {
				t.Errorf("Find(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestReviewKinds: the nine kinds of secret a security review found
// missing, in the contexts where agents meet them, are each found and
// redacted (finding 7 of the review).
func TestReviewKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []found
	}{
		{"gitlab pat", "git remote set-url origin https://oauth2@gitlab.com/x/y\nexport GITLAB_TOKEN=" + secrettest.GitLabPAT + "\n",
			[]found{{KindGitLabToken, secrettest.GitLabPAT}}},
		{"gitlab pat in header", `curl --header "PRIVATE-TOKEN: ` + secrettest.GitLabPAT + `" https://gitlab.example.com/api/v4/projects`,
			[]found{{KindGitLabToken, secrettest.GitLabPAT}}},
		{"slack webhook", `curl -X POST -d '{"text":"hi"}' ` + secrettest.SlackWebhook,
			[]found{{KindWebhookURL, strings.TrimPrefix(secrettest.SlackWebhook, "https://hooks.slack.com/")}}},
		{"azure storage connection string", `AZURE_STORAGE_CONNECTION_STRING="` + secrettest.AzureConn + `"`,
			[]found{{KindAzureStorageKey, secrettest.AzureKey}}},
		{"url password", "DATABASE_URL=" + secrettest.URLWithPass + "\n",
			[]found{{KindURLPassword, secrettest.URLPassword}}},
		{"url password https", "git clone https://deploy:" + secrettest.URLPassword + "@git.example.org/team/repo.git",
			[]found{{KindURLPassword, secrettest.URLPassword}}},
		{"env password with # unquoted", "DB_PASSWORD=" + secrettest.EnvHashPass + "\nDB_HOST=localhost\n",
			[]found{{KindGeneric, secrettest.EnvHashPass}}},
		{"env password with # quoted", `DB_PASSWORD="` + secrettest.EnvHashQuoted + `" # the staging one` + "\n",
			[]found{{KindGeneric, secrettest.EnvHashQuoted}}},
		{"twilio api key", "TWILIO_API_KEY=" + secrettest.TwilioAPIKey + "\n",
			[]found{{KindTwilioKey, secrettest.TwilioAPIKey}}},
		{"twilio account sid", `client = Client("` + secrettest.TwilioAccount + `", auth)`,
			[]found{{KindTwilioKey, secrettest.TwilioAccount}}},
		{"sendgrid", "SENDGRID_API_KEY=" + secrettest.SendGrid + "\n",
			[]found{{KindSendGridKey, secrettest.SendGrid}}},
		{"mailgun", `auth=("api", "` + secrettest.Mailgun + `")`,
			[]found{{KindMailgunKey, secrettest.Mailgun}}},
		{"hugging face", "huggingface-cli login --token " + secrettest.HuggingFace,
			[]found{{KindHuggingFaceToken, secrettest.HuggingFace}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, findAll(tt.text)); diff != "" {
				t.Errorf("Find(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
			out := Redact(tt.text)
			for _, f := range tt.want {
				if strings.Contains(out, f.Value) {
					t.Errorf("Redact(%q) = %q holds the %s", tt.text, out, f.Kind)
				}
				if !strings.Contains(out, MarkerPrefix+f.Kind+"]") {
					t.Errorf("Redact(%q) = %q has no %s marker", tt.text, out, f.Kind)
				}
			}
		})
	}
}

func TestFindNegatives(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, text string }{
		{"empty", ""},
		{"sk- in prose", "We use sk-learn and the task-runner; see risk-assessment-framework-document-v2 and desk-booking-system-for-teams."},
		{"sk- long identifier", "pip install sk-video-processing-toolkit-extension"},
		{"git sha", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: someone\nMerge: 1c002dd 4a0f1ea"},
		{"git log oneline", "e83c5163316f89bfbde7d9ab23ca2e25604af290 Initial revision of \"git\""},
		{"uuid", "session 550e8400-e29b-41d4-a716-446655440000 started; request-id: 6ba7b810-9dad-11d1-80b4-00c04fd430c8"},
		{"base64 blob", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="},
		{"base64 json not jwt", b64(`{"name":"x","version":"1.0.0"}`) + "." + b64(`{"a":1,"b":2,"c":3}`) + ".c2lnbmF0dXJlc2lnbmF0dXJl"},
		{"eyJ without dots", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"},
		{"password placeholder", `password = "changeme"`},
		{"password short", `password = "hunter2"`},
		{"password xxx", `api_key = "xxxxxxxxxxxxxxxxxxxx"`},
		{"password angle", `api_key = "<your-api-key-here>"`},
		{"password env ref", `token: "${GITHUB_TOKEN}"`},
		{"password template", `secret: "{{ .Values.secret }}"`},
		{"actions secret", "token: ${{ secrets.GITHUB_TOKEN }}"},
		{"password from code", "password = getpass.getpass(prompt)\ntoken = os.environ['TOKEN']\nsecret = self.config.secret_value"},
		{"password no digit", `password = "correcthorsebattery"`},
		{"password attribute", `api_key = settings.OPENAI_API_KEY_V2`},
		{"tokens count", "max_tokens = 4096000000000\ntokenizer = AutoTokenizer123456"},
		{"password path", "SECRET_FILE_PATH=/run/secrets/db_password_2"},
		{"password hash name", `password_hash = "$2b$12$KIXQJ5cQe0.jD5rP2mE8ueN5VtJpP9gC2L3tQ1rS8uW"`},
		{"aws docs example", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{"aws embedded in word", "XAKIA" + "Z7Q4M2XK5WJ3R6TB"},
		{"aws too long", "AKIA" + "Z7Q4M2XK5WJ3R6TBZZ"},
		{"github placeholder", "ghp_" + strings.Repeat("x", 36)},
		{"github too short", "ghp_" + "abc123"},
		{"private key header in code", `if strings.HasPrefix(s, "-----BEGIN RSA PRIVATE KEY-----") {`},
		{"private key doc", "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----"},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----"},
		{"slack placeholder", "xoxb-your-bot-token-here"},
		{"google short", "AIzaSyShort"},
		{"stripe test", "sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc"},
		{"url without password", "git clone https://github.com/agentctx/agentctx.git; ssh git@github.com; http://user@host/"},
		{"url password placeholder", "postgres://user:password@localhost/db and https://u:$TOKEN@host and mysql://root:****@db"},
		{"twilio-like in hex digest", "sha1 ACe83c5163316f89bfbde7d9ab23ca2e25604af290"},
		{"hf too short", "hf_abc and hf_hub_download"},
		{"gitlab prefix in prose", "the glpat- prefix marks personal access tokens"},
		{"provider version", "datadog_version: 7.45.0-rc.1build2\nsentry-sdk==1.39.2"},
		{"provider names", "twitter_handle = \"agentctx_dev42\"\nazure_location: westeurope2prod\nheroku_app: my-app-staging-42"},
		{"provider code", "linear = nn.Linear(128, 64)\nokta_domain = dev-12345678.okta.com"},
		{"hex digest in prose", "sha256: 3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := findAll(tt.text); len(got) != 0 {
				t.Errorf("Find(%q) = %v, want none", tt.text, got)
			}
		})
	}
}

// TestFindOverlap checks that overlapping findings are reduced to
// the most specific one and that the result is sorted and disjoint.
func TestFindOverlap(t *testing.T) {
	t.Parallel()
	text := "GITHUB_TOKEN=" + fakeGitHubPAT + "\nOPENAI_API_KEY=\"" + fakeOpenAI + "\"\nAWS_SECRET_ACCESS_KEY=" + fakeAWSSecret
	want := []found{{KindGitHubToken, fakeGitHubPAT}, {KindOpenAIKey, fakeOpenAI}, {KindAWSSecretAccessKey, fakeAWSSecret}}
	if diff := cmp.Diff(want, findAll(text)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
