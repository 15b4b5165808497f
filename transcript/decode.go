package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// record is one non-blank line of a JSONL input.
type record struct {
	line int   // 1-based
	off  int64 // byte offset of the line start
	raw  []byte
}

// lineReader yields the non-blank lines of a JSONL input one at a time,
// with their 1-based numbers and byte offsets. Its buffers are bounded:
// 64 KiB, plus one line held whole (lines have no length limit) only
// until the next call. It is what lets the JSONL readers stream a
// gigabyte-sized transcript in memory proportional to what they keep.
// Over an input held in memory ([newBytesLineReader]) it has no buffer:
// its lines are the input's bytes.
type lineReader struct {
	br       *bufio.Reader // nil: the lines of data
	data     []byte        // the input not read yet, when br is nil
	off      int64
	no       int
	long     []byte
	err      error // a read error other than io.EOF
	done     bool
	nonBlank int // non-blank lines returned
}

func newLineReader(r io.Reader) *lineReader {
	if br, ok := r.(*bufio.Reader); ok {
		return &lineReader{br: br}
	}
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// newBytesLineReader returns a lineReader of the lines of data.
func newBytesLineReader(data []byte) *lineReader {
	return &lineReader{data: data}
}

// next returns the next non-blank line, trimmed of white space. Its raw
// bytes are valid only until the next call. At the end of the input, or
// on a read error (kept in err), it returns false.
func (lr *lineReader) next() (record, bool) {
	for !lr.done {
		var b []byte
		if lr.br == nil {
			i := bytes.IndexByte(lr.data, '\n')
			if i < 0 {
				b, lr.data, lr.done = lr.data, nil, true
			} else {
				b, lr.data = lr.data[:i+1], lr.data[i+1:]
			}
		} else {
			chunk, err := lr.br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				lr.long = append(lr.long, chunk...)
				continue
			}
			b = chunk
			if len(lr.long) > 0 {
				lr.long = append(lr.long, chunk...)
				b = lr.long
			}
			lr.long = lr.long[:0]
			if err != nil {
				lr.done = true
				if !errors.Is(err, io.EOF) {
					lr.err = err
					return record{}, false
				}
			}
		}
		if len(b) == 0 {
			continue
		}
		lr.no++
		start := lr.off
		lr.off += int64(len(b))
		if line := bytes.TrimSpace(b); len(line) > 0 {
			lr.nonBlank++
			return record{line: lr.no, off: start, raw: line}, true
		}
	}
	return record{}, false
}

