package tooluse

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
)

// checkUse asserts Classify's invariants on any input.
func checkUse(t *testing.T, u Use) {
	t.Helper()
	checkPaths(t, u)
	for _, p := range u.Paths {
		if len(p) > maxPath || strings.ContainsAny(p, "\n\x00") {
			t.Fatalf("bad path %q", p)
		}
	}
	if u.Kind < KindOther || u.Kind > KindTask {
		t.Fatalf("kind %d out of range", u.Kind)
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []struct{ name, args string }{
		{"Bash", `{"command":"cat a.go | grep x > o 2>&1 && sed -i 's/a/b/' f"}`},
		{"bash", `{"command":"cat > t <<'EOF'\nx\nEOF\n"}`},
		{"apply_patch", `"*** Update File: a\n"`},
		{"apply_patch", "*** Begin Patch\n*** Move to: x\n"},
		{"str_replace_editor", `{"command":"view","path":"/x"}`},
		{"open", `{"command":"open \"a b\" 3"}`},
		{"shell", `{"command":["bash","-lc","rg -n 'q' ."]}`},
		{"local_shell", `{"action":{"command":["cat","x"]}}`},
		{"TodoWrite", `{"todos":[{"content":"a"}]}`},
		{"mystery", `{"paths":["a",""],"file":"/dev/x"}`},
		{"search_file", `{"command":"search_file x y.py"}`},
		{"python", `{"command":"python a.py"}`},
	} {
		f.Add(s.name, s.args)
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		u := Classify(chat.ToolCall{ID: "1", Name: name, Arguments: json.RawMessage(args)})
		checkUse(t, u)
		todos, ok := Todos(chat.ToolCall{Name: name, Arguments: json.RawMessage(args)})
		if ok != (todos != nil) {
			t.Fatalf("Todos = %v, %v: a list exactly when ok", todos, ok)
		}
		if ok && u.Kind != KindTodo {
			t.Fatalf("Todos ok for %q but Kind %v", name, u.Kind)
		}
		for _, td := range todos {
			if td.Content == "" || td.Status == "" {
				t.Fatalf("todo without content or status: %+v", td)
			}
		}
	})
}

func FuzzShell(f *testing.F) {
	for _, s := range []string{
		`if [ -f x.py ]; then sed -i 's/a/b/' x.py; fi`,
		`{ cat a.txt; echo; } > out.txt`,
		"echo $(cat f) `cat g`",
		`cat "say \"hi\".txt"`,
		`cd src && grep -rn foo . | head`,
		"cat > f.go <<'EOF'\npackage main\nEOF\n",
		`find . -name '*.py' -exec sed -i 's/a/b/' {} +`,
		`diff <(sort a) <(sort b) 2>/dev/null >&2`,
		`bash -c "bash -c 'bash -c \"cat x\"'"`,
		`cat a && sed -i "b.txt`,
		"apply_patch <<EOF\n*** Begin Patch\n*** Add File: z\nEOF",
		`x=$((1+2)); case $x in 3) rm y;; esac`,
		`sed -i '' -e`,
		`git -C sub checkout -- a.go`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		// A hang never returns to be checked: the watchdog crashes the
		// worker instead, and the fuzzer keeps the input.
		watchdog := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("Classify hangs on %q", cmd)) })
		defer watchdog.Stop()
		u := Classify(bash(cmd))
		checkUse(t, u)
		if utf8.ValidString(cmd) && u.Command != cmd { // json.Marshal replaces invalid UTF-8
			t.Fatalf("Command %q, want the command", u.Command)
		}
		// The fallback splitter alone, on every input.
		for _, c := range splitShell(cmd) {
			if c.src != strings.TrimSpace(c.src) {
				t.Fatalf("untrimmed source %q", c.src)
			}
		}
	})
}

// TestShellHuge checks that a command over MaxShellBytes is cut, not
// parsed whole, and that deep nesting neither panics nor hangs.
func TestShellHuge(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for b.Len() < 4*MaxShellBytes {
		b.WriteString("cat a.txt > b.txt\n")
	}
	b.WriteString("cat late.txt\n")
	u := Classify(bash(b.String()))
	if len(u.Reads) != 1 || u.Reads[0] != "a.txt" {
		t.Errorf("Reads = %v, want [a.txt] (late.txt is past the limit)", u.Reads)
	}
	deep := strings.Repeat("$(", 5000) + "cat x" + strings.Repeat(")", 5000)
	checkUse(t, Classify(bash(deep)))
	nested := strings.Repeat("bash -c '", 1) + "bash -c \"bash -c \\\"bash -c cat\\\"\"'"
	checkUse(t, Classify(bash(nested)))
}
