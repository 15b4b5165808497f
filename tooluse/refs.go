package tooluse

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
)

// RefKind is what a [Ref] names. The zero value is [RefPath].
type RefKind int

// The kinds of reference, headline kinds first (`agentctx eval` makes
// paths, edits and errors its headline and caps the others).
const (
	// RefPath is a file path a call or a text names.
	RefPath RefKind = iota
	// RefEdit is the text an edit replaces: an old_string, or the old
	// side of one apply_patch hunk. The agent must have seen it verbatim.
	RefEdit
	// RefError is an error string the agent quotes or searches for.
	RefError
	// RefLine is a line number of a file ([Ref].Text is the file).
	RefLine
	// RefSymbol is an identifier the agent names in its text.
	RefSymbol
	// RefArg is a command argument or a search query.
	RefArg
)

// String returns the kind's name: "path", "edit", "error", "line",
// "symbol" or "arg".
func (k RefKind) String() string {
	switch k {
	case RefEdit:
		return "edit"
	case RefError:
		return "error"
	case RefLine:
		return "line"
	case RefSymbol:
		return "symbol"
	case RefArg:
		return "arg"
	}
	return "path"
}

// RefKinds lists every kind, in report order.
func RefKinds() []RefKind { return []RefKind{RefPath, RefEdit, RefError, RefLine, RefSymbol, RefArg} }

// Ref is one reference an agent's action makes to what it has seen: see
// [ActionRefs].
type Ref struct {
	Kind RefKind
	// Text is the path, the replaced text, the error, the identifier or
	// the argument as the action names it; for [RefLine], the file.
	Text string
	// Line is the 1-based line number of a [RefLine]; 0 otherwise.
	Line int
}

// Caps on the references of one action: identifiers and command
// arguments are many and weak evidence, so each kind keeps its first
// MaxSymbolRefs and MaxArgRefs; paths, edits, errors and lines are kept
// whole.
const (
	MaxSymbolRefs = 8
	MaxArgRefs    = 8
)

// minRefRunes is the shortest identifier, argument or error string kept,
// in runes: shorter ones ("x", "id", "ok") match by chance.
const minRefRunes = 4

// ActionRefs returns the references of an assistant message, the action
// an agent took after a model call: those of each tool call ([CallRefs])
// and of its text ([TextRefs]), each once, identifiers capped at
// [MaxSymbolRefs] and arguments at [MaxArgRefs]. Thinking is left out:
// it is not an action; so are arguments and text that are a publisher's
// [Placeholder]. It never fails and is safe for concurrent use.
func ActionRefs(m chat.Message) []Ref {
	var all []Ref
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.ToolCall:
			if placeholderArgs(p.Arguments) {
				continue
			}
			all = append(all, CallRefs(p)...)
		case chat.Text:
			if Placeholder(p.Text) {
				continue
			}
			all = append(all, TextRefs(p.Text)...)
		}
	}
	return capRefs(all)
}

// placeholderArgs reports whether a call's arguments are a
// [Placeholder], as they are or as a JSON string (the readers keep
// arguments that are not a JSON object as a string).
func placeholderArgs(raw json.RawMessage) bool {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return Placeholder(s)
	}
	return Placeholder(string(raw))
}

// Placeholder reports whether s is a placeholder a transcript's publisher
// wrote in place of the recorded text, as the shared Codex rollouts
// replace arguments, outputs and messages with
// "[REDACTED_ARGUMENTS len=136 sha=22ea40d4]": one bracketed line whose
// first word is upper-case letters and underscores starting with
// "REDACTED" and whose other words are key=value. Such text holds
// nothing the agent saw or did ("len=136" in two placeholders is a
// coincidence), so [ActionRefs] takes no reference from it.
func Placeholder(s string) bool {
	s = strings.TrimSpace(s)
	inner, ok := strings.CutPrefix(s, "[")
	if !ok || !strings.HasSuffix(inner, "]") || strings.ContainsAny(inner, "\n[") {
		return false
	}
	words := strings.Fields(strings.TrimSuffix(inner, "]"))
	if len(words) == 0 || !strings.HasPrefix(words[0], "REDACTED") {
		return false
	}
	for _, r := range words[0] {
		if r != '_' && (r < 'A' || r > 'Z') {
			return false
		}
	}
	for _, w := range words[1:] {
		if k, v, ok := strings.Cut(w, "="); !ok || k == "" || v == "" {
			return false
		}
	}
	return true
}