// splitLines returns the non-blank lines of data, trimmed, for the
// readers that keep every line (OpenHands, OpenAI JSONL). Whether a line
// holds JSON is checked by [decodeRecord] as it is decoded (one pass).
// The lines are data's bytes, not copies.
func splitLines(data []byte, _ string) ([]record, []Problem) {
	var recs []record
	lr := newBytesLineReader(data)
	for {
		r, ok := lr.next()
		if !ok {
			break
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// decodeRecord decodes a JSONL line into v as far as it goes (see
// decodeLoose). A line that is not a JSON object, or is broken JSON,
// yields a Problem and false.
func decodeRecord(name string, r record, v any) (bool, Problem) {
	if !rawObject(r.raw) {
		if jsonx.Valid(r.raw) {
			return false, recProblem(name, r, "not a JSON object")
		}
		return false, jsonProblem(name, r)
	}
	if err := decodeLoose(r.raw, v); err != nil {
		return false, jsonProblem(name, r)
	}
	return true, Problem{}
}

// jsonProblem reports a line that is not valid JSON.
func jsonProblem(name string, r record) Problem {
	var v json.RawMessage
	err := json.Unmarshal(r.raw, &v) // the error message of encoding/json
	reason := "invalid JSON"
	if isTorn(err) {
		reason = "incomplete JSON (torn line)"
	}
	return lineProblem(name, r.line, r.off, reason, err)
}

func isTorn(err error) bool {
	return err != nil && strings.Contains(err.Error(), "unexpected end of JSON input")
}

func lineProblem(name string, line int, off int64, reason string, err error) Problem {
	return Problem{Line: line, Offset: off, Err: &ParseError{File: name, Line: line, Offset: off, Reason: reason, Err: err}}
}

func recProblem(name string, r record, reason string) Problem {
	return lineProblem(name, r.line, r.off, reason, nil)
}

// noRecords is the error of a JSONL reader that found nothing usable. It
// points at the first problem when there is one.
func noRecords(name string, probs []Problem, what string) error {
	sortProblems(probs)
	if len(probs) > 0 {
		var pe *ParseError
		if errors.As(probs[0].Err, &pe) {
			e := *pe
			e.Reason = "no usable " + what + " record (" + strconv.Itoa(len(probs)) + " malformed lines); first: " + e.Reason
			return &e
		}
	}
	return &ParseError{File: name, Line: 1, Reason: "no " + what + " record found"}
}

// freshList is a JSON array decoded, in the pass that decodes the
// enclosing value, into a new []T each time its key occurs: a later
// duplicate key replaces the list, as it replaces a json.RawMessage,
// rather than decoding into the items of the first. typeErr reports
// that a value had an unexpected type (the caller then decodes the items
// one by one). Anything but an array leaves items nil.
type freshList[T any] struct {
	items   []T
	typeErr bool
}

// UnmarshalJSON never fails: an error is kept in typeErr. The items
// are decoded into a slice made to their number (the fast decoder would
// grow it from 10 by doubling: a transcript's history is its bulk).
func (l *freshList[T]) UnmarshalJSON(raw []byte) error {
	*l = freshList[T]{}
	if !rawArray(raw) {
		l.typeErr = string(bytes.TrimSpace(raw)) != "null"
		return nil
	}
	l.items = make([]T, 0, arrayLen(raw))
	l.typeErr = jsonx.Unmarshal(raw, &l.items) != nil
	return nil
}

// arrayLen returns the number of items of raw, a JSON array, found by
// counting the commas outside nested values and strings, with no
// decoding. It is a capacity to decode the array into: for anything but
// a valid array it is a guess (0 for a value that is not an array).
func arrayLen(raw []byte) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return 0
	}
	n, depth, empty := 0, 0, true
	for i := 1; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			i = stringEnd(raw, i)
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				if empty {
					return 0
				}
				return n + 1
			}
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
		empty = false
	}
	return n + 1
}

// stringEnd returns the index of the quote that closes the JSON string
// opening at raw[start], or len(raw) when none does.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; ; i++ {
		q := bytes.IndexByte(raw[i:], '"')
		if q < 0 {
			return len(raw)
		}
		i += q
		// The quote is escaped when an odd number of backslashes
		// precede it.
		k := i
		for k > start+1 && raw[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			return i
		}
	}
}

// decodeLoose unmarshals raw into v as far as it goes: values of an
// unexpected type are skipped (json.Unmarshal fills everything else), only
// broken JSON is an error.
func decodeLoose(raw []byte, v any) error {
	if len(raw) == 0 {
		return nil
	}
	err := jsonx.Unmarshal(raw, v)
	if isTypeError(err) {
		return nil
	}
	return err
}

// isTypeError reports whether err is a *json.UnmarshalTypeError: a value
// of an unexpected type was skipped, the rest decoded. It allocates
// nothing (errors.As would, for its target, at every call).
func isTypeError(err error) bool {
	_, ok := errors.AsType[*json.UnmarshalTypeError](err)
	return ok
}

// docError turns an error from decoding a whole JSON document into a
// ParseError with the line and byte offset of the error.
func docError(data []byte, name string, err error) error {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	reason := "invalid JSON"
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		reason = "unexpected JSON type"
	}
	if isTorn(err) {
		reason = "incomplete JSON (truncated document)"
		off = int64(len(data))
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	return &ParseError{File: name, Line: line, Offset: off, Reason: reason, Err: err}
}

// decodeDoc decodes a single-document format. Syntax errors are fatal;
// values of an unexpected type are skipped.
func decodeDoc(data []byte, name string, v any) error {
	if err := decodeLoose(data, v); err != nil {
		return docError(data, name, err)
	}
	return nil
}

// count is a token count or other integer that also accepts a float or a
// numeric string; anything else decodes as 0 without an error.
type count int

func (c *count) UnmarshalJSON(b []byte) error {
	*c = count(toInt(b))
	return nil
}

