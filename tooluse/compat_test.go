package tooluse

import (
	"slices"
	"testing"
)

// The four tool tables tooluse replaces, as they stand before the
// rewiring: each name with the kind its table gives, in that table's
// words. TestClassifyMatchesOldTables runs every name through Classify
// and checks the kind corresponds; the deliberate differences are listed
// in drift, each with its reason.
var (
	// track/kind.go defaultTools.
	trackTable = map[string]string{
		"Read": "read", "Bash": "shell", "Grep": "search", "Glob": "search", "Edit": "write", "Write": "write",
		"MultiEdit": "write", "NotebookEdit": "write", "TodoWrite": "other", "WebSearch": "search",
		"exec_command": "shell", "shell": "shell", "apply_patch": "write",
		"bash": "shell", "open": "read", "find_file": "search", "search_dir": "search", "search_file": "search",
		"str_replace_editor": "editor", "create": "write", "edit": "write", "insert": "write",
		"execute_bash": "shell",
	}
	// workmem/observe.go toolKinds (looked up lower-cased), plus its
	// str_replace_editor rule.
	workmemTable = map[string]string{
		"grep": "search", "glob": "search", "find_file": "search", "search_dir": "search",
		"search_file": "search", "websearch": "search", "ls": "search",
		"read": "file", "open": "file", "view": "file", "read_file": "file", "notebookread": "file",
		"edit": "edit", "multiedit": "edit", "write": "edit", "apply_patch": "edit",
		"notebookedit": "edit", "edit_file": "edit", "create": "edit",
		"bash": "command", "shell": "command", "exec_command": "command", "execute_bash": "command",
		"local_shell": "command", "str_replace_editor": "edit", "str_replace_based_edit_tool": "edit",
	}
	// compact/limit.go searchTools and fileTools (lower-cased).
	limitTable = map[string]string{
		"grep": "search", "glob": "search", "rg": "search", "search": "search", "search_dir": "search", "search_file": "search",
		"find_file": "search", "find": "search", "search_project_code": "search", "codebase_search": "search", "file_search": "search",
		"grep_search": "search", "list_files": "search", "ls": "search",
		"read": "file", "read_file": "file", "open": "file", "view": "file", "cat": "file", "read_project_file": "file",
		"notebookread": "file", "view_file": "file",
	}
	// compact/facts.go shellTools, the writing tools isWritingTool
	// recognised among the tables' names, and its editors.
	factsTable = map[string]string{
		"bash": "shell", "Bash": "shell", "execute_bash": "shell", "shell": "shell",
		"exec_command": "shell", "run_shell_command": "shell", "local_shell": "shell",
		"container.exec": "shell", "terminal": "shell", "run": "shell",
		"Edit": "write", "Write": "write", "MultiEdit": "write", "NotebookEdit": "write", "apply_patch": "write",
		"create": "write", "edit": "write", "insert": "write", "write_file": "write", "edit_file": "editor",
		"str_replace_editor": "editor",
	}
)

// oldKinds maps each old kind to the kinds of Classify it may become.
var oldKinds = map[string][]Kind{
	"read": {KindRead}, "file": {KindRead},
	"write": {KindWrite, KindEdit}, "edit": {KindWrite, KindEdit}, "editor": {KindRead, KindWrite, KindEdit},
	"search": {KindSearch, KindList},
	"shell":  {KindShell}, "command": {KindShell},
	"other": {KindOther, KindTodo, KindWeb, KindNote, KindTask, KindList},
}

// drift lists the deliberate differences: table/name → the kind now.
var drift = map[string]Kind{
	// A web search is not a search of the code: track recorded it among
	// recent searches, workmem typed its output as a search result. Its
	// query stays in Use.Query, so track can keep recording it.
	"track/WebSearch":   KindWeb,
	"workmem/websearch": KindWeb,
}

func TestClassifyMatchesOldTables(t *testing.T) {
	t.Parallel()
	for table, m := range map[string]map[string]string{"track": trackTable, "workmem": workmemTable, "limit": limitTable, "facts": factsTable} {
		for name, old := range m {
			u := Classify(call(name, `{}`))
			if k, ok := drift[table+"/"+name]; ok {
				if u.Kind != k {
					t.Errorf("%s %s: kind %v, want the deliberate %v", table, name, u.Kind, k)
				}
				continue
			}
			if !slices.Contains(oldKinds[old], u.Kind) {
				t.Errorf("%s %s: kind %v, was %q (want one of %v)", table, name, u.Kind, old, oldKinds[old])
			}
			if u.Agent == "" {
				t.Errorf("%s %s: no table matched", table, name)
			}
		}
	}
}

// TestTablesAgree checks that no two tables give one name, or one folded
// name, different kinds: the lookup order then never changes a kind.
func TestTablesAgree(t *testing.T) {
	t.Parallel()
	byFold := map[string]Kind{}
	from := map[string]string{}
	for _, at := range Agents() {
		for name, k := range at.Tools {
			f := fold(name)
			if prev, ok := byFold[f]; ok && prev != k {
				t.Errorf("%s %s is %v, but %s has %v", at.Agent, name, k, from[f], prev)
			}
			byFold[f], from[f] = k, at.Agent+" "+name
		}
	}
}
