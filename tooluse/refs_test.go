package tooluse_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
)

func call(name string, args any) chat.ToolCall {
	b, _ := json.Marshal(args)
	return chat.ToolCall{ID: "c1", Name: name, Arguments: b}
}

func TestContainsToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		hay, needle string
		want        bool
	}{
		{"x = Ash.read_one(q)", "Ash.read", false},
		{"x = Ash.read(q)", "Ash.read", true},
		{"Ash.read_one(q) then Ash.read(q)", "Ash.read", true},
		{"the parser", "parse", false},
		{"see (a.py).", "a.py", true},
		{"lib/a.py", "a.py", true}, // '/' is a boundary
		{"lib/xa.py", "a.py", false},
		{"anything", "", false},
		{"Ünïcode_x", "code_x", false},
		{"-- --foo", "--foo", true}, // a non-word edge needs no boundary
	}
	for _, c := range cases {
		if got := tooluse.ContainsToken(c.hay, c.needle); got != c.want {
			t.Errorf("ContainsToken(%q, %q) = %v, want %v", c.hay, c.needle, got, c.want)
		}
	}
}

func TestStripLineNumbers(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"claude code Read", "    83→  def a do\n    84→    Ash.read_one(q)\n", "  def a do\n    Ash.read_one(q)\n"},
		{"cat -n", "     9\tfoo()\n    10\t\tbar()", "foo()\n\tbar()"},
		{"swe-agent window", "84:    x = 1\n85:    y = 2", "    x = 1\n    y = 2"},
		{"no prefix", "x = 84\n  12 apples\n", "x = 84\n  12 apples\n"},
		{"indented colon kept", "  12: a", "  12: a"},
	}
	for _, c := range cases {
		if got := tooluse.StripLineNumbers(c.in); got != c.want {
			t.Errorf("%s: StripLineNumbers(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestCallRefs(t *testing.T) {
	t.Parallel()
	patch := "*** Begin Patch\n*** Update File: src/a.py\n@@ def f():\n     x = 1\n-    y = 2\n+    y = 3\n*** End Patch"
	cases := []struct {
		name string
		call chat.ToolCall
		want []tooluse.Ref
	}{
		{"claude code Edit", call("Edit", map[string]any{"file_path": "/r/lib/a.ex", "old_string": "  Ash.read(q)", "new_string": "  Ash.read!(q)"}),
			[]tooluse.Ref{{Kind: tooluse.RefPath, Text: "/r/lib/a.ex"}, {Kind: tooluse.RefEdit, Text: "  Ash.read(q)"}}},
		{"MultiEdit", call("MultiEdit", map[string]any{"file_path": "a.go", "edits": []any{
			map[string]any{"old_string": "one", "new_string": "1"}, map[string]any{"old_string": " ", "new_string": "2"}}}),
			[]tooluse.Ref{{Kind: tooluse.RefPath, Text: "a.go"}, {Kind: tooluse.RefEdit, Text: "one"}}},
		{"str_replace_editor", call("str_replace_editor", map[string]any{"command": "str_replace", "path": "/w/x.c", "old_str": "int a;", "new_str": "long a;"}),
			[]tooluse.Ref{{Kind: tooluse.RefPath, Text: "/w/x.c"}, {Kind: tooluse.RefEdit, Text: "int a;"}}},
		{"apply_patch", call("apply_patch", map[string]any{"input": patch}),
			[]tooluse.Ref{{Kind: tooluse.RefPath, Text: "src/a.py"}, {Kind: tooluse.RefEdit, Text: "    x = 1\n    y = 2"}}},
		{"Read with offset", call("Read", map[string]any{"file_path": "/r/a.ex", "offset": 84, "limit": 20}),
			[]tooluse.Ref{{Kind: tooluse.RefPath, Text: "/r/a.ex"}, {Kind: tooluse.RefLine, Text: "/r/a.ex", Line: 84}}},
		{"view_range", call("str_replace_editor", map[string]any{"command": "view", "path": "/w/x.c", "view_range": []int{120, 140}}),
			[]tooluse.Ref{{Kind: tooluse.RefPath, Text: "/w/x.c"}, {Kind: tooluse.RefLine, Text: "/w/x.c", Line: 120}}},
		{"Write: the path only", call("Write", map[string]any{"file_path": "n.go", "content": "package n // Ash.read"}),
			[]tooluse.Ref{{Kind: tooluse.RefPath, Text: "n.go"}}},
		{"Grep for an error", call("Grep", map[string]any{"pattern": "KeyError: 'name'", "path": "src"}),
			[]tooluse.Ref{{Kind: tooluse.RefError, Text: "KeyError: 'name'"}, {Kind: tooluse.RefPath, Text: "src"}}},
		{"shell arguments", call("Bash", map[string]any{"command": "cd /repo && python -m pytest tests/test_a.py::test_parse -x -q"}),
			// pytest reads no file the way cat does: its operand is an argument.
			[]tooluse.Ref{{Kind: tooluse.RefArg, Text: "/repo"}, {Kind: tooluse.RefArg, Text: "tests/test_a.py::test_parse"}}},
		{"todo: nothing", call("TodoWrite", map[string]any{"todos": []any{}}), nil},
	}
	for _, c := range cases {
		got := tooluse.CallRefs(c.call)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: CallRefs (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestTextRefs(t *testing.T) {
	t.Parallel()
	text := "The test fails with \"KeyError: 'name'\" in src/app/models.py; `Ash.read` should be `Ash.read_one` " +
		"and parse_args in config.yaml. JSON output, see https://x.io/a.py."
	want := []tooluse.Ref{
		{Kind: tooluse.RefError, Text: "KeyError: 'name'"},
		{Kind: tooluse.RefSymbol, Text: "KeyError"},
		{Kind: tooluse.RefPath, Text: "src/app/models.py"},
		{Kind: tooluse.RefSymbol, Text: "Ash.read"},
		{Kind: tooluse.RefSymbol, Text: "Ash.read_one"},
		{Kind: tooluse.RefSymbol, Text: "parse_args"},
		{Kind: tooluse.RefPath, Text: "config.yaml"},
	}
	if diff := cmp.Diff(want, tooluse.TextRefs(text)); diff != "" {
		t.Errorf("TextRefs (-want +got):\n%s", diff)
	}
}

func TestActionRefsCapsSymbols(t *testing.T) {
	t.Parallel()
	text := "a_1x b_2x c_3x d_4x e_5x f_6x g_7x h_8x i_9x j_10x"
	m := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}, chat.Text{Text: "a_1x again"}}}
	got := tooluse.ActionRefs(m)
	if len(got) != tooluse.MaxSymbolRefs {
		t.Fatalf("ActionRefs kept %d identifiers, want %d: %v", len(got), tooluse.MaxSymbolRefs, got)
	}
}

// TestActionRefsPlaceholder: a publisher's redaction placeholder in place
// of a call's arguments or a message's text gives no reference, as the
// shared Codex rollouts write them; anything else bracketed still does.
func TestActionRefsPlaceholder(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"[REDACTED_ARGUMENTS len=136 sha=22ea40d4]": true,
		" [REDACTED_TEXT len=113]\n":                true,
		"[REDACTED]":                                true,
		"[REDACTED_OUTPUT len=113] and more":        false,
		"[redacted len=3]":                          false,
		"[REDACTED_ARGUMENTS see main.go]":          false,
		"[REDACTED len=1\nx=2]":                     false,
		"REDACTED_TEXT len=113":                     false,
	} {
		if got := tooluse.Placeholder(s); got != want {
			t.Errorf("Placeholder(%q) = %v, want %v", s, got, want)
		}
	}
	m := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.Text{Text: "[REDACTED_TEXT len=113 sha=0badcafe]"},
		chat.ToolCall{ID: "c1", Name: "shell", Arguments: json.RawMessage(`[REDACTED_ARGUMENTS len=136 sha=22ea40d4]`)},
		chat.ToolCall{ID: "c2", Name: "exec_command", Arguments: json.RawMessage(`"[REDACTED_ARGUMENTS len=113 sha=48368426]"`)},
	}}
	if got := tooluse.ActionRefs(m); len(got) != 0 {
		t.Errorf("ActionRefs of placeholders = %v, want none", got)
	}
	m.Parts = append(m.Parts, call("shell", map[string]any{"command": []string{"bash", "-lc", "sed -n 1,80p src/main.rs"}}))
	if got := tooluse.ActionRefs(m); len(got) == 0 {
		t.Errorf("ActionRefs of a real call beside placeholders = none")
	}
}

