package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/safefile"
)

// MaxReadBytes is the largest file, in bytes, read_file reads whole;
// a larger one needs start_line/end_line.
const MaxReadBytes = 4 << 20

// binarySniff is how many leading bytes are checked for a NUL, the mark
// of a binary file (as git and ripgrep do).
const binarySniff = 8 << 10

// maxLineBytes caps one displayed line of read_file, in bytes.
const maxLineBytes = 2000

type readFile struct{ env Env }

func (readFile) Def() chat.ToolDef {
	return chat.ToolDef{
		Name:        "read_file",
		Description: "Read a text file of the project, with 1-based line numbers. Give start_line/end_line (inclusive) to read part of a long file.",
		Parameters: schema(map[string]any{
			"path":       prop("string", "File path, relative to the project root."),
			"start_line": prop("integer", "First line to read (1-based). Optional."),
			"end_line":   prop("integer", "Last line to read (inclusive). Optional."),
		}, "path"),
	}
}

func (readFile) Access() Access { return AccessRead }

func (t readFile) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}
	if err := decode(call, &a); err != nil {
		return fail(call, "%v", err)
	}
	if a.Path == "" {
		return fail(call, "path is required")
	}
	if a.StartLine < 0 || a.EndLine < 0 || (a.EndLine > 0 && a.StartLine > a.EndLine) {
		return fail(call, "bad line range %d-%d: lines are 1-based and start_line <= end_line", a.StartLine, a.EndLine)
	}
	if err := ctx.Err(); err != nil {
		return fail(call, "cancelled: %v", err)
	}
	p, err := resolve(t.env, a.Path)
	if err != nil {
		return fail(call, "%v", err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return fail(call, "%s: %v", a.Path, errors.Unwrap(err))
	}
	if fi.IsDir() {
		return fail(call, "%s is a directory; use list_files to see its contents", a.Path)
	}
	if !fi.Mode().IsRegular() {
		return fail(call, "%s is not a regular file", a.Path)
	}
	ranged := a.StartLine > 0 || a.EndLine > 0
	if fi.Size() > MaxReadBytes && !ranged {
		return fail(call, "%s is %d bytes, over read_file's %d-byte limit; give start_line and end_line to read part of it, or use search", a.Path, fi.Size(), MaxReadBytes)
	}
	// The Stat above followed the path; a FIFO swapped in since is
	// refused, not waited on.
	f, err := safefile.Open(p, safefile.Options{})
	if err != nil {
		return fail(call, "%s: %v", a.Path, errors.Unwrap(err))
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	head, _ := r.Peek(binarySniff)
	if bytes.IndexByte(head, 0) >= 0 {
		return fail(call, "%s is a binary file (%d bytes); read_file shows text only", a.Path, fi.Size())
	}
	start := max(a.StartLine, 1)
	limit := t.env.outputBytes()
	var out strings.Builder
	n, last := 0, 0
	buf := make([]byte, 0, maxLineBytes+2)
	for {
		// Lines before start are read and dropped; none is held whole,
		// whatever its length: memory stays within the reader's buffer
		// and buf.
		line, size, cut, err := readLine(r, buf, maxLineBytes)
		if size == 0 && err != nil {
			if !errors.Is(err, io.EOF) {
				return fail(call, "%s: %v", a.Path, err)
			}
			break
		}
		n++
		if n%1024 == 0 && ctx.Err() != nil {
			return fail(call, "cancelled: %v", ctx.Err())
		}
		if n < start {
			continue
		}
		if a.EndLine > 0 && n > a.EndLine {
			break
		}
		text := string(line)
		if cut {
			text = strings.ToValidUTF8(text, "") + "… [line cut at " + strconv.Itoa(maxLineBytes) + " bytes of " + strconv.Itoa(size) + "]"
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fail(call, "%s: %v", a.Path, err)
		}
		entry := fmt.Sprintf("%6d\t%s\n", n, text)
		if out.Len()+len(entry) > limit && last > 0 {
			fmt.Fprintf(&out, "[output capped at %d bytes: showed lines %d-%d; call read_file with start_line=%d to read on]\n", limit, start, last, last+1)
			return ok(call, out.String())
		}
		out.WriteString(entry)
		last = n
	}
	if last == 0 {
		if n == 0 {
			return ok(call, fmt.Sprintf("[%s is empty]", a.Path))
		}
		return fail(call, "%s has %d lines; start_line %d is past its end", a.Path, n, start)
	}
	return ok(call, out.String())
}

// readLine reads one line from r and returns its first keep bytes,
// without the line ending, in buf's storage, and its size in bytes
// (line ending included: 0 only at the end of the input); cut reports
// that the line was longer than keep. A longer line
// is read to its end and the rest dropped, so a line of any length costs
// keep bytes, not its size. err is r's error (io.EOF after a last line
// without a new line, with size > 0).
func readLine(r *bufio.Reader, buf []byte, keep int) (line []byte, size int, cut bool, err error) {
	line = buf[:0]
	for {
		frag, e := r.ReadSlice('\n')
		size += len(frag)
		// Two bytes past keep leave room for the "\r\n" trimmed below.
		if room := keep + 2 - len(line); room > 0 {
			line = append(line, frag[:min(room, len(frag))]...)
		}
		if errors.Is(e, bufio.ErrBufferFull) {
			continue
		}
		err = e
		break
	}
	cut = len(line) < size
	if !cut {
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
	}
	if len(line) > keep {
		line, cut = line[:keep], true
	}
	return line, size, cut, err
}

type writeFile struct{ env Env }

func (writeFile) Def() chat.ToolDef {
	return chat.ToolDef{
		Name:        "write_file",
		Description: "Create or overwrite a file with the given content. Parent directories are created. Prefer edit_file to change part of an existing file.",
		Parameters: schema(map[string]any{
			"path":    prop("string", "File path, relative to the project root."),
			"content": prop("string", "The file's whole new content."),
		}, "path", "content"),
	}
}

func (writeFile) Access() Access { return AccessWrite }

func (t writeFile) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Path    *string `json:"path"`
		Content *string `json:"content"`
	}
	if err := decode(call, &a); err != nil {
		return fail(call, "%v", err)
	}
	if a.Path == nil || *a.Path == "" {
		return fail(call, "path is required")
	}
	if a.Content == nil {
		return fail(call, "content is required (an empty string writes an empty file)")
	}
	if err := ctx.Err(); err != nil {
		return fail(call, "cancelled: %v", err)
	}
	p, err := resolve(t.env, *a.Path)
	if err != nil {
		return fail(call, "%v", err)
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return fail(call, "%s is a directory", *a.Path)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fail(call, "create parent directories of %s: %v", *a.Path, err)
	}
	created, err := writeAtomic(p, []byte(*a.Content))
	if err != nil {
		return fail(call, "write %s: %v", *a.Path, err)
	}
	verb := "Wrote"
	if created {
		verb = "Created"
	}
	return ok(call, fmt.Sprintf("%s %s (%d bytes, %d lines)", verb, display(t.env, p), len(*a.Content), countLines(*a.Content)))
}

