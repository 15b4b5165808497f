package compact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/internal/runes"
)

// Head returns the first n runes of s, cut on a rune boundary and, when a
// line break falls in the last 30 % of those runes, on that line break. It
// returns s unchanged when s has at most n runes.
func Head(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if runes.Count(s) <= n {
		return s
	}
	end := byteOffset(s, n)
	head := s[:end]
	if nl := strings.LastIndexByte(head, '\n'); nl >= 0 && runes.Count(head[nl:]) <= n*3/10 {
		head = head[:nl]
	}
	return head
}

// Tail returns the last n runes of s, cut on a rune boundary and, when a
// line break falls in the first 30 % of those runes, just after it.
func Tail(s string, n int) string {
	if n <= 0 {
		return ""
	}
	total := runes.Count(s)
	if total <= n {
		return s
	}
	tail := s[byteOffset(s, total-n):]
	if nl := strings.IndexByte(tail, '\n'); nl >= 0 && runes.Count(tail[:nl]) <= n*3/10 {
		tail = tail[nl+1:]
	}
	return tail
}

// byteOffset returns the byte offset of the n-th rune of s (len(s) past the
// end).
func byteOffset(s string, n int) int { return runes.Offset(s, n) }

// CutText shortens s to about keep runes and marks the cut. With tail > 0
// it keeps the first keep−tail runes and the last tail runes (errors and
// results are often at the end of a tool's output); otherwise only the
// head. The marker says how long the text was, in runes, and why it was
// cut. Text of at most keep runes is returned unchanged; a negative keep
// counts as 0 (and so does a negative tail).
func CutText(s string, keep, tail int, why string) string {
	keep = max(keep, 0)
	total := runes.Count(s)
	if total <= keep {
		return s
	}
	tail = min(max(tail, 0), keep/2)
	head, from := cutSpans(s, keep, tail)
	var b strings.Builder
	b.Grow(head + len(s) - from + 96)
	b.WriteString(s[:head])
	fmt.Fprintf(&b, "\n…[agentctx: %s; %d of %d chars kept]", why, keep, total)
	if tail > 0 {
		b.WriteString("\n")
		b.WriteString(s[from:])
	}
	return b.String()
}

// cutSpans returns where [CutText](s, keep, tail, …) cuts s, which must be
// longer than keep runes: it keeps s[:head] ([Head]) and s[from:]
// ([Tail]), and leaves out s[head:from].
func cutSpans(s string, keep, tail int) (head, from int) {
	keep = max(keep, 0)
	tail = min(max(tail, 0), keep/2)
	return len(Head(s, keep-tail)), len(s) - len(Tail(s, tail))
}

// ShrinkJSON returns a valid JSON document no longer than maxBytes that keeps
// the structure of raw — object keys in their order, the first elements of
// arrays, the start of strings — and marks what it cut: long strings end in
// "…[cut N chars]", long arrays end in an element "…[N more items]", large
// objects in a key "…" naming how many keys were dropped. It returns false
// when raw is not valid JSON or cannot be made that small; raw is then to
// be cut as text.
func ShrinkJSON(raw []byte, maxBytes int) ([]byte, bool) {
	out, fits := shrinkJSON(raw, maxBytes, "")
	if !fits {
		return nil, false
	}
	return out, true
}

// shrinkJSON is [ShrinkJSON] that also returns its smallest rendering when
// none fits (nil only when raw is not valid JSON), and that, when it cuts,
// adds note at the top level: as the last key "agentctx_cut" of an
// object, or as the last element of an array.
func shrinkJSON(raw []byte, maxBytes int, note string) (out []byte, fits bool) {
	if len(raw) <= maxBytes && json.Valid(raw) {
		return raw, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	root, err := parseNode(dec, 0)
	if err != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false // trailing data
	}
	if note != "" {
		n := &jnode{kind: 's', str: note}
		switch root.kind {
		case 'o':
			root.keys = append(root.keys, "agentctx_cut")
			root.vals = append(root.vals, n)
			root.tailNote = true
		case 'a':
			root.vals = append(root.vals, n)
			root.tailNote = true
		}
	}
	strLimit, itemLimit := 2000, 64
	var buf bytes.Buffer
	for {
		buf.Reset()
		root.render(&buf, strLimit, itemLimit)
		if buf.Len() <= maxBytes {
			return buf.Bytes(), true
		}
		if strLimit <= 8 && itemLimit <= 1 {
			return buf.Bytes(), false
		}
		strLimit = max(strLimit/2, 8)
		itemLimit = max(itemLimit/2, 1)
	}
}

