package compact

import (
	"bytes"
	"cmp"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/safefile"
	"github.com/agentctx/agentctx/tooluse"

	"github.com/agentctx/agentctx/chat"
)

// Defaults of [FileAnalyzer] (seed 001's FileAnalyzer: top 5 files, at
// most 1,000 lines each).
const (
	DefaultMaxFiles       = 5
	DefaultMaxFileLines   = 1000
	DefaultMaxFileBytes   = 256 << 10
	fileSniffBytes        = 8 << 10
	maxTextPathCandidates = 10000
)

// FileAnalyzer finds the files that matter in a stretch of history, for a
// summary (seed 001's FileAnalyzer, done right). Paths come from the
// files tool calls read and write ([tooluse.Classify], as for
// [ExtractFacts]: Claude Code and Codex tools, str_replace_editor,
// SWE-agent open/create/edit and its open file, parsed shell commands)
// and from user and assistant text (absolute and relative
// paths with an extension such as "src/app.go" or "./x.py"; not URLs, not
// version numbers such as "1.2.3"; a name without a slash, such as
// "models.py", only when a tool call touched a file of that name, a path
// in the text ends in it or, with ReadContent, it exists under Root: code
// identifiers such as "os.path.exists" or "models.ForeignKey" are not
// files). Files are ranked modified first, then
// by mentions, then by recency (the last message naming them), then by
// path; the top MaxFiles are returned.
//
// The zero value is ready to use with the defaults and does not read
// files. A FileAnalyzer is plain configuration, safe for concurrent use.
type FileAnalyzer struct {
	// Root is the directory relative paths are read against. Optional.
	// Defaults to the process's working directory.
	Root string
	// MaxFiles is how many files Analyze returns. Optional. Defaults to
	// [DefaultMaxFiles] (5, seed 001).
	MaxFiles int
	// MaxLines is the most lines of content kept per file. Optional.
	// Defaults to [DefaultMaxFileLines] (1,000, seed 001).
	MaxLines int
	// MaxBytes is the largest file, in bytes, whose content is read.
	// Optional. Defaults to [DefaultMaxFileBytes] (256 KiB).
	MaxBytes int64
	// ReadContent makes Analyze read each file's content from disk.
	ReadContent bool
}

// Analyze returns the most important files of msgs, most important first,
// deterministically. With ReadContent, each file's Content is read when
// the file exists, is a regular file, is text (no NUL byte in its first
// 8 KiB, valid UTF-8) and is at most MaxBytes; it is cut to MaxLines lines
// (Truncated is then set). Files under /proc, /sys and /dev are never
// read. Unreadable files are listed without content; Analyze returns no
// error and never panics.
func (a FileAnalyzer) Analyze(msgs []chat.Message) []FileContext {
	return a.analyze(msgs, nil)
}

