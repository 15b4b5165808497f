package reminder

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Fake credentials are built by concatenation so that secret scanners do
// not flag this file; none of them is real.
var (
	fakeAWSKeyID  = "AKIA" + "Z7Q4M2XK5WJ3R6TB"
	fakeAWSSTS    = "ASIA" + "QX5B7N3K2M8P4R6T"
	fakeAWSSecret = "h8Kq2Lz" + "P9vR3mXw7Tb5Nc1Yd6Fg0Js4Ua/+Ze8Qo"
	fakeGitHubPAT = "ghp_" + "a8Bc3De9Fg2Hi7Jk4Lm1No6Pq5Rs0Tu2VwXyZ"
	fakeGitHubS2S = "ghs_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
	fakeGitHubFG  = "github_pat_" + "11ABCDE2F0gH3iJ4kL5mN6_" + "oP7qR8sT9uV0wX1yZ2aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5aB6cD7eF8g"
	fakeOpenAI    = "sk-" + "T3BlbkFJ4xQ9mZ2vR7nK1pL8wS5yD3hG6jF0cX4bN7aM2eU9"
	fakeOpenAIPr  = "sk-proj-" + "Ab3Cd9Ef2Gh7Ij4Kl1Mn6Op5Qr0St8Uv3Wx2Yz1aB4cD7eF0gH9iJ6kL_mN-oP"
	fakeAnthropic = "sk-ant-" + "api03-" + "Xy7Zq2Wv9Ut4Sr1Qp8On3Ml6Kj5Ih0Gf2Ed7Cb4Aa9Zz1Yy6Xx3Ww8Vv5Uu0Tt-AA"
	fakeSlack     = "xoxb-" + "2480913576-" + "6619037724810-" + "Jq8Rk2Ls9Tm4Un1Vo7Wp3Xq"
	fakeGoogle    = "AIza" + "SyB7k2Lm9Np4Qr1St8Uv3Wx6Yz0Ab5Cd2Ef"
	fakeStripe    = "sk_live_" + "51Hq8Rk2Ls9Tm4Un1Vo7Wp3XqYz6Ab"
	fakeStripeRK  = "rk_live_" + "9Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1Ji"
	fakeJWT       = b64(`{"alg":"HS256","typ":"JWT"}`) + "." + b64(`{"sub":"1234567890","name":"Jo","iat":1516239022}`) + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	fakePEMBody   = strings.Repeat("MIIEowIBAAKCAQEAw3Jk9pQ2vR7nK1pL8wS5yD3hG6jF0cX4bN7aM2eU9\n", 4)
	fakePEM       = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + fakePEMBody + "-----END RSA " + "PRIVATE KEY-----"
	fakePEMJSON   = `-----BEGIN ` + `PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC8\n-----END ` + `PRIVATE KEY-----\n`
	fakePGP       = "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF8x2ZMBCADJ4kq9pQ2vR7nK1pL8wS5yD3hG6jF0cX4bN7aM2eU9Zq\n=Ab3C\n-----END PGP " + "PRIVATE KEY BLOCK-----"
	fakePassword  = "Tr0ub4dor&3xK9"
)

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// found is a Secret with its bytes, for readable diffs.
type found struct {
	Kind, Value string
}

func findAll(text string) []found {
	var out []found
	for _, s := range FindSecrets(text) {
		out = append(out, found{s.Kind, text[s.Offset : s.Offset+s.Length]})
	}
	return out
}