// capRefs removes repeats and keeps the first MaxSymbolRefs identifiers
// and MaxArgRefs arguments.
func capRefs(all []Ref) []Ref {
	seen := map[Ref]bool{}
	var out []Ref
	n := map[RefKind]int{}
	for _, r := range all {
		if r.Text == "" || seen[r] {
			continue
		}
		if (r.Kind == RefSymbol && n[r.Kind] >= MaxSymbolRefs) || (r.Kind == RefArg && n[r.Kind] >= MaxArgRefs) {
			continue
		}
		seen[r] = true
		n[r.Kind]++
		out = append(out, r)
	}
	return out
}

// CallRefs returns the references of one tool call, by the call's kind
// ([Classify]):
//
//   - every kind: the files it reads and writes ([Use.Paths]) as
//     [RefPath]. A file a call creates is a reference too: eval keeps
//     only references found in the history, so a new file drops out.
//   - [KindRead]: the first line asked for, with its file, as [RefLine]:
//     Claude Code Read's offset, str_replace_editor view's view_range,
//     SWE-agent "open FILE LINE" (a first line of 1 is the file's start
//     and no reference).
//   - [KindEdit]: the replaced text as [RefEdit]: Claude Code Edit's
//     old_string, each of MultiEdit's edits' old_string,
//     str_replace_editor's old_str, and the old side (context and "-"
//     lines) of each hunk of an apply_patch (Codex's format or a unified
//     diff); str_replace_editor insert's insert_line as [RefLine].
//     Whitespace-only text is no reference.
//   - [KindWrite]: the path only; the content is the agent's own.
//   - [KindSearch]: the query as [RefError] when it reads as an error
//     (see [TextRefs]), else as [RefArg]; the searched directories as
//     [RefPath].
//   - [KindShell]: the files read and written and the searches' queries,
//     as for the kinds above, and the operands of each simple command
//     (split as [Classify]'s fallback tokenizer splits them) that look
//     specific, as [RefArg]: a word of at least 4 runes that is not an
//     option ("-x", "--x") and holds a '.', '/', '_', ':', a digit or an
//     upper-case letter after the first rune ("test_parse",
//     "Ash.read", "HEAD~1"); plain words ("status", "install") match by
//     chance and are left out, and so is the command's name.
//   - [KindNote] (OpenHands think, the reference agent's note_finding):
//     the [TextRefs] of its string arguments.
//   - other kinds (todo, web, task, other): the paths only.
//
// It never fails and is safe for concurrent use.
func CallRefs(call chat.ToolCall) []Ref {
	u := Classify(call)
	a := decodeArgs(call.Arguments)
	var out []Ref
	for _, p := range u.Paths {
		out = append(out, Ref{Kind: RefPath, Text: p})
	}
	for _, s := range u.Searches {
		out = append(out, queryRef(s.Query))
		for _, p := range s.Paths {
			out = append(out, Ref{Kind: RefPath, Text: p})
		}
	}
	switch u.Kind {
	case KindRead:
		out = append(out, readLine(u, a)...)
	case KindEdit:
		out = append(out, editRefs(u, a)...)
	case KindShell:
		out = append(out, shellArgRefs(u.Command)...)
	case KindWeb:
		if u.Query != "" {
			out = append(out, queryRef(u.Query))
		}
	case KindNote:
		for _, k := range []string{"thought", "finding", "note", "content", "text"} {
			out = append(out, TextRefs(a.str(k))...)
		}
	}
	return capRefs(out)
}

// queryRef is a search's query as a reference: an error when it reads
// as one.
func queryRef(q string) Ref {
	q = strings.TrimSpace(q)
	if utf8.RuneCountInString(q) < minRefRunes {
		return Ref{}
	}
	if isErrorText(q) {
		return Ref{Kind: RefError, Text: q}
	}
	return Ref{Kind: RefArg, Text: q}
}

