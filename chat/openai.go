package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/gif"  // register GIF for image.DecodeConfig
	_ "image/jpeg" // register JPEG for image.DecodeConfig
	_ "image/png"  // register PNG for image.DecodeConfig
	"strings"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// This file follows the OpenAI chat-completions API reference
// (https://platform.openai.com/docs/api-reference/chat/create, the
// "messages" parameter, and the chat completion object's "message" and
// "usage"), plus DeepSeek's and Qwen's "reasoning_content".

// OpenAIMessage is one element of the OpenAI chat-completions "messages"
// array, in the field names of the wire JSON. Role is "system", "user",
// "assistant" or "tool" ([FromOpenAI] also reads "developer" as system).
// ToolCalls appear on assistant messages, ToolCallID on tool messages. On
// a tool message Name is the tool's name, as transcripts (tau-bench and
// others) write it. ReasoningContent is the "reasoning_content" that
// DeepSeek and Qwen put beside an assistant message's content; OpenAI
// itself has no such field.
//
// The fields after ReasoningContent are agentctx extensions, not part of the
// API: they carry what the API shape has no place for, so that [ToOpenAI]
// followed by [FromOpenAI] loses nothing. They are left out of the JSON when
// zero; [OpenAIMessage.ForRequest] clears them before a message is sent to
// an API that rejects unknown fields.
//
// Like [Message], it is plain data: safe to read from several goroutines,
// not to modify while others read it. The conversion functions of this
// package are safe for concurrent use.
type OpenAIMessage struct {
	Role             string           `json:"role"`
	Content          OpenAIContent    `json:"content"`
	Name             string           `json:"name,omitempty"`
	ToolCalls        []OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string           `json:"tool_call_id,omitempty"`
	ReasoningContent string           `json:"reasoning_content,omitempty"`

	// IsError is [ToolResult.IsError] on a tool message. The content is
	// unchanged, so the model reads the tool's output as it was.
	IsError bool `json:"is_error,omitempty"`
	// ReasoningParts holds an assistant message's [Thinking] parts when
	// ReasoningContent alone cannot: several parts, a signature, encrypted
	// reasoning, or empty text. ReasoningContent then holds their non-empty
	// texts joined by "\n", and FromOpenAI reads ReasoningParts instead.
	ReasoningParts []OpenAIReasoning `json:"reasoning_parts,omitempty"`
	// ID and Model are [Message.ID] and [Message.Model].
	ID    string `json:"id,omitempty"`
	Model string `json:"model,omitempty"`
	// Usage is [Message.Usage]: the usage the API reported for the call that
	// produced this assistant message (in the API it is on the response).
	Usage *OpenAIUsage `json:"usage,omitempty"`
}

// OpenAIReasoning is one [Thinking] part in the agentctx extension field
// "reasoning_parts" of an [OpenAIMessage].
type OpenAIReasoning struct {
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Encrypted string `json:"encrypted,omitempty"`
}

// OpenAIContent is the "content" of an [OpenAIMessage], which the API takes
// as a string, as an array of content parts, or as null. Parts non-nil
// means the array form; otherwise Text non-nil means the string form;
// otherwise the content is null (the zero value). Use [OpenAIText] for the
// string form.
type OpenAIContent struct {
	Text  *string
	Parts []OpenAIContentPart
}

// OpenAIText returns the string form of [OpenAIContent] holding s.
func OpenAIText(s string) OpenAIContent {
	return OpenAIContent{Text: &s}
}

// IsNull reports whether c is null: neither a string nor an array.
func (c OpenAIContent) IsNull() bool {
	return c.Parts == nil && c.Text == nil
}

