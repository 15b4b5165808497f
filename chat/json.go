package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// ErrInvalid reports a message or a wire value that breaks the message
// model's rules: an unknown role or part type, a tool call outside an
// assistant message, a tool message without exactly one tool result.
// Nothing was converted; the error text names the message index and the
// field, so fix the input there.
var ErrInvalid = errors.New("chat: invalid message")

// ErrUnsupported reports a wire value that its provider accepts but the
// message model has no counterpart for (an OpenAI "input_audio" part, an
// Anthropic "document" block, an image inside a tool result). Nothing was
// converted; drop or rewrite that content and convert again.
var ErrUnsupported = errors.New("chat: unsupported content")

// convError is an error whose text names where the problem is and which
// unwraps to its sentinel ([ErrInvalid] or [ErrUnsupported]) and, where
// there is one, to the underlying cause.
type convError struct {
	msg   string
	kind  error
	cause error
}

func (e *convError) Error() string { return e.msg }

func (e *convError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

func errorf(kind error, format string, args ...any) error {
	return &convError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// wrapf is errorf with a cause, whose text is appended after ": ".
func wrapf(kind, cause error, format string, args ...any) error {
	return &convError{msg: fmt.Sprintf(format, args...) + ": " + cause.Error(), kind: kind, cause: cause}
}

// prefixed returns err with format's text before it, unwrapping to what err
// unwraps to.
func prefixed(err error, format string, args ...any) error {
	var ce *convError
	if errors.As(err, &ce) {
		return &convError{msg: fmt.Sprintf(format, args...) + ": " + ce.msg, kind: ce.kind, cause: ce.cause}
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// The part types of the JSON form.
const (
	jsonText       = "text"
	jsonToolCall   = "tool_call"
	jsonToolResult = "tool_result"
	jsonThinking   = "thinking"
	jsonImage      = "image"
	jsonOpaque     = "opaque"
)

// jsonMessage is the JSON form of a Message. Parts uses omitzero so that a
// nil slice is left out and an empty one is written as [], keeping the two
// apart across a round trip.
type jsonMessage struct {
	Role  Role              `json:"role"`
	Name  string            `json:"name,omitempty"`
	ID    string            `json:"id,omitempty"`
	Model string            `json:"model,omitempty"`
	Usage *Usage            `json:"usage,omitempty"`
	Parts []json.RawMessage `json:"parts,omitzero"`
}

// jsonPart holds every field any part type has; the type field says which
// of them apply.
type jsonPart struct {
	Type string `json:"type"`
	// text, thinking
	Text string `json:"text,omitempty"`
	// tool_call
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Arguments    json.RawMessage `json:"arguments,omitempty"`
	RawArguments *string         `json:"raw_arguments,omitempty"`
	// tool_result
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	Content    string `json:"content,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	// thinking
	Signature string `json:"signature,omitempty"`
	Encrypted string `json:"encrypted,omitempty"`
	// image
	Source string `json:"source,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
	// opaque
	Wire     string          `json:"wire,omitempty"`
	Kind     string          `json:"kind,omitempty"`
	Raw      json.RawMessage `json:"raw,omitempty"`
	RawText  *string         `json:"raw_text,omitempty"`
	Tokens   int             `json:"tokens,omitempty"`
	Boundary bool            `json:"boundary,omitempty"`
	Pinned   bool            `json:"pinned,omitempty"`
	Media    bool            `json:"media,omitempty"`
}

// MarshalJSON writes agentctx's own JSON form of m, the form the session
// store keeps. It is stable: field names are snake_case and only grow.
//
//	{"role": "assistant", "name": "…", "id": "…", "model": "…",
//	 "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0,
//	           "cache_write_tokens": 0, "reasoning_tokens": 0},
//	 "parts": [
//	   {"type": "text", "text": "…"},
//	   {"type": "tool_call", "id": "…", "name": "…", "arguments": {…}},
//	   {"type": "tool_result", "tool_call_id": "…", "tool_name": "…", "content": "…", "is_error": true},
//	   {"type": "thinking", "text": "…", "signature": "…", "encrypted": "…"},
//	   {"type": "image", "source": "…", "width": 0, "height": 0, "bytes": 0},
//	   {"type": "opaque", "wire": "anthropic", "kind": "document", "raw": {…},
//	    "text": "…", "tokens": 0, "boundary": true, "pinned": true, "media": true}]}
//
// Empty optional fields are left out; "text" of a text part, "id" and
// "name" of a tool call and "content" of a tool result are always written.
// "parts" is left out when m.Parts is nil and written as [] when it is empty.
//
// Tool-call arguments are kept byte-for-byte. encoding/json compacts and
// HTML-escapes a value embedded in its output, and re-indents it under
// MarshalIndent, so an embedded value only survives when those rewrites can
// be undone: "arguments" holds the value itself when it is valid, compact
// JSON without the escapes \u003c, \u003e, \u0026, \u2028 or \u2029 (which
// UnmarshalJSON turns back into the characters they stand for); any other
// arguments (indented, HTML-escaped, not JSON) are written as the JSON
// string "raw_arguments" holding their exact text. An opaque part's "raw"
// follows the same rule, with "raw_text" as its string form. Either way the round trip
// through any encoding/json encoder is exact. As for every string in the
// form, invalid UTF-8 in raw arguments becomes U+FFFD.
//
// MarshalJSON returns an [ErrInvalid] error when m's role is not valid or a
// part is nil.
func (m Message) MarshalJSON() ([]byte, error) {
	if !m.Role.Valid() {
		return nil, errorf(ErrInvalid, "chat: message json: role %q is not valid", m.Role)
	}
	// The head (every field but the parts) goes through encoding/json;
	// the parts, each already compact JSON from marshalPart, are joined
	// after it as they are: encoding/json would check and compact each of
	// them once more (a third pass over every byte of a message's text,
	// arguments and output; issue 29). The bytes are those of
	// jsonMessage's encoding (TestMessageJSONBytes).
	head, err := jsonx.MarshalNoEscape(jsonMessage{Role: m.Role, Name: m.Name, ID: m.ID, Model: m.Model, Usage: m.Usage})
	if err != nil {
		return nil, err
	}
	if m.Parts == nil {
		return head, nil
	}
	parts := make([][]byte, len(m.Parts))
	n := len(head) + len(`,"parts":[]`)
	for i, p := range m.Parts {
		b, err := marshalPart(p)
		if err != nil {
			return nil, fmt.Errorf("chat: message json: parts[%d]: %w", i, err)
		}
		parts[i] = b
		n += len(b) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, head[:len(head)-1]...) // without its closing brace
	out = append(out, `,"parts":[`...)
	for i, b := range parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return append(out, "]}"...), nil
}

func marshalPart(p Part) ([]byte, error) {
	switch p := p.(type) {
	case Text:
		return jsonx.MarshalNoEscape(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{jsonText, p.Text})
	case ToolCall:
		v := struct {
			Type         string          `json:"type"`
			ID           string          `json:"id"`
			Name         string          `json:"name"`
			Arguments    json.RawMessage `json:"arguments,omitempty"`
			RawArguments *string         `json:"raw_arguments,omitempty"`
		}{Type: jsonToolCall, ID: p.ID, Name: p.Name}
		switch {
		case p.Arguments == nil:
		case canonicalArguments(p.Arguments):
			v.Arguments = p.Arguments
		default:
			s := string(p.Arguments)
			v.RawArguments = &s
		}
		return jsonx.MarshalNoEscape(v)
	case ToolResult:
		return jsonx.MarshalNoEscape(struct {
			Type       string `json:"type"`
			ToolCallID string `json:"tool_call_id"`
			ToolName   string `json:"tool_name,omitempty"`
			Content    string `json:"content"`
			IsError    bool   `json:"is_error,omitempty"`
		}{jsonToolResult, p.ToolCallID, p.ToolName, p.Content, p.IsError})
	case Thinking:
		return jsonx.MarshalNoEscape(struct {
			Type      string `json:"type"`
			Text      string `json:"text,omitempty"`
			Signature string `json:"signature,omitempty"`
			Encrypted string `json:"encrypted,omitempty"`
		}{jsonThinking, p.Text, p.Signature, p.Encrypted})
	case Image:
		return jsonx.MarshalNoEscape(struct {
			Type   string `json:"type"`
			Source string `json:"source,omitempty"`
			Width  int    `json:"width,omitempty"`
			Height int    `json:"height,omitempty"`
			Bytes  int    `json:"bytes,omitempty"`
		}{jsonImage, p.Source, p.Width, p.Height, p.Bytes})
	case Opaque:
		v := struct {
			Type     string          `json:"type"`
			Wire     string          `json:"wire"`
			Kind     string          `json:"kind"`
			Raw      json.RawMessage `json:"raw,omitempty"`
			RawText  *string         `json:"raw_text,omitempty"`
			Text     string          `json:"text,omitempty"`
			Tokens   int             `json:"tokens,omitempty"`
			Boundary bool            `json:"boundary,omitempty"`
			Pinned   bool            `json:"pinned,omitempty"`
			Media    bool            `json:"media,omitempty"`
		}{Type: jsonOpaque, Wire: p.Wire, Kind: p.Kind, Text: p.Text, Tokens: p.Tokens, Boundary: p.Boundary, Pinned: p.Pinned, Media: p.Media}
		if canonicalArguments(p.Raw) {
			v.Raw = p.Raw
		} else {
			s := string(p.Raw)
			v.RawText = &s
		}
		return jsonx.MarshalNoEscape(v)
	case nil:
		return nil, errorf(ErrInvalid, "part is nil")
	}
	// Unreachable: Part is sealed.
	return nil, errorf(ErrInvalid, "unknown part %T", p)
}

// UnmarshalJSON reads the JSON form [Message.MarshalJSON] writes. It
// replaces all of *m. A role other than the four known ones, a part without
// a type or of an unknown type, or a tool call with both "arguments" and
// "raw_arguments" is an [ErrInvalid] error naming the field and the part's
// index; unknown fields are ignored. It never panics.
func (m *Message) UnmarshalJSON(data []byte) error {
	var in jsonMessage
	if err := jsonx.Unmarshal(data, &in); err != nil {
		return wrapf(ErrInvalid, err, "chat: message json")
	}
	if !in.Role.Valid() {
		return errorf(ErrInvalid, "chat: message json: role %q is not valid", in.Role)
	}
	out := Message{Role: in.Role, Name: in.Name, ID: in.ID, Model: in.Model, Usage: in.Usage}
	if in.Parts != nil {
		out.Parts = make([]Part, 0, len(in.Parts))
	}
	for i, raw := range in.Parts {
		p, err := unmarshalPart(raw)
		if err != nil {
			return fmt.Errorf("chat: message json: parts[%d]: %w", i, err)
		}
		out.Parts = append(out.Parts, p)
	}
	*m = out
	return nil
}

func unmarshalPart(raw json.RawMessage) (Part, error) {
	var p jsonPart
	if err := jsonx.Unmarshal(raw, &p); err != nil {
		return nil, wrapf(ErrInvalid, err, "bad part")
	}
	switch p.Type {
	case jsonText:
		return Text{Text: p.Text}, nil
	case jsonToolCall:
		c := ToolCall{ID: p.ID, Name: p.Name}
		switch {
		case p.Arguments != nil && p.RawArguments != nil:
			return nil, errorf(ErrInvalid, "tool call has both arguments and raw_arguments")
		case p.RawArguments != nil:
			c.Arguments = append(json.RawMessage{}, *p.RawArguments...)
		case p.Arguments != nil:
			c.Arguments = normalizeArguments(p.Arguments)
		}
		return c, nil
	case jsonToolResult:
		return ToolResult{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Content: p.Content, IsError: p.IsError}, nil
	case jsonThinking:
		return Thinking{Text: p.Text, Signature: p.Signature, Encrypted: p.Encrypted}, nil
	case jsonImage:
		return Image{Source: p.Source, Width: p.Width, Height: p.Height, Bytes: p.Bytes}, nil
	case jsonOpaque:
		o := Opaque{Wire: p.Wire, Kind: p.Kind, Text: p.Text, Tokens: p.Tokens, Boundary: p.Boundary, Pinned: p.Pinned, Media: p.Media}
		switch {
		case p.Raw != nil && p.RawText != nil:
			return nil, errorf(ErrInvalid, "opaque part has both raw and raw_text")
		case p.RawText != nil:
			o.Raw = append(json.RawMessage{}, *p.RawText...)
		case p.Raw != nil:
			o.Raw = normalizeArguments(p.Raw)
		}
		if o.Tokens < 0 {
			return nil, errorf(ErrInvalid, "opaque part has tokens %d < 0", o.Tokens)
		}
		return o, nil
	case "":
		return nil, errorf(ErrInvalid, "type is missing")
	}
	return nil, errorf(ErrInvalid, "unknown part type %q", p.Type)
}

// canonicalArguments reports whether v survives being embedded in
// encoding/json output and read back through normalizeArguments unchanged.
func canonicalArguments(v []byte) bool {
	return json.Valid(v) && bytes.Equal(normalizeArguments(v), v)
}

// htmlEscapes are the escapes an HTML-safe encoding/json encoder writes, and
// what they stand for.
var htmlEscapes = map[string]string{
	"003c": "<",
	"003e": ">",
	"0026": "&",
	"2028": "\u2028",
	"2029": "\u2029",
}

// normalizeArguments undoes what encoding/json does to a JSON value embedded
// in its output: it compacts v (undoing indentation) and turns the escapes
// in htmlEscapes back into their characters. v is returned as is when it is
// not valid JSON.
func normalizeArguments(v []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return append(json.RawMessage{}, v...)
	}
	c := buf.Bytes()
	if !bytes.Contains(c, []byte(`\u`)) {
		return append(json.RawMessage{}, c...)
	}
	out := make(json.RawMessage, 0, len(c))
	for i := 0; i < len(c); i++ {
		// In valid JSON a backslash only occurs inside a string, where it
		// starts an escape: two bytes, or six for \uXXXX.
		if c[i] != '\\' || i+1 >= len(c) {
			out = append(out, c[i])
			continue
		}
		if c[i+1] == 'u' && i+6 <= len(c) {
			if r, ok := htmlEscapes[string(c[i+2:i+6])]; ok {
				out = append(out, r...)
				i += 5
				continue
			}
		}
		out = append(out, c[i], c[i+1])
		i++
	}
	return out
}
