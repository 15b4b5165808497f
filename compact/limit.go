package compact

import (
	"bytes"
	"fmt"
	"github.com/agentctx/agentctx/tooluse"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
)

// Quota is how much of one tool result may enter the context window (seed
// 003's limitToolResult quota). Chars is in runes (the seed counts
// JavaScript string length); Matches is the number of search matches
// kept. The zero Quota keeps nothing but the note; use [QuotaFor].
type Quota struct {
	Chars, Matches int
}

// Search-match limits of seed 003's limitSearchResult: each kept match is
// cut to matchLines lines and matchChars runes.
const (
	matchLines = 7
	matchChars = 500
)

// QuotaFor returns the quota for a tool result entering a window whose
// usage ratio (tokens used / budget) is ratio, seed 003's tiers: below
// 0.40, 6,000 chars and 15 matches; below 0.60, 3,000 and 8; below 0.80,
// 1,500 and 5; otherwise (a full window, or NaN) 800 and 3.
func QuotaFor(ratio float64) Quota {
	switch {
	case ratio < 0.40:
		return Quota{Chars: 6000, Matches: 15}
	case ratio < 0.60:
		return Quota{Chars: 3000, Matches: 8}
	case ratio < 0.80:
		return Quota{Chars: 1500, Matches: 5}
	}
	return Quota{Chars: 800, Matches: 3}
}

// LimitKind is how [LimitToolResult] reads a tool result. The zero value
// is [LimitText].
type LimitKind int

const (
	// LimitText is anything else: cut on a rune boundary, head and tail.
	LimitText LimitKind = iota
	// LimitSearch is a search result: grep/rg lines ("path:line:text"),
	// Claude Code's Grep and Glob, SWE-agent's search_dir, search_file and
	// find_file. The first matches are kept, each cut.
	LimitSearch
	// LimitFile is a file's content (Read, open, a str_replace_editor
	// view, cat -n output): cut on line boundaries.
	LimitFile
	// LimitJSON is a JSON document: cut inside its structure
	// ([ShrinkJSON]), so it stays valid JSON.
	LimitJSON
)

// String returns "text", "search", "file" or "json".
func (k LimitKind) String() string {
	switch k {
	case LimitSearch:
		return "search"
	case LimitFile:
		return "file"
	case LimitJSON:
		return "json"
	}
	return "text"
}

// LimitInfo describes what [LimitToolResult] did. Chars (runes), Bytes and
// Lines measure the original content; KeptChars the content returned, its
// note included. Matches and KeptMatches count search matches (zero for
// other kinds). Cut reports that the content changed.
type LimitInfo struct {
	Kind                 LimitKind
	Chars, Bytes, Lines  int
	KeptChars            int
	Matches, KeptMatches int
	Cut                  bool
}

// LimitToolResult sizes r for a window at usage ratio ratio: it applies
// [QuotaFor](ratio) with [Quota.Limit]. toolName is the name of the tool
// that produced r (r.ToolName when empty). It is [LimitToolResultWith]
// with zero options.
func LimitToolResult(r chat.ToolResult, toolName string, ratio float64) (chat.ToolResult, LimitInfo) {
	return QuotaFor(ratio).Limit(r, toolName)
}

// LimitOptions are the limiter's options. The zero value gives the notes
// of [Quota.Limit].
type LimitOptions struct {
	// RecallTool is the name of a tool that returns the full output the
	// limiter cut, by the result's call id (the Engine's recall_output:
	// arguments call_id, and start_line/end_line, 1-based and inclusive,
	// or offset/length in bytes). When set, and the result has a
	// ToolCallID, the note of a cut result names the lines (or, within
	// one line or a JSON document, the bytes) left out, the call id and
	// how to call RecallTool for them, in under 200 runes with an id of
	// up to 40. Optional. Defaults to "": the notes do not mention it.
	RecallTool string
}

// LimitToolResultWith is [LimitToolResult] with options: [QuotaFor](ratio)
// applied with [Quota.LimitWith].
func LimitToolResultWith(r chat.ToolResult, toolName string, ratio float64, opts LimitOptions) (chat.ToolResult, LimitInfo) {
	return QuotaFor(ratio).LimitWith(r, toolName, opts)
}

