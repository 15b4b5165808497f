package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentctx/agentctx/internal/jsonx"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
)

// Format names a wire shape of messages, requests and replies.
type Format string

// The formats the API speaks.
const (
	// FormatChat is agentctx's own JSON form of a message
	// (chat.Message.MarshalJSON): {"role", "parts": [...]}.
	FormatChat Format = "chat"
	// FormatOpenAI is OpenAI's chat-completions shape: messages with
	// "tool_calls" and role "tool"; a reply is a chat completion.
	FormatOpenAI Format = "openai"
	// FormatAnthropic is Anthropic's Messages shape: content blocks
	// (tool_use, tool_result), a top-level "system"; a reply is a
	// message object.
	FormatAnthropic Format = "anthropic"
)

// parseFormat checks a format named by a client; "" is allowed (detect).
func parseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case "", FormatChat, FormatOpenAI, FormatAnthropic:
		return f, nil
	}
	return "", errorf(400, CodeBadRequest, "format %q: want chat, openai or anthropic", s)
}

// messagesBody is the body of POST /v1/sessions/{id}/messages.
type messagesBody struct {
	Format   string            `json:"format,omitempty"`
	System   json.RawMessage   `json:"system,omitempty"`
	Messages []json.RawMessage `json:"messages"`
}

// within returns err, a bad request about a body's fields (as
// decodeMessages returns them), about the same fields within member name
// of the body: "add.messages[2]: …", "add: chat: openai: messages[1]…".
func within(name string, err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return &apiError{status: ae.status, code: ae.code, detail: name + "." + ae.detail, err: ae.err}
	}
	ae = classify(err)
	return &apiError{status: ae.status, code: ae.code, detail: name + ": " + ae.detail, err: err}
}

// decodeJSON decodes one JSON value from r into v, rejecting unknown
// fields and trailing data; the error names the offset or the field.
func decodeJSON(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return errorf(400, CodeBadRequest, "body: data after the JSON value at offset %d", dec.InputOffset())
	}
	if _, err := dec.Token(); err != io.EOF {
		return errorf(400, CodeBadRequest, "body: data after the JSON value at offset %d", dec.InputOffset())
	}
	return nil
}

// refuseNull returns a bad request naming the first member of the JSON
// object body whose value is null, at the top level, in "tools"[i] and in
// "metadata": the API's own bodies take a value or no member at all for
// each typed field (encoding/json would read null as the zero value, the
// default, silently). The messages of a messages body keep their
// format's rules (OpenAI's content may be null). body was decoded before.
func refuseNull(body []byte) error {
	if !bytes.Contains(body, []byte("null")) {
		return nil
	}
	var top map[string]json.RawMessage
	if jsonx.Unmarshal(body, &top) != nil {
		return nil
	}
	if k := nullMember(top); k != "" {
		return errorf(400, CodeBadRequest, "%s: null; give a value or leave the field out", k)
	}
	var add map[string]json.RawMessage
	if jsonx.Unmarshal(top["add"], &add) == nil {
		if k := nullMember(add); k != "" {
			return errorf(400, CodeBadRequest, "add.%s: null; give a value or leave the field out", k)
		}
	}
	var meta map[string]json.RawMessage
	if jsonx.Unmarshal(top["metadata"], &meta) == nil {
		if k := nullMember(meta); k != "" {
			return errorf(400, CodeBadRequest, "metadata.%s: null; give a string", k)
		}
	}
	var tools []map[string]json.RawMessage
	if jsonx.Unmarshal(top["tools"], &tools) == nil {
		for i, t := range tools {
			if t == nil {
				return errorf(400, CodeBadRequest, "tools[%d]: null; give a tool", i)
			}
			if k := nullMember(t); k != "" {
				return errorf(400, CodeBadRequest, "tools[%d].%s: null; give a value or leave the field out", i, k)
			}
		}
	}
	return nil
}

