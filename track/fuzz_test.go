package track

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
)

func FuzzRecord(f *testing.F) {
	f.Add("Bash", `{"command":"cat a.go | grep x > o 2>&1 && sed -i 's/a/b/' f"}`, "Exit code 1\nboom", false)
	f.Add("bash", `{"command":"cat > t <<'EOF'\nx\nEOF\n"}`, "<returncode>0</returncode>\n<output>\n", false)
	f.Add("apply_patch", `"*** Update File: a\n"`, "ok", false)
	f.Add("str_replace_editor", `{"command":"view","path":"/x"}`, "1\n2", true)
	f.Add("open", `{"command":"open \"a b\" 3"}`, "\xff\xfe", false)
	f.Add("shell", `{"command":["bash","-lc","rg -n 'q' ."]}`, `{"exit_code": 2}`, false)
	f.Fuzz(func(t *testing.T, name, args, content string, isErr bool) {
		tr := New(Options{Stat: noStat, MaxFiles: 3, MaxCommands: 3, MaxTokens: 300})
		c := chat.ToolCall{ID: "1", Name: name, Arguments: []byte(args)}
		r := chat.ToolResult{ToolCallID: "1", Content: content, IsError: isErr}
		tr.Record(c, r)
		tr.Record(c, r)
		s := tr.Section()
		if n := tr.opts.Counter.Count(s); n > 300 {
			t.Fatalf("section has %d tokens", n)
		}
		st := tr.State()
		for _, c := range st.Commands {
			if utf8.RuneCountInString(c.Command) > CommandRunes || !utf8.ValidString(c.Command) {
				t.Fatalf("command key %q not cut", c.Command)
			}
		}
		for _, f := range st.Files {
			if strings.Count(f.Preview, "\n") >= PreviewLines {
				t.Fatalf("preview %q has more than %d lines", f.Preview, PreviewLines)
			}
		}
		for _, q := range st.Searches {
			if utf8.RuneCountInString(q.Summary) > SearchSummaryRunes {
				t.Fatalf("summary %q not cut", q.Summary)
			}
		}
	})
}
