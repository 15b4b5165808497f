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
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/safefile"
)

// MaxSearchMatches caps the matching lines search returns.
const MaxSearchMatches = 200

// maxMatchBytes caps one matching line of search, in bytes.
const maxMatchBytes = 300

// MaxListEntries caps the entries list_files returns.
const MaxListEntries = 1000

type search struct {
	env  Env
	noRg bool // search with the Go walk even when rg is on PATH (tests)
}

func (search) Def() chat.ToolDef {
	return chat.ToolDef{
		Name:        "search",
		Description: "Search file contents with a regular expression (ripgrep syntax), honouring .gitignore. Results are path:line:text.",
		Parameters: schema(map[string]any{
			"query": prop("string", "Regular expression to search for."),
			"path":  prop("string", "File or directory to search, relative to the project root. Optional. Defaults to the whole project."),
			"glob":  prop("string", "Only search files whose name matches this glob, e.g. \"*.go\". Optional."),
		}, "query"),
	}
}

func (search) Access() Access { return AccessRead }

func (t search) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Query string `json:"query"`
		Path  string `json:"path"`
		Glob  string `json:"glob"`
	}
	if err := decode(call, &a); err != nil {
		return fail(call, "%v", err)
	}
	if a.Query == "" {
		return fail(call, "query is required")
	}
	re, err := regexp.Compile(a.Query)
	if err != nil {
		return fail(call, "query is not a valid regular expression: %v", err)
	}
	if a.Glob != "" {
		if _, err := path.Match(a.Glob, ""); err != nil {
			return fail(call, "bad glob %q: %v", a.Glob, err)
		}
	}
	if a.Path == "" {
		a.Path = "."
	}
	p, err := resolve(t.env, a.Path)
	if err != nil {
		return fail(call, "%v", err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return fail(call, "%s: %v", a.Path, errors.Unwrap(err))
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return fail(call, "%s is not a regular file", a.Path)
	}
	var lines []string
	if rg, err := exec.LookPath("rg"); err == nil && !t.noRg {
		lines, err = t.ripgrep(ctx, rg, a.Query, p, a.Glob)
		if errors.Is(err, errRgTimeout) {
			// rg waits on a FIFO among the ignore files it reads; the Go
			// walk opens regular files only.
			lines, err = t.walk(ctx, re, p, a.Glob)
		}
		if err != nil {
			return fail(call, "%v", err)
		}
	} else {
		lines, err = t.walk(ctx, re, p, a.Glob)
		if err != nil {
			return fail(call, "%v", err)
		}
	}
	if len(lines) == 0 {
		return ok(call, fmt.Sprintf("No matches for %q in %s.", a.Query, a.Path))
	}
	return ok(call, capLines(lines, MaxSearchMatches, t.env.outputBytes(), "matches", "narrow the query, path or glob"))
}

// errRgTimeout reports that rg ran past the command timeout.
var errRgTimeout = errors.New("rg timed out")

