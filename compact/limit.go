package compact

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/runes"
	"github.com/agentctx/agentctx/tooluse"
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

// DefaultMaxResultTokens is the most tokens one tool result may take in
// the window when the window has room for more than [QuotaFor] gives
// ([RoomQuota]): Claude Code's cap on what one Read returns (25,000
// tokens; its 2,000-line cap is lower for most files).
const DefaultMaxResultTokens = 25000

// RoomQuota returns the quota of a tool result of tokens tokens and runes
// runes that may take room tokens of the window: [QuotaFor](ratio), the
// seed's per-result cap, grown to the runes room holds at the result's
// own runes per token (less a twentieth, for the note and the cut's
// rounding), with its matches grown in proportion. The seed's quota is a
// floor: RoomQuota never gives less, and gives it unchanged when room is
// not larger (or tokens or runes is not positive). Content within the
// returned Chars may still count more than room tokens where its runes
// per token vary: the caller counts the cut and, if need be, asks again
// with less room. A pure function: safe for concurrent use.
func RoomQuota(ratio float64, room, tokens, runes int) Quota {
	q := QuotaFor(ratio)
	if tokens <= 0 || runes <= 0 || room <= 0 {
		return q
	}
	chars := int(float64(runes) / float64(tokens) * float64(room) * 0.95)
	if chars <= q.Chars {
		return q
	}
	return Quota{Chars: chars, Matches: max(q.Matches, int(float64(q.Matches)*float64(chars)/float64(q.Chars)))}
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
	// LimitLog is a log: most lines begin with a timestamp
	// ("2026-11-27T10:15:03Z INFO …", "2026-11-27 10:15:03,123 ERROR …",
	// "10:15:03 …"). It is cut on line boundaries keeping its first lines
	// and, with twice their room, its last ones: a build or a run ends
	// with its errors.
	LimitLog
)