func toInt(b []byte) int {
	s := string(bytes.TrimSpace(b))
	if len(s) >= 2 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			s = strings.TrimSpace(u)
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return clampInt(float64(n))
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) {
		return clampInt(f)
	}
	return 0
}

func clampInt(f float64) int {
	const lim = 1 << 53
	switch {
	case f > lim:
		return lim
	case f < -lim:
		return -lim
	}
	return int(f)
}

// str returns the text of a JSON string, the literal of a JSON number, and
// "" for anything else.
func str(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		if !jsonx.StdOnly.Load() {
			if s, ok := unquote(raw); ok {
				return s
			}
		}
		var s string
		if jsonx.Unmarshal(raw, &s) == nil {
			return s
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw)
	}
	return ""
}

// stringBytes returns the text of raw, a JSON string, as [str] does but
// as bytes of its own (one copy); ok is false when raw is not a JSON
// string.
func stringBytes(raw []byte) (text []byte, ok bool) {
	if !jsonx.StdOnly.Load() {
		if b, ok := unquoteBytes(raw); ok {
			return b, true
		}
	}
	var s string
	if jsonx.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// plainBody returns the text of raw when raw is a JSON string that needs
// no decoding: quoted, with no escape, no control character and valid
// UTF-8, so that its text is the bytes between the quotes (returned, not
// copied), as json.Unmarshal would return it. ok is false for anything
// else, which the caller decodes.
func plainBody(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(body) {
		return nil, false
	}
	return body, true
}

// jsonText is a value decoded as [str] decodes it, in the pass that
// decodes the enclosing value: a string's text, a number's literal, ""
// for anything else.
type jsonText string

// UnmarshalJSON never fails: values of another type decode as "".
func (t *jsonText) UnmarshalJSON(raw []byte) error {
	*t = jsonText(str(raw))
	return nil
}

// rawValues holds every value given for a key, undecoded and in order,
// for a value a reader needs only in some cases (mini-swe-agent's
// actions, read in text style only): keeping its bytes costs less than
// decoding it. The bytes point into the input being decoded, which the
// reader holds while it uses them. [rawValues.decode] decodes them as
// the enclosing value's decoding would have.
type rawValues [][]byte

// UnmarshalJSON keeps raw; it never fails.
func (r *rawValues) UnmarshalJSON(raw []byte) error {
	*r = append(*r, raw)
	return nil
}

// decode decodes the values into v, a pointer to a zero value, as
// encoding/json decodes a key given several times: each value into what
// the earlier ones left, values of an unexpected type skipped.
func (r rawValues) decode(v any) {
	for i, raw := range r {
		if i == 0 {
			_ = decodeLoose(raw, v)
			continue
		}
		// unmarshal decodes into a zero value only; a key given
		// twice is rare enough for encoding/json alone.
		_ = json.Unmarshal(raw, v)
	}
}

// roleName is a message's role as recorded: the text of a JSON string,
// decoded as encoding/json decodes it into a string, in the pass that
// decodes the message, with no allocation for the roles of [knownRoles].
// A value of another type leaves it unchanged, as it leaves a string
// (encoding/json reports a type error there, which the readers skip).
type roleName string

// knownRoles are the roles a [roleName] holds without a copy of its own.
var knownRoles = [...]roleName{"system", "developer", "user", "assistant", "tool", "function", "exit"}

// UnmarshalJSON never fails.
func (r *roleName) UnmarshalJSON(raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' {
		return nil
	}
	for _, k := range knownRoles {
		if string(raw[1:len(raw)-1]) == string(k) {
			*r = k
			return nil
		}
	}
	*r = roleName(str(raw))
	return nil
}

var emptyObject = json.RawMessage(`{}`)

// parseArgs turns tool-call arguments as recorded into a JSON value: an
// object (or any JSON value) is kept byte for byte; a JSON-encoded string
// becomes its decoded JSON text when that is valid JSON, else stays the
// JSON string so nothing is lost; missing, null or "" becomes {}.
func parseArgs(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return emptyObject
	}
	if raw[0] != '"' {
		return bytes.Clone(raw)
	}
	// The string's text, decoded once, and checked as JSON where it
	// stands: the result is its only copy.
	text, plain := plainBody(raw)
	if !plain {
		var ok bool
		if text, ok = stringBytes(raw); !ok {
			return bytes.Clone(raw)
		}
	}
	t := bytes.TrimSpace(text)
	if len(t) == 0 {
		return emptyObject
	}
	if !jsonx.Valid(t) {
		return bytes.Clone(raw)
	}
	if plain {
		return bytes.Clone(t)
	}
	return t
}