// readLine returns the first line a read asks for, with its file.
func readLine(u Use, a args) []Ref {
	if len(u.Reads) == 0 {
		return nil
	}
	line := 0
	switch v := a.get("offset").(type) {
	case float64:
		line = int(v)
	}
	if vr, ok := a.get("view_range").([]any); ok && len(vr) > 0 {
		if f, ok := vr[0].(float64); ok {
			line = int(f)
		}
	}
	if u.Action == "open" {
		if w := textWords(a.str("command")); len(w) > 2 {
			line, _ = strconv.Atoi(w[2])
		} else if n, ok := a.get("line_number").(float64); ok {
			line = int(n)
		}
	}
	if line <= 1 {
		return nil
	}
	return []Ref{{Kind: RefLine, Text: u.Reads[0], Line: line}}
}

// editRefs returns the text an edit replaces.
func editRefs(u Use, a args) []Ref {
	var out []Ref
	add := func(s string) {
		if strings.TrimSpace(s) != "" {
			out = append(out, Ref{Kind: RefEdit, Text: s})
		}
	}
	if s, ok := a.get("old_string").(string); ok {
		add(s)
	}
	if s, ok := a.get("old_str").(string); ok {
		add(s)
	}
	if es, ok := a.get("edits").([]any); ok {
		for _, e := range es {
			if m, ok := e.(map[string]any); ok {
				if s, ok := m["old_string"].(string); ok {
					add(s)
				}
			}
		}
	}
	if u.Agent == "codex" || strings.Contains(a.raw, "*** Begin Patch") {
		p := a.str("input", "patch")
		if p == "" {
			p = a.raw
		}
		if p == "" {
			if argv := a.strs("command"); len(argv) == 2 {
				p = argv[1]
			}
		}
		for _, h := range PatchOldSides(p) {
			add(h)
		}
	}
	if n, ok := a.get("insert_line").(float64); ok && n > 1 && len(u.Writes) > 0 {
		out = append(out, Ref{Kind: RefLine, Text: u.Writes[0].Path, Line: int(n)})
	}
	return out
}

// PatchOldSides returns the old side of each hunk of a patch, in Codex's
// apply_patch format (hunks start at "@@", lines start with ' ', '-' or
// '+'; https://github.com/openai/codex,
// codex-rs/apply-patch/apply_patch_tool_instructions.md) or a unified
// diff: the context and removed lines, without their marker, joined by
// new lines. A hunk that only adds has no old side.
func PatchOldSides(patch string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 && strings.TrimSpace(strings.Join(cur, "")) != "" {
			out = append(out, strings.Join(cur, "\n"))
		}
		cur = nil
	}
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, "@@"), strings.HasPrefix(line, "***"),
			strings.HasPrefix(line, "---"), strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "diff "):
			flush()
		case strings.HasPrefix(line, " "), strings.HasPrefix(line, "-"):
			cur = append(cur, line[1:])
		case strings.HasPrefix(line, "+"):
			// The new side: the agent's own text.
		default:
			flush()
		}
	}
	flush()
	return out
}

// shellArgRefs returns the specific-looking operands of a command's
// simple commands.
func shellArgRefs(cmd string) []Ref {
	if cmd == "" {
		return nil
	}
	cmd = HeadRunes(cmd, MaxShellBytes) // HeadRunes counts runes: at most that many
	var out []Ref
	for _, s := range splitShell(cmd) {
		for i, w := range s.words {
			if i == 0 || strings.HasPrefix(w.text, "-") || !specific(w.text) {
				continue
			}
			out = append(out, queryRef(w.text))
		}
	}
	return out
}

// specific reports whether an argument looks specific enough to be a
// reference (see [CallRefs]).
func specific(w string) bool {
	if utf8.RuneCountInString(w) < minRefRunes || strings.ContainsAny(w, "\n$`*?") {
		return false
	}
	for i, r := range w {
		switch {
		case strings.ContainsRune("./_:", r), unicode.IsDigit(r):
			return true
		case i > 0 && unicode.IsUpper(r):
			return true
		}
	}
	return false
}

