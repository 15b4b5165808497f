package secret

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, text, want string }{
		{"empty", "", ""},
		{"clean", "go test ./... passed; max_tokens = 4096", "go test ./... passed; max_tokens = 4096"},
		{"aws key id", "export AWS_ACCESS_KEY_ID=" + fakeAWSKeyID + "\n", "export AWS_ACCESS_KEY_ID=[REDACTED aws_access_key_id]\n"},
		{"value only", `DB_PASSWORD = "` + fakePassword + `"`, `DB_PASSWORD = "[REDACTED generic_secret]"`},
		{"two kinds", "GH=" + fakeGitHubPAT + " key " + fakeAWSKeyID, "GH=[REDACTED github_token] key [REDACTED aws_access_key_id]"},
		{"private key", "key.pem:\n" + fakePEM + "\nok", "key.pem:\n[REDACTED private_key]\nok"},
		{"adjacent merged", fakeGitHubPAT + "," + fakeOpenAI, "[REDACTED github_token],[REDACTED openai_api_key]"},
		// The second copy is glued to a word, so Find does not report it;
		// it is the same secret all the same.
		{"other occurrences", fakeAWSKeyID + " x" + fakeAWSKeyID, "[REDACTED aws_access_key_id] x[REDACTED aws_access_key_id]"},
		{"already redacted", "token: [REDACTED github_token]", "token: [REDACTED github_token]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Redact(tt.text)
			if got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
			if again := Redact(got); again != got {
				t.Errorf("Redact is not idempotent: %q, then %q", got, again)
			}
		})
	}
}

// TestRedactExposed: a key glued to the end of another is found only
// once the first is redacted; Redact scans again and removes it too.
func TestRedactExposed(t *testing.T) {
	t.Parallel()
	// The AWS key follows the private key's last "-": a token byte, so
	// Find misses it until the private key is a marker.
	text := fakePEM + fakeAWSKeyID
	if got := findAll(text); len(got) != 1 || got[0].Kind != KindPrivateKey {
		t.Fatalf("Find(%q) = %v, want the private key only", text, got)
	}
	out := Redact(text)
	if want := "[REDACTED private_key][REDACTED aws_access_key_id]"; out != want {
		t.Errorf("Redact(%q) = %q, want %q", text, out, want)
	}
}

func TestRedactNoCopy(t *testing.T) {
	text := strings.Repeat("plain text without secrets\n", 100)
	if n := testing.AllocsPerRun(10, func() { _ = Redact(text) }); n != 0 {
		t.Errorf("Redact of clean text allocates %.0f times", n)
	}
}

// TestRedactManyValues: with more distinct secrets than replace looks for
// one by one, every other occurrence is still replaced.
func TestRedactManyValues(t *testing.T) {
	t.Parallel()
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var keys []string
	var b strings.Builder
	for i := range 3 * maxSearched {
		k := []byte("AKIA")
		for j := range 16 {
			k = append(k, chars[(i*7+j*5+j*j)%len(chars)])
		}
		keys = append(keys, string(k))
		b.WriteString("key " + string(k) + "\n")
	}
	for _, k := range keys {
		b.WriteString("glued x" + k + "\n")
	}
	text := b.String()
	if n := len(Find(text)); n != len(keys) {
		t.Fatalf("Find reports %d keys, want %d", n, len(keys))
	}
	out := Redact(text)
	for _, k := range keys {
		if strings.Contains(out, k) {
			t.Fatalf("Redact kept %s:\n%s", k, out)
		}
	}
}

// TestFindRemembers: a long text scanned again gives the same spans
// (a copy: changing them does not change the next answer), and so does
// an equal text in other memory; short texts are scanned each time.
func TestFindRemembers(t *testing.T) {
	text := strings.Repeat("some tool output line\n", 300) + `password = "hunter2-Xy9#long"` + "\n"
	first := Find(text)
	if len(first) != 1 {
		t.Fatalf("Find = %v, want one span", first)
	}
	first[0].Offset = -1
	again := Find(text)
	if len(again) != 1 || again[0].Offset != strings.Index(text, "hunter2") {
		t.Fatalf("Find again = %v, want the span at %d", again, strings.Index(text, "hunter2"))
	}
	copied := string([]byte(text))
	if got := Find(copied); len(got) != 1 || got[0] != again[0] {
		t.Fatalf("Find of an equal copy = %v, want %v", got, again)
	}
	other := strings.Repeat("x", len(text))
	if got := Find(other); got != nil {
		t.Fatalf("Find of a text of the same length = %v, want nil", got)
	}
	for i := range 2 * len(recent.ring) { // more texts than remembered: the first is scanned again
		Find(strings.Repeat("y", recentMinBytes+i))
	}
	if got := Find(text); len(got) != 1 || got[0] != again[0] {
		t.Fatalf("Find after the ring turned = %v, want %v", got, again)
	}
}