// rawObject reports whether raw is a JSON object.
func rawObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// rawArray reports whether raw is a JSON array.
func rawArray(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '['
}

// oaPart is one part of an OpenAI-style content array; it also covers the
// Responses API's input_text/output_text/input_image items.
type oaPart struct {
	Type     string          `json:"type"`
	Text     json.RawMessage `json:"text"`
	ImageURL json.RawMessage `json:"image_url"`
	Refusal  string          `json:"refusal"`
}

// oaContent reads an OpenAI-style content value: a string, null, or an
// array of parts. It returns the text parts joined by "\n" and the images.
func oaContent(raw json.RawMessage) (string, []chat.Image) {
	return oaContentD(raw, nil)
}

// oaContentD is [oaContent] counting in d the parts it leaves out: a
// part of a type it does not know that holds no text (Anthropic's
// tool_use and tool_result blocks are counted as tool blocks).
func oaContentD(raw json.RawMessage, d drops) (string, []chat.Image) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if !rawArray(raw) {
		if rawObject(raw) {
			var p oaPart
			_ = decodeLoose(raw, &p)
			return str(p.Text), nil
		}
		return str(raw), nil
	}
	var texts []string
	var imgs []chat.Image
	for _, p := range oaParts(raw) {
		if p.text != "" {
			texts = append(texts, p.text)
			continue
		}
		switch p.Type {
		case "image_url", "input_image", "image":
			url := str(p.ImageURL)
			if url == "" && rawObject(p.ImageURL) {
				var u struct {
					URL string `json:"url"`
				}
				_ = decodeLoose(p.ImageURL, &u)
				url = u.URL
			}
			imgs = append(imgs, imageFromURL(url))
		case "refusal":
			texts = append(texts, p.Refusal)
		default:
			if t := textOf(p.Text); t != "" {
				texts = append(texts, t)
				continue
			}
			switch p.Type {
			case "text", "input_text", "output_text", "summary_text", "reasoning_text":
				// An empty text: nothing left out.
			case "tool_use", "tool_result", "server_tool_use", "toolCall", "tool_call", "function_call":
				d.add(kindOf(dropToolBlock, p.Type))
			default:
				d.add(kindOf(dropBlock, p.Type))
			}
		}
	}
	return strings.Join(texts, "\n"), imgs
}

// oaPartItem is an item of a content array: a part, or the text of an
// item that is a string (or a number).
type oaPartItem struct {
	oaPart
	text string
}

// oaParts decodes a content array: its objects as parts, its strings
// and numbers as text; other items (null, arrays, booleans, empty
// strings) are dropped. The array is decoded in one pass when every
// item is an object, as almost always, item by item otherwise.
func oaParts(raw json.RawMessage) []oaPartItem {
	// Room for one part, as most contents hold (the fast decoder makes
	// room for 10), doubled as needed.
	parts := make([]oaPart, 0, 1)
	err := jsonx.Unmarshal(raw, &parts)
	if err == nil {
		out := make([]oaPartItem, 0, len(parts))
		for _, p := range parts {
			out = append(out, oaPartItem{oaPart: p})
		}
		return out
	}
	if !isTypeError(err) {
		return nil
	}
	var items []json.RawMessage
	_ = decodeLoose(raw, &items)
	var out []oaPartItem
	for _, pr := range items {
		if !rawObject(pr) {
			if s := str(pr); s != "" {
				out = append(out, oaPartItem{text: s})
			}
			continue
		}
		var p oaPart
		_ = decodeLoose(pr, &p)
		out = append(out, oaPartItem{oaPart: p})
	}
	return out
}