// writeAtomic writes data to p through a temporary file in p's directory
// and a rename, keeping an existing file's mode (0644 for a new one). It
// reports whether p was created.
func writeAtomic(p string, data []byte) (created bool, err error) {
	mode := fs.FileMode(0o644)
	fi, err := os.Stat(p)
	switch {
	case err == nil:
		mode = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp*")
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return false, err
	}
	if err = tmp.Chmod(mode); err != nil {
		return false, err
	}
	if err = tmp.Sync(); err != nil {
		return false, err
	}
	if err = tmp.Close(); err != nil {
		return false, err
	}
	return created, os.Rename(tmp.Name(), p)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

type editFile struct{ env Env }

func (editFile) Def() chat.ToolDef {
	return chat.ToolDef{
		Name:        "edit_file",
		Description: "Replace an exact string in a file. old_string must match exactly once (include surrounding lines to make it unique) unless replace_all is true.",
		Parameters: schema(map[string]any{
			"path":        prop("string", "File path, relative to the project root."),
			"old_string":  prop("string", "The exact text to replace, whitespace included."),
			"new_string":  prop("string", "The text to put in its place."),
			"replace_all": prop("boolean", "Replace every occurrence. Optional. Defaults to false."),
		}, "path", "old_string", "new_string"),
	}
}

func (editFile) Access() Access { return AccessWrite }

func (t editFile) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Path       string  `json:"path"`
		OldString  string  `json:"old_string"`
		NewString  *string `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
	}
	if err := decode(call, &a); err != nil {
		return fail(call, "%v", err)
	}
	switch {
	case a.Path == "":
		return fail(call, "path is required")
	case a.OldString == "":
		return fail(call, "old_string is required; use write_file to create a file")
	case a.NewString == nil:
		return fail(call, "new_string is required")
	case *a.NewString == a.OldString:
		return fail(call, "new_string is the same as old_string; nothing to change")
	}
	if err := ctx.Err(); err != nil {
		return fail(call, "cancelled: %v", err)
	}
	p, err := resolve(t.env, a.Path)
	if err != nil {
		return fail(call, "%v", err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return fail(call, "%s: %v", a.Path, errors.Unwrap(err))
	}
	if fi.IsDir() {
		return fail(call, "%s is a directory", a.Path)
	}
	if !fi.Mode().IsRegular() {
		return fail(call, "%s is not a regular file", a.Path)
	}
	if fi.Size() > MaxReadBytes {
		return fail(call, "%s is %d bytes, over edit_file's %d-byte limit", a.Path, fi.Size(), MaxReadBytes)
	}
	data, _, err := safefile.ReadFile(p, MaxReadBytes+1, safefile.Options{})
	if err != nil {
		return fail(call, "%s: %v", a.Path, errors.Unwrap(err))
	}
	if len(data) > MaxReadBytes {
		return fail(call, "%s grew past edit_file's %d-byte limit while read", a.Path, MaxReadBytes)
	}
	text := string(data)
	lines := matchLines(text, a.OldString)
	switch {
	case len(lines) == 0:
		return fail(call, "old_string not found in %s; read the file again and copy the text exactly", a.Path)
	case len(lines) > 1 && !a.ReplaceAll:
		return fail(call, "old_string matches %d times in %s, at lines %s; add surrounding lines to make it unique, or set replace_all", len(lines), a.Path, joinInts(lines))
	}
	text = strings.ReplaceAll(text, a.OldString, *a.NewString)
	if _, err := writeAtomic(p, []byte(text)); err != nil {
		return fail(call, "write %s: %v", a.Path, err)
	}
	return ok(call, fmt.Sprintf("Edited %s: replaced %d occurrence(s) at line(s) %s", display(t.env, p), len(lines), joinInts(lines)))
}

// matchLines returns the 1-based line of each non-overlapping occurrence
// of sub in s, as strings.Count and strings.ReplaceAll see them.
func matchLines(s, sub string) []int {
	var lines []int
	line, off := 1, 0
	for {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return lines
		}
		line += strings.Count(s[off:off+i], "\n")
		lines = append(lines, line)
		line += strings.Count(sub, "\n")
		off += i + len(sub)
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