// TextRefs returns the references of an agent's text (its message, or a
// note it writes):
//
//   - quoted spans ("…", '…' or `…`, on one line) that read as errors, as
//     [RefError]: at least 4 runes holding error, exception, traceback,
//     failed, failure, cannot, can't, not found, no such, undefined,
//     invalid, unexpected, denied, refused, timeout or panic (any case);
//   - words that look like file paths, as [RefPath]: a '/' or a
//     file-name extension (a '.' followed by 1 to 5 letters or digits,
//     the last being a letter, at the end: "main.go", "src/a.py"), with
//     surrounding punctuation trimmed, "://" URLs left out;
//   - identifiers, as [RefSymbol]: a backquoted span that is one word,
//     and bare words of identifier characters and '.' holding a '_', an
//     inner '.' or an inner upper-case letter ("parse_args", "Ash.read",
//     "camelCase"; an upper-case letter counts after a lower-case one:
//     "JSON" is a word), at least 4 runes; capped at [MaxSymbolRefs].
//
// It never fails and is safe for concurrent use.
func TextRefs(text string) []Ref {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	var out []Ref
	for _, q := range quoted(text) {
		if utf8.RuneCountInString(q) >= minRefRunes && isErrorText(q) {
			out = append(out, Ref{Kind: RefError, Text: q})
		}
	}
	for _, w := range strings.Fields(text) {
		ticked := strings.HasPrefix(w, "`")
		for prev := ""; prev != w; {
			prev = w
			w = strings.Trim(w, "`'\"()[]{}<>,;!?*")
			w = strings.TrimRight(w, ".:")
		}
		if w == "" || strings.Contains(w, "://") {
			continue
		}
		if r, ok := wordRef(w, ticked); ok {
			out = append(out, r)
		}
	}
	return capRefs(out)
}

// WordRef reads one word, already cut from its text and trimmed, as
// [TextRefs] reads a bare word: a [RefPath] (its file cleaned) or a
// [RefSymbol]; ok is false for a word that is neither. It is TextRefs'
// reading without the splitting, quoting and capping, for callers that
// split text themselves (compaction's names section).
func WordRef(w string) (ref Ref, ok bool) { return wordRef(w, false) }

// wordRef is [WordRef] for a word that was backquoted (ticked) or not.
func wordRef(w string, ticked bool) (Ref, bool) {
	switch {
	case looksPath(w):
		return Ref{Kind: RefPath, Text: cleanFile(w)}, true
	case looksIdent(w, ticked):
		return Ref{Kind: RefSymbol, Text: w}, true
	}
	return Ref{}, false
}

