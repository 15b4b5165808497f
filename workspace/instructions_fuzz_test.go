package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/safefile"
	"github.com/agentctx/agentctx/token"
)

// FuzzImports loads a fuzzed AGENTS.md against a small fixed tree whose
// files and symlinks reach outside the project, and checks that loading
// never panics, keeps to the byte cap, and never includes anything from
// outside the tree: the secret's letters appear nowhere in the tree, so
// the secret can only appear in a text as often as the fuzzed content
// holds it.
func FuzzImports(f *testing.F) {
	base := instrTree(f, map[string]string{
		"proj/a.md":         "A @b.md\n",
		"proj/b.md":         "B\n```\n@c.md\n```\n@sub/c.md",
		"proj/sub/c.md":     "c @../a.md @../../outside/secret.md @d.md",
		"proj/sub/d.md":     "d " + strings.Repeat("line of text\n", 40),
		"proj/loop.md":      "@loop.md @a.md",
		"proj/bin.dat":      "\x00\x01",
		"user/u.md":         "u @../proj/a.md",
		"outside/secret.md": instrSecret,
	}, map[string]string{
		"proj/link.md":    "../outside/secret.md",
		"proj/ext":        "../outside",
		"proj/alias.md":   "a.md",
		"proj/dangling":   "nowhere.md",
		"proj/sub/up":     "../..",
		"proj/sub/upfile": "../../outside/secret.md",
	})
	root := filepath.Join(base, "proj")
	user := filepath.Join(base, "user")
	for _, s := range []string{
		"@a.md", "@a.md @a.md\n@loop.md", "@link.md @ext/secret.md @sub/upfile @sub/up/outside/secret.md",
		"@../outside/secret.md @" + filepath.Join(base, "outside", "secret.md"), "```\n@a.md\n```\n`@a.md` @sub/c.md",
		"x@a.md @ @@ @~/x @../user/u.md @bin.dat @dangling @alias.md.", "@AGENTS.md", "@my\\ a.md @sub/d.md @sub/d.md",
		"é\n@sub/d.md\n" + strings.Repeat("ü", 200), "\ufeff@a.md\r\n~~~\n@a.md",
	} {
		f.Add(s)
	}
	const maxBytes = 300
	f.Fuzz(func(t *testing.T, content string) {
		if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		ins, notes := loadInstructions(root, root, user, token.Estimator{}, InstructionOptions{Names: []string{"AGENTS.md"}, MaxBytes: maxBytes})
		shown := 0
		for _, in := range ins {
			if in.Bytes != len(in.Text) {
				t.Errorf("bytes %d, len(text) %d", in.Bytes, len(in.Text))
			}
			if !utf8.ValidString(in.Text) {
				t.Errorf("text is not valid UTF-8: %q", in.Text)
			}
			n := in.Bytes
			if in.Truncated {
				i := strings.LastIndex(in.Text, "\n[truncated: ")
				if i < 0 || !strings.HasSuffix(in.Text, " bytes]") {
					t.Fatalf("truncated text without its note: %q", in.Text)
				}
				n = i
			}
			shown += n
			if strings.Count(in.Text, instrSecret) > strings.Count(content, instrSecret) {
				t.Fatalf("text holds the secret from outside the project:\n%q", in.Text)
			}
			for _, p := range in.Imports {
				if !safefile.Within(root, p) && !safefile.Within(user, p) {
					t.Errorf("import %s outside the project", p)
				}
			}
		}
		if shown > maxBytes {
			t.Errorf("%d bytes shown; the cap is %d", shown, maxBytes)
		}
		for _, n := range notes {
			if n.Source == "" || n.Message == "" {
				t.Errorf("empty notice %+v", n)
			}
		}
	})
}
