package track

import (
	"encoding/json"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

type write struct{ path, op string }

// analysis is what one tool call reads, writes and searches, and the text
// that names it when it fails.
type analysis struct {
	reads    []string
	writes   []write
	searches []string
	command  string
}

func analyze(tools map[string]Kind, call chat.ToolCall) analysis {
	var args map[string]any
	var raw string
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		args = nil
		_ = json.Unmarshal(call.Arguments, &raw) // a string argument, or nothing
	}
	kind := tools[call.Name]
	var a analysis
	cmd := commandOf(args)
	if cmd == "" {
		cmd = raw
	}
	// SWE-agent text actions: {"command": "open path 100"}.
	words := fields(cmd)
	textAction := len(words) > 0 && words[0] == call.Name
	operand := func(i int) string {
		if textAction && len(words) > i {
			return words[i]
		}
		return ""
	}
	switch kind {
	case KindShell:
		a.command = cmd
		shellAnalyze(cmd, &a)
		return a
	case KindRead:
		if p := firstString(args, "file_path", "path", "notebook_path", "filename"); p != "" {
			a.reads = append(a.reads, p)
		} else if p := operand(1); p != "" {
			a.reads = append(a.reads, p)
		}
	case KindWrite:
		op := writeOp(call.Name)
		if p := firstString(args, "file_path", "path", "notebook_path", "filename"); p != "" {
			a.writes = append(a.writes, write{p, op})
		} else if patch := firstString(args, "input", "patch"); patch != "" || call.Name == "apply_patch" {
			if patch == "" {
				patch = raw
			}
			a.writes = append(a.writes, patchFiles(patch)...)
		} else if p := operand(1); p != "" && call.Name == "create" {
			a.writes = append(a.writes, write{p, op})
		}
	case KindSearch:
		q := firstString(args, "pattern", "query", "search_term", "file_name", "search", "regex", "path")
		if q == "" && textAction {
			q = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cmd), call.Name))
		}
		if q == "" {
			q = cmd
		}
		if q != "" {
			a.searches = append(a.searches, q)
		}
	case KindEditor:
		sub, p := firstString(args, "command"), firstString(args, "path")
		if textAction {
			sub, p = operand(1), operand(2)
		}
		if p != "" {
			switch sub {
			case "view":
				a.reads = append(a.reads, p)
			case "create":
				a.writes = append(a.writes, write{p, "create"})
			case "str_replace", "insert", "undo_edit":
				a.writes = append(a.writes, write{p, "edit"})
			}
		}
		a.command = strings.TrimSpace(call.Name + " " + sub + " " + p)
		return a
	}
	a.command = failureKey(call.Name, cmd, textAction, args)
	return a
}

// failureKey names a failed non-shell call: the text action itself, or
// the tool name and its main argument.
func failureKey(name, cmd string, textAction bool, args map[string]any) string {
	if textAction {
		return cmd
	}
	arg := firstString(args, "file_path", "path", "notebook_path", "filename", "pattern", "query", "url")
	if arg == "" {
		arg = cmd
	}
	return strings.TrimSpace(name + " " + arg)
}

func writeOp(name string) string {
	switch name {
	case "Write", "write_file":
		return "write"
	case "create":
		return "create"
	case "apply_patch":
		return "patch"
	default:
		return "edit"
	}
}

// commandOf returns a shell command from arguments: "command" or "cmd" as
// a string, or as an argv array (Codex shell: ["bash", "-lc", "…"] gives
// the script).
func commandOf(args map[string]any) string {
	for _, k := range []string{"command", "cmd"} {
		switch v := args[k].(type) {
		case string:
			return v
		case []any:
			var argv []string
			for _, e := range v {
				if s, ok := e.(string); ok {
					argv = append(argv, s)
				}
			}
			if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
				return argv[2]
			}
			return strings.Join(argv, " ")
		}
	}
	return ""
}

func firstString(args map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := args[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// fields splits the first line of s on white space.
func fields(s string) []string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.Fields(line)
}

// patchFiles returns the files a Codex apply_patch input names.
func patchFiles(patch string) []write {
	var out []write
	for line := range strings.Lines(patch) {
		line = strings.TrimSpace(line)
		for _, h := range []struct{ prefix, op string }{
			{"*** Add File: ", "create"},
			{"*** Update File: ", "patch"},
			{"*** Delete File: ", "delete"},
			{"*** Move to: ", "patch"},
		} {
			if p, ok := strings.CutPrefix(line, h.prefix); ok && strings.TrimSpace(p) != "" {
				out = append(out, write{strings.TrimSpace(p), h.op})
			}
		}
	}
	return out
}