// textOf reads a "text" field that is a string or, in some exports, an
// object {"value": "…"}.
func textOf(raw json.RawMessage) string {
	if rawObject(raw) {
		var v struct {
			Value string `json:"value"`
		}
		_ = decodeLoose(raw, &v)
		return v.Value
	}
	return str(raw)
}

// imageFromURL describes an image given by URL; a data: URL is replaced by
// its media type and decoded size.
func imageFromURL(url string) chat.Image {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		mt, data, _ := strings.Cut(rest, ",")
		mt, isB64 := strings.CutSuffix(mt, ";base64")
		img := chat.Image{Source: mt}
		if isB64 {
			img.Bytes = base64Size(data)
		} else {
			img.Bytes = len(data)
		}
		return img
	}
	return chat.Image{Source: url}
}

// base64Size is the decoded size in bytes of base64 text s.
func base64Size(s string) int {
	n := len(strings.TrimRight(s, "="))
	return n * 3 / 4
}

// oaUsage is the usage object of an OpenAI chat completion as LiteLLM
// records it, with the cache fields other providers add.
type oaUsage struct {
	PromptTokens        count `json:"prompt_tokens"`
	CompletionTokens    count `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens        count `json:"cached_tokens"`
		CacheCreationTokens count `json:"cache_creation_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens count `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	CacheReadInputTokens     count `json:"cache_read_input_tokens"`
	CacheCreationInputTokens count `json:"cache_creation_input_tokens"`
	PromptCacheHitTokens     count `json:"prompt_cache_hit_tokens"`
}

// usageFromOpenAI converts an OpenAI-style usage object (see
// [oaUsage.toChat]). It returns nil for a missing or all-zero usage.
func usageFromOpenAI(raw json.RawMessage) *chat.Usage {
	if !rawObject(raw) {
		return nil
	}
	var u oaUsage
	_ = decodeLoose(raw, &u)
	return u.toChat()
}

// toChat converts u. OpenAI's prompt_tokens includes the cached tokens,
// so InputTokens is prompt − cached − cache writes and
// [chat.Usage.PromptTokens] equals prompt_tokens. When prompt_tokens is
// smaller than the cache counts (a provider that does not include them)
// InputTokens is prompt_tokens. It returns nil for an all-zero usage.
func (u *oaUsage) toChat() *chat.Usage {
	cached := int(u.CacheReadInputTokens)
	write := int(u.CacheCreationInputTokens)
	if d := u.PromptTokensDetails; d != nil {
		if int(d.CachedTokens) > cached {
			cached = int(d.CachedTokens)
		}
		if int(d.CacheCreationTokens) > write {
			write = int(d.CacheCreationTokens)
		}
	}
	if cached == 0 {
		cached = int(u.PromptCacheHitTokens)
	}
	out := chat.Usage{
		InputTokens:      int(u.PromptTokens),
		OutputTokens:     int(u.CompletionTokens),
		CacheReadTokens:  cached,
		CacheWriteTokens: write,
	}
	if in := int(u.PromptTokens) - cached - write; in >= 0 {
		out.InputTokens = in
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = int(d.ReasoningTokens)
	}
	if out.IsZero() {
		return nil
	}
	return &out
}

// oaToolCall is a chat-completions tool call (its "type", always
// "function", is not read).
type oaToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	// Some exports flatten the call.
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (c oaToolCall) toChat() chat.ToolCall {
	name, args := c.Function.Name, c.Function.Arguments
	if name == "" {
		name = c.Name
	}
	if len(args) == 0 {
		args = c.Arguments
	}
	return chat.ToolCall{ID: c.ID, Name: name, Arguments: parseArgs(args)}
}

// oaToolCalls decodes a tool_calls value leniently: a list of calls, each
// an object; anything else is ignored.
func oaToolCalls(raw json.RawMessage) []chat.ToolCall {
	var d callDecoder
	n := d.decode(raw)
	if n == 0 {
		return nil
	}
	out := make([]chat.ToolCall, 0, n)
	for c := range d.calls() {
		out = append(out, c)
	}
	return out
}

// callDecoder decodes tool_calls values as [oaToolCalls] does, one after
// another, into one buffer of items it reuses: a reader that decodes a
// value per message holds one for its whole input. Not safe for
// concurrent use.
type callDecoder struct {
	items []oaCallItem
}