// maxJSONDepth bounds recursion on hostile input; encoding/json's own limit
// is 10,000.
const maxJSONDepth = 10000

type jnode struct {
	kind byte // 'o' object, 'a' array, 's' string, 'v' other scalar
	keys []string
	vals []*jnode
	str  string
	lit  []byte // rendered scalar
	// tailNote marks an object or array whose last key or element is
	// agentctx's note: it is always rendered, whatever the item limit.
	tailNote bool
}

func parseNode(dec *json.Decoder, depth int) (*jnode, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("json too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &jnode{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is not a string")
				}
				v, err := parseNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &jnode{kind: 'a'}
			for dec.More() {
				v, err := parseNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	case string:
		return &jnode{kind: 's', str: t}, nil
	default:
		lit, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		return &jnode{kind: 'v', lit: lit}, nil
	}
}

func writeJSONString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always marshals
	buf.Write(b)
}

func (n *jnode) render(buf *bytes.Buffer, strLimit, itemLimit int) {
	switch n.kind {
	case 'o':
		buf.WriteByte('{')
		keys, vals := n.keys, n.vals
		if n.tailNote {
			keys, vals = keys[:len(keys)-1], vals[:len(vals)-1]
		}
		limit := min(len(keys), max(itemLimit*4, 1))
		for i := 0; i < limit; i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, keys[i])
			buf.WriteByte(':')
			vals[i].render(buf, strLimit, itemLimit)
		}
		if limit < len(keys) {
			if limit > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, "…")
			buf.WriteByte(':')
			writeJSONString(buf, fmt.Sprintf("[%d more keys cut]", len(keys)-limit))
		}
		if n.tailNote {
			if len(keys) > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, n.keys[len(n.keys)-1])
			buf.WriteByte(':')
			writeJSONString(buf, n.vals[len(n.vals)-1].str)
		}
		buf.WriteByte('}')
	case 'a':
		buf.WriteByte('[')
		vals := n.vals
		if n.tailNote {
			vals = vals[:len(vals)-1]
		}
		limit := min(len(vals), itemLimit)
		for i := 0; i < limit; i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			vals[i].render(buf, strLimit, itemLimit)
		}
		if limit < len(vals) {
			if limit > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, fmt.Sprintf("…[%d more items]", len(vals)-limit))
		}
		if n.tailNote {
			if len(vals) > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, n.vals[len(n.vals)-1].str)
		}
		buf.WriteByte(']')
	case 's':
		if total := runes.Count(n.str); total > strLimit {
			writeJSONString(buf, n.str[:byteOffset(n.str, strLimit)]+fmt.Sprintf("…[cut %d chars]", total-strLimit))
			return
		}
		writeJSONString(buf, n.str)
	default:
		buf.Write(n.lit)
	}
}

// textSpan is a piece of message text for [CutBlocks]: a tagged block
// (an opening tag at the start of a line through the line that closes
// it) or the plain text between blocks.
type textSpan struct {
	text  string
	tag   string // the block's tag name; "" for plain text
	runes int
}