// Limit returns r with its content cut to q, and what it did (seed 003's
// limitToolResult, applied when a tool result enters the window). It is
// [Quota.LimitWith] with zero options. The kind comes from the content
// when it is JSON, else from toolName (r.ToolName when empty) and then
// from the content again ([DetectLimitKind]); an error result that is not
// JSON is text:
//
//   - search: the first q.Matches matches are kept, each cut to 7 lines
//     and 500 runes, and as many of those as fit in q.Chars (at least one,
//     cut on a rune boundary if need be); a note says "showing N of M
//     matches" and how long the full output was;
//   - file: whole lines are kept while they fit in q.Chars (a first line
//     longer than that is cut on a rune boundary), with a note of the
//     file's total size in lines, bytes and runes;
//   - JSON: cut inside the structure ([ShrinkJSON]) to q.Chars bytes, so
//     the result is valid JSON, with a top-level "agentctx_cut" key (an
//     object) or last element (an array) saying how long it was. Deeply
//     nested JSON whose smallest rendering exceeds the quota is returned
//     in that rendering, valid but over the quota;
//   - text (and error results that are not JSON): the first four fifths
//     and the last fifth of q.Chars runes, cut on rune boundaries, with
//     [CutText]'s note of the total length.
//
// Content within q.Chars runes (and, for a search, q.Matches matches) is
// returned unchanged. The note, under 200 runes, comes on top of q.Chars.
// Limit never panics, whatever the content (invalid UTF-8 is kept as
// bytes and cut between runes). It is a pure function: safe for
// concurrent use.
func (q Quota) Limit(r chat.ToolResult, toolName string) (chat.ToolResult, LimitInfo) {
	return q.LimitWith(r, toolName, LimitOptions{})
}

// LimitWith is [Quota.Limit] with options: with opts.RecallTool set, the
// note of a cut result says what was left out and how to read it back
// ([LimitOptions]); the kept content is the same. A pure function: safe
// for concurrent use.
func (q Quota) LimitWith(r chat.ToolResult, toolName string, opts LimitOptions) (chat.ToolResult, LimitInfo) {
	rc := recall{tool: opts.RecallTool, id: r.ToolCallID}
	if rc.id == "" {
		rc.tool = ""
	}
	if toolName == "" {
		toolName = r.ToolName
	}
	s := r.Content
	info := LimitInfo{
		Chars: utf8.RuneCountInString(s),
		Bytes: len(s),
		Lines: lineCount(s),
	}
	switch {
	case isJSON(s):
		// Content first: JSON stays JSON whatever the tool.
		info.Kind = LimitJSON
	case r.IsError:
		info.Kind = LimitText
	default:
		info.Kind = DetectLimitKind(toolName, s)
	}
	chars := max(q.Chars, 0)
	var out string
	switch info.Kind {
	case LimitSearch:
		out = limitSearch(s, chars, max(q.Matches, 0), &info, rc)
	case LimitFile:
		out = limitFile(s, chars, &info, rc)
	case LimitJSON:
		out = limitJSON(s, chars, &info, rc)
	default:
		out = limitText(s, chars, &info, rc)
	}
	info.Cut = out != s
	info.KeptChars = utf8.RuneCountInString(out)
	r.Content = out
	return r, info
}

// DetectLimitKind returns how [Quota.Limit] reads content from tool
// toolName. Valid JSON (an object or array) gives [LimitJSON] whatever the
// tool, so that it is cut into valid JSON. Otherwise the tool's kind
// ([tooluse.KindOfName]) decides: a search or listing tool gives
// [LimitSearch] (Grep, Glob, LS, search_dir, find_file, rg, …), a file
// reader [LimitFile] (Read, open, view, cat, …); str_replace_editor is a
// file reader when its output is numbered lines (its view command). Otherwise the content decides: mostly "path:line:"
// lines or bare paths (find), [LimitSearch]; mostly numbered lines
// ("  12\t…", "  12→…", cat -n), [LimitFile]; anything else [LimitText].
// It looks at most at the first 200 lines. Safe for concurrent use.
func DetectLimitKind(toolName, content string) LimitKind {
	if isJSON(content) {
		return LimitJSON
	}
	switch tooluse.KindOfName(toolName) {
	case tooluse.KindSearch, tooluse.KindList:
		return LimitSearch
	case tooluse.KindRead:
		return LimitFile
	}
	var n, grep, numbered, paths int
	for line := range strings.SplitSeq(content, "\n") {
		if n >= 200 {
			break
		}
		if strings.TrimSpace(line) == "" || line == "--" {
			continue
		}
		n++
		if isGrepLine(line) {
			grep++
		}
		if isNumberedLine(line) {
			numbered++
		}
		if isPathLine(line) {
			paths++
		}
	}
	switch {
	case n >= 2 && grep*10 >= n*7:
		return LimitSearch
	case n >= 2 && numbered*10 >= n*7:
		return LimitFile
	case n >= 2 && paths*10 >= n*7:
		return LimitSearch
	}
	return LimitText
}