// nullMember is the first (in key order) member of m whose value is the
// JSON null, or "".
func nullMember(m map[string]json.RawMessage) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if string(bytes.TrimSpace(m[k])) == "null" {
			return k
		}
	}
	return ""
}

// jsonError turns an encoding/json error into a bad request naming the
// offset or the field.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &apiError{status: 400, code: CodeBadRequest, detail: fmt.Sprintf("body: invalid JSON at offset %d: %v", se.Offset, se), err: err}
	case errors.As(err, &te):
		return &apiError{status: 400, code: CodeBadRequest, detail: fmt.Sprintf("body: field %q: want %s, got JSON %s (offset %d)", te.Field, te.Type, te.Value, te.Offset), err: err}
	case errors.Is(err, io.EOF):
		return errorf(400, CodeBadRequest, "body: empty; want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(400, CodeBadRequest, "body: JSON cut short")
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return &apiError{status: 400, code: CodeBadRequest, detail: "body: " + strings.TrimPrefix(err.Error(), "json: "), err: err}
	}
	// A *http.MaxBytesError, or another read error: classify knows.
	return err
}

// decodeMessages converts the messages of a messages body in format f
// ("" detects it: see detectFormat). It returns the messages and the
// format used. Errors: a bad request naming the message index and field.
func decodeMessages(b messagesBody) ([]chat.Message, Format, error) {
	f, err := parseFormat(b.Format)
	if err != nil {
		return nil, "", err
	}
	if len(b.Messages) == 0 {
		return nil, f, errorf(400, CodeBadRequest, "messages: want at least one message")
	}
	if f == "" {
		if f, err = detectFormat(b); err != nil {
			return nil, "", err
		}
	}
	if len(b.System) > 0 && f != FormatAnthropic {
		return nil, f, errorf(400, CodeBadRequest, "system: only the anthropic format has a top-level system; send a system message")
	}
	var msgs []chat.Message
	switch f {
	case FormatChat:
		msgs = make([]chat.Message, len(b.Messages))
		for i, raw := range b.Messages {
			if err := jsonx.Unmarshal(raw, &msgs[i]); err != nil {
				return nil, f, badMessage(i, err)
			}
		}
	case FormatOpenAI:
		wire := make([]chat.OpenAIMessage, len(b.Messages))
		for i, raw := range b.Messages {
			if err := jsonx.Unmarshal(raw, &wire[i]); err != nil {
				return nil, f, badMessage(i, err)
			}
		}
		if msgs, err = chat.FromOpenAI(wire); err != nil {
			return nil, f, err
		}
	case FormatAnthropic:
		var system chat.AnthropicContent
		if len(b.System) > 0 {
			if err := json.Unmarshal(b.System, &system); err != nil {
				return nil, f, errorf(400, CodeBadRequest, "system: %v", err)
			}
		}
		wire := make([]chat.AnthropicMessage, len(b.Messages))
		for i, raw := range b.Messages {
			if err := jsonx.Unmarshal(raw, &wire[i]); err != nil {
				return nil, f, badMessage(i, err)
			}
		}
		if msgs, err = chat.FromAnthropic(system, wire); err != nil {
			return nil, f, err
		}
	}
	for i, m := range msgs {
		if !m.Role.Valid() {
			return nil, f, errorf(400, CodeBadRequest, "messages[%d]: role %q is not valid", i, m.Role)
		}
	}
	return msgs, f, nil
}

func badMessage(i int, err error) error {
	return &apiError{status: 400, code: CodeBadRequest, detail: fmt.Sprintf("messages[%d]: %v", i, err), err: err}
}

