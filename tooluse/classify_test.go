package tooluse

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func bash(cmd string) chat.ToolCall {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return chat.ToolCall{ID: "1", Name: "Bash", Arguments: b}
}

func call(name, args string) chat.ToolCall {
	return chat.ToolCall{ID: "1", Name: name, Arguments: json.RawMessage(args)}
}

// shellWant is what a shell command reads, writes and searches.
type shellWant struct {
	Reads    []string
	Writes   []Write
	Searches []Search
}

func TestClassifyShell(t *testing.T) {
	t.Parallel()
	w := func(p string, op Op) Write { return Write{Path: p, Op: op} }
	tests := []struct {
		name string
		cmd  string
		want shellWant
	}{
		{"if body sed -i", `if [ -f x.py ]; then sed -i 's/a/b/' x.py; fi`, shellWant{Writes: []Write{w("x.py", OpEdit)}}},
		{"block redirect", `{ cat a.txt; echo; } > out.txt`, shellWant{Reads: []string{"a.txt"}, Writes: []Write{w("out.txt", OpWrite)}}},
		{"command substitution", `echo $(cat f)`, shellWant{Reads: []string{"f"}}},
		{"backticks", "echo `head -n 3 g.txt`", shellWant{Reads: []string{"g.txt"}}},
		{"escaped quotes", `cat "say \"hi\".txt"`, shellWant{Reads: []string{`say "hi".txt`}}},
		{"single quotes and escapes", `cat 'a b.txt' c\ d.txt`, shellWant{Reads: []string{"a b.txt", "c d.txt"}}},
		{"cd then search", `cd src && grep -rn foo . | head`, shellWant{Searches: []Search{{Query: "foo", Paths: []string{"src"}, Command: "grep -rn foo ."}}}},
		{"cd then read", `cd pkg/a && cat b.go ../c.go /abs/d.go`, shellWant{Reads: []string{"pkg/a/b.go", "pkg/c.go", "/abs/d.go"}}},
		{"cd in subshell ends", `(cd sub && cat a.go); cat b.go`, shellWant{Reads: []string{"sub/a.go", "b.go"}}},
		{"cd unknown", `cd "$D" && cat a.go`, shellWant{Reads: []string{"a.go"}}},
		{"heredoc write", "cat > f.go <<'EOF'\npackage main\n$(rm -rf /)\nEOF", shellWant{Writes: []Write{w("f.go", OpWrite)}}},
		{"heredoc unquoted runs substitutions", "cat > f.go <<EOF\n$(cat secret.txt)\nEOF", shellWant{Reads: []string{"secret.txt"}, Writes: []Write{w("f.go", OpWrite)}}},
		{"python -c", `python -c 'import sys; print(open("x.py").read())'`, shellWant{}},
		{"python script", `python3 -u reproduce.py --flag 1`, shellWant{Reads: []string{"reproduce.py"}}},
		{"python -W value", `python -W ignore -X dev x.py`, shellWant{Reads: []string{"x.py"}}},
		{"node -e", `node -e "require('./a.js')" b.js`, shellWant{}},
		{"node script", `node --require ts-node/register src/main.ts`, shellWant{Reads: []string{"src/main.ts"}}},
		{"bash script", `bash -x scripts/build.sh arg.txt`, shellWant{Reads: []string{"scripts/build.sh"}}},
		{"bash heredoc script", "bash <<'EOF'\ncat h.txt\nEOF", shellWant{Reads: []string{"h.txt"}}},
		{"python -m", `python -m pytest tests/test_a.py`, shellWant{}},
		{"git diff file", `git diff a.go`, shellWant{Reads: []string{"a.go"}}},
		{"git diff revisions", `git diff HEAD~1 main..dev -- pkg/x.go`, shellWant{Reads: []string{"pkg/x.go"}}},
		{"rg with glob", `rg -n "x" --glob '*.go' pkg/`, shellWant{Searches: []Search{{Query: "x", Paths: []string{"pkg"}, Command: `rg -n "x" --glob '*.go' pkg/`}}}},
		{"rg no operands", `rg -n TODO`, shellWant{Searches: []Search{{Query: "TODO", Paths: []string{"."}, Command: "rg -n TODO"}}}},
		{"grep files read", `grep -n -A 3 -e 'func main' main.go util.go`, shellWant{Reads: []string{"main.go", "util.go"}, Searches: []Search{{Query: "func main", Paths: []string{"main.go", "util.go"}, Command: `grep -n -A 3 -e 'func main' main.go util.go`}}}},
		{"grep -f reads pattern file", `grep -f pats.txt -r src`, shellWant{Reads: []string{"pats.txt"}, Searches: []Search{{Query: "", Paths: []string{"src"}, Command: "grep -f pats.txt -r src"}}}},
		{"grep of a pipe is a filter", `ps aux | grep python`, shellWant{}},
		{"git grep", `git grep -n needle -- '*.go'`, shellWant{Searches: []Search{{Query: "needle", Paths: []string{"*.go"}, Command: `git grep -n needle -- '*.go'`}}}},
		{"find with name and exec", `find . -name '*.py' -exec grep -l foo {} \;`, shellWant{Searches: []Search{
			{Query: "foo", Command: `find . -name '*.py' -exec grep -l foo {} \;`},
			{Query: "*.py", Paths: []string{"."}, Command: `find . -name '*.py' -exec grep -l foo {} \;`},
		}}},
		{"find in dirs", `find src tests -type f -iname "*_test.go"`, shellWant{Searches: []Search{{Query: "*_test.go", Paths: []string{"src", "tests"}, Command: `find src tests -type f -iname "*_test.go"`}}}},
		{"fd", `fd -e go handler internal`, shellWant{Searches: []Search{{Query: "handler", Paths: []string{"internal"}, Command: "fd -e go handler internal"}}}},
		{"redirections", `go test ./... > out.log 2>&1 2>/dev/null; sort < in.txt >> acc.txt`, shellWant{Reads: []string{"in.txt"}, Writes: []Write{w("out.log", OpWrite), w("acc.txt", OpEdit)}}},
		{"all to file", `make &> build.log`, shellWant{Writes: []Write{w("build.log", OpWrite)}}},
		{"tee append", `echo x | tee -a notes.md`, shellWant{Writes: []Write{w("notes.md", OpEdit)}}},
		{"cp mv rm touch mkdir", `cp a.go b.go && mv old.txt new.txt && rm -rf build && touch t.txt && mkdir -p x/y`, shellWant{
			Reads:  []string{"a.go"},
			Writes: []Write{w("b.go", OpWrite), w("old.txt", OpDelete), w("new.txt", OpWrite), w("build", OpDelete), w("t.txt", OpCreate), w("x/y", OpCreate)},
		}},
		{"sed read", `sed -n '1,80p' main.go`, shellWant{Reads: []string{"main.go"}}},
		{"sed -e and in-place suffix", `sed -i.bak -e 's/a/b/' -e 's/c/d/' a.txt b.txt`, shellWant{Writes: []Write{w("a.txt", OpEdit), w("b.txt", OpEdit)}}},
		{"bsd sed -i ''", `sed -i '' 's/a/b/' m.go`, shellWant{Writes: []Write{w("m.go", OpEdit)}}},
		{"perl -pi -e", `perl -pi -e 's/foo/bar/g' a.pl b.pl`, shellWant{Writes: []Write{w("a.pl", OpEdit), w("b.pl", OpEdit)}}},
		{"head -n value", `head -n 20 big.log && tail -5 small.log`, shellWant{Reads: []string{"big.log", "small.log"}}},
		{"awk program", `awk -F: '{print $1}' /etc/passwd`, shellWant{Reads: []string{"/etc/passwd"}}},
		{"jq filter then files", `jq '.a' data.json --arg x y`, shellWant{Reads: []string{"data.json"}}},
		{"glob is no file", `cat *.go src/{a,b}.go $F`, shellWant{}},
		{"while loop", "while read l; do wc -l \"$l\" notes.txt; done < list.txt", shellWant{Reads: []string{"notes.txt", "list.txt"}}},
		{"for loop and case", `for f in a b; do case $f in a) cat one.txt;; *) rm two.txt;; esac; done`, shellWant{Reads: []string{"one.txt"}, Writes: []Write{w("two.txt", OpDelete)}}},
		{"process substitution", `diff <(sort a.txt) <(sort b.txt)`, shellWant{Reads: []string{"a.txt", "b.txt"}}},
		{"function body", `f() { cat in.txt; }; f`, shellWant{Reads: []string{"in.txt"}}},
		{"bash -c", `bash -c "cat inner.txt > out2.txt"`, shellWant{Reads: []string{"inner.txt"}, Writes: []Write{w("out2.txt", OpWrite)}}},
		{"wrappers", `sudo -u root env A=1 timeout 10 cat w.txt`, shellWant{Reads: []string{"w.txt"}}},
		{"assignment prefix", `GOFLAGS=-x cat v.txt`, shellWant{Reads: []string{"v.txt"}}},
		{"xargs", `ls | xargs grep -l foo`, shellWant{}},
		{"apply_patch heredoc", "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: b.go\n+z\n*** End Patch\nEOF", shellWant{Writes: []Write{w("a.go", OpEdit), w("b.go", OpCreate)}}},
		{"git apply heredoc", "git apply <<'EOF'\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\nEOF", shellWant{Writes: []Write{w("x.go", OpEdit)}}},
		{"git checkout files", `git checkout -- a.go b.go && git checkout main`, shellWant{Writes: []Write{w("a.go", OpWrite), w("b.go", OpWrite)}}},
		{"go run", `go run main.go helper.go -- arg.txt`, shellWant{Reads: []string{"main.go", "helper.go"}}},
		{"dev files ignored", `cat /dev/stdin > /dev/null`, shellWant{}},
		{"ansi-c quote", `cat $'tab\there.txt'`, shellWant{Reads: []string{"tab\there.txt"}}},
		{"dot slash cleaned", `cat ./a/./b.txt`, shellWant{Reads: []string{"a/b.txt"}}},
		{"parse error falls back", `cat a.txt && sed -i 's/x/y/' "b.txt`, shellWant{Reads: []string{"a.txt"}, Writes: []Write{w("b.txt", OpEdit)}}},
		{"fallback keywords and redirects", `if true; then cat k.txt > o.txt; fi; fi`, shellWant{Reads: []string{"k.txt"}, Writes: []Write{w("o.txt", OpWrite)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := Classify(bash(tt.cmd))
			if u.Kind != KindShell || u.Agent != "claude-code" || u.Command != tt.cmd {
				t.Errorf("Kind, Agent, Command = %v, %q, %q", u.Kind, u.Agent, u.Command)
			}
			got := shellWant{Reads: u.Reads, Writes: u.Writes, Searches: u.Searches}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Classify(%q) (-want +got):\n%s", tt.cmd, diff)
			}
			checkPaths(t, u)
		})
	}
}