// MarshalJSON writes c as an array, a string or null.
func (c OpenAIContent) MarshalJSON() ([]byte, error) {
	switch {
	case c.Parts != nil:
		return jsonx.MarshalNoEscape(c.Parts)
	case c.Text != nil:
		return jsonx.MarshalNoEscape(*c.Text)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a string, an array of content parts, or null, as
// encoding/json reads them, with internal/jsonx's fast path (encoding/json
// checks each part again before its UnmarshalJSON decodes it; issue 29).
func (c *OpenAIContent) UnmarshalJSON(data []byte) error {
	*c = OpenAIContent{}
	switch t := bytes.TrimLeft(data, " \t\r\n"); {
	case len(t) == 0:
	case t[0] == 'n':
		return nil // null
	case t[0] == '"':
		var s string
		if err := jsonx.Unmarshal(data, &s); err != nil {
			return err
		}
		c.Text = &s
		return nil
	case t[0] == '[':
		var parts []OpenAIContentPart
		if err := jsonx.Unmarshal(data, &parts); err != nil {
			return err
		}
		if parts == nil {
			parts = []OpenAIContentPart{}
		}
		c.Parts = parts
		return nil
	}
	return errorf(ErrInvalid, "chat: openai content is not a string, an array or null")
}

// OpenAIContentPart is one element of the array form of [OpenAIContent]:
// {"type": "text", "text": …} or {"type": "image_url", "image_url": {"url":
// …, "detail": …}}. Other types the API knows ("input_audio", "file",
// "refusal") are read but [FromOpenAI] reports them as [ErrUnsupported].
//
// Width, Height and Bytes are an agentctx extension on image parts: the
// [Image] placeholder's size, written beside "image_url" as "width",
// "height" and "bytes" when non-zero.
type OpenAIContentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	ImageURL *OpenAIImageURL `json:"image_url,omitempty"`
	Width    int             `json:"width,omitempty"`
	Height   int             `json:"height,omitempty"`
	Bytes    int             `json:"bytes,omitempty"`
	// Raw is the part's JSON as read, for every type but "text" (an image
	// part's is what [WireReader].KeepMedia carries).
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON reads a part, keeping the JSON of any but a text part in
// Raw; a part of a type to come whose fields are not ours is read as its
// type and Raw alone.
func (p *OpenAIContentPart) UnmarshalJSON(data []byte) error {
	type plain OpenAIContentPart // without this method
	var v plain
	if err := jsonx.Unmarshal(data, &v); err != nil {
		var probe struct {
			Type string `json:"type"`
		}
		if jsonx.Unmarshal(data, &probe) != nil || probe.Type == "text" || probe.Type == "image_url" {
			return err
		}
		v = plain{Type: probe.Type}
	}
	*p = OpenAIContentPart(v)
	if p.Type != "text" {
		p.Raw = append(json.RawMessage(nil), bytes.TrimSpace(data)...)
	}
	return nil
}

// MarshalJSON writes the fields of p's type: a text part always has "text",
// even when empty, and carries no image fields. A part of a type the model
// does not interpret ("input_audio", "file", "refusal", types to come) is
// written as it was read (Raw).
func (p OpenAIContentPart) MarshalJSON() ([]byte, error) {
	if p.Raw != nil && p.Type != "text" && p.Type != "image_url" {
		return p.Raw, nil
	}
	if p.Type == "text" {
		return jsonx.MarshalNoEscape(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{p.Type, p.Text})
	}
	type plain OpenAIContentPart // without this method
	return jsonx.MarshalNoEscape(plain(p))
}

// OpenAIImageURL is the "image_url" object of an image content part. URL is
// an http(s) URL or a data URL ("data:image/png;base64,…"); Detail is
// "auto", "low" or "high".
type OpenAIImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// OpenAIToolCall is one element of an assistant message's "tool_calls".
// Type is "function"; the API's "custom" tool calls are reported as
// [ErrUnsupported] by [FromOpenAI].
type OpenAIToolCall struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Function OpenAIFunctionCall `json:"function"`
}

// OpenAIFunctionCall is the "function" of an [OpenAIToolCall]. Arguments is
// the JSON text the model produced, as a string.
type OpenAIFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// OpenAIUsage is the "usage" object of a chat completion, in tokens.
// PromptTokens includes the cached tokens. CacheWriteTokens in the prompt
// details is an agentctx extension (OpenAI reports no cache writes) that
// keeps [Usage.CacheWriteTokens]; it is also included in PromptTokens.
type OpenAIUsage struct {
	PromptTokens            int                           `json:"prompt_tokens"`
	CompletionTokens        int                           `json:"completion_tokens"`
	TotalTokens             int                           `json:"total_tokens"`
	PromptTokensDetails     OpenAIPromptTokensDetails     `json:"prompt_tokens_details,omitzero"`
	CompletionTokensDetails OpenAICompletionTokensDetails `json:"completion_tokens_details,omitzero"`
}

// OpenAIPromptTokensDetails is the "prompt_tokens_details" of [OpenAIUsage].
type OpenAIPromptTokensDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
}

