package tooluse

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSplitShell checks the fallback splitter alone, on commands the
// parser would also accept, and on broken ones.
func TestSplitShell(t *testing.T) {
	t.Parallel()
	type cmdWant struct {
		Words   []string
		Redirs  []string // ">path", ">>path", "<path"
		Heredoc string
		Piped   bool
	}
	tests := []struct {
		name, in string
		want     []cmdWant
	}{
		{"list and pipe", `cd a && grep -n x f.go | head -3; echo done`, []cmdWant{
			{Words: []string{"cd", "a"}}, {Words: []string{"grep", "-n", "x", "f.go"}}, {Words: []string{"head", "-3"}, Piped: true}, {Words: []string{"echo", "done"}},
		}},
		{"quotes and escapes", `cat "say \"hi\".txt" 'a b' c\ d "x$y"`, []cmdWant{{Words: []string{"cat", `say "hi".txt`, "a b", "c d", "x$y"}}}},
		{"redirections", `make 2>&1 > out.log 2>err.txt &>all.txt >>app.txt < in.txt`, []cmdWant{
			{Words: []string{"make"}, Redirs: []string{">out.log", ">err.txt", ">all.txt", ">>app.txt", "<in.txt"}, Piped: true},
		}},
		{"heredoc body skipped", "cat > f.go <<'EOF'\npackage main; rm -rf x\nEOF\necho after", []cmdWant{
			{Words: []string{"cat"}, Redirs: []string{">f.go"}, Heredoc: "package main; rm -rf x\n"}, {Words: []string{"echo", "after"}},
		}},
		{"here-string", `grep x <<< "$v"`, []cmdWant{{Words: []string{"grep", "x"}, Heredoc: "$v"}}},
		{"keywords dropped", `if [ -f a ]; then sed -i s/a/b/ a; fi`, []cmdWant{
			{Words: []string{"[", "-f", "a", "]"}}, {Words: []string{"sed", "-i", "s/a/b/", "a"}},
		}},
		{"unterminated quote runs to the end", `cat "a b`, []cmdWant{{Words: []string{"cat", "a b"}}}},
		{"substitution splits", "echo $(cat f) `head g`", []cmdWant{{Words: []string{"echo", "$"}}, {Words: []string{"cat", "f"}}, {Words: []string{"head", "g"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []cmdWant
			for _, c := range splitShell(tt.in) {
				g := cmdWant{Heredoc: c.heredoc, Piped: c.piped}
				for _, w := range c.words {
					g.Words = append(g.Words, w.text)
				}
				for _, r := range c.redirs {
					switch {
					case r.read:
						g.Redirs = append(g.Redirs, "<"+r.target.text)
					case r.op == OpEdit:
						g.Redirs = append(g.Redirs, ">>"+r.target.text)
					default:
						g.Redirs = append(g.Redirs, ">"+r.target.text)
					}
				}
				got = append(got, g)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("splitShell(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzPlainWords: a command plainWords reads without the parser is read
// as the parser reads it: the same Use, paths and all.
func FuzzPlainWords(f *testing.F) {
	for _, s := range []string{"ls -la src", "git status", "go test ./...", "cat a.go b.go", "rg -n TODO src/", "[REDACTED_ARGUMENTS len=109 sha=4aedd932]",
		"sed -n 1,200p main.go", "find . -name *.go", "[ -f x ]", "x=1 ls", "export A=b", "time make", "cd src", "python3 -m pytest -x tests/test_a.py",
		"mv a b", "cp -r src/ dst/", "grep -rn foo .", "rm -rf build", "  ls  ", "if", "a ]] b", "touch a=b"} {
		f.Add(s)
	}
	// Random bytes are seldom plain: each input is also tried mapped onto
	// the plain bytes and blanks.
	const alphabet = "ab/.-_:,+@%^=[]*? \tcdlsgrmxy0123"
	f.Fuzz(func(t *testing.T, cmd string) {
		mapped := []byte(cmd)
		for i, c := range mapped {
			mapped[i] = alphabet[int(c)%len(alphabet)]
		}
		for _, cmd := range []string{cmd, string(mapped)} {
			if _, ok := plainWords(cmd); !ok || strings.TrimSpace(cmd) == "" {
				continue
			}
			fast, slow := &builder{}, &builder{}
			(&shellState{b: fast}).script(cmd)
			(&shellState{b: slow}).parsed(cmd)
			if !reflect.DeepEqual(fast.u, slow.u) || !slices.Equal(fast.paths, slow.paths) {
				t.Fatalf("%q read plainly: %+v %q\nparsed: %+v %q", cmd, fast.u, fast.paths, slow.u, slow.paths)
			}
		}
	})
}