// isGrepLine reports whether line is a grep -n / rg match line,
// "path:line:text", with a path of no blanks before the first colon.
func isGrepLine(line string) bool {
	i := strings.IndexByte(line, ':')
	if i <= 0 || strings.ContainsAny(line[:i], " \t") {
		return false
	}
	rest := line[i+1:]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	return j > 0 && j < len(rest) && rest[j] == ':'
}

// isPathLine reports whether line is a bare file path (find, Glob,
// git ls-files output): no blanks, a slash, not markup.
func isPathLine(line string) bool {
	line = strings.TrimRight(line, "\r")
	return len(line) < 1024 && strings.IndexByte(line, '/') >= 0 && !strings.ContainsAny(line, " \t<>")
}

// isMatchStart reports whether line starts a new match in grep output:
// a match line, or a context line "path-line-text" of grep -C.
func isMatchStart(line string) bool {
	return isGrepLine(line)
}

// isNumberedLine reports whether line is a numbered file line: blanks,
// digits, then a tab, "→" or ":" (cat -n, Claude Code's Read, SWE-agent's
// open).
func isNumberedLine(line string) bool {
	t := strings.TrimLeft(line, " ")
	j := 0
	for j < len(t) && t[j] >= '0' && t[j] <= '9' {
		j++
	}
	if j == 0 {
		return false
	}
	if j == len(t) {
		return true // a numbered empty line
	}
	rest := t[j:]
	return rest[0] == '\t' || rest[0] == ':' || strings.HasPrefix(rest, "→")
}

// lineCount returns the number of lines of s: its newlines, plus one for
// a last line without one; 0 for "".
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// splitMatches splits search output into matches: on "--" separator
// lines (grep -C) when there are any, else at each "path:line:" line
// (the lines after it, context, belong to it) when there are any, else
// one match per non-empty line (file lists of Glob and find_file).
func splitMatches(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	sep, grep := false, false
	for _, l := range lines {
		if l == "--" {
			sep = true
		}
		if isMatchStart(l) {
			grep = true
		}
	}
	for _, l := range lines {
		switch {
		case sep:
			if l == "--" {
				flush()
				continue
			}
		case grep:
			if isMatchStart(l) {
				flush()
			}
		default:
			if strings.TrimSpace(l) == "" {
				continue
			}
			flush()
		}
		cur = append(cur, l)
	}
	flush()
	return out
}

// cutMatch cuts one match to matchLines lines and matchChars runes.
func cutMatch(m string) string {
	cut := false
	if lineCount(m) > matchLines {
		i := 0
		for range matchLines {
			i += strings.IndexByte(m[i:], '\n') + 1
		}
		m, cut = m[:i-1], true
	}
	if utf8.RuneCountInString(m) > matchChars {
		m, cut = m[:byteOffset(m, matchChars)], true
	}
	if cut {
		m += " …[match cut]"
	}
	return m
}

// recall is how a cut result can be read back: the tool's name and the
// result's call id. The zero value writes the notes without it.
type recall struct{ tool, id string }

// lines returns the note's ending for lines first-last (1-based,
// inclusive) of total left out of a result of n runes.
func (rc recall) lines(what string, first, last, total, n int) string {
	return fmt.Sprintf("…[agentctx: %s: lines %d-%d of %d omitted (%d chars in all); call %s with call_id=%q and start_line/end_line for them]",
		what, first, last, total, n, rc.tool, rc.id)
}

// bytes returns the note's ending for the bytes [from, to) of a result of
// total bytes left out.
func (rc recall) bytes(what string, from, to, total int) string {
	return fmt.Sprintf("…[agentctx: %s: bytes %d-%d of %d omitted; call %s with call_id=%q and offset=%d, length=%d to read them]",
		what, from, to-1, total, rc.tool, rc.id, from, to-from)
}

// omitted returns the note for the bytes [from, to) of s left out: by
// lines when they span more than one, else by bytes.
func (rc recall) omitted(what, s string, from, to int, info *LimitInfo) string {
	// A line break at either edge belongs to a line shown in full.
	if from < to && s[from] == '\n' {
		from++
	}
	first := 1 + strings.Count(s[:from], "\n")
	last := 1 + strings.Count(s[:max(to-1, from)], "\n")
	if to > from && s[to-1] == '\n' {
		last = strings.Count(s[:to], "\n")
	}
	if last <= first {
		return rc.bytes(what, from, to, len(s))
	}
	return rc.lines(what, first, last, info.Lines, info.Chars)
}