// checkPaths asserts Paths is the union of Reads and Writes, none empty.
func checkPaths(t *testing.T, u Use) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range u.Paths {
		if p == "" || seen[p] {
			t.Errorf("Paths %q: empty or repeated path", u.Paths)
		}
		seen[p] = true
	}
	for _, p := range u.Reads {
		if !seen[p] {
			t.Errorf("read %q not in Paths %q", p, u.Paths)
		}
	}
	for _, w := range u.Writes {
		if !seen[w.Path] {
			t.Errorf("write %q not in Paths %q", w.Path, u.Paths)
		}
	}
	for _, s := range u.Searches {
		for _, p := range s.Paths {
			if p == "" {
				t.Errorf("search %+v has an empty path", s)
			}
		}
	}
}

func TestKindOfName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]Kind{
		"Grep": KindSearch, "ls": KindList, "cat": KindRead, "open": KindRead, "TodoWrite": KindTodo,
		"task_tracker": KindTodo, "str_replace_editor": KindEdit, "Bash": KindShell, "WebSearch": KindWeb, "mystery": KindOther,
	} {
		if got := KindOfName(name); got != want {
			t.Errorf("KindOfName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRecentClassify(t *testing.T) {
	t.Parallel()
	var r Recent
	calls := []chat.ToolCall{
		{ID: "1", Name: "Read", Arguments: []byte(`{"file_path":"a.go"}`)},
		{ID: "2", Name: "Bash", Arguments: []byte(`{"command":"grep -rn foo src && cat b.go > c.go"}`)},
		{ID: "3", Name: "Read", Arguments: []byte(`{"file_path":"b.go"}`)},
		{ID: "4", Name: "Edit", Arguments: []byte(`{"file_path":"a.go","old_string":"x","new_string":"y"}`)},
	}
	// Twice round, and more calls than it keeps: every answer is Classify's.
	for k := range 3 * 8 {
		c := calls[k%len(calls)]
		if k >= 2*len(calls) {
			c.Arguments = []byte(fmt.Sprintf(`{"command":"ls dir%d"}`, k))
			c.Name = "Bash"
		}
		if got, want := r.Classify(c), Classify(c); !reflect.DeepEqual(got, want) {
			t.Errorf("call %d: Recent.Classify = %+v, want %+v", k, got, want)
		}
	}
}

// TestRecentByID: a call with an id is read once while it is remembered,
// however many calls come between (more than the ring keeps), also when
// a reader gives it without its id right after; Take returns it and
// forgets it; a changed call under the same id is read again. Not
// parallel: it counts Classify's readings (Classified).
func TestRecentByID(t *testing.T) {
	var r Recent
	first := chat.ToolCall{ID: "c1", Name: "Bash", Arguments: []byte(`{"command":"grep -rn foo src"}`)}
	reads := func(f func()) int64 {
		before := Classified()
		f()
		return Classified() - before
	}
	if n := reads(func() { r.Classify(first) }); n != 1 {
		t.Fatalf("first reading: %d reads, want 1", n)
	}
	if n := reads(func() { r.Classify(chat.ToolCall{Name: first.Name, Arguments: first.Arguments}) }); n != 0 {
		t.Errorf("the same call without its id: %d reads, want 0", n)
	}
	for k := range 3 * recentSize {
		r.Classify(chat.ToolCall{ID: fmt.Sprintf("o%d", k), Name: "Bash", Arguments: []byte(fmt.Sprintf(`{"command":"ls dir%d"}`, k))})
	}
	var got Use
	if n := reads(func() { got = r.Classify(first) }); n != 0 || !reflect.DeepEqual(got, Classify(first)) {
		t.Errorf("after %d other calls: %d reads, %+v; want 0 and Classify's", 3*recentSize, n, got)
	}
	changed := first
	changed.Arguments = []byte(`{"command":"cat a.go"}`)
	if n := reads(func() { got = r.Classify(changed) }); n != 1 || !reflect.DeepEqual(got, Classify(changed)) {
		t.Errorf("a changed call under the same id: %d reads, %+v; want 1 and Classify's", n, got)
	}
	before := r.Len()
	if n := reads(func() { got = r.Take(changed) }); n != 0 || !reflect.DeepEqual(got, Classify(changed)) {
		t.Errorf("Take: %d reads, %+v; want 0 and Classify's", n, got)
	}
	if r.Len() != before-1 {
		t.Errorf("Take left %d calls remembered, want %d", r.Len(), before-1)
	}
	r.Forget("o0")
	if r.Len() != before-2 {
		t.Errorf("Forget left %d calls remembered, want %d", r.Len(), before-2)
	}
}