func TestPathForms(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]string{"/repo/compact/facts.go", "compact/facts.go"}, tooluse.PathForms("/repo/compact/facts.go")); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"a.go"}, tooluse.PathForms("a.go")); diff != "" {
		t.Error(diff)
	}
}

func FuzzRefs(f *testing.F) {
	f.Add("Edit", `{"file_path":"a.go","old_string":"x"}`, "see `a.b` in x.go \"error here\"")
	f.Add("apply_patch", `{"input":"*** Begin Patch\n@@\n- a\n+ b\n"}`, "84→ x")
	f.Fuzz(func(t *testing.T, name, args, text string) {
		for _, r := range tooluse.CallRefs(chat.ToolCall{Name: name, Arguments: []byte(args)}) {
			if r.Text == "" {
				t.Fatalf("empty reference %+v", r)
			}
		}
		for _, r := range tooluse.TextRefs(text) {
			if r.Text == "" {
				t.Fatalf("empty reference %+v", r)
			}
		}
		s := tooluse.StripLineNumbers(text)
		if len(s) > len(text) {
			t.Fatalf("StripLineNumbers grew %q to %q", text, s)
		}
		if text != "" && !tooluse.ContainsToken(text, text) {
			t.Fatalf("ContainsToken(%q, itself) = false", text)
		}
	})
}
