package token

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/pkoukk/tiktoken-go"
)

// benchCorpusPerFile is how much of each shared data file goes into the
// benchmark corpus, in bytes.
const benchCorpusPerFile = 64 << 10

// benchCorpus returns a realistic mixed corpus: the first 64 KiB of every
// trajectory file in the shared data folder (Claude Code, Codex, SWE-agent,
// mini-swe-agent, OpenHands: JSON, code, shell output, prose), or, where the
// folder is absent, a generated mix of the same kinds of text.
func benchCorpus(tb testing.TB) string {
	tb.Helper()
	if sharedtest.Root() == "" {
		return generatedCorpus()
	}
	var sb strings.Builder
	for _, p := range sharedtest.Files(tb) {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if len(b) > benchCorpusPerFile {
			n := benchCorpusPerFile
			for n > 0 && !utf8.RuneStart(b[n]) {
				n--
			}
			b = b[:n]
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func generatedCorpus() string {
	parts := []string{
		"The quick brown fox jumps over the lazy dog. It's 5 o'clock; we'll see.\n",
		"func main() {\n\tfor i, a := range os.Args[1:] {\n\t\tfmt.Printf(\"%d: %q\\n\", i, a)\n\t}\n}\n",
		"def add(self, msg):\n    if not msg:\n        raise ValueError(\"empty\")\n    \n    return len(self.messages)\n",
		`{"role":"tool","tool_call_id":"call_9","content":"total 48\ndrwxr-xr-x  5 root root 4096 Feb 23 12:41 .\n"}` + "\n",
		"上下文窗口管理是编码代理的核心能力。当对话超过预算时,我们压缩工具结果。\n",
		"| level | range |\n|-------|-------|\n| L1 | 60-80 % |\n\n```go\nfmt.Println(\"hi\")\n```\n",
	}
	var sb strings.Builder
	for sb.Len() < 512<<10 {
		for _, p := range parts {
			sb.WriteString(p)
		}
	}
	return sb.String()
}

// pkoukkCounter counts with pkoukk/tiktoken-go.
type pkoukkCounter struct{ e *tiktoken.Tiktoken }

func (p pkoukkCounter) Count(s string) int { return len(p.e.EncodeOrdinary(s)) }
func (pkoukkCounter) Name() string         { return "pkoukk" }

// BenchmarkCount measures each counter on a realistic mixed corpus (see
// benchCorpus) in MB/s:
//
//	go test ./token -run '^$' -bench Count -benchmem
func BenchmarkCount(b *testing.B) {
	corpus := benchCorpus(b)
	counters := []struct {
		name string
		c    func(testing.TB) Counter
	}{
		{"o200k_base", func(tb testing.TB) Counter { return mustBPE(tb, O200kBase) }},
		{"cl100k_base", func(tb testing.TB) Counter { return mustBPE(tb, Cl100kBase) }},
		{"estimate", func(testing.TB) Counter { return Estimator{} }},
		// The regular-expression implementation this package replaced, for
		// comparison.
		{"pkoukk_o200k_base", func(testing.TB) Counter { return pkoukkCounter{pkoukk()[O200kBase]} }},
		{"pkoukk_cl100k_base", func(testing.TB) Counter { return pkoukkCounter{pkoukk()[Cl100kBase]} }},
	}
	for _, bc := range counters {
		b.Run(bc.name, func(b *testing.B) {
			c := bc.c(b)
			b.SetBytes(int64(len(corpus)))
			b.ReportAllocs()
			for b.Loop() {
				c.Count(corpus)
			}
		})
	}
}

// BenchmarkCountVectors measures the exact counters on the test vectors
// (testdata/vectors.json: many scripts, code, emoji, white space and the
// pre-tokenizer's edge cases) repeated to 512 KiB, in MB/s: text where most
// runes are not ASCII and go through the class table:
//
//	go test ./token -run '^$' -bench CountVectors -benchmem
func BenchmarkCountVectors(b *testing.B) {
	var vs []struct{ Text string }
	data, err := os.ReadFile(filepath.Join("testdata", "vectors.json"))
	if err == nil {
		err = json.Unmarshal(data, &vs)
	}
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for sb.Len() < 512<<10 {
		for _, v := range vs {
			sb.WriteString(v.Text)
			sb.WriteByte('\n')
		}
	}
	corpus := sb.String()
	for _, enc := range encodings {
		b.Run(enc, func(b *testing.B) {
			c := mustBPE(b, enc)
			b.SetBytes(int64(len(corpus)))
			b.ReportAllocs()
			for b.Loop() {
				c.Count(corpus)
			}
		})
	}
}

// BenchmarkLoadVocab measures opening an encoding's vocabulary, the
// start-up cost of the first counter in a process:
//
//	go test ./token -run '^$' -bench LoadVocab -benchmem
func BenchmarkLoadVocab(b *testing.B) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := loadVocab(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