// OpenAICompletionTokensDetails is the "completion_tokens_details" of
// [OpenAIUsage].
type OpenAICompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// UsageFromOpenAI converts an OpenAI usage object. InputTokens is
// prompt_tokens minus cached_tokens (and minus the cache_write_tokens
// extension), never below 0; CacheReadTokens is cached_tokens. TotalTokens
// is not read: it is the sum of the other two.
func UsageFromOpenAI(u OpenAIUsage) Usage {
	in := u.PromptTokens - u.PromptTokensDetails.CachedTokens - u.PromptTokensDetails.CacheWriteTokens
	return Usage{
		InputTokens:      max(in, 0),
		OutputTokens:     u.CompletionTokens,
		CacheReadTokens:  u.PromptTokensDetails.CachedTokens,
		CacheWriteTokens: u.PromptTokensDetails.CacheWriteTokens,
		ReasoningTokens:  u.CompletionTokensDetails.ReasoningTokens,
	}
}

// UsageToOpenAI converts u to an OpenAI usage object: prompt_tokens is
// [Usage.PromptTokens], total_tokens is prompt plus completion tokens.
func UsageToOpenAI(u Usage) OpenAIUsage {
	return OpenAIUsage{
		PromptTokens:     u.PromptTokens(),
		CompletionTokens: u.OutputTokens,
		TotalTokens:      u.PromptTokens() + u.OutputTokens,
		PromptTokensDetails: OpenAIPromptTokensDetails{
			CachedTokens:     u.CacheReadTokens,
			CacheWriteTokens: u.CacheWriteTokens,
		},
		CompletionTokensDetails: OpenAICompletionTokensDetails{ReasoningTokens: u.ReasoningTokens},
	}
}

// ForRequest returns m without the agentctx extension fields (IsError,
// ReasoningParts, ID, Model, Usage and the size of image parts) and without
// a tool message's Name, which the API's tool message does not have: the
// form an API that rejects unknown fields accepts. ReasoningContent is kept
// (DeepSeek and Qwen want it back). m is not modified.
func (m OpenAIMessage) ForRequest() OpenAIMessage {
	m.IsError, m.ReasoningParts, m.ID, m.Model, m.Usage = false, nil, "", "", nil
	if m.Role == "tool" {
		m.Name = ""
	}
	if m.Content.Parts != nil {
		parts := make([]OpenAIContentPart, len(m.Content.Parts))
		for i, p := range m.Content.Parts {
			p.Width, p.Height, p.Bytes = 0, 0, 0
			parts[i] = p
		}
		m.Content.Parts = parts
	}
	return m
}