// String returns "text", "search", "file", "json" or "log".
func (k LimitKind) String() string {
	switch k {
	case LimitLog:
		return "log"
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
	// up to 40 and a name as long as recall_output (a longer name, such
	// as an MCP tool's mcp__agentctx__recall_output, adds its extra
	// runes). Optional. Defaults to "": the notes do not mention it.
	RecallTool string
	// Call is the tool call the result answers, when known. Its reading
	// ([tooluse.Classify]) chooses what the note of a cut says about the
	// rest: a file read (Read, read_file, a str_replace_editor view, …
	// with a path) is told to read the rest with an offset; a command's
	// output (Bash, shell, exec_command, …), to recall it (RecallTool) or
	// to run the command again with a filter (| tail -n 200, | grep
	// PATTERN); other tools' output gets only the sizes. The kept content
	// does not depend on it. Optional. Defaults to the zero call: the
	// tool's name decides ([tooluse.KindOfName]).
	Call chat.ToolCall
	// Classify reads Call. Optional. Defaults to [tooluse.Classify]; the
	// Engine passes its [tooluse.Recent], so that the call is read once
	// for the limiter, the tracker and the working memory.
	Classify func(chat.ToolCall) tooluse.Use
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
// JSON is a log when its lines begin with timestamps, else text.
//
// Content within q.Chars runes is returned unchanged, whatever its kind
// and however many search matches it holds. Longer content is cut:
//
//   - search: the first q.Matches matches are kept, each cut to 7 lines
//     and 500 runes, and as many of those as fit in q.Chars (at least one,
//     cut on a rune boundary if need be); a note says "showing N of M
//     matches" and how long the full output was;
//   - file: whole lines are kept while they fit in q.Chars (a first line
//     longer than that is cut on a rune boundary), with a note of the
//     file's total size in lines, bytes and runes;
//   - log: whole first lines in a third of q.Chars and whole last lines
//     in the rest (a last line longer than that keeps its end), with a
//     note of the lines left out;
//   - JSON: cut inside the structure ([ShrinkJSON]) to q.Chars bytes, so
//     the result is valid JSON, with a top-level "agentctx_cut" key (an
//     object) or last element (an array) saying how long it was. Deeply
//     nested JSON whose smallest rendering exceeds the quota is returned
//     in that rendering, valid but over the quota;
//   - text (and error results that are not JSON): the first four fifths
//     and the last fifth of q.Chars runes, cut on rune boundaries, with
//     [CutText]'s note of the total length.
//
// The note, under 200 runes, comes on top of q.Chars; what it says about
// the rest depends on the tool ([LimitOptions].Call): read it with an
// offset (a file read), run the command again with a filter (a
// command's output), or recall it ([LimitOptions].RecallTool).
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
	if toolName == "" {
		toolName = r.ToolName
	}
	rc := recall{tool: opts.RecallTool, id: r.ToolCallID}
	if rc.id == "" {
		rc.tool = ""
	}
	s := r.Content
	info := LimitInfo{
		Chars: runes.Count(s),
		Bytes: len(s),
		Lines: lineCount(s),
	}
	switch {
	case isJSON(s):
		// Content first: JSON stays JSON whatever the tool.
		info.Kind = LimitJSON
	case r.IsError && isLog(s):
		// A failed build or run: its last lines say why.
		info.Kind = LimitLog
	case r.IsError:
		info.Kind = LimitText
	default:
		info.Kind = DetectLimitKind(toolName, s)
	}
	chars := max(q.Chars, 0)
	if info.Chars <= chars {
		// Under its limit, a result passes unchanged whatever its kind:
		// a 130-char listing is not cut to its first matches.
		if info.Kind == LimitSearch {
			info.Matches = len(splitMatches(s))
			info.KeptMatches = info.Matches
		}
		info.KeptChars = info.Chars
		return r, info
	}
	rc.src = sourceOf(toolName, opts.Call, opts.Classify, info.Kind)
	var out string
	switch info.Kind {
	case LimitLog:
		out = limitLog(s, chars, &info, rc)
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
	info.KeptChars = runes.Count(out)
	r.Content = out
	return r, info
}

// DetectLimitKind returns how [Quota.Limit] reads content from tool
// toolName. Valid JSON (an object or array) gives [LimitJSON] whatever the
// tool, so that it is cut into valid JSON. Otherwise the tool's kind
// ([tooluse.KindOfName]) decides: a search or listing tool gives
// [LimitSearch] (Grep, Glob, LS, search_dir, find_file, rg, …), a file
// reader [LimitFile] (Read, open, view, cat, …); str_replace_editor is a
// file reader when its output is numbered lines (its view command).
// Otherwise the content decides: at least half of its lines beginning
// with a timestamp, [LimitLog]; mostly "path:line:" lines or bare paths
// (find), [LimitSearch]; mostly numbered lines ("  12\t…", "  12→…",
// cat -n), [LimitFile]; anything else [LimitText]. It looks at most at
// the first 200 lines. Safe for concurrent use.
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
	var n, grep, numbered, paths, logs int
	for line := range strings.SplitSeq(content, "\n") {
		if n >= 200 {
			break
		}
		if strings.TrimSpace(line) == "" || line == "--" {
			continue
		}
		n++
		if isLogLine(line) {
			// A timestamp's colons are not a grep match's.
			logs++
			continue
		}
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
	case n >= 2 && logs*2 >= n:
		return LimitLog
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
// "path:line:text", whose path is path-like ([isPathLike]): a line that
// begins with a timestamp ("2026-11-27T10:15:03Z …", "10:15:03 …") is
// not one.
func isGrepLine(line string) bool {
	i := strings.IndexByte(line, ':')
	if i <= 0 || !isPathLike(line[:i]) || isLogLine(line) {
		return false
	}
	rest := line[i+1:]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	return j > 0 && j < len(rest) && rest[j] == ':'
}

// isPathLike reports whether p can be the file path grep prints before a
// match: no blanks, and a letter, '.', '/', '_' or '~' in it (a number,
// such as the hour of a time of day, is not a path).
func isPathLike(p string) bool {
	if p == "" || strings.ContainsAny(p, " \t") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '/' || c == '_' || c == '~' || c >= 0x80 {
			return true
		}
	}
	return false
}

// isLogLine reports whether line begins with a timestamp, optionally
// after "[" or "(" and blanks: an ISO 8601 date ("2026-11-27", also with
// '/' or '.' between its parts) followed by 'T', '_' or a blank and a
// time of day, or a time of day alone ("10:15:03", "10:15:03.123").
func isLogLine(line string) bool {
	i := 0 // strings.TrimLeft(line, " \t[("), without building its set per line
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '[' || line[i] == '(') {
		i++
	}
	t := line[i:]
	if isDigits(t, 4) && len(t) >= 10 && (t[4] == '-' || t[4] == '/' || t[4] == '.') &&
		t[7] == t[4] && isDigits(t[5:], 2) && isDigits(t[8:], 2) {
		if len(t) == 10 {
			return true
		}
		if t[10] != 'T' && t[10] != ' ' && t[10] != '_' {
			return false
		}
		t = t[11:]
	}
	return isTimeOfDay(t)
}

// isTimeOfDay reports whether s begins with "HH:MM" (one or two digits
// for the hour) followed by ":SS", or by something else than a digit or
// ':' (so that "12:34:" of a grep match of file "12" is not one).
func isTimeOfDay(s string) bool {
	h := 0
	for h < len(s) && h < 2 && s[h] >= '0' && s[h] <= '9' {
		h++
	}
	if h == 0 || len(s) < h+3 || s[h] != ':' || !isDigits(s[h+1:], 2) {
		return false
	}
	rest := s[h+3:]
	if rest == "" {
		return true
	}
	if rest[0] == ':' {
		return isDigits(rest[1:], 2)
	}
	return rest[0] < '0' || rest[0] > '9'
}

// isDigits reports whether s begins with n ASCII digits.
func isDigits(s string, n int) bool {
	if len(s) < n {
		return false
	}
	for i := range n {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isLog reports whether content is a log for [DetectLimitKind]: at least
// half of its first 200 non-empty lines, and at least two, begin with a
// timestamp.
func isLog(content string) bool {
	n, logs := 0, 0
	for line := range strings.SplitSeq(content, "\n") {
		if n >= 200 {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		n++
		if isLogLine(line) {
			logs++
		}
	}
	return n >= 2 && logs*2 >= n
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
	if rest[0] == ':' && isTimeOfDay(t) {
		return false // "10:15:03 …": a time, not line 10
	}
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
	if runes.Count(m) > matchChars {
		m, cut = m[:byteOffset(m, matchChars)], true
	}
	if cut {
		m += " …[match cut]"
	}
	return m
}

// source is what produced a tool result, as far as the note of a cut
// cares: how the rest can be read.
type source int

const (
	// srcOther is any other tool: its output cannot be asked for in
	// parts, the note gives the sizes only.
	srcOther source = iota
	// srcRead is a file read with a path (Read, read_file, view, a
	// str_replace_editor view): the rest is read with an offset.
	srcRead
	// srcShell is a command's output (Bash, shell, exec_command, …): the
	// command can run again with a filter.
	srcShell
)

// sourceOf returns what produced a result of tool toolName answering
// call (the zero call when unknown: the name decides, and an editor's
// numbered output, the only kind it cuts as a file, is its view).
func sourceOf(toolName string, call chat.ToolCall, classify func(chat.ToolCall) tooluse.Use, kind LimitKind) source {
	if call.Name != "" || len(call.Arguments) > 0 {
		if classify == nil {
			classify = tooluse.Classify
		}
		u := classify(call)
		switch {
		case u.Kind == tooluse.KindRead && len(u.Reads) > 0:
			return srcRead
		case u.Kind == tooluse.KindShell:
			return srcShell
		}
		return srcOther
	}
	switch tooluse.KindOfName(toolName) {
	case tooluse.KindRead:
		return srcRead
	case tooluse.KindEdit:
		if kind == LimitFile {
			return srcRead
		}
	case tooluse.KindShell:
		return srcShell
	}
	return srcOther
}

// recall is how a cut result can be read back: the tool's name and the
// result's call id, and what produced it. With tool "", the notes say
// how to read the rest without it (src), or give the sizes only.
type recall struct {
	tool, id string
	src      source
}

// rerun reports whether the notes tell the model to run the command
// again with a filter: a command's output, and no recall tool.
func (rc recall) rerun() bool { return rc.tool == "" && rc.src == srcShell }

// lines returns the note's ending for lines first-last (1-based,
// inclusive) of total left out of a result of n runes.
func (rc recall) lines(what string, first, last, total, n int) string {
	if rc.rerun() {
		return fmt.Sprintf("…[agentctx: %s: lines %d-%d of %d omitted (%d chars in all); run the command again with a filter for them: | sed -n '%d,%dp', | tail -n 200 or | grep PATTERN]",
			what, first, last, total, n, first, min(last, first+199))
	}
	if rc.tool == "" {
		return fmt.Sprintf("…[agentctx: %s: lines %d-%d of %d omitted (%d chars in all)]", what, first, last, total, n)
	}
	return fmt.Sprintf("…[agentctx: %s: lines %d-%d of %d omitted (%d chars in all); call %s with call_id=%q and start_line/end_line for them]",
		what, first, last, total, n, rc.tool, rc.id)
}

// bytes returns the note's ending for the bytes [from, to) of a result of
// total bytes left out.
func (rc recall) bytes(what string, from, to, total int) string {
	if rc.rerun() {
		return fmt.Sprintf("…[agentctx: %s: bytes %d-%d of %d omitted; run the command again with a filter for them: | cut -c, | tail -c or | grep PATTERN]",
			what, from, to-1, total)
	}
	if rc.tool == "" {
		return fmt.Sprintf("…[agentctx: %s: bytes %d-%d of %d omitted]", what, from, to-1, total)
	}
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
		n := runes.Count(c) + 1
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
		fmt.Fprintf(&b, "…[agentctx: showing %d of %d matches; the full output was %d chars, %d lines; narrow the pattern or the path for the rest]", kept, len(ms), info.Chars, info.Lines)
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
		n := runes.Count(s[end:next])
		if used+n > chars {
			break
		}
		used += n
		end = next
		shown++
	}
	// "file cut" and an offset for a file read; a command's or another
	// tool's numbered output is output.
	what := "output cut"
	if rc.src == srcRead {
		what = "file cut"
	}
	var b strings.Builder
	if shown == 0 {
		head := Head(s, chars)
		b.WriteString(head)
		if rc.tool != "" || rc.src != srcRead {
			b.WriteString("\n" + rc.omitted(what+" inside line 1", s, len(head), len(s), info))
			return b.String()
		}
		b.WriteString("\n…[agentctx: file cut inside line 1")
	} else {
		b.WriteString(s[:end])
		if !strings.HasSuffix(s[:end], "\n") {
			b.WriteByte('\n')
		}
		if rc.tool != "" || rc.src != srcRead {
			b.WriteString(rc.lines(what, shown+1, info.Lines, info.Lines, info.Chars))
			return b.String()
		}
		fmt.Fprintf(&b, "…[agentctx: file cut: showing lines 1-%d", shown)
	}
	fmt.Fprintf(&b, " of %d lines; the full content was %d bytes, %d chars; read the rest with an offset", info.Lines, info.Bytes, info.Chars)
	if shown > 0 {
		fmt.Fprintf(&b, ", from line %d", shown+1)
	}
	b.WriteString("]")
	return b.String()
}

// limitLog keeps the whole first lines of s that fit in a third of chars
// and the whole last lines that fit in the rest (or, when the last line
// alone does not, its end), with a note of the lines between.
func limitLog(s string, chars int, info *LimitInfo, rc recall) string {
	used, head := 0, 0
	for head < len(s) {
		next := len(s)
		if nl := strings.IndexByte(s[head:], '\n'); nl >= 0 {
			next = head + nl + 1
		}
		n := runes.Count(s[head:next])
		if used+n > chars/3 {
			break
		}
		used += n
		head = next
	}
	room := chars - used
	tailUsed, from := 0, len(s)
	for from > head {
		// The line that ends at from, its own line break included.
		start := head + strings.LastIndexByte(s[head:from-1], '\n') + 1
		n := runes.Count(s[start:from])
		if tailUsed+n > room {
			break
		}
		tailUsed += n
		from = start
	}
	if from == len(s) && room > 0 {
		// The last line alone is longer than the room: its end.
		rest := s[head:]
		from = head + byteOffset(rest, max(runes.Count(rest)-room, 0))
	}
	if from <= head {
		return s // cannot happen: s is longer than chars
	}
	var b strings.Builder
	b.Grow(head + len(s) - from + 200)
	b.WriteString(s[:head])
	b.WriteString(rc.omitted("log cut", s, head, from, info))
	if from < len(s) {
		b.WriteString("\n")
		b.WriteString(s[from:])
	}
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
	if rc.tool == "" && !rc.rerun() {
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