// splitBlocks splits s into plain text and tagged blocks, in order. A
// block starts at a line whose first non-blank is "<name" followed by
// '>', a blank or "/>" (name: a letter, then letters, digits, '_', '-',
// ':' or '.'), and ends with the first line, the same or a later one,
// that ends in "</name>" (trailing blanks aside); a self-closing "<name
// …/>" line is a block of one line. An opening tag never closed is plain
// text.
func splitBlocks(s string) []textSpan {
	var spans []textSpan
	plain := 0 // start of the plain text not yet emitted
	for at := 0; at < len(s); {
		end := lineEnd(s, at)
		name, self := openingTag(s[at:end])
		if name == "" {
			at = end
			continue
		}
		stop := -1
		if self {
			stop = end
		} else {
			closing := "</" + name + ">"
			for e, from := end, at; from < len(s); from, e = e, lineEnd(s, e) {
				if strings.HasSuffix(strings.TrimRight(s[from:e], " \t\r\n"), closing) {
					stop = e
					break
				}
			}
		}
		if stop < 0 {
			at = end
			continue
		}
		if plain < at {
			spans = append(spans, textSpan{text: s[plain:at]})
		}
		spans = append(spans, textSpan{text: s[at:stop], tag: name})
		plain, at = stop, stop
	}
	if plain < len(s) {
		spans = append(spans, textSpan{text: s[plain:]})
	}
	for i := range spans {
		spans[i].runes = runes.Count(spans[i].text)
	}
	return spans
}

// lineEnd returns the offset just past the line break of the line that
// starts at at (len(s) for the last line).
func lineEnd(s string, at int) int {
	if nl := strings.IndexByte(s[at:], '\n'); nl >= 0 {
		return at + nl + 1
	}
	return len(s)
}

// openingTag returns the name of the tag line opens (its first
// non-blank is '<' and a name), and whether the tag closes itself
// ("<name …/>"); "" when line opens none.
func openingTag(line string) (name string, self bool) {
	t := strings.TrimLeft(line, " \t")
	if len(t) < 3 || t[0] != '<' {
		return "", false
	}
	j := 1
	for j < len(t) {
		c := t[j]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 1 || !(c >= '0' && c <= '9' || c == '_' || c == '-' || c == ':' || c == '.')) {
			break
		}
		j++
	}
	if j == 1 || j == len(t) {
		return "", false
	}
	switch t[j] {
	case '>', ' ', '\t':
	case '/':
		if !strings.HasPrefix(t[j:], "/>") {
			return "", false
		}
	default:
		return "", false
	}
	rest := strings.TrimRight(t, " \t\r\n")
	return t[1:j], strings.HasSuffix(rest, "/>") && !strings.Contains(rest, "</")
}

// injectedTags are the tags of blocks an agent injects into user
// messages as context, not the user's words: Claude Code's system
// reminders (instruction files, dates, file changes), IDE notices and
// local command output, Codex's environment context and user
// instructions. [CutBlocks] leaves them out first.
var injectedTags = []string{
	"system-reminder", "environment_context", "user_instructions",
	"ide_opened_file", "ide_selection", "ide_diagnostics",
	"local-command-stdout", "local-command-stderr", "local-command-caveat",
}

// CutBlocks is [CutText] with the head only (tail 0) for message text
// that holds tagged blocks on their own lines: <system-reminder>…
// </system-reminder>, Codex's <environment_context>, Claude Code's
// <command-name>, OpenHands' <issue_description>… (see splitBlocks for
// what a block is). A cut never leaves a tag without its closing one:
//
//   - the blocks an agent injects as context (system reminders,
//     environment context, IDE notices: injectedTags) are left out
//     whole, the largest first, until the rest fits;
//   - then the text is kept from its start, as CutText keeps it, with
//     every block whole; the block the cut falls in, when it spans
//     lines and has room for a part, keeps its opening line, the head
//     of its inside (cut the same way, so blocks nested in it stay
//     whole too), a marker line and its closing line; a block with no
//     room for that is left out whole, and what follows it is kept
//     while it fits.
//
// The marker at the end says how much was kept, in runes, why, and how
// many blocks were left out. Text of at most keep runes is returned
// unchanged, and text without blocks is cut as CutText cuts it. A pure
// function: safe for concurrent use.
func CutBlocks(s string, keep int, why string) string {
	keep = max(keep, 0)
	total := runes.Count(s)
	if total <= keep {
		return s
	}
	spans := splitBlocks(s)
	if !slices.ContainsFunc(spans, func(sp textSpan) bool { return sp.tag != "" }) {
		return CutText(s, keep, 0, why)
	}
	var c blockCut
	c.cut(spans, keep, why)
	out := strings.TrimRight(c.b.String(), "\n")
	if out != "" {
		out += "\n"
	}
	what := ""
	if c.dropped > 0 {
		tags := c.tags
		if len(tags) > 3 {
			tags = append(tags[:3:3], "…")
		}
		what = fmt.Sprintf(", %d tagged blocks (%s) left out", c.dropped, strings.Join(tags, ", "))
	}
	return out + fmt.Sprintf("…[agentctx: %s; %d of %d chars kept%s]", why, c.kept, total, what)
}