// ripgrep runs rg in Root; its paths come out relative to Root. rg is
// stopped after the command timeout (Env.CommandTimeout), with
// errRgTimeout: it opens every .gitignore it meets, and one that is a
// FIFO blocks it.
func (t search) ripgrep(ctx context.Context, rg, query, p, glob string) ([]string, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, t.env.commandTimeout())
	defer cancel()
	// --hidden and --no-require-git search what the Go walk searches:
	// dotfiles, and .gitignore honoured outside a git repository too.
	args := []string{"--line-number", "--with-filename", "--no-heading", "--color", "never",
		"--max-columns", fmt.Sprint(maxMatchBytes), "--max-columns-preview",
		"--hidden", "--no-require-git", "--glob", "!.git"}
	if glob != "" {
		args = append(args, "--glob", glob)
	}
	args = append(args, "--regexp", query)
	// Without a path rg searches its directory and prints "a.go", not "./a.go".
	if target := display(t.env, p); target != "." {
		args = append(args, "--", target)
	}
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = t.env.Root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 500 * time.Millisecond
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("rg: %w", err)
	}
	// Read no more than the cap, then stop rg.
	var lines []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > MaxSearchMatches {
			_ = cmd.Process.Kill()
			break
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	if len(lines) > MaxSearchMatches {
		return lines, nil
	}
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("cancelled: %w", err)
	}
	if ctx.Err() != nil {
		return nil, errRgTimeout
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() == 1 {
		return nil, nil // no matches
	}
	if err != nil && len(lines) == 0 {
		return nil, fmt.Errorf("rg: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return lines, nil
}

// walk is search without ripgrep: a Go walk honouring .gitignore that
// skips binary files.
func (t search) walk(ctx context.Context, re *regexp.Regexp, p, glob string) ([]string, error) {
	var lines []string
	grep := func(abs string) error {
		if isBinary(abs) {
			return nil
		}
		f, err := safefile.Open(abs, safefile.Options{})
		if err != nil {
			return nil
		}
		defer f.Close()
		name := display(t.env, abs)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for n := 1; sc.Scan(); n++ {
			if re.Match(sc.Bytes()) {
				text := sc.Text()
				if len(text) > maxMatchBytes {
					text = text[:maxMatchBytes] + "…"
				}
				lines = append(lines, fmt.Sprintf("%s:%d:%s", name, n, text))
				if len(lines) > MaxSearchMatches {
					return errStop
				}
			}
		}
		return nil
	}
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", display(t.env, p))
		}
		return lines, ignoreStop(grep(p))
	}
	base := evalOr(t.env.Root)
	if !within(base, p) {
		base = p
	}
	err := walker{base: base}.walk(ctx, p, 0, func(rel string, d fs.DirEntry, _ int) error {
		abs := filepath.Join(p, filepath.FromSlash(rel))
		// ripgrep matches a glob with '/' against the path from its
		// working directory, Root.
		if !d.Type().IsRegular() || !globMatch(glob, display(t.env, abs)) {
			return nil
		}
		return grep(abs)
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cancelled: %w", err)
	}
	return lines, ignoreStop(err)
}

func ignoreStop(err error) error {
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// globMatch matches a glob the way ripgrep's --glob does for the common
// cases: a glob without '/' matches the base name, one with '/' the path
// from Root, where a leading "**/" stands for any directories; a leading
// '!' negates.
func globMatch(glob, rel string) bool {
	if glob == "" {
		return true
	}
	neg := strings.HasPrefix(glob, "!")
	glob = strings.TrimPrefix(glob, "!")
	var m bool
	if strings.Contains(glob, "/") {
		glob = strings.TrimPrefix(glob, "/")
		m, _ = path.Match(glob, rel)
		if rest, ok := strings.CutPrefix(glob, "**/"); ok && !m {
			// "**/" matches any number of leading directories.
			parts := strings.Split(rel, "/")
			for i := range parts {
				if m, _ = path.Match(rest, strings.Join(parts[i:], "/")); m {
					break
				}
			}
		}
	} else {
		m, _ = path.Match(glob, path.Base(rel))
	}
	return m != neg
}

// capLines joins lines, keeping at most maxLines of them and maxBytes
// bytes, and says what was left out.
func capLines(lines []string, maxLines, maxBytes int, what, hint string) string {
	var b strings.Builder
	shown := 0
	for _, l := range lines {
		if shown == maxLines || b.Len()+len(l)+1 > maxBytes {
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
		shown++
	}
	if shown < len(lines) {
		fmt.Fprintf(&b, "[showing the first %d %s; more were left out: %s]\n", shown, what, hint)
	}
	return b.String()
}

type listFiles struct{ env Env }

func (listFiles) Def() chat.ToolDef {
	return chat.ToolDef{
		Name:        "list_files",
		Description: "List a directory of the project as a tree, honouring .gitignore. Directories end with '/', symlinks with '@'.",
		Parameters: schema(map[string]any{
			"path":  prop("string", "Directory, relative to the project root. Optional. Defaults to the root."),
			"depth": prop("integer", "Levels to descend (1: the directory's own entries). Optional. Defaults to 3."),
		}),
	}
}

func (listFiles) Access() Access { return AccessRead }

func (t listFiles) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Path  string `json:"path"`
		Depth int    `json:"depth"`
	}
	if err := decode(call, &a); err != nil {
		return fail(call, "%v", err)
	}
	if a.Path == "" {
		a.Path = "."
	}
	if a.Depth < 0 {
		return fail(call, "depth must be positive")
	}
	if a.Depth == 0 {
		a.Depth = 3
	}
	p, err := resolve(t.env, a.Path)
	if err != nil {
		return fail(call, "%v", err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return fail(call, "%s: %v", a.Path, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return fail(call, "%s is a file, not a directory; use read_file", a.Path)
	}
	base := evalOr(t.env.Root)
	if !within(base, p) {
		base = p
	}
	var lines []string
	err = walker{base: base}.walk(ctx, p, a.Depth, func(rel string, d fs.DirEntry, depth int) error {
		name := d.Name()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			name += "@"
		case d.IsDir():
			name += "/"
		}
		lines = append(lines, strings.Repeat("  ", depth-1)+name)
		if len(lines) > MaxListEntries {
			return errStop
		}
		return nil
	})
	if err != nil {
		return fail(call, "list %s: %v", a.Path, err)
	}
	head := display(t.env, p) + "/"
	if len(lines) == 0 {
		return ok(call, head+" is empty (or all ignored)")
	}
	return ok(call, head+"\n"+capLines(lines, MaxListEntries, t.env.outputBytes(), "entries", "list a subdirectory or lower depth"))
}
