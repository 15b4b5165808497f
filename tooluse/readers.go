package tooluse

import "strings"

// readPath reads the first of keys as a file the call reads.
func readPath(keys ...string) func(*builder, args) {
	return func(b *builder, a args) {
		if p := a.str(keys...); p != "" {
			b.read(p)
		}
	}
}

// writePath reads the first of keys as a file the call writes with op.
func writePath(op Op, keys ...string) func(*builder, args) {
	return func(b *builder, a args) {
		if p := a.str(keys...); p != "" {
			b.write(p, op)
		}
	}
}

// searchArgs reads a search tool's arguments: the query (Claude Code
// Grep and Glob pattern, the seeds' query, SWE-agent search_term and
// file_name, regex) and the path searched (path, dir, directory,
// target_directory). A searched path with an extension is a file, and
// also read.
func searchArgs(b *builder, a args) {
	q := a.str("pattern", "query", "search_term", "regex", "file_name", "search", "name")
	var dirs []string
	if d := a.str("path", "dir", "directory", "target_directory", "file"); d != "" {
		dirs = append(dirs, d)
		if hasExt(d) {
			b.read(d)
		}
	}
	b.search(q, dirs, "")
}

// webSearch reads a web search's query.
func webSearch(b *builder, a args) {
	b.u.Query = a.str("query", "q", "search_query")
}

// shellArgs reads a shell tool's command: "command" or "cmd" as a string
// (Claude Code Bash, OpenHands execute_bash, Codex exec_command) or an
// argv array (Codex shell, and local_shell's action.command), whose
// script is the argument after -c (or -lc, …) when argv runs a shell.
// Codex's workdir is not applied: paths stay relative to the agent's
// directory, as the other agents' are.
func shellArgs(b *builder, a args) {
	if a.obj == nil {
		b.shell(a.raw)
		return
	}
	for _, k := range []string{"command", "cmd"} {
		switch v := a.get(k).(type) {
		case string:
			b.shell(v)
			return
		case []any:
			b.argv(a.strs(k))
			return
		}
	}
	if act, ok := a.get("action").(map[string]any); ok {
		b.argv(args{obj: act}.strs("command"))
	}
}

// patchArgs reads a Codex apply_patch call: the patch in "input" or
// "patch", or the arguments themselves (the free-form custom tool).
func patchArgs(b *builder, a args) {
	p := a.str("input", "patch")
	if p == "" {
		p = a.raw
	}
	if p == "" {
		// {"command": ["apply_patch", "*** Begin Patch…"]}
		if argv := a.strs("command"); len(argv) == 2 {
			p = argv[1]
		}
	}
	b.patch(p)
}

func (b *builder) patch(p string) {
	for _, w := range patchFiles(p) {
		b.write(w.Path, w.Op)
	}
}

// editorArgs reads a str_replace_editor call (OpenHands, SWE-agent's
// edit_anthropic bundle, Anthropic's text editor tool): "view" reads
// path, "create" creates it, "str_replace", "insert" and "undo_edit"
// edit it. The kind follows the command. A SWE-agent text action
// ("str_replace_editor view /a.py") is read the same way.
func editorArgs(b *builder, a args) {
	cmd, p := a.str("command"), a.str("path")
	if w := textWords(cmd); len(w) > 0 && (w[0] == "str_replace_editor" || w[0] == "str_replace_based_edit_tool") {
		cmd, p = "", ""
		if len(w) > 1 {
			cmd = w[1]
		}
		if len(w) > 2 {
			p = w[2]
		}
	}
	b.u.Action = cmd
	switch cmd {
	case "view":
		b.u.Kind = KindRead
		b.read(p)
	case "create":
		b.u.Kind = KindWrite
		b.write(p, OpCreate)
	default:
		b.u.Kind = KindEdit
		b.write(p, OpEdit)
	}
}