// detectFormat tells the format of a messages body without a "format"
// field, from the first message that only one format could have written:
// a "parts" array (chat); "tool_calls", "tool_call_id", role "tool" or
// "developer", or content parts of type image_url, input_audio or file
// (openai); content blocks of type tool_use, tool_result, thinking,
// redacted_thinking, or an image with a "source" (anthropic), or a
// top-level "system". Messages that all formats read alike (text only)
// are read as openai. Messages that disagree are a bad request: set
// "format".
func detectFormat(b messagesBody) (Format, error) {
	var found Format
	at := -1
	if len(b.System) > 0 {
		found, at = FormatAnthropic, -1
	}
	for i, raw := range b.Messages {
		f := messageFormat(raw)
		if f == "" {
			continue
		}
		if found == "" {
			found, at = f, i
			continue
		}
		if f != found {
			where := "the top-level system"
			if at >= 0 {
				where = fmt.Sprintf("messages[%d]", at)
			}
			return "", errorf(400, CodeBadRequest, "messages[%d] looks like %s but %s like %s; set \"format\"", i, f, where, found)
		}
	}
	if found == "" {
		found = FormatOpenAI
	}
	return found, nil
}

// messageFormat is the format only which could have written raw, or "".
func messageFormat(raw json.RawMessage) Format {
	var m struct {
		Role       string          `json:"role"`
		Parts      json.RawMessage `json:"parts"`
		Content    json.RawMessage `json:"content"`
		ToolCalls  json.RawMessage `json:"tool_calls"`
		ToolCallID json.RawMessage `json:"tool_call_id"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	switch {
	case m.Parts != nil:
		return FormatChat
	case m.ToolCalls != nil, m.ToolCallID != nil, m.Role == "tool", m.Role == "developer":
		return FormatOpenAI
	}
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 || c[0] != '[' {
		return ""
	}
	var blocks []struct {
		Type   string          `json:"type"`
		Source json.RawMessage `json:"source"`
	}
	if json.Unmarshal(c, &blocks) != nil {
		return ""
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_use", "tool_result", "thinking", "redacted_thinking", "document":
			return FormatAnthropic
		case "image_url", "input_audio", "file":
			return FormatOpenAI
		case "image":
			if b.Source != nil {
				return FormatAnthropic
			}
		}
	}
	return ""
}

// decodeReply converts a provider's reply in format f ("" detects it: a
// "choices" array is an OpenAI chat completion, a "parts" array a chat
// message, anything else with "content" an Anthropic message) into the
// assistant message to add, its usage on it. Errors: a bad request naming
// the field.
func decodeReply(data []byte, f Format) (chat.Message, Format, error) {
	if f == "" {
		var probe struct {
			Choices json.RawMessage `json:"choices"`
			Parts   json.RawMessage `json:"parts"`
			Content json.RawMessage `json:"content"`
		}
		if err := jsonx.Unmarshal(data, &probe); err != nil {
			return chat.Message{}, "", jsonError(err)
		}
		switch {
		case probe.Choices != nil:
			f = FormatOpenAI
		case probe.Parts != nil:
			f = FormatChat
		case probe.Content != nil:
			f = FormatAnthropic
		default:
			return chat.Message{}, "", errorf(400, CodeBadRequest, "body: not a reply: want an OpenAI chat completion (choices), an Anthropic message (content) or a chat message (parts); or set ?format=")
		}
	}
	var (
		resp *provider.Response
		err  error
	)
	switch f {
	case FormatChat:
		var m chat.Message
		if err := jsonx.Unmarshal(data, &m); err != nil {
			return chat.Message{}, f, &apiError{status: 400, code: CodeBadRequest, detail: "body: " + err.Error(), err: err}
		}
		resp = &provider.Response{Message: m}
	case FormatOpenAI:
		resp, err = openai.DecodeResponse(data)
	case FormatAnthropic:
		resp, err = anthropic.DecodeResponse(data)
	}
	if err != nil {
		return chat.Message{}, f, &apiError{status: 400, code: CodeBadRequest, detail: err.Error(), err: err}
	}
	m := resp.Message
	if m.Role != chat.RoleAssistant {
		return chat.Message{}, f, errorf(400, CodeBadRequest, "body: role %q: a reply is an assistant message", m.Role)
	}
	if m.Usage != nil {
		if err := m.Usage.Validate(); err != nil {
			return chat.Message{}, f, errorf(400, CodeBadRequest, "body: usage: %v", err)
		}
	}
	return m, f, nil
}
