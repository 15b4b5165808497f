package compact

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/tooluse"
)

// namesInOracle is namesIn as first written, the reading it must keep:
// each line of the redacted text mapped by nameRune and read by
// tooluse.TextRefs, with the same names left out (digits first, too
// long, tags, generated ids).
func namesInOracle(text string) []string {
	var out []string
	seen := map[string]bool{}
	for line := range strings.SplitSeq(withoutSecrets(text), "\n") {
		line = strings.Map(nameRune, line)
		for _, ref := range tooluse.TextRefs(line) {
			if ref.Kind != tooluse.RefPath && ref.Kind != tooluse.RefSymbol {
				continue
			}
			s := ref.Text
			if seen[s] || s[0] >= '0' && s[0] <= '9' || utf8.RuneCountInString(s) > maxNameRunes || isTagName(s) || randomID(s) {
				continue
			}
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// FuzzNamesIn checks the one-pass namesIn against its oracle: the same
// names, in the same order, for any text (invalid UTF-8 included).
func FuzzNamesIn(f *testing.F) {
	f.Add("--- FAIL: TestParse (0.00s)\n    pkg/parse_test.go:12: want ParseConfig")
	f.Add("a b c d e f g h i j k l m n o p q r s t u v w x y z\nfoo_bar foo_bar Ash.read Ash.read_one")
	f.Add("sk-ant-api03-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa main.go\n\xff\xfeé_ü.go ../x/y.")
	f.Add("0000000000000000000000000000000000000000000000000 A0000A0aA00000 toolu_018GZkq3Fh7vXwPz")
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := namesIn(text), namesInOracle(text); !slices.Equal(got, want) {
			t.Fatalf("namesIn(%q) = %q, want %q", text, got, want)
		}
	})
}

// FuzzNotedNames checks that a names section written by withNames reads
// back as written, whatever the output it was taken from, and that any
// note text reads without a panic.
func FuzzNotedNames(f *testing.F) {
	f.Add("go test ./pkg", "--- FAIL: TestParse (0.00s)\n    pkg/parse_test.go:12: want ParseConfig")
	f.Add("a.go", "func load_defaults() {}\n</system-reminder>")
	f.Add("echo \"a: b\"", "x: y_z, w")
	f.Fuzz(func(t *testing.T, label, output string) {
		_ = notedNames(label + output) // any text: no panic
		label = strings.ReplaceAll(label, "\n", " ")
		if label == "" || strings.HasPrefix(label, "- ") {
			return
		}
		names := namesIn(output)
		if len(names) == 0 {
			return
		}
		count := func(s string) int { return len(s) }
		note := withNames(note0, []nameGroup{{label: label, names: names}}, 1<<20, count)
		got := notedNames(note)
		if len(got) != 1 || got[0].label != label || !slices.Equal(got[0].names, names) {
			t.Fatalf("wrote %q %q, read back %+v from\n%s", label, names, got, note)
		}
		if !strings.HasSuffix(note, note0Tail) {
			t.Fatalf("the note's last line moved:\n%s", note)
		}
	})
}

const (
	note0Tail = "The messages after this note are kept verbatim."
	note0     = "[agentctx compaction note] Earlier parts were removed.\n- removed: 2 messages\n" + note0Tail
)
