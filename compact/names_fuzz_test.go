package compact

import (
	"slices"
	"strings"
	"testing"
)

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