func TestFindSecretsPositives(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []found
	}{
		{"aws key id", "aws_access_key_id = " + fakeAWSKeyID + "\n", []found{{SecretAWSAccessKeyID, fakeAWSKeyID}}},
		{"aws sts key id", "export AWS_ACCESS_KEY_ID=" + fakeAWSSTS, []found{{SecretAWSAccessKeyID, fakeAWSSTS}}},
		{"aws secret ini", "[default]\naws_secret_access_key = " + fakeAWSSecret + "\n", []found{{SecretAWSSecretAccessKey, fakeAWSSecret}}},
		{"aws secret env upper", "export AWS_SECRET_ACCESS_KEY=\"" + fakeAWSSecret + "\"", []found{{SecretAWSSecretAccessKey, fakeAWSSecret}}},
		{"aws secret prefixed name", "MY_AWS_SECRET_ACCESS_KEY: " + fakeAWSSecret, []found{{SecretAWSSecretAccessKey, fakeAWSSecret}}},
		{"rsa private key", "key.pem:\n" + fakePEM + "\n", []found{{SecretPrivateKey, fakePEM}}},
		{"private key in json", `{"type":"service_account","private_key":"` + fakePEMJSON + `"}`, []found{{SecretPrivateKey, strings.TrimSuffix(fakePEMJSON, `\n`)}}},
		{"pgp private key", fakePGP, []found{{SecretPrivateKey, fakePGP}}},
		{"private key without end", "-----BEGIN EC " + "PRIVATE KEY-----\n" + fakePEMBody[:100] + "\n\nls: done", []found{{SecretPrivateKey, "-----BEGIN EC " + "PRIVATE KEY-----\n" + fakePEMBody[:100]}}},
		{"github classic", "token: " + fakeGitHubPAT, []found{{SecretGitHubToken, fakeGitHubPAT}}},
		{"github app", "GH=" + fakeGitHubS2S + ".", []found{{SecretGitHubToken, fakeGitHubS2S}}},
		{"github fine-grained", "remote: https://x:" + fakeGitHubFG + "@github.com/o/r", []found{{SecretGitHubToken, fakeGitHubFG}}},
		{"openai legacy", "OPENAI_API_KEY=" + fakeOpenAI, []found{{SecretOpenAIKey, fakeOpenAI}}},
		{"openai project", `client = OpenAI(api_key="` + fakeOpenAIPr + `")`, []found{{SecretOpenAIKey, fakeOpenAIPr}}},
		{"anthropic", "x-api-key: " + fakeAnthropic, []found{{SecretAnthropicKey, fakeAnthropic}}},
		{"slack", "SLACK_BOT_TOKEN=" + fakeSlack, []found{{SecretSlackToken, fakeSlack}}},
		{"google", `"key": "` + fakeGoogle + `"`, []found{{SecretGoogleAPIKey, fakeGoogle}}},
		{"stripe secret", "Stripe.api_key = '" + fakeStripe + "'", []found{{SecretStripeKey, fakeStripe}}},
		{"stripe restricted", fakeStripeRK, []found{{SecretStripeKey, fakeStripeRK}}},
		{"jwt bearer", "Authorization: Bearer " + fakeJWT + "\r\n", []found{{SecretJWT, fakeJWT}}},
		{"jwt in token assignment wins over generic", `token = "` + fakeJWT + `"`, []found{{SecretJWT, fakeJWT}}},
		{"generic quoted", `DB_PASSWORD = "` + fakePassword + `"`, []found{{SecretGeneric, fakePassword}}},
		{"generic json", `{"client_secret": "9f8e7d6c5b4a3x2w1v0u"}`, []found{{SecretGeneric, "9f8e7d6c5b4a3x2w1v0u"}}},
		{"generic escaped json", `"{\"api_key\": \"Qz8Wx2Ec4Rv6Tb\"}"`, []found{{SecretGeneric, "Qz8Wx2Ec4Rv6Tb"}}},
		{"generic env unquoted", "SESSION_SECRET=Zk29fjQ0pLw8Xr3T\n", []found{{SecretGeneric, "Zk29fjQ0pLw8Xr3T"}}},
		{"generic yaml", "  password: Gh7Kp2Lm9Qr4\n", []found{{SecretGeneric, "Gh7Kp2Lm9Qr4"}}},
		{"generic go", `const apiKey = "aB3dE5gH7jK9"`, []found{{SecretGeneric, "aB3dE5gH7jK9"}}},
		{"several sorted", fakeGoogle + " and " + fakeAWSKeyID + " and " + fakeSlack, []found{
			{SecretGoogleAPIKey, fakeGoogle}, {SecretAWSAccessKeyID, fakeAWSKeyID}, {SecretSlackToken, fakeSlack},
		}},
		{"after multibyte text", "ключ: " + fakeGitHubPAT, []found{{SecretGitHubToken, fakeGitHubPAT}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, findAll(tt.text)); diff != "" {
				t.Errorf("FindSecrets(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestFindSecretsNegatives(t *testing.T) {
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
		{"hex digest in prose", "sha256: 3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := findAll(tt.text); len(got) != 0 {
				t.Errorf("FindSecrets(%q) = %v, want none", tt.text, got)
			}
		})
	}
}

// TestFindSecretsOverlap checks that overlapping findings are reduced to
// the most specific one and that the result is sorted and disjoint.
func TestFindSecretsOverlap(t *testing.T) {
	t.Parallel()
	text := "GITHUB_TOKEN=" + fakeGitHubPAT + "\nOPENAI_API_KEY=\"" + fakeOpenAI + "\"\nAWS_SECRET_ACCESS_KEY=" + fakeAWSSecret
	want := []found{{SecretGitHubToken, fakeGitHubPAT}, {SecretOpenAIKey, fakeOpenAI}, {SecretAWSSecretAccessKey, fakeAWSSecret}}
	if diff := cmp.Diff(want, findAll(text)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
