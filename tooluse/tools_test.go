package tooluse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestClassifyTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, args string
		want             Use
	}{
		{"claude Read", "Read", `{"file_path":"/repo/a.go","offset":10}`, Use{Kind: KindRead, Agent: "claude-code", Paths: []string{"/repo/a.go"}, Reads: []string{"/repo/a.go"}}},
		{"claude Write", "Write", `{"file_path":"/repo/n.go","content":"x"}`, Use{Kind: KindWrite, Agent: "claude-code", Paths: []string{"/repo/n.go"}, Writes: []Write{{"/repo/n.go", OpWrite}}}},
		{"claude MultiEdit", "MultiEdit", `{"file_path":"m.go","edits":[]}`, Use{Kind: KindEdit, Agent: "claude-code", Paths: []string{"m.go"}, Writes: []Write{{"m.go", OpEdit}}}},
		{"claude NotebookEdit", "NotebookEdit", `{"notebook_path":"n.ipynb","new_source":""}`, Use{Kind: KindEdit, Agent: "claude-code", Paths: []string{"n.ipynb"}, Writes: []Write{{"n.ipynb", OpEdit}}}},
		{"claude Grep in dir", "Grep", `{"pattern":"func \\w+","path":"src","glob":"*.go"}`, Use{Kind: KindSearch, Agent: "claude-code", Query: `func \w+`, Searches: []Search{{Query: `func \w+`, Paths: []string{"src"}}}}},
		{"claude Grep in file", "Grep", `{"pattern":"x","path":"src/a.go"}`, Use{Kind: KindSearch, Agent: "claude-code", Query: "x", Paths: []string{"src/a.go"}, Reads: []string{"src/a.go"}, Searches: []Search{{Query: "x", Paths: []string{"src/a.go"}}}}},
		{"claude Glob", "Glob", `{"pattern":"**/*.ts"}`, Use{Kind: KindSearch, Agent: "claude-code", Query: "**/*.ts", Searches: []Search{{Query: "**/*.ts"}}}},
		{"claude WebSearch", "WebSearch", `{"query":"go 1.26 release"}`, Use{Kind: KindWeb, Agent: "claude-code", Query: "go 1.26 release"}},
		{"claude TodoWrite", "TodoWrite", `{"todos":[]}`, Use{Kind: KindTodo, Agent: "claude-code"}},
		{"claude Task", "Task", `{"prompt":"look"}`, Use{Kind: KindTask, Agent: "claude-code"}},
		{
			"codex argv bash -lc", "shell", `{"command":["bash","-lc","sed -n 1,80p main.go"],"workdir":"/repo"}`,
			Use{Kind: KindShell, Agent: "codex", Command: "sed -n 1,80p main.go", Paths: []string{"main.go"}, Reads: []string{"main.go"}},
		},
		{
			"codex argv plain", "shell", `{"command":["rg","-n","foo","pkg"]}`,
			Use{Kind: KindShell, Agent: "codex", Command: "rg -n foo pkg", Query: "foo", Searches: []Search{{Query: "foo", Paths: []string{"pkg"}, Command: "rg -n foo pkg"}}},
		},
		{"codex exec_command", "exec_command", `{"cmd":"cat go.mod"}`, Use{Kind: KindShell, Agent: "codex", Command: "cat go.mod", Paths: []string{"go.mod"}, Reads: []string{"go.mod"}}},
		{
			"codex local_shell action", "local_shell", `{"action":{"type":"exec","command":["cat","README.md"]}}`,
			Use{Kind: KindShell, Agent: "codex", Command: "cat README.md", Paths: []string{"README.md"}, Reads: []string{"README.md"}},
		},
		{
			"codex apply_patch", "apply_patch",
			`{"input":"*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@\n-a\n+b\n*** Add File: hello.txt\n+hi\n*** Delete File: old.txt\n*** End Patch\n"}`,
			Use{Kind: KindEdit, Agent: "codex", Paths: []string{"src/app.py", "src/main.py", "hello.txt", "old.txt"}, Writes: []Write{{"src/app.py", OpDelete}, {"src/main.py", OpWrite}, {"hello.txt", OpCreate}, {"old.txt", OpDelete}}},
		},
		{
			"codex apply_patch free-form", "apply_patch", "*** Begin Patch\n*** Update File: a.rs\n@@\n-x\n+y\n*** End Patch",
			Use{Kind: KindEdit, Agent: "codex", Paths: []string{"a.rs"}, Writes: []Write{{"a.rs", OpEdit}}},
		},
		{
			"codex apply_patch double-encoded string", "apply_patch", `"*** Begin Patch\n*** Add File: n.go\n+package n\n*** End Patch"`,
			Use{Kind: KindEdit, Agent: "codex", Paths: []string{"n.go"}, Writes: []Write{{"n.go", OpCreate}}},
		},
		{"codex update_plan", "update_plan", `{"plan":[]}`, Use{Kind: KindTodo, Agent: "codex"}},
		{"openhands editor view", "str_replace_editor", `{"command":"view","path":"/workspace/a.py","view_range":[1,20]}`, Use{Kind: KindRead, Agent: "openhands", Action: "view", Paths: []string{"/workspace/a.py"}, Reads: []string{"/workspace/a.py"}}},
		{"openhands editor create", "str_replace_editor", `{"command":"create","path":"/workspace/n.py","file_text":"x"}`, Use{Kind: KindWrite, Agent: "openhands", Action: "create", Paths: []string{"/workspace/n.py"}, Writes: []Write{{"/workspace/n.py", OpCreate}}}},
		{"openhands editor str_replace", "str_replace_editor", `{"command":"str_replace","path":"/workspace/a.py","old_str":"a","new_str":"b"}`, Use{Kind: KindEdit, Agent: "openhands", Action: "str_replace", Paths: []string{"/workspace/a.py"}, Writes: []Write{{"/workspace/a.py", OpEdit}}}},
		{"openhands execute_bash", "execute_bash", `{"command":"cd /workspace/repo && cat setup.py"}`, Use{Kind: KindShell, Agent: "openhands", Command: "cd /workspace/repo && cat setup.py", Paths: []string{"/workspace/repo/setup.py"}, Reads: []string{"/workspace/repo/setup.py"}}},
		{"openhands task_tracker view", "task_tracker", `{"command":"view"}`, Use{Kind: KindTodo, Agent: "openhands", Action: "view"}},
		{"openhands think", "think", `{"thought":"hmm"}`, Use{Kind: KindNote, Agent: "openhands"}},
		{"swe-agent open text", "open", `{"command":"open \"src/a b.py\" 100"}`, Use{Kind: KindRead, Agent: "swe-agent", Action: "open", Command: `open "src/a b.py" 100`, Paths: []string{"src/a b.py"}, Reads: []string{"src/a b.py"}}},
		{"swe-agent open file.py 100", "open", `{"command":"open file.py 100"}`, Use{Kind: KindRead, Agent: "swe-agent", Action: "open", Command: "open file.py 100", Paths: []string{"file.py"}, Reads: []string{"file.py"}}},
		{"swe-agent open function", "open", `{"path":"file.py","line_number":3}`, Use{Kind: KindRead, Agent: "swe-agent", Action: "open", Paths: []string{"file.py"}, Reads: []string{"file.py"}}},
		{"swe-agent create", "create", `{"command":"create reproduce.py"}`, Use{Kind: KindWrite, Agent: "swe-agent", Action: "create", Command: "create reproduce.py", Paths: []string{"reproduce.py"}, Writes: []Write{{"reproduce.py", OpCreate}}}},
		{"swe-agent edit", "edit", `{"command":"edit 10:12\n    return x\nend_of_edit"}`, Use{Kind: KindEdit, Agent: "swe-agent", Action: "edit", Command: "edit 10:12\n    return x\nend_of_edit", OpenFile: true}},
		{"swe-agent goto", "goto", `{"command":"goto 300"}`, Use{Kind: KindRead, Agent: "swe-agent", Action: "goto", Command: "goto 300", OpenFile: true}},
		{"swe-agent search_dir", "search_dir", `{"command":"search_dir \"def load\" src"}`, Use{Kind: KindSearch, Agent: "swe-agent", Action: "search_dir", Command: `search_dir "def load" src`, Query: "def load", Searches: []Search{{Query: "def load", Paths: []string{"src"}}}}},
		{"swe-agent search_file open file", "search_file", `{"command":"search_file needle"}`, Use{Kind: KindSearch, Agent: "swe-agent", Action: "search_file", Command: "search_file needle", Query: "needle", OpenFile: true, Searches: []Search{{Query: "needle"}}}},
		{"swe-agent find_file", "find_file", `{"file_name":"fields.py","dir":"src"}`, Use{Kind: KindSearch, Agent: "swe-agent", Query: "fields.py", Searches: []Search{{Query: "fields.py", Paths: []string{"src"}}}}},
		{"swe-agent editor text action", "str_replace_editor", `{"command":"str_replace_editor view /repo/x.py"}`, Use{Kind: KindRead, Agent: "openhands", Action: "view", Paths: []string{"/repo/x.py"}, Reads: []string{"/repo/x.py"}}},
		{"swe-agent shell text action", "python", `{"command":"python reproduce.py"}`, Use{Kind: KindShell, Agent: "swe-agent", Command: "python reproduce.py", Paths: []string{"reproduce.py"}, Reads: []string{"reproduce.py"}}},
		{"swe-agent cat text action", "cat", `{"command":"cat src/a.py"}`, Use{Kind: KindShell, Agent: "swe-agent", Command: "cat src/a.py", Paths: []string{"src/a.py"}, Reads: []string{"src/a.py"}}},
		{"swe-agent grep text action", "grep", `{"command":"grep -rn needle src"}`, Use{Kind: KindShell, Agent: "swe-agent", Command: "grep -rn needle src", Query: "needle", Searches: []Search{{Query: "needle", Paths: []string{"src"}, Command: "grep -rn needle src"}}}},
		{"swe-agent bash text action", "bash", `{"command":"bash run.sh"}`, Use{Kind: KindShell, Agent: "swe-agent", Command: "bash run.sh", Paths: []string{"run.sh"}, Reads: []string{"run.sh"}}},
		{"swe-agent submit", "submit", `{"command":"submit"}`, Use{Kind: KindOther, Agent: "swe-agent"}},
		{"seed read_file", "read_file", `{"path":"main.ts"}`, Use{Kind: KindRead, Agent: "seed", Paths: []string{"main.ts"}, Reads: []string{"main.ts"}}},
		{"seed search", "search", `{"query":"ContextManager"}`, Use{Kind: KindSearch, Agent: "seed", Query: "ContextManager", Searches: []Search{{Query: "ContextManager"}}}},
		{"seed run_command", "run_command", `{"command":"npm test > t.log"}`, Use{Kind: KindShell, Agent: "seed", Command: "npm test > t.log", Paths: []string{"t.log"}, Writes: []Write{{"t.log", OpWrite}}}},
		{"seed write_file", "write_file", `{"path":"a.ts","content":""}`, Use{Kind: KindWrite, Agent: "seed", Paths: []string{"a.ts"}, Writes: []Write{{"a.ts", OpWrite}}}},
		{"reference edit_file", "edit_file", `{"path":"a.go"}`, Use{Kind: KindEdit, Agent: "openhands", Paths: []string{"a.go"}, Writes: []Write{{"a.go", OpEdit}}}},
		{"reference note_finding", "note_finding", `{"text":"x"}`, Use{Kind: KindNote, Agent: "reference"}},
		{"folded name", "web_search", `{"query":"q"}`, Use{Kind: KindWeb, Agent: "codex", Query: "q"}},
		{"folded case", "read", `{"file_path":"r.go"}`, Use{Kind: KindRead, Agent: "claude-code", Paths: []string{"r.go"}, Reads: []string{"r.go"}}},
		{"alias text editor", "str_replace_based_edit_tool", `{"command":"view","path":"v.py"}`, Use{Kind: KindRead, Agent: "alias", Action: "view", Paths: []string{"v.py"}, Reads: []string{"v.py"}}},
		{"unknown writer", "delete_file", `{"target_file":"gone.go"}`, Use{Kind: KindOther, Paths: []string{"gone.go"}, Writes: []Write{{"gone.go", OpWrite}}}},
		{"unknown reader", "read_many_files", `{"paths":["a.md","b.md"]}`, Use{Kind: KindOther, Paths: []string{"a.md", "b.md"}, Reads: []string{"a.md", "b.md"}}},
		{"unknown other", "mcp__db__query", `{"path":"db/x.sql","query":"select 1"}`, Use{Kind: KindOther, Query: "select 1", Paths: []string{"db/x.sql"}}},
		{"unknown with patch", "my_patch_tool", `{"input":"*** Begin Patch\n*** Update File: p.go\n*** End Patch"}`, Use{Kind: KindOther, Paths: []string{"p.go"}, Writes: []Write{{"p.go", OpWrite}}}},
		{"bad arguments", "Read", `{"file_path":`, Use{Kind: KindRead, Agent: "claude-code"}},
		{"empty path ignored", "Read", `{"file_path":"  "}`, Use{Kind: KindRead, Agent: "claude-code"}},
		{"dev path ignored", "Write", `{"file_path":"/dev/null"}`, Use{Kind: KindWrite, Agent: "claude-code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Classify(call(tt.tool, tt.args))
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Classify(%s, %s) (-want +got):\n%s", tt.tool, tt.args, diff)
			}
			checkPaths(t, got)
		})
	}
}