// analyze is Analyze with the tool calls read by classify (nil:
// [tooluse.Classify]).
func (a FileAnalyzer) analyze(msgs []chat.Message, classify func(chat.ToolCall) tooluse.Use) []FileContext {
	h := scanHistory(msgs, classify)
	// A name without a slash in prose ("models.py", but also
	// "os.path.exists", "models.ForeignKey", "hex.pm") is a file only when
	// the tool calls touched a file of that name, a path in prose ends in
	// it, or it exists in the project (with ReadContent).
	touched := map[string]bool{}
	for _, f := range h.files {
		touched[filepath.Base(f.path)] = true
	}
	type mention struct {
		path string
		at   int
	}
	var mentions []mention
	for i, m := range msgs {
		if m.Role != chat.RoleUser && m.Role != chat.RoleAssistant {
			continue
		}
		t := m.Text()
		if t == "" || (m.Role == chat.RoleUser && isMeta(strings.TrimSpace(t)) && !strings.HasPrefix(strings.TrimSpace(t), SummaryHeader)) {
			continue
		}
		for _, p := range TextPaths(t) {
			mentions = append(mentions, mention{p, i})
			if strings.Contains(p, "/") {
				// A path in prose vouches for its base name too.
				touched[filepath.Base(p)] = true
			}
		}
	}
	for _, m := range mentions {
		if strings.Contains(m.path, "/") || touched[m.path] || a.ReadContent && a.exists(m.path) {
			h.mention(m.path, m.at)
		}
	}
	files := slices.Clone(h.files)
	slices.SortStableFunc(files, func(x, y *fileUse) int {
		if x.modified != y.modified {
			if x.modified {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(y.mentions, x.mentions); c != 0 {
			return c
		}
		if c := cmp.Compare(y.last, x.last); c != 0 {
			return c
		}
		return strings.Compare(x.path, y.path)
	})
	limit := cmp.Or(a.MaxFiles, DefaultMaxFiles)
	if len(files) > limit {
		files = files[:limit]
	}
	out := make([]FileContext, 0, len(files))
	for _, f := range files {
		fc := FileContext{Path: f.path, Modified: f.modified, Mentions: f.mentions, LastMention: f.last}
		if a.ReadContent {
			fc.Content, fc.Truncated = a.read(f.path)
		}
		out = append(out, fc)
	}
	return out
}

// mention counts a text mention of p at message i without classifying it.
func (h *history) mention(p string, at int) {
	f := h.file(p)
	if f == nil {
		return
	}
	f.mentions++
	if at > f.last {
		f.last = at
	}
}

// exists reports whether p is a regular file under Root (or the working
// directory).
func (a FileAnalyzer) exists(p string) bool {
	if !filepath.IsAbs(p) && a.Root != "" {
		p = filepath.Join(a.Root, p)
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// read returns a file's content cut to MaxLines lines, or "" when it must
// not or cannot be read.
func (a FileAnalyzer) read(p string) (string, bool) {
	full := p
	if !filepath.IsAbs(full) {
		full = filepath.Join(a.Root, full)
	}
	full, err := filepath.Abs(full)
	if err != nil || forbidden(full) {
		return "", false
	}
	if resolved, err := filepath.EvalSymlinks(full); err != nil || forbidden(resolved) {
		return "", false
	}
	// Never blocks: a FIFO or device is refused before it is opened.
	f, err := safefile.Open(full, safefile.Options{})
	if err != nil {
		return "", false
	}
	defer f.Close()
	st, err := f.Stat()
	maxBytes := cmp.Or(a.MaxBytes, DefaultMaxFileBytes)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxBytes {
		return "", false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil || int64(len(data)) > maxBytes {
		return "", false
	}
	if bytes.IndexByte(data[:min(len(data), fileSniffBytes)], 0) >= 0 || !utf8.Valid(data) {
		return "", false
	}
	s := string(data)
	maxLines := cmp.Or(a.MaxLines, DefaultMaxFileLines)
	i, n := 0, 0
	for n < maxLines {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s, false
		}
		i += j + 1
		n++
	}
	if i == len(s) {
		return s, false
	}
	return s[:i], true
}

// forbidden reports whether p is under /proc, /sys or /dev.
func forbidden(p string) bool {
	for _, d := range []string{"/proc", "/sys", "/dev"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// textPathRe matches path candidates in prose: optional ~/, ./ or ../,
// slash-separated segments, and a base name with an extension that starts
// with a letter. Boundaries are checked in TextPaths.
var textPathRe = regexp.MustCompile(`(?:~/|\.{1,2}/|/)?(?:[\w@+\-][\w.@+\-]*/)*[\w@+\-][\w@+\-]*(?:\.[\w\-]+)*\.[A-Za-z][A-Za-z0-9]{0,9}`)

// pathByte marks the bytes a match of textPathRe is made of: ASCII
// letters and digits, '_' (\w is ASCII in RE2), '.', '@', '+', '-', '/'
// and '~'.
var pathByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_.@+-/~", byte(c)) >= 0
	}
	return t
}()

// textPathCandidates returns what textPathRe.FindAllStringIndex(text, n)
// does, running the regexp only on the runs of pathByte bytes that hold
// a '.' followed by an ASCII letter: a match is made of those bytes and
// ends with such an extension, the regexp has no anchor or word
// boundary, so a run's matches are the whole text's there, and the runs
// without one (most of a text) need not be read by the regexp.
func textPathCandidates(text string, n int) [][]int {
	var out [][]int
	for i := 0; i < len(text) && len(out) < n; {
		if !pathByte[text[i]] {
			i++
			continue
		}
		j, ext := i, false
		for ; j < len(text) && pathByte[text[j]]; j++ {
			if text[j] == '.' && j+1 < len(text) && ('a' <= text[j+1]|0x20 && text[j+1]|0x20 <= 'z') {
				ext = true
			}
		}
		if ext {
			for _, l := range textPathRe.FindAllStringIndex(text[i:j], n-len(out)) {
				out = append(out, []int{i + l[0], i + l[1]})
			}
		}
		i = j
	}
	return out
}

// bareTLDs are extensions that make a slash-less name a domain, not a
// file ("example.com").
var bareTLDs = map[string]bool{"com": true, "org": true, "net": true, "io": true, "dev": true, "ai": true, "edu": true, "gov": true}

// TextPaths returns the file paths named in prose, in order of first
// appearance, without duplicates: absolute and relative paths whose base
// name has an extension ("src/app.go", "./x.py", "/etc/hosts.conf",
// "README.md"), with a trailing ":line" removed. URLs ("https://…"),
// e-mail addresses, version numbers ("1.2.3", "v2.0") and bare domain
// names ("example.com") are not paths. At most 10,000 candidates are
// examined.
func TextPaths(text string) []string {
	var out []string
	for _, l := range textPathCandidates(text, maxTextPathCandidates) {
		s, e := l[0], l[1]
		p := text[s:e]
		if s > 0 {
			prev, _ := utf8.DecodeLastRuneInString(text[:s])
			if prev == '@' || prev == ':' || prev == '.' || prev == '-' || prev == '=' && strings.HasSuffix(text[:s], "==") {
				continue
			}
			if isWordRune(prev) {
				continue
			}
		}
		// The word the candidate is part of: a URL is not a path.
		ws := strings.LastIndexFunc(text[:s], unicode.IsSpace) + 1
		if strings.Contains(text[ws:min(e, s+2)], "://") {
			continue
		}
		if e < len(text) {
			next, _ := utf8.DecodeRuneInString(text[e:])
			if next == '@' || next == '/' || isWordRune(next) {
				continue
			}
		}
		if !strings.Contains(strings.TrimPrefix(p, "/"), "/") && !strings.HasPrefix(p, "/") {
			ext := p[strings.LastIndexByte(p, '.')+1:]
			base := p[:strings.LastIndexByte(p, '.')]
			if bareTLDs[strings.ToLower(ext)] || len(ext) == 1 && utf8.RuneCountInString(strings.Trim(base, "./~")) < 2 {
				continue
			}
		}
		if isVersion(p) {
			continue
		}
		p = strings.TrimPrefix(p, "./")
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// isVersion reports whether s looks like a version ("v1.2.3", "1.2.3rc1",
// "2.0.x"): every dot-separated segment after an optional "v" starts with
// a digit, except possibly the last.
func isVersion(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	parts := strings.Split(s, ".")
	if len(parts) < 2 || strings.Contains(s, "/") {
		return false
	}
	for _, p := range parts[:len(parts)-1] {
		if p == "" || p[0] < '0' || p[0] > '9' {
			return false
		}
	}
	return true
}