// ToOpenAI converts msgs to the OpenAI chat-completions shape, one wire
// message per message:
//
//   - Text and [Image] parts become "content": null when there are none, a
//     string for exactly one Text part, and otherwise an array of "text" and
//     "image_url" parts in order (so several Text parts stay apart).
//   - An Image becomes an "image_url" part whose URL is [Image.Source], or,
//     when Source is a media type such as "image/png", a data URL with no
//     data ("data:image/png;base64,"); its size goes in the part's "width",
//     "height" and "bytes" extension fields.
//   - An assistant message's [ToolCall]s become "tool_calls" in order, with
//     type "function" and the arguments as the JSON string. Arguments that
//     are a JSON string (a source's arguments that were not valid JSON, see
//     [ToolCall]) are sent as that string's content.
//   - A single [Thinking] part with only text becomes "reasoning_content";
//     any other set of Thinking parts goes to the "reasoning_parts"
//     extension, with their text also in "reasoning_content".
//   - A tool message (exactly one [ToolResult]) becomes role "tool" with
//     "tool_call_id", its tool name as "name", the content as a string, and
//     [ToolResult.IsError] in the "is_error" extension.
//   - [Message.ID], Model and Usage go to the "id", "model" and "usage"
//     extensions, the usage converted by [UsageToOpenAI].
//
// The API shape cannot interleave reasoning, content and tool calls, so an
// assistant message's parts come back from [FromOpenAI] in that order: the
// round trip is exact for messages whose parts are already so ordered.
//
// ToOpenAI returns an [ErrInvalid] error, naming the message index and
// part, for an unknown role, a tool message that does not hold exactly one
// ToolResult or that has a [Message.Name] (the shape's "name" is the tool
// name), a ToolCall or Thinking outside an assistant message, a ToolResult
// outside a tool message, or a nil part. The result shares no memory with
// msgs.
func ToOpenAI(msgs []Message) ([]OpenAIMessage, error) {
	out := make([]OpenAIMessage, 0, len(msgs))
	for i, m := range msgs {
		o, err := toOpenAI(i, m)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

func toOpenAI(i int, m Message) (OpenAIMessage, error) {
	if !m.Role.Valid() {
		return OpenAIMessage{}, errorf(ErrInvalid, "chat: openai: message %d: role %q is not valid", i, m.Role)
	}
	o := OpenAIMessage{Role: string(m.Role), Name: m.Name, ID: m.ID, Model: m.Model}
	if m.Usage != nil {
		u := UsageToOpenAI(*m.Usage)
		o.Usage = &u
	}
	if m.Role == RoleTool {
		r, attached, err := m.ToolParts()
		if err != nil {
			return o, prefixed(err, "chat: openai: message %d", i)
		}
		if m.Name != "" {
			return o, errorf(ErrInvalid, "chat: openai: message %d: name: a tool message's name is its tool name in the openai shape; set ToolResult.ToolName instead", i)
		}
		o.ToolCallID, o.Name, o.Content, o.IsError = r.ToolCallID, r.ToolName, OpenAIText(r.Content), r.IsError
		if len(attached) > 0 {
			parts := make([]OpenAIContentPart, 0, len(attached)+1)
			if r.Content != "" {
				parts = append(parts, OpenAIContentPart{Type: "text", Text: r.Content})
			}
			for _, a := range attached {
				parts = append(parts, opaqueToOpenAI(a))
			}
			o.Content = OpenAIContent{Parts: parts}
		}
		return o, nil
	}
	var content []OpenAIContentPart
	var thinking []Thinking
	for j, p := range m.Parts {
		switch p := p.(type) {
		case Text:
			content = append(content, OpenAIContentPart{Type: "text", Text: p.Text})
		case Image:
			content = append(content, imageToOpenAI(p))
		case Opaque:
			content = append(content, opaqueToOpenAI(p))
		case ToolCall:
			if m.Role != RoleAssistant {
				return o, errorf(ErrInvalid, "chat: openai: message %d: parts[%d]: a tool call is not allowed in role %q", i, j, m.Role)
			}
			o.ToolCalls = append(o.ToolCalls, OpenAIToolCall{
				ID:       p.ID,
				Type:     "function",
				Function: OpenAIFunctionCall{Name: p.Name, Arguments: argumentsToOpenAI(p.Arguments)},
			})
		case Thinking:
			if m.Role != RoleAssistant {
				return o, errorf(ErrInvalid, "chat: openai: message %d: parts[%d]: thinking is not allowed in role %q", i, j, m.Role)
			}
			thinking = append(thinking, p)
		default:
			return o, errorf(ErrInvalid, "chat: openai: message %d: parts[%d]: %s is not allowed in role %q", i, j, partKind(p), m.Role)
		}
	}
	switch {
	case len(content) == 1 && content[0].Type == "text":
		o.Content = OpenAIText(content[0].Text)
	case len(content) > 0:
		o.Content.Parts = content
	}
	if len(thinking) == 1 && thinking[0].Text != "" && thinking[0].Signature == "" && thinking[0].Encrypted == "" {
		o.ReasoningContent = thinking[0].Text
	} else if len(thinking) > 0 {
		var texts []string
		for _, t := range thinking {
			o.ReasoningParts = append(o.ReasoningParts, OpenAIReasoning(t))
			if t.Text != "" {
				texts = append(texts, t.Text)
			}
		}
		o.ReasoningContent = strings.Join(texts, "\n")
	}
	return o, nil
}

// FromOpenAI converts OpenAI chat-completions messages to the message
// model: [WireReader.FromOpenAI] without options.
func FromOpenAI(msgs []OpenAIMessage) ([]Message, error) {
	return WireReader{}.FromOpenAI(msgs)
}

// FromOpenAI converts OpenAI chat-completions messages to the message model,
// reversing [ToOpenAI]: one message per wire message, an assistant
// message's parts in the order reasoning, content, tool calls. It also
// reads what other producers write:
//
//   - role "developer" becomes [RoleSystem];
//
//   - "content" as an array holding one text part becomes one [Text] part
//     (ToOpenAI writes it back as a string, which the API reads the same);
//
//   - a tool message's array content (text parts only) is joined by "\n";
//
//   - an "image_url" with a data URL becomes an [Image] placeholder whose
//     Source is the media type and whose Bytes, Width and Height are
//     measured from the data (PNG, JPEG and GIF headers) unless the
//     extension fields give them; the pixels are not kept, nor is "detail";
//
//   - tool-call arguments that are valid JSON are kept byte-for-byte;
//     others, and arguments that are a JSON string, are kept as a JSON
//     string holding the text (see [ToolCall]); empty arguments are nil;
//
//   - "total_tokens" is not kept (see [UsageFromOpenAI]).
//
//   - a content part of another type ("input_audio", "file", "refusal",
//     types to come) becomes an [Opaque] part holding it (a refusal's text
//     readable as its Text); in a tool message, the parts that are not
//     text follow the [ToolResult] as opaque parts; with r.KeepMedia an
//     image is one too, holding its data.
//
// It returns an [ErrUnsupported] error for a role or tool-call type the
// model has no counterpart for and an [ErrInvalid] error for fields on the
// wrong role (tool calls on a user message, "tool_call_id" outside a tool
// message); each names the message index and field. It never panics, and
// the result shares no memory with msgs.
func (r WireReader) FromOpenAI(msgs []OpenAIMessage) ([]Message, error) {
	out := make([]Message, 0, len(msgs))
	for i, o := range msgs {
		m, err := r.fromOpenAI(i, o)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func (r WireReader) fromOpenAI(i int, o OpenAIMessage) (Message, error) {
	var m Message
	switch o.Role {
	case "system", "developer":
		m.Role = RoleSystem
	case "user":
		m.Role = RoleUser
	case "assistant":
		m.Role = RoleAssistant
	case "tool":
		m.Role = RoleTool
	default:
		return m, errorf(ErrUnsupported, "chat: openai: messages[%d].role: %q is not supported", i, o.Role)
	}
	m.ID, m.Model = o.ID, o.Model
	if o.Usage != nil {
		u := UsageFromOpenAI(*o.Usage)
		m.Usage = &u
	}
	if m.Role != RoleAssistant {
		switch {
		case len(o.ToolCalls) > 0:
			return m, errorf(ErrInvalid, "chat: openai: messages[%d].tool_calls: only an assistant message has tool calls, not %s", i, o.Role)
		case o.ReasoningContent != "" || len(o.ReasoningParts) > 0:
			return m, errorf(ErrInvalid, "chat: openai: messages[%d].reasoning_content: only an assistant message has reasoning, not %s", i, o.Role)
		}
	}
	if m.Role == RoleTool {
		content, rest := openAIToolContent(o.Content)
		m.Parts = []Part{ToolResult{ToolCallID: o.ToolCallID, ToolName: o.Name, Content: content, IsError: o.IsError}}
		for _, p := range rest {
			m.Parts = append(m.Parts, p)
		}
		return m, nil
	}
	switch {
	case o.ToolCallID != "":
		return m, errorf(ErrInvalid, "chat: openai: messages[%d].tool_call_id: only a tool message answers a tool call, not %s", i, o.Role)
	case o.IsError:
		return m, errorf(ErrInvalid, "chat: openai: messages[%d].is_error: only a tool message has is_error, not %s", i, o.Role)
	}
	m.Name = o.Name
	if len(o.ReasoningParts) > 0 {
		for _, r := range o.ReasoningParts {
			m.Parts = append(m.Parts, Thinking(r))
		}
	} else if o.ReasoningContent != "" {
		m.Parts = append(m.Parts, Thinking{Text: o.ReasoningContent})
	}
	if o.Content.Parts != nil {
		for j, p := range o.Content.Parts {
			switch p.Type {
			case "text":
				m.Parts = append(m.Parts, Text{Text: p.Text})
			case "image_url":
				if p.ImageURL == nil {
					return m, errorf(ErrInvalid, "chat: openai: messages[%d].content[%d].image_url is missing", i, j)
				}
				if r.KeepMedia && p.Raw != nil {
					m.Parts = append(m.Parts, openAIOpaque(p))
				} else {
					m.Parts = append(m.Parts, imageFromOpenAI(p))
				}
			default:
				m.Parts = append(m.Parts, openAIOpaque(p))
			}
		}
	} else if o.Content.Text != nil {
		m.Parts = append(m.Parts, Text{Text: *o.Content.Text})
	}
	for j, c := range o.ToolCalls {
		if c.Type != "function" && c.Type != "" {
			return m, errorf(ErrUnsupported, "chat: openai: messages[%d].tool_calls[%d].type: %q is not supported", i, j, c.Type)
		}
		m.Parts = append(m.Parts, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: argumentsFromOpenAI(c.Function.Arguments)})
	}
	return m, nil
}

// openAIToolContent returns a tool message's content as one string (its
// text parts joined by "\n") and its other parts as [Opaque] parts.
func openAIToolContent(c OpenAIContent) (string, []Opaque) {
	if c.Parts == nil {
		if c.Text == nil {
			return "", nil
		}
		return *c.Text, nil
	}
	texts := make([]string, 0, len(c.Parts))
	var rest []Opaque
	for _, p := range c.Parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
			continue
		}
		rest = append(rest, openAIOpaque(p))
	}
	return strings.Join(texts, "\n"), rest
}

// openAIOpaque returns the [Opaque] part of a content part: an image (its
// tokens by its measured size), audio or a file (media), a refusal (its
// text readable), or a part of a type to come.
func openAIOpaque(p OpenAIContentPart) Opaque {
	raw := p.Raw
	if raw == nil {
		raw, _ = p.MarshalJSON()
	}
	o := Opaque{Wire: WireOpenAI, Kind: p.Type, Raw: append(json.RawMessage(nil), raw...)}
	switch p.Type {
	case "image_url":
		o.Media = true
		if p.ImageURL != nil {
			im := imageFromOpenAI(p)
			o.Tokens = ImageTokens(im.Width, im.Height)
		}
	case "input_audio", "file":
		o.Media = true
	case "refusal":
		var v struct {
			Refusal string `json:"refusal"`
		}
		_ = json.Unmarshal(raw, &v)
		o.Text = v.Refusal
	}
	return o
}

// opaqueToOpenAI returns the content part for an [Opaque] part: the part it
// holds when it came from this wire, else a text naming it.
func opaqueToOpenAI(o Opaque) OpenAIContentPart {
	if o.Wire == WireOpenAI && len(o.Raw) > 0 {
		var p OpenAIContentPart
		if json.Unmarshal(o.Raw, &p) == nil {
			return p
		}
	}
	return OpenAIContentPart{Type: "text", Text: opaqueNote(o)}
}

// argumentsToOpenAI returns tool-call arguments as the API's JSON string. A
// JSON string value stands for arguments that were not a JSON object (see
// [ToolCall]) and is sent as its content.
func argumentsToOpenAI(args json.RawMessage) string {
	if t := bytes.TrimLeft(args, " \t\r\n"); len(t) > 0 && t[0] == '"' {
		var s string
		if json.Unmarshal(args, &s) == nil {
			return s
		}
	}
	return string(args)
}

// argumentsFromOpenAI is the inverse of argumentsToOpenAI: valid JSON other
// than a string is kept as is, anything else becomes a JSON string.
func argumentsFromOpenAI(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	if t := strings.TrimLeft(s, " \t\r\n"); json.Valid([]byte(s)) && t[0] != '"' {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// imageToOpenAI returns the "image_url" part for im.
func imageToOpenAI(im Image) OpenAIContentPart {
	url := im.Source
	if isMediaType(url) {
		url = "data:" + url + ";base64,"
	}
	return OpenAIContentPart{Type: "image_url", ImageURL: &OpenAIImageURL{URL: url}, Width: im.Width, Height: im.Height, Bytes: im.Bytes}
}

// imageFromOpenAI returns the placeholder for an "image_url" part.
func imageFromOpenAI(p OpenAIContentPart) Image {
	url := p.ImageURL.URL
	var im Image
	if meta, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ","); ok && strings.HasPrefix(url, "data:") {
		mediaType, _, _ := strings.Cut(meta, ";")
		im = inlineImage(mediaType, data, strings.HasSuffix(meta, ";base64"))
	} else {
		im.Source = url
	}
	return withSize(im, p.Width, p.Height, p.Bytes)
}

// withSize sets the non-zero sizes on im, which take precedence over the
// measured ones.
func withSize(im Image, width, height, bytes int) Image {
	if width != 0 {
		im.Width = width
	}
	if height != 0 {
		im.Height = height
	}
	if bytes != 0 {
		im.Bytes = bytes
	}
	return im
}

// isMediaType reports whether an [Image.Source] is a media type ("image/png")
// standing for inline data, rather than a URL or a path.
func isMediaType(s string) bool {
	sub, ok := strings.CutPrefix(s, "image/")
	return ok && sub != "" && !strings.ContainsAny(sub, "/:;, ")
}

// inlineImage returns the placeholder for inline image data: the media type
// as its Source, the decoded size in bytes, and the width and height read
// from the header when it is PNG, JPEG or GIF.
func inlineImage(mediaType, data string, isBase64 bool) Image {
	im := Image{Source: mediaType}
	if !isBase64 {
		im.Bytes = len(data)
		return im
	}
	im.Bytes = base64.RawStdEncoding.DecodedLen(len(strings.TrimRight(data, "=")))
	if data != "" {
		r := base64.NewDecoder(base64.StdEncoding, strings.NewReader(data))
		if cfg, _, err := image.DecodeConfig(r); err == nil {
			im.Width, im.Height = cfg.Width, cfg.Height
		}
	}
	return im
}

// partKind names a part's type for error messages.
func partKind(p Part) string {
	switch p := p.(type) {
	case Text:
		return "text"
	case ToolCall:
		return "a tool call"
	case ToolResult:
		return "a tool result"
	case Thinking:
		return "thinking"
	case Image:
		return "an image"
	case Opaque:
		return "an opaque " + p.Kind
	case nil:
		return "a nil part"
	}
	return "an unknown part"
}