// textWords returns the words of the first line of a SWE-agent text
// action, resolved as the shell resolves them ("open \"a b.py\" 3" is
// open, a b.py, 3).
func textWords(cmd string) []string {
	line, _, _ := strings.Cut(strings.TrimSpace(cmd), "\n")
	if line == "" {
		return nil
	}
	segs := splitShell(line)
	if len(segs) == 0 {
		return nil
	}
	// The first command of the line only.
	out := make([]string, 0, len(segs[0].words))
	for _, w := range segs[0].words {
		out = append(out, w.text)
	}
	return out
}

// sweText returns the operands of a SWE-agent text action named name
// ({"command": "open a.py 10"} gives [a.py 10]) and whether the command
// is one.
func sweText(name string, a args) ([]string, bool) {
	w := textWords(a.str("command"))
	if len(w) == 0 || w[0] != name {
		return nil, false
	}
	return w[1:], true
}

// sweOpen reads SWE-agent's "open <path> [<line_number>]".
func sweOpen(b *builder, a args) {
	b.u.Action = "open"
	if w, ok := sweText("open", a); ok {
		b.u.Command = strings.TrimSpace(a.str("command"))
		if len(w) > 0 {
			b.read(w[0])
		}
		return
	}
	readPath("path", "file_path", "filename")(b, a)
}

// sweWindow reads goto and scroll_up/scroll_down: they read the open
// file.
func sweWindow(b *builder, a args) {
	b.u.OpenFile = true
	if w := textWords(a.str("command")); len(w) > 0 {
		b.u.Action = w[0]
		b.u.Command = strings.TrimSpace(a.str("command"))
	}
}

// sweCreate reads "create <filename>".
func sweCreate(b *builder, a args) {
	b.u.Action = "create"
	if w, ok := sweText("create", a); ok {
		b.u.Command = strings.TrimSpace(a.str("command"))
		if len(w) > 0 {
			b.write(w[0], OpCreate)
		}
		return
	}
	if p := a.str("filename", "path", "file_path"); p != "" {
		b.write(p, OpCreate)
	}
}

// sweEdit reads "edit <start>:<end>" and "insert <line>" (and their
// function-calling forms): they edit the open file, unless a path is
// given.
func sweEdit(b *builder, a args) {
	if w := textWords(a.str("command")); len(w) > 0 && (w[0] == "edit" || w[0] == "insert") {
		b.u.Action = w[0]
		b.u.Command = strings.TrimSpace(a.str("command"))
	}
	if p := a.str("path", "file_path", "filename"); p != "" {
		b.write(p, OpEdit)
		return
	}
	b.u.OpenFile = true
}

// sweSearch reads find_file, search_dir and search_file: "<query>
// [<where>]" as text, or the named arguments. search_file without a file
// searches the open file; a file searched is also read.
func sweSearch(queryKey, whereKey string) func(*builder, args) {
	return func(b *builder, a args) {
		q, where := a.str(queryKey), a.str(whereKey)
		for _, name := range []string{"find_file", "search_dir", "search_file"} {
			if w, ok := sweText(name, a); ok {
				b.u.Action = name
				b.u.Command = strings.TrimSpace(a.str("command"))
				q, where = "", ""
				if len(w) > 0 {
					q = w[0]
				}
				if len(w) > 1 {
					where = w[1]
				}
			}
		}
		var dirs []string
		if where != "" {
			dirs = append(dirs, where)
			if whereKey == "file" {
				b.read(where)
			}
		} else if whereKey == "file" {
			b.u.OpenFile = true
		}
		b.search(q, dirs, "")
	}
}

// sweFilemap reads "filemap <file>": it prints the file's outline.
func sweFilemap(b *builder, a args) {
	b.u.Action = "filemap"
	if w, ok := sweText("filemap", a); ok {
		b.u.Command = strings.TrimSpace(a.str("command"))
		if len(w) > 0 {
			b.read(w[0])
		}
		return
	}
	readPath("file_path", "path")(b, a)
}
