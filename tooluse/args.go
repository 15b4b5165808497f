package tooluse

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// args are a tool call's decoded arguments: a JSON object, or the raw
// text when they are a JSON string (double-encoded, or a Codex custom
// tool's free-form input) or not JSON at all. The object's string
// values are decoded when read ([args.get]): the readers look at a few
// keys, and the others can be whole files written.
type args struct {
	obj map[string]any
	raw string
}

// lazyString is a string value of an object, as its JSON text, until
// [args.get] decodes it.
type lazyString []byte

// get returns the value of key k: what encoding/json decodes it to into
// an any, nil when there is none.
func (a args) get(k string) any {
	v := a.obj[k]
	if l, ok := v.(lazyString); ok {
		var s string
		_ = jsonx.Unmarshal(l, &s) // a string of a valid object: cannot fail
		a.obj[k] = s
		return s
	}
	return v
}

// decodeArgs decodes raw. A JSON string holding an object is decoded
// once more. It never fails: what is not an object is kept as text. It
// decodes as encoding/json does into a map[string]any, faster
// (internal/jsonx, string values when read: FuzzDecodeArgs compares).
func decodeArgs(raw []byte) args {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return args{}
	}
	switch raw[0] {
	case '{':
		if obj, ok := decodeObject(raw); ok {
			return args{obj: obj}
		}
	case '"':
		var s string
		if jsonx.Unmarshal(raw, &s) == nil {
			if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
				if obj, ok := decodeObject([]byte(t)); ok {
					return args{obj: obj}
				}
			}
			return args{raw: s}
		}
	}
	return args{raw: string(raw)}
}

// decodeObject decodes a JSON object as encoding/json decodes it into a
// map[string]any, its string values left as lazyString: ok is false
// where that decoding fails (broken JSON, a number out of float64's
// range in any other value).
func decodeObject(raw []byte) (map[string]any, bool) {
	// A map made here: for a nil one the fast decoder makes one of 64
	// entries, most of them unused.
	fields := map[string]json.RawMessage{}
	if jsonx.Unmarshal(raw, &fields) != nil {
		return nil, false
	}
	obj := make(map[string]any, len(fields))
	for k, v := range fields {
		if len(v) > 0 && v[0] == '"' {
			obj[k] = lazyString(v)
			continue
		}
		var x any
		if jsonx.Unmarshal(v, &x) != nil {
			return nil, false
		}
		obj[k] = x
	}
	return obj, true
}

// str returns the first of keys whose value is a string that is not
// blank, trimmed; "" when none is.
func (a args) str(keys ...string) string {
	for _, k := range keys {
		if s, ok := a.get(k).(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// strs returns the string elements of an array value, or the value
// itself when it is a string.
func (a args) strs(key string) []string {
	switch v := a.get(key).(type) {
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
		if s, ok := a.get(k).(string); ok {
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
		if s, ok := a.get(k).(string); ok && strings.Contains(s, "*** Begin Patch") {
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
