package compact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Head returns the first n runes of s, cut on a rune boundary and, when a
// line break falls in the last 30 % of those runes, on that line break. It
// returns s unchanged when s has at most n runes.
func Head(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	end := byteOffset(s, n)
	head := s[:end]
	if nl := strings.LastIndexByte(head, '\n'); nl >= 0 && utf8.RuneCountInString(head[nl:]) <= n*3/10 {
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
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	tail := s[byteOffset(s, total-n):]
	if nl := strings.IndexByte(tail, '\n'); nl >= 0 && utf8.RuneCountInString(tail[:nl]) <= n*3/10 {
		tail = tail[nl+1:]
	}
	return tail
}

// byteOffset returns the byte offset of the n-th rune of s (len(s) past the
// end).
func byteOffset(s string, n int) int {
	i := 0
	for k := range s {
		if i == n {
			return k
		}
		i++
	}
	return len(s)
}

// CutText shortens s to about keep runes and marks the cut. With tail > 0
// it keeps the first keep−tail runes and the last tail runes (errors and
// results are often at the end of a tool's output); otherwise only the
// head. The marker says how long the text was, in runes, and why it was
// cut. Text of at most keep runes is returned unchanged; a negative keep
// counts as 0 (and so does a negative tail).
func CutText(s string, keep, tail int, why string) string {
	keep = max(keep, 0)
	total := utf8.RuneCountInString(s)
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
		if total := utf8.RuneCountInString(n.str); total > strLimit {
			writeJSONString(buf, n.str[:byteOffset(n.str, strLimit)]+fmt.Sprintf("…[cut %d chars]", total-strLimit))
			return
		}
		writeJSONString(buf, n.str)
	default:
		buf.Write(n.lit)
	}
}
