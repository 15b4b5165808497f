package secret

import (
	"fmt"
	"strings"
	"testing"
)

// mixedText builds about n bytes of what tool results hold: Go and Python
// source, shell output with git SHAs and UUIDs, JSON with base64 blobs,
// prose mentioning tokens and passwords, and a few real-shaped secrets.
func mixedText(n int) string {
	chunks := []string{
		"func (m *Manager) Pending(s State) []Reminder {\n\tvar cands []Reminder\n\tfor _, g := range m.opts.Generators {\n\t\tcands = append(cands, g.Generate(s)...)\n\t}\n",
		"def load(path):\n    token = os.environ.get('TOKEN')\n    password = getpass.getpass()\n    return Config(path, api_key=settings.API_KEY)\n",
		"commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Dev <dev@example.org>\n\n    Fix the tokenizer's handling of secret-free inputs\n",
		`{"id":"550e8400-e29b-41d4-a716-446655440000","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==","max_tokens":4096}` + "\n",
		"The task-runner uses sk-learn; set the password in the vault, never in code. Tokens are counted per message.\n",
		"drwxr-xr-x  5 user staff   160 Feb 10 21:11 node_modules\n-rw-r--r--  1 user staff  2048 Feb 10 21:11 package.json\n",
		"    assert parse(\"eyJhbGciOi\") is None  # not a JWT\n    x = base64.b64encode(b'{\"a\": 1}')\n",
	}
	secrets := []string{
		"AWS_ACCESS_KEY_ID=" + fakeAWSKeyID + "\n",
		"GITHUB_TOKEN=" + fakeGitHubPAT + "\n",
		"Authorization: Bearer " + fakeJWT + "\n",
		fakePEM + "\n",
		`DB_PASSWORD = "` + fakePassword + `"` + "\n",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(chunks[i%len(chunks)])
		if i%500 == 499 {
			b.WriteString(secrets[(i/500)%len(secrets)])
		}
	}
	return b.String()
}

func BenchmarkFind(b *testing.B) {
	text := mixedText(1 << 20)
	want := len(Find(text))
	if want == 0 {
		b.Fatal("no secrets in the benchmark text")
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if got := len(Find(text)); got != want {
			b.Fatalf("found %d, want %d", got, want)
		}
	}
}

// BenchmarkScan is BenchmarkFind without the memory of recent texts
// (Find returns a remembered text's spans without scanning it again, so
// BenchmarkFind from its second iteration measures the lookup): the cost
// of one scan of 1 MiB of mixed tool output.
func BenchmarkScan(b *testing.B) {
	text := mixedText(1 << 20)
	want := len(find(text))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if got := len(find(text)); got != want {
			b.Fatalf("found %d, want %d", got, want)
		}
	}
}

func TestMixedTextFindings(t *testing.T) {
	t.Parallel()
	text := mixedText(1 << 20)
	got := Find(text)
	counts := map[string]int{}
	for _, s := range got {
		counts[s.Kind]++
	}
	// Each of the five secrets is inserted once every 2,500 chunks.
	for _, kind := range []string{KindAWSAccessKeyID, KindGitHubToken, KindJWT, KindPrivateKey, KindGeneric} {
		if counts[kind] == 0 {
			t.Errorf("no %s found in the mixed text", kind)
		}
	}
	if len(counts) != 5 {
		t.Errorf("unexpected kinds found: %v", fmt.Sprint(counts))
	}
}

// BenchmarkRedact redacts the 1 MiB mixed text, which holds a few hundred
// secrets: one scan to find them, one to check the output, one copy.
func BenchmarkRedact(b *testing.B) {
	text := mixedText(1 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if out := Redact(text); len(out) == len(text) {
			b.Fatal("nothing redacted")
		}
	}
}

// BenchmarkRedactClean redacts text without secrets: one scan, no copy.
func BenchmarkRedactClean(b *testing.B) {
	text := mixedText(1 << 20)
	text = Redact(text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if out := Redact(text); len(out) != len(text) {
			b.Fatal("clean text changed")
		}
	}
}