// decode decodes raw, a tool_calls value, in place of the value decoded
// before, and returns the number of its calls.
func (d *callDecoder) decode(raw json.RawMessage) int {
	d.items = d.items[:0]
	if !rawArray(raw) {
		return 0
	}
	if n := arrayLen(raw); n > cap(d.items) {
		d.items = make([]oaCallItem, 0, n)
	}
	// The items left from an earlier value are overwritten: each
	// item's UnmarshalJSON starts from the zero item.
	_ = decodeLoose(raw, &d.items)
	n := 0
	for _, it := range d.items {
		if it.ok {
			n++
		}
	}
	return n
}

// calls yields the calls of the value decoded last, in order.
func (d *callDecoder) calls() iter.Seq[chat.ToolCall] {
	return func(yield func(chat.ToolCall) bool) {
		for _, it := range d.items {
			if it.ok && !yield(it.v.toChat()) {
				return
			}
		}
	}
}

// oaCallItem is an item of a tool_calls array: a call when ok (the item
// is an object).
type oaCallItem = looseObject[oaToolCall]

// looseObject is a JSON value decoded, in the pass that decodes the
// enclosing value, as [decodeLoose] decodes it when it is an object (ok),
// rather than kept as raw bytes and decoded again; anything else leaves
// it zero. A later duplicate key replaces it whole, as it replaces a
// json.RawMessage.
type looseObject[T any] struct {
	v  T
	ok bool
}

// UnmarshalJSON never fails.
func (o *looseObject[T]) UnmarshalJSON(raw []byte) error {
	*o = looseObject[T]{ok: rawObject(raw)}
	if o.ok {
		_ = decodeLoose(raw, &o.v)
	}
	return nil
}

// toolDefs decodes OpenAI tool schemas: [{"type":"function","function":
// {name, description, parameters}}] or legacy functions [{name, …}].
func toolDefs(raw json.RawMessage) []chat.ToolDef {
	if !rawArray(raw) {
		return nil
	}
	var items []json.RawMessage
	_ = decodeLoose(raw, &items)
	var out []chat.ToolDef
	for _, it := range items {
		if !rawObject(it) {
			continue
		}
		var d struct {
			Function *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		_ = decodeLoose(it, &d)
		td := chat.ToolDef{Name: d.Name, Description: d.Description, Parameters: d.Parameters}
		if f := d.Function; f != nil {
			td = chat.ToolDef{Name: f.Name, Description: f.Description, Parameters: f.Parameters}
		}
		if td.Parameters == nil && d.InputSchema != nil {
			td.Parameters = d.InputSchema
		}
		if td.Name == "" {
			continue
		}
		if td.Parameters != nil {
			td.Parameters = append(json.RawMessage(nil), td.Parameters...)
		}
		out = append(out, td)
	}
	return out
}

// textParts returns a Text part for s (none when s is empty) followed by
// the images.
func textParts(s string, imgs []chat.Image) []chat.Part {
	return appendTextParts(nil, s, imgs)
}

// appendTextParts appends to parts the parts [textParts] returns.
func appendTextParts(parts []chat.Part, s string, imgs []chat.Image) []chat.Part {
	if s != "" {
		parts = append(parts, chat.Text{Text: s})
	}
	for _, im := range imgs {
		parts = append(parts, im)
	}
	return parts
}

func sortProblems(probs []Problem) {
	slices.SortStableFunc(probs, func(a, b Problem) int { return a.Line - b.Line })
}

// looksJSONL reports whether data is JSON Lines rather than one JSON
// document: it is not a single valid document, and one of its first lines
// holds a whole JSON object or array on its own (a pretty-printed document
// has no such line, a JSONL file with a torn first line still has one).
func looksJSONL(data []byte) bool {
	return !jsonx.Valid(data) && hasJSONLine(data)
}

// hasJSONLine reports whether one of the first 20 non-blank lines of
// data holds a whole JSON object or array on its own (see looksJSONL).
func hasJSONLine(data []byte) bool {
	for i := 0; i < 20 && len(data) > 0; {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		i++
		if len(line) > 2 && (line[0] == '{' || line[0] == '[') && jsonx.Valid(line) {
			return true
		}
	}
	return false
}