func limitSearch(s string, chars, maxMatches int, info *LimitInfo, rc recall) string {
	ms := splitMatches(s)
	info.Matches = len(ms)
	if len(ms) <= maxMatches && info.Chars <= chars {
		info.KeptMatches = len(ms)
		return s
	}
	var b strings.Builder
	used, kept, cutAny := 0, 0, false
	for _, m := range ms[:min(len(ms), maxMatches)] {
		c := cutMatch(m)
		n := utf8.RuneCountInString(c) + 1
		if used+n > chars {
			if kept == 0 && chars > 0 {
				b.WriteString(Head(c, chars))
				b.WriteByte('\n')
				kept++
				cutAny = true
			}
			break
		}
		cutAny = cutAny || c != m
		b.WriteString(c)
		b.WriteByte('\n')
		used += n
		kept++
	}
	info.KeptMatches = kept
	if rc.tool == "" {
		fmt.Fprintf(&b, "…[agentctx: showing %d of %d matches; the full output was %d chars, %d lines]", kept, len(ms), info.Chars, info.Lines)
		return b.String()
	}
	// The omitted matches run from the first one not kept to the end.
	at := 0
	for _, m := range ms[:kept] {
		if i := strings.Index(s[at:], m); i >= 0 {
			at += i + len(m)
		}
	}
	what := fmt.Sprintf("%d of %d matches shown", kept, len(ms))
	if cutAny {
		what += ", cut"
	}
	// A separator line after the last match shown is not worth asking for.
	for _, sep := range []string{"\n", "--\n"} {
		if strings.HasPrefix(s[at:], sep) {
			at += len(sep)
		}
	}
	if at >= len(strings.TrimRight(s, "\n")) {
		// Every match is shown, cut: the lines of the cut ones are missing.
		return b.String() + fmt.Sprintf("…[agentctx: %s; the full output has %d lines; call %s with call_id=%q and start_line/end_line to read them]",
			what, info.Lines, rc.tool, rc.id)
	}
	b.WriteString(rc.omitted(what, s, at, len(s), info))
	return b.String()
}

func limitFile(s string, chars int, info *LimitInfo, rc recall) string {
	if info.Chars <= chars {
		return s
	}
	used, end, shown := 0, 0, 0
	for end < len(s) {
		nl := strings.IndexByte(s[end:], '\n')
		next := len(s)
		if nl >= 0 {
			next = end + nl + 1
		}
		n := utf8.RuneCountInString(s[end:next])
		if used+n > chars {
			break
		}
		used += n
		end = next
		shown++
	}
	var b strings.Builder
	if shown == 0 {
		head := Head(s, chars)
		b.WriteString(head)
		if rc.tool != "" {
			b.WriteString("\n" + rc.omitted("file cut inside line 1", s, len(head), len(s), info))
			return b.String()
		}
		b.WriteString("\n…[agentctx: file cut inside line 1")
	} else {
		b.WriteString(s[:end])
		if !strings.HasSuffix(s[:end], "\n") {
			b.WriteByte('\n')
		}
		if rc.tool != "" {
			b.WriteString(rc.lines("file cut", shown+1, info.Lines, info.Lines, info.Chars))
			return b.String()
		}
		fmt.Fprintf(&b, "…[agentctx: file cut: showing lines 1-%d", shown)
	}
	fmt.Fprintf(&b, " of %d lines; the full content was %d bytes, %d chars; read the rest with an offset]", info.Lines, info.Bytes, info.Chars)
	return b.String()
}

func limitJSON(s string, chars int, info *LimitInfo, rc recall) string {
	if len(s) <= chars {
		return s
	}
	raw := bytes.TrimSpace([]byte(s))
	note := fmt.Sprintf("cut to fit the context window; the full result was %d chars, %d bytes", info.Chars, info.Bytes)
	switch {
	case rc.tool != "" && info.Lines > 1:
		note = fmt.Sprintf("parts cut throughout; the full result is %d bytes, %d lines: call %s with call_id=%q and start_line/end_line or offset/length to read it",
			info.Bytes, info.Lines, rc.tool, rc.id)
	case rc.tool != "":
		note = fmt.Sprintf("parts cut throughout; the full result is %d bytes on one line: call %s with call_id=%q and offset/length to read it",
			info.Bytes, rc.tool, rc.id)
	}
	out, _ := shrinkJSON(raw, chars, note)
	if out == nil { // not JSON after all
		info.Kind = LimitText
		return limitText(s, chars, info, rc)
	}
	return string(out)
}

func limitText(s string, chars int, info *LimitInfo, rc recall) string {
	if info.Chars <= chars {
		return s
	}
	const why = "tool result cut to fit the context window"
	if rc.tool == "" {
		return CutText(s, chars, chars/5, why)
	}
	head, tail := cutSpans(s, chars, chars/5)
	var b strings.Builder
	b.WriteString(s[:head])
	b.WriteString("\n")
	b.WriteString(rc.omitted("output cut", s, head, tail, info))
	if tail < len(s) {
		b.WriteString("\n")
		b.WriteString(s[tail:])
	}
	return b.String()
}
