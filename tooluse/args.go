package tooluse

import (
	"bytes"
	"path"
	"strings"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// args are a tool call's decoded arguments: a JSON object, or the raw
// text when they are a JSON string (double-encoded, or a Codex custom
// tool's free-form input) or not JSON at all.
type args struct {
	obj map[string]any
	raw string
}

// decodeArgs decodes raw. A JSON string holding an object is decoded
// once more. It never fails: what is not an object is kept as text. It
// decodes as encoding/json does, faster (internal/jsonx: FuzzDecodeArgs
// compares).
func decodeArgs(raw []byte) args {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return args{}
	}
	switch raw[0] {
	case '{':
		// A map made here: for a nil one the fast decoder makes one of
		// 64 entries, most of them unused.
		obj := map[string]any{}
		if jsonx.Unmarshal(raw, &obj) == nil {
			return args{obj: obj}
		}
	case '"':
		var s string
		if jsonx.Unmarshal(raw, &s) == nil {
			if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
				obj := map[string]any{}
				if jsonx.Unmarshal([]byte(t), &obj) == nil {
					return args{obj: obj}
				}
			}
			return args{raw: s}
		}
	}
	return args{raw: string(raw)}
}

// str returns the first of keys whose value is a string that is not
// blank, trimmed; "" when none is.
func (a args) str(keys ...string) string {
	for _, k := range keys {
		if s, ok := a.obj[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// strs returns the string elements of an array value, or the value
// itself when it is a string.
func (a args) strs(key string) []string {
	switch v := a.obj[key].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// pathKeys are the argument names that hold one file path, across the
// tools of the tables and the generic names of other tools: Claude Code
// file_path and notebook_path, str_replace_editor path, SWE-agent
// filename and file, seed 001's target, source and destination,
// OpenCode's filePath, Cursor's target_file, and absolute_path and
// relative_path. window.ArgumentPaths accepted the first eight.
var pathKeys = []string{
	"file_path", "path", "notebook_path", "filePath", "filename", "target", "source", "destination",
	"file", "target_file", "absolute_path", "relative_path", "filepath", "file_name_path",
}

// listKeys are argument names that hold a list of paths.
var listKeys = []string{"paths", "files", "file_paths"}

// argPaths returns the path-like argument values of a: pathKeys, then
// listKeys, then the file headers of an apply_patch text in "input" or
// "patch".
func (a args) argPaths() []string {
	var out []string
	for _, k := range pathKeys {
		if s, ok := a.obj[k].(string); ok {
			if p := cleanFile(s); p != "" {
				out = append(out, p)
			}
		}
	}
	for _, k := range listKeys {
		for _, s := range a.strs(k) {
			if p := cleanFile(s); p != "" {
				out = append(out, p)
			}
		}
	}
	for _, k := range []string{"input", "patch"} {
		if s, ok := a.obj[k].(string); ok && strings.Contains(s, "*** Begin Patch") {
			for _, w := range patchFiles(s) {
				out = append(out, w.Path)
			}
		}
	}
	return out
}

// maxPath is the longest path, in bytes, a call may name.
const maxPath = 4096

// cleanFile returns p cleaned (path.Clean, surrounding blanks trimmed),
// or "" when p is not a usable file path: empty, ".", "/", longer than
// 4,096 bytes, or holding a new line or NUL, or under /dev/ (a device:
// /dev/null, /dev/stderr).
func cleanFile(p string) string {
	p = cleanDir(p)
	if p == "." || p == "/" {
		return ""
	}
	return p
}

// cleanDir is cleanFile that keeps "." and "/": a directory searched.
func cleanDir(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || len(p) > maxPath || strings.ContainsAny(p, "\n\r\x00") {
		return ""
	}
	p = path.Clean(p)
	if p == "/dev" || strings.HasPrefix(p, "/dev/") {
		return ""
	}
	return p
}

// hasExt reports whether a path's base name has an extension starting
// with a letter ("app.go", not "1.2", ".env" or "dir"): compact's test
// for a search operand that is a file rather than a directory.
func hasExt(p string) bool {
	b := path.Base(p)
	i := strings.LastIndexByte(b, '.')
	if i <= 0 || i == len(b)-1 {
		return false
	}
	c := b[i+1]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