// blockCut writes what [CutBlocks] keeps, counting the runes kept and
// the blocks left out.
type blockCut struct {
	b       strings.Builder
	kept    int
	dropped int
	tags    []string
}

// drop counts a block left out.
func (c *blockCut) drop(tag string) {
	c.dropped++
	if !slices.Contains(c.tags, tag) {
		c.tags = append(c.tags, tag)
	}
}

// cut writes spans cut to keep runes (see [CutBlocks]).
func (c *blockCut) cut(spans []textSpan, keep int, why string) {
	size := 0
	for _, sp := range spans {
		size += sp.runes
	}
	out := make([]bool, len(spans))
	for size > keep {
		big := -1
		for i, sp := range spans {
			if !out[i] && slices.Contains(injectedTags, sp.tag) && (big < 0 || sp.runes > spans[big].runes) {
				big = i
			}
		}
		if big < 0 {
			break
		}
		out[big] = true
		size -= spans[big].runes
		c.drop(spans[big].tag)
	}
	left := keep
	for i, sp := range spans {
		switch {
		case out[i]:
		case sp.runes <= left:
			c.b.WriteString(sp.text)
			c.kept += sp.runes
			left -= sp.runes
		case sp.tag == "":
			if left > 0 {
				h := Head(sp.text, left)
				c.b.WriteString(h)
				if !strings.HasSuffix(h, "\n") {
					c.b.WriteByte('\n')
				}
				c.kept += runes.Count(h)
			}
			left = 0
		default:
			if left > 0 && c.cutInside(sp, left, why) {
				left = 0
				continue
			}
			c.drop(sp.tag)
		}
	}
}

// minInside is the fewest runes of a block's inside worth keeping when
// the block is cut inside.
const minInside = 64

// cutInside writes block sp cut to left runes: its opening line, the
// head of its inside, a marker line and its closing line. It reports
// false, writing nothing, when sp is one or two lines or left has no
// room for minInside runes of its inside.
func (c *blockCut) cutInside(sp textSpan, left int, why string) bool {
	open := lineEnd(sp.text, 0)
	body := strings.TrimRight(sp.text, "\n")
	nl := strings.LastIndexByte(body, '\n')
	if nl < open {
		return false
	}
	inner, closing := sp.text[open:nl+1], sp.text[nl+1:]
	mark := "…[agentctx: " + why + "]\n"
	frame := runes.Count(sp.text[:open]) + runes.Count(closing) + runes.Count(mark)
	room := left - frame
	if room < minInside {
		return false
	}
	var in blockCut
	in.cut(splitBlocks(inner), room, why)
	c.b.WriteString(sp.text[:open])
	c.b.WriteString(in.b.String())
	c.b.WriteString(mark)
	c.b.WriteString(closing)
	if !strings.HasSuffix(closing, "\n") {
		c.b.WriteByte('\n')
	}
	c.kept += runes.Count(sp.text[:open]) + in.kept + runes.Count(closing)
	c.dropped += in.dropped
	for _, t := range in.tags {
		if !slices.Contains(c.tags, t) {
			c.tags = append(c.tags, t)
		}
	}
	return true
}