// quoted returns the quoted spans of text, each on one line.
func quoted(text string) []string {
	var out []string
	for _, q := range []byte{'"', '\'', '`'} {
		for line := range strings.SplitSeq(text, "\n") {
			parts := strings.Split(line, string(q))
			for i := 1; i+1 < len(parts); i += 2 {
				if s := strings.TrimSpace(parts[i]); s != "" {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// errorWords mark an error string (see [TextRefs]).
var errorWords = []string{"error", "exception", "traceback", "failed", "failure", "cannot", "can't",
	"not found", "no such", "undefined", "invalid", "unexpected", "denied", "refused", "timeout", "panic"}

func isErrorText(s string) bool {
	l := strings.ToLower(s)
	for _, w := range errorWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// looksPath reports whether a word looks like a file path.
func looksPath(w string) bool {
	if strings.ContainsAny(w, " \t$") || utf8.RuneCountInString(w) < 3 {
		return false
	}
	if strings.Contains(w, "/") && strings.IndexFunc(w, unicode.IsLetter) >= 0 {
		return !strings.HasPrefix(w, "//")
	}
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || dot == len(w)-1 {
		return false
	}
	ext := w[dot+1:]
	if len(ext) > 5 || !unicode.IsLetter(rune(ext[len(ext)-1])) {
		return false
	}
	for _, r := range ext {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	// "Ash.read" is an identifier, "config.yaml" a file: a known
	// extension, or a lower-case stem with a short lower-case extension.
	return knownExt[strings.ToLower(ext)]
}

// knownExt are the file-name extensions TextRefs reads as files.
var knownExt = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`go py js ts tsx jsx rs rb java kt c h cc cpp hpp cs php swift scala ex exs erl
		hs ml sh bash zsh md rst txt json jsonl yaml yml toml ini cfg conf xml html css scss sql proto lock mod sum
		mk gradle vue svelte lua pl r dart zig nim tf csv log diff patch ipynb env`) {
		m[e] = true
	}
	return m
}()

// looksIdent reports whether a word looks like an identifier (see
// [TextRefs]); ticked words need only be one identifier-like word.
func looksIdent(w string, ticked bool) bool {
	if utf8.RuneCountInString(w) < minRefRunes {
		return false
	}
	inner, lower := false, false
	for i, r := range w {
		switch {
		case r == '_':
			inner = true
		case r == '.':
			if i == 0 || i == len(w)-1 {
				return false
			}
			inner = true
		case unicode.IsUpper(r):
			if lower {
				inner = true // camelCase; "JSON" is a word
			}
		case unicode.IsLower(r):
			lower = true
		case unicode.IsLetter(r), unicode.IsDigit(r):
		default:
			return false
		}
	}
	return inner || ticked
}

// StripLineNumbers removes the line-number prefixes agents print before
// each line of a file they show, so that an edit's old text is found in
// it verbatim: cat -n's and OpenHands' str_replace_editor view's
// ("     84\t"), Claude Code Read's ("    84→",
// https://code.claude.com/docs/en/tools-reference: "cat -n format"), and
// SWE-agent's window and grep -n's at the start of a line ("84:"). A line
// without such a prefix is kept as it is. O(len(s)).
func StripLineNumbers(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		end := len(s)
		if j >= 0 {
			end = i + j + 1
		}
		b.WriteString(stripPrefix(s[i:end]))
		i = end
	}
	return b.String()
}

// stripPrefix removes one line's number prefix.
func stripPrefix(line string) string {
	k := 0
	for k < len(line) && line[k] == ' ' {
		k++
	}
	spaces := k
	d := k
	for d < len(line) && line[d] >= '0' && line[d] <= '9' {
		d++
	}
	if d == k || d-k > 7 {
		return line
	}
	rest := line[d:]
	switch {
	case strings.HasPrefix(rest, "→"):
		return rest[len("→"):]
	case strings.HasPrefix(rest, "\t"):
		return rest[1:]
	case strings.HasPrefix(rest, ":") && spaces == 0:
		return rest[1:]
	}
	return line
}

// ContainsToken reports whether needle occurs in hay on token boundaries:
// where needle starts (ends) with a letter, digit or '_', the byte before
// (after) the occurrence is none of those. "Ash.read" is not in
// "Ash.read_one", "parse" is not in "parser", "a.py" is in "(a.py)". An
// empty needle is never found. O(len(hay)) per occurrence tried.
func ContainsToken(hay, needle string) bool {
	if needle == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(needle)
	last, _ := utf8.DecodeLastRuneInString(needle)
	checkL, checkR := isWordRune(first), isWordRune(last)
	for from := 0; from <= len(hay)-len(needle); {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		at := from + i
		ok := true
		if checkL && at > 0 {
			r, _ := utf8.DecodeLastRuneInString(hay[:at])
			ok = !isWordRune(r)
		}
		if ok && checkR && at+len(needle) < len(hay) {
			r, _ := utf8.DecodeRuneInString(hay[at+len(needle):])
			ok = !isWordRune(r)
		}
		if ok {
			return true
		}
		from = at + 1
	}
	return false
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// PathForms returns the forms a path may be written in where it is
// mentioned, longest first: the path itself and, when it has a
// directory, its last two elements ("compact/facts.go" for
// "/repo/compact/facts.go"), as [compact.MeasureRetention] matches
// files. A bare name is its only form.
func PathForms(p string) []string {
	forms := []string{p}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) > 2 {
		forms = append(forms, strings.Join(parts[len(parts)-2:], "/"))
	}
	return slices.Compact(forms)
}

// jsonStrings appends every string value of a JSON document to b,
// separated by new lines; it reports false when raw is not JSON.
func jsonStrings(b *strings.Builder, raw []byte) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return true
}

// ArgumentText returns the text of a tool call's arguments as a model
// reads them: the raw arguments and, when they are JSON, every string
// value decoded (new lines and quotes as they are), one per line. It is
// the haystack eval searches a call for.
func ArgumentText(raw []byte) string {
	var b strings.Builder
	b.Write(raw)
	b.WriteByte('\n')
	if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[' || raw[0] == '"') {
		jsonStrings(&b, raw)
	}
	return b.String()
}
