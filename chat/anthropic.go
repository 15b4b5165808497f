package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// This file follows the Anthropic Messages API reference
// (https://docs.anthropic.com/en/api/messages: the "system" and "messages"
// request parameters, content blocks, and the response's "usage").

// AnthropicMessage is one element of the Anthropic Messages API "messages"
// array, in the field names of the wire JSON. Role is "user" or
// "assistant"; the system prompt is a separate request parameter (see
// [ToAnthropic]).
//
// ID, Model and Usage are fields of the API's response message, not of a
// request message: [ToAnthropic] sets them on assistant messages so that
// [FromAnthropic] can restore [Message.ID], Model and Usage, and
// [AnthropicMessage.ForRequest] clears them.
//
// Like [Message], it is plain data: safe to read from several goroutines,
// not to modify while others read it.
type AnthropicMessage struct {
	Role    string           `json:"role"`
	Content AnthropicContent `json:"content"`
	ID      string           `json:"id,omitempty"`
	Model   string           `json:"model,omitempty"`
	Usage   *AnthropicUsage  `json:"usage,omitempty"`
}

// AnthropicContent is a list of content blocks: a message's "content" or
// the "system" parameter. The API also accepts a plain string for either;
// UnmarshalJSON reads it as one text block. It is always written as an
// array (nil as []).
type AnthropicContent []AnthropicBlock

// MarshalJSON writes c as an array of blocks.
//
// The blocks are joined as their MarshalJSON writes them, compact (a
// block kept as read, Raw, is compacted here as encoding/json would):
// encoding/json would check and compact each once more, a pass over
// every byte of a conversation's text and tool output at each level of
// nesting (issue 29). The bytes are those of encoding/json's array
// (TestAnthropicContentJSONBytes), and so are the errors: a block's,
// wrapped in a *json.MarshalerError.
func (c AnthropicContent) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("[]"), nil
	}
	out := []byte{'['}
	for i := range c {
		b, err := c[i].MarshalJSON()
		if err == nil && c[i].Raw != nil && !modeledBlock(c[i].Type) {
			var buf bytes.Buffer
			if err = json.Compact(&buf, b); err == nil {
				b = buf.Bytes()
			}
		}
		if err != nil {
			return nil, &json.MarshalerError{Type: reflect.TypeFor[AnthropicBlock](), Err: err}
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	return append(out, ']'), nil
}

// UnmarshalJSON reads an array of blocks, a string (one text block) or
// null, as encoding/json reads them, with internal/jsonx's fast path:
// encoding/json checks each nested value again before an UnmarshalJSON
// method decodes it, a pass over the whole text at each level (a block,
// a tool result's content; issue 29).
func (c *AnthropicContent) UnmarshalJSON(data []byte) error {
	*c = nil
	switch t := bytes.TrimLeft(data, " \t\r\n"); {
	case len(t) > 0 && t[0] == 'n':
		return nil // null
	case len(t) > 0 && t[0] == '"':
		var s string
		if err := jsonx.Unmarshal(data, &s); err != nil {
			return err
		}
		*c = AnthropicContent{{Type: "text", Text: s}}
		return nil
	}
	var blocks []AnthropicBlock
	if err := jsonx.Unmarshal(data, &blocks); err != nil {
		return err
	}
	if blocks == nil {
		blocks = []AnthropicBlock{}
	}
	*c = blocks
	return nil
}

// AnthropicBlock is one content block. Type says which fields apply:
//
//   - "text": Text.
//   - "tool_use": ID, Name, Input (the arguments object; nil is written as {}).
//   - "tool_result": ToolUseID, IsError, and the content, which the API
//     takes as a string (Content) or as an array of text and image blocks
//     (ContentBlocks, used when non-nil).
//   - "thinking": Thinking, Signature.
//   - "redacted_thinking": Data.
//   - "image": Source.
//
// The rest are agentctx extensions, written only when non-zero: ToolName on
// a tool_result ("tool_name") when it differs from the name of the call it
// answers; Width, Height and Bytes on an image ("width", "height",
// "bytes"), the [Image] placeholder's size; Thinking and Signature on a
// redacted_thinking block, when the [Thinking] it stands for had them.
// [AnthropicMessage.ForRequest] clears them.
//
// Block types the model has no counterpart for ("document",
// "server_tool_use", …) are read, but [FromAnthropic] reports them as
// [ErrUnsupported]. Fields such as "cache_control" and "citations" are not
// kept.
type AnthropicBlock struct {
	Type string `json:"type"`

	Text string `json:"text,omitempty"`

	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	ToolUseID     string           `json:"tool_use_id,omitempty"`
	Content       string           `json:"content,omitempty"`
	ContentBlocks []AnthropicBlock `json:"-"`
	IsError       bool             `json:"is_error,omitempty"`

	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`

	Data string `json:"data,omitempty"`

	Source *AnthropicImageSource `json:"source,omitempty"`

	ToolName string `json:"tool_name,omitempty"`
	Width    int    `json:"width,omitempty"`
	Height   int    `json:"height,omitempty"`
	Bytes    int    `json:"bytes,omitempty"`

	// Raw is the block's JSON as read, kept for the types the message
	// model does not interpret field by field (every type but text,
	// tool_use, tool_result, thinking and redacted_thinking: images,
	// documents, search results, tool references, server tool blocks,
	// compaction, types yet to come). MarshalJSON writes it back byte for
	// byte; clear it to write an image from its fields.
	Raw json.RawMessage `json:"-"`
}

// modeledBlock reports whether blocks of type t are read field by field,
// without keeping their JSON.
func modeledBlock(t string) bool {
	switch t {
	case "text", "tool_use", "tool_result", "thinking", "redacted_thinking":
		return true
	}
	return false
}

// MarshalJSON writes the fields of b's type, as the API names them; a
// block of a type the message model does not interpret, read with its
// JSON kept (Raw), is written as it was read.
func (b AnthropicBlock) MarshalJSON() ([]byte, error) {
	if b.Raw != nil && !modeledBlock(b.Type) {
		return b.Raw, nil
	}
	switch b.Type {
	case "text":
		return jsonx.MarshalNoEscape(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{b.Type, b.Text})
	case "tool_use":
		input := b.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		return jsonx.MarshalNoEscape(struct {
			Type  string          `json:"type"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		}{b.Type, b.ID, b.Name, input})
	case "tool_result":
		var content any = b.Content
		if b.ContentBlocks != nil {
			content = b.ContentBlocks
		}
		return jsonx.MarshalNoEscape(struct {
			Type      string `json:"type"`
			ToolUseID string `json:"tool_use_id"`
			Content   any    `json:"content"`
			IsError   bool   `json:"is_error,omitempty"`
			ToolName  string `json:"tool_name,omitempty"`
		}{b.Type, b.ToolUseID, content, b.IsError, b.ToolName})
	case "thinking":
		return jsonx.MarshalNoEscape(struct {
			Type      string `json:"type"`
			Thinking  string `json:"thinking"`
			Signature string `json:"signature"`
		}{b.Type, b.Thinking, b.Signature})
	case "redacted_thinking":
		return jsonx.MarshalNoEscape(struct {
			Type      string `json:"type"`
			Data      string `json:"data"`
			Thinking  string `json:"thinking,omitempty"`
			Signature string `json:"signature,omitempty"`
		}{b.Type, b.Data, b.Thinking, b.Signature})
	case "image":
		return jsonx.MarshalNoEscape(struct {
			Type   string                `json:"type"`
			Source *AnthropicImageSource `json:"source"`
			Width  int                   `json:"width,omitempty"`
			Height int                   `json:"height,omitempty"`
			Bytes  int                   `json:"bytes,omitempty"`
		}{b.Type, b.Source, b.Width, b.Height, b.Bytes})
	}
	type plain AnthropicBlock // without this method
	return jsonx.MarshalNoEscape(plain(b))
}

// UnmarshalJSON reads a block, including a tool_result's content in either
// form.
func (b *AnthropicBlock) UnmarshalJSON(data []byte) error {
	type plain AnthropicBlock // without this method
	var v struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := jsonx.Unmarshal(data, &v); err != nil {
		// A block of a type the model does not interpret may use the
		// field names of others with other types ("source" as a string
		// in a search result): it is carried as it is.
		var probe struct {
			Type string `json:"type"`
		}
		if jsonx.Unmarshal(data, &probe) != nil || modeledBlock(probe.Type) || probe.Type == "image" {
			return err
		}
		*b = AnthropicBlock{Type: probe.Type, Raw: append(json.RawMessage(nil), bytes.TrimSpace(data)...)}
		return nil
	}
	*b = AnthropicBlock(v.plain)
	// The fast decoder's json.RawMessage points into data, which the
	// caller may reuse: the block keeps a copy.
	b.Input = bytes.Clone(b.Input)
	if !modeledBlock(b.Type) {
		b.Raw = append(json.RawMessage(nil), bytes.TrimSpace(data)...)
		return nil // its "content", if any, is not a tool_result's
	}
	switch t := bytes.TrimLeft(v.Content, " \t\r\n"); {
	case len(t) == 0 || t[0] == 'n':
	case t[0] == '"':
		return jsonx.Unmarshal(v.Content, &b.Content)
	case t[0] == '[':
		if err := jsonx.Unmarshal(v.Content, &b.ContentBlocks); err != nil {
			return err
		}
		if b.ContentBlocks == nil {
			b.ContentBlocks = []AnthropicBlock{}
		}
	default:
		return errorf(ErrInvalid, "chat: anthropic block content is not a string, an array or null")
	}
	return nil
}

// AnthropicImageSource is an image block's "source": Type "base64" with
// MediaType and Data, "url" with URL, or "file" with FileID (which
// [FromAnthropic] reports as [ErrUnsupported]).
type AnthropicImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
	FileID    string `json:"file_id,omitempty"`
}

// MarshalJSON writes the fields of s's type; a base64 source always has
// "media_type" and "data".
func (s AnthropicImageSource) MarshalJSON() ([]byte, error) {
	if s.Type == "base64" {
		return jsonx.MarshalNoEscape(struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		}{s.Type, s.MediaType, s.Data})
	}
	type plain AnthropicImageSource // without this method
	return jsonx.MarshalNoEscape(plain(s))
}

// AnthropicUsage is the "usage" object of an Anthropic response, in tokens.
// InputTokens excludes the tokens read from or written to the prompt cache,
// which are counted apart.
type AnthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// UsageFromAnthropic converts an Anthropic usage object. The fields map one
// to one: Anthropic's input_tokens already excludes the cache, as
// [Usage.InputTokens] does.
func UsageFromAnthropic(u AnthropicUsage) Usage {
	return Usage{
		InputTokens:      u.InputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}
}

// UsageToAnthropic converts u to an Anthropic usage object.
// [Usage.ReasoningTokens] has no Anthropic field (reasoning is part of
// output_tokens) and is dropped.
func UsageToAnthropic(u Usage) AnthropicUsage {
	return AnthropicUsage{
		InputTokens:              u.InputTokens,
		OutputTokens:             u.OutputTokens,
		CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens:     u.CacheReadTokens,
	}
}

// ForRequest returns m as a request accepts it: without the response fields
// ID, Model and Usage and without the agentctx extension fields of its
// blocks. m is not modified.
func (m AnthropicMessage) ForRequest() AnthropicMessage {
	m.ID, m.Model, m.Usage = "", "", nil
	m.Content = blocksForRequest(m.Content)
	return m
}

func blocksForRequest(blocks []AnthropicBlock) []AnthropicBlock {
	if blocks == nil {
		return nil
	}
	out := make([]AnthropicBlock, len(blocks))
	for i, b := range blocks {
		b.ToolName, b.Width, b.Height, b.Bytes = "", 0, 0, 0
		if b.Type == "redacted_thinking" {
			b.Thinking, b.Signature = "", ""
		}
		b.ContentBlocks = blocksForRequest(b.ContentBlocks)
		out[i] = b
	}
	return out
}

// ToAnthropic converts msgs to the Anthropic Messages shape: the system
// prompt and the messages.
//
//   - The leading system messages become the system blocks (their text and
//     image parts, in order). A system message after any other message
//     becomes a message of role "system" in place (as Claude Code's newer
//     models send them).
//   - An [Opaque] part of the Anthropic wire is written as the block it
//     holds, byte for byte; one of another wire as a text block naming it.
//     A tool message's opaque parts follow its text in the tool_result's
//     content array.
//   - Consecutive messages that map to the same wire role merge into one
//     wire message, since the API wants user and assistant turns to
//     alternate. Tool messages map to the user role, so a run of tool
//     messages and user messages becomes one user message with the
//     tool_result blocks first (as the API requires) and the text and image
//     blocks after them, each group in order.
//   - [Text] becomes "text", [ToolCall] "tool_use" with the arguments as
//     "input", [ToolResult] "tool_result" with the content as a string and
//     "is_error", [Thinking] "thinking" (or "redacted_thinking" when it has
//     Encrypted), [Image] "image" with a "url" source, or a "base64" source
//     with no data when [Image.Source] is a media type such as "image/png";
//     its size goes in the block's extension fields.
//   - An assistant message's ID, Model and Usage (by [UsageToAnthropic]) go
//     on its wire message; when assistant messages merge, each field is
//     taken from the last message that has it.
//
// Not kept: [Message.Name], the ID, Model and Usage of user and tool
// messages, [Usage.ReasoningTokens]; [ToolResult.ToolName] only when it
// differs from the name of the call it answers (the most recent
// unanswered tool_use with its id, as [Pair] matches), which
// [FromAnthropic] restores. Nil arguments are sent as {}.
//
// ToAnthropic returns an [ErrInvalid] error, naming the message index and
// part, for an unknown role, a tool message that does not hold exactly one
// ToolResult, a ToolCall or Thinking outside an assistant message, a
// ToolResult outside a tool message, or a nil part. The result shares no
// memory with msgs.
func ToAnthropic(msgs []Message) (system AnthropicContent, out []AnthropicMessage, err error) {
	i := 0
	for ; i < len(msgs) && msgs[i].Role == RoleSystem; i++ {
		for j, p := range msgs[i].Parts {
			b, ok := contentToAnthropic(p)
			if !ok {
				return nil, nil, errorf(ErrInvalid, "chat: anthropic: message %d: parts[%d]: a system message holds text and images, not %s", i, j, partKind(p))
			}
			system = append(system, b)
		}
	}
	calls := callNames{}
	var cur *AnthropicMessage
	var results []AnthropicBlock // tool_result blocks of the current user message
	flush := func() {
		if cur != nil && cur.Role == "user" && len(results) > 0 {
			cur.Content = append(results, cur.Content...)
		}
		results = nil
	}
	for ; i < len(msgs); i++ {
		m := msgs[i]
		role := "user"
		switch m.Role {
		case RoleAssistant:
			role = "assistant"
		case RoleSystem:
			role = "system"
		}
		if !m.Role.Valid() {
			return nil, nil, errorf(ErrInvalid, "chat: anthropic: message %d: role %q is not valid", i, m.Role)
		}
		if cur == nil || cur.Role != role {
			flush()
			out = append(out, AnthropicMessage{Role: role})
			cur = &out[len(out)-1]
		}
		switch m.Role {
		case RoleAssistant:
			if m.ID != "" {
				cur.ID = m.ID
			}
			if m.Model != "" {
				cur.Model = m.Model
			}
			if m.Usage != nil {
				u := UsageToAnthropic(*m.Usage)
				cur.Usage = &u
			}
			for j, p := range m.Parts {
				var b AnthropicBlock
				switch p := p.(type) {
				case ToolCall:
					calls.push(p.ID, p.Name)
					input := append(json.RawMessage{}, p.Arguments...)
					if len(input) == 0 {
						input = json.RawMessage("{}")
					}
					b = AnthropicBlock{Type: "tool_use", ID: p.ID, Name: p.Name, Input: input}
				case Thinking:
					if p.Encrypted != "" {
						b = AnthropicBlock{Type: "redacted_thinking", Data: p.Encrypted, Thinking: p.Text, Signature: p.Signature}
					} else {
						b = AnthropicBlock{Type: "thinking", Thinking: p.Text, Signature: p.Signature}
					}
				default:
					var ok bool
					if b, ok = contentToAnthropic(p); !ok {
						return nil, nil, errorf(ErrInvalid, "chat: anthropic: message %d: parts[%d]: %s in an assistant message", i, j, partKind(p))
					}
				}
				cur.Content = append(cur.Content, b)
			}
		case RoleUser, RoleSystem:
			for j, p := range m.Parts {
				b, ok := contentToAnthropic(p)
				if !ok {
					return nil, nil, errorf(ErrInvalid, "chat: anthropic: message %d: parts[%d]: a %s message holds text, images and opaque blocks, not %s", i, j, m.Role, partKind(p))
				}
				cur.Content = append(cur.Content, b)
			}
		case RoleTool:
			r, attached, err := m.ToolParts()
			if err != nil {
				return nil, nil, prefixed(err, "chat: anthropic: message %d", i)
			}
			b := AnthropicBlock{Type: "tool_result", ToolUseID: r.ToolCallID, Content: r.Content, IsError: r.IsError}
			if len(attached) > 0 {
				b.ContentBlocks = make([]AnthropicBlock, 0, len(attached)+1)
				if r.Content != "" {
					b.ContentBlocks = append(b.ContentBlocks, AnthropicBlock{Type: "text", Text: r.Content})
				}
				for _, o := range attached {
					ob, _ := contentToAnthropic(o)
					b.ContentBlocks = append(b.ContentBlocks, ob)
				}
			}
			if name := calls.pop(r.ToolCallID); r.ToolName != name {
				b.ToolName = r.ToolName
			}
			results = append(results, b)
		}
	}
	flush()
	return system, out, nil
}

// contentToAnthropic returns the block for a Text or Image part.
func contentToAnthropic(p Part) (AnthropicBlock, bool) {
	switch p := p.(type) {
	case Text:
		return AnthropicBlock{Type: "text", Text: p.Text}, true
	case Image:
		src := &AnthropicImageSource{Type: "url", URL: p.Source}
		if p.Source == "" || isMediaType(p.Source) {
			src = &AnthropicImageSource{Type: "base64", MediaType: p.Source}
		}
		return AnthropicBlock{Type: "image", Source: src, Width: p.Width, Height: p.Height, Bytes: p.Bytes}, true
	case Opaque:
		if p.Wire == WireAnthropic && len(p.Raw) > 0 {
			return AnthropicBlock{Type: p.Kind, Raw: append(json.RawMessage(nil), p.Raw...)}, true
		}
		// An element of another wire has no Anthropic form: the model
		// reads what is known of it.
		return AnthropicBlock{Type: "text", Text: opaqueNote(p)}, true
	}
	return AnthropicBlock{}, false
}

// opaqueNote is the text that stands for an [Opaque] part in a wire it did
// not come from.
func opaqueNote(o Opaque) string {
	note := "[" + o.Wire + " " + o.Kind + "]"
	if o.Text != "" {
		note += " " + o.Text
	}
	return note
}

// FromAnthropic converts an Anthropic system prompt and messages to the
// message model: [WireReader.FromAnthropic] without options.
func FromAnthropic(system AnthropicContent, msgs []AnthropicMessage) ([]Message, error) {
	return WireReader{}.FromAnthropic(system, msgs)
}

// FromAnthropic converts an Anthropic system prompt and messages to the
// message model, reversing [ToAnthropic]:
//
//   - non-empty system blocks become one [RoleSystem] message, and so does
//     a message of role "system" inside "messages" (Claude Code's newer
//     models send one), in its place;
//   - an assistant message becomes one assistant message with its blocks
//     as parts in order, and its ID, Model and Usage (by
//     [UsageFromAnthropic]);
//   - a user message becomes one [RoleTool] message per tool_result block,
//     in order, followed by a user message with the remaining blocks
//     (when there are any, or when there was no tool_result). A tool
//     result's ToolName is the "tool_name" extension, or else the name of
//     the call it answers (the most recent unanswered tool_use with its
//     id); a tool_result whose content is an array has its text blocks
//     joined by "\n" as its content, and its other blocks (images,
//     tool_reference, search results, documents) follow the [ToolResult]
//     as [Opaque] parts of the tool message;
//   - an image with a base64 source becomes an [Image] placeholder whose
//     Source is the media type and whose Bytes, Width and Height are
//     measured from the data (PNG, JPEG and GIF headers) unless the
//     extension fields give them; the data itself is not kept. With
//     r.KeepMedia it becomes an [Opaque] part holding the block, its
//     Tokens by [ImageTokens] of the measured size;
//   - every other block type ("document", "search_result",
//     "server_tool_use", "web_search_tool_result", "compaction", "mcp_*",
//     types yet to come) becomes an [Opaque] part holding the block byte
//     for byte; a "compaction" block (Anthropic's server-side compaction:
//     its "content" is the summary) is a [Opaque].Boundary.
//
// So Anthropic → model → Anthropic gives back the original messages
// (content given as a string comes back as one text block, a tool_result's
// array content as a string followed by its other blocks, inline image data
// as empty data unless kept).
//
// It returns an [ErrInvalid] error for a role other than user, assistant
// or system and for blocks on the wrong role (tool_use in a user message),
// each naming the message index and block. It never panics, and the result
// shares no memory with its input.
func (r WireReader) FromAnthropic(system AnthropicContent, msgs []AnthropicMessage) ([]Message, error) {
	var out []Message
	if len(system) > 0 {
		m := Message{Role: RoleSystem}
		for j, b := range system {
			p, err := r.contentFromAnthropic(b)
			if err != nil {
				return nil, prefixed(err, "chat: anthropic: system[%d]", j)
			}
			m.Parts = append(m.Parts, p)
		}
		out = append(out, m)
	}
	calls := callNames{}
	for i, w := range msgs {
		switch w.Role {
		case "assistant":
			m := Message{Role: RoleAssistant, ID: w.ID, Model: w.Model}
			if w.Usage != nil {
				u := UsageFromAnthropic(*w.Usage)
				m.Usage = &u
			}
			for j, b := range w.Content {
				var p Part
				switch b.Type {
				case "tool_use":
					calls.push(b.ID, b.Name)
					var args json.RawMessage
					if b.Input != nil {
						args = append(json.RawMessage{}, b.Input...)
					}
					p = ToolCall{ID: b.ID, Name: b.Name, Arguments: args}
				case "thinking":
					p = Thinking{Text: b.Thinking, Signature: b.Signature}
				case "redacted_thinking":
					p = Thinking{Text: b.Thinking, Signature: b.Signature, Encrypted: b.Data}
				case "tool_result":
					return nil, errorf(ErrInvalid, "chat: anthropic: messages[%d].content[%d]: a tool_result belongs in a user message", i, j)
				default:
					var err error
					if p, err = r.contentFromAnthropic(b); err != nil {
						return nil, prefixed(err, "chat: anthropic: messages[%d].content[%d]", i, j)
					}
				}
				m.Parts = append(m.Parts, p)
			}
			out = append(out, m)
		case "user", "system":
			role := RoleUser
			if w.Role == "system" {
				role = RoleSystem
			}
			user := Message{Role: role}
			tools := 0
			for j, b := range w.Content {
				switch b.Type {
				case "tool_result":
					if role == RoleSystem {
						return nil, errorf(ErrInvalid, "chat: anthropic: messages[%d].content[%d]: a tool_result belongs in a user message", i, j)
					}
					content, rest, err := r.toolResultContent(b)
					if err != nil {
						return nil, prefixed(err, "chat: anthropic: messages[%d].content[%d]", i, j)
					}
					name := calls.pop(b.ToolUseID)
					if b.ToolName != "" {
						name = b.ToolName
					}
					m := NewToolResult(b.ToolUseID, name, content, b.IsError)
					for _, o := range rest {
						m.Parts = append(m.Parts, o)
					}
					out = append(out, m)
					tools++
				case "tool_use", "thinking", "redacted_thinking":
					return nil, errorf(ErrInvalid, "chat: anthropic: messages[%d].content[%d]: a %s block belongs in an assistant message", i, j, b.Type)
				default:
					p, err := r.contentFromAnthropic(b)
					if err != nil {
						return nil, prefixed(err, "chat: anthropic: messages[%d].content[%d]", i, j)
					}
					user.Parts = append(user.Parts, p)
				}
			}
			if len(user.Parts) > 0 || tools == 0 {
				out = append(out, user)
			}
		default:
			return nil, errorf(ErrInvalid, "chat: anthropic: messages[%d].role: %q is not valid, want user or assistant", i, w.Role)
		}
	}
	return out, nil
}

// contentFromAnthropic returns the part for a block of a user, system or
// assistant message other than tool_use, tool_result and thinking: a text,
// an image (a placeholder, or opaque with r.KeepMedia) or an [Opaque] part.
// Its errors are *convError, which the callers prefix with the block's
// place.
func (r WireReader) contentFromAnthropic(b AnthropicBlock) (Part, error) {
	switch b.Type {
	case "text":
		return Text{Text: b.Text}, nil
	case "image":
		s := b.Source
		var im Image
		switch {
		case s == nil:
			return nil, errorf(ErrInvalid, "image has no source")
		case s.Type == "base64":
			im = inlineImage(s.MediaType, s.Data, true)
		case s.Type == "url":
			im = Image{Source: s.URL}
		default:
			return anthropicOpaque(b), nil // a "file" source: only its id
		}
		im = withSize(im, b.Width, b.Height, b.Bytes)
		if r.KeepMedia && b.Raw != nil {
			o := anthropicOpaque(b)
			o.Tokens = ImageTokens(im.Width, im.Height)
			return o, nil
		}
		return im, nil
	case "tool_use", "tool_result", "thinking", "redacted_thinking":
		return nil, errorf(ErrInvalid, "a %s block has no place here", b.Type)
	}
	return anthropicOpaque(b), nil
}

// anthropicOpaque returns the [Opaque] part for a block the message model
// does not interpret, with the text the model reads in it where the block
// type documents one.
func anthropicOpaque(b AnthropicBlock) Opaque {
	raw := b.Raw
	if raw == nil {
		// Built in code rather than read: its fields are all there is.
		raw, _ = b.MarshalJSON()
	}
	o := Opaque{Wire: WireAnthropic, Kind: b.Type, Raw: append(json.RawMessage(nil), raw...)}
	var v struct {
		Content json.RawMessage `json:"content"`
		Source  *struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
		Title string `json:"title"`
	}
	_ = json.Unmarshal(raw, &v) // a block read from JSON always decodes
	switch b.Type {
	case "compaction":
		o.Boundary = true
		o.Text = contentText(v.Content)
	case "search_result", "web_search_tool_result", "web_fetch_tool_result":
		o.Text = strings.TrimSpace(v.Title + "\n" + contentText(v.Content))
	case "image":
		o.Media = true
		o.Tokens = MaxImageTokens
	case "document":
		o.Media = true
		switch {
		case v.Source == nil:
		case v.Source.Type == "text":
			o.Text = v.Source.Data
			o.Tokens = 1
		case v.Source.Type == "base64" && strings.Contains(v.Source.MediaType, "pdf"):
			o.Tokens = pdfPages(v.Source.Data) * PDFPageTokens
		case v.Source.Type == "content":
			o.Text = contentText(v.Content)
			o.Tokens = 1
		}
	}
	return o
}

// BlockText returns the text a block carries: its "text", else the text of
// its "content" (a string, or the "text" of the blocks of an array,
// nested arrays included), read from the block's JSON for a type the
// model does not interpret; "" when it has none.
func BlockText(b AnthropicBlock) string {
	switch {
	case b.Text != "":
		return b.Text
	case b.Content != "":
		return b.Content
	case b.ContentBlocks != nil:
		var parts []string
		for _, c := range b.ContentBlocks {
			if t := BlockText(c); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	case b.Raw != nil:
		var v struct {
			Text    string          `json:"text"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(b.Raw, &v) == nil {
			if v.Text != "" {
				return v.Text
			}
			return contentText(v.Content)
		}
	}
	return ""
}

// contentText returns the text of a block's "content": a string, or the
// "text" of the blocks of an array (nested "content" arrays included).
func contentText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	if t[0] == '"' {
		var s string
		_ = json.Unmarshal(t, &s)
		return s
	}
	var items []struct {
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(t, &items) != nil {
		return ""
	}
	var parts []string
	for _, it := range items {
		if it.Text != "" {
			parts = append(parts, it.Text)
		}
		if s := contentText(it.Content); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// pdfPages counts the pages of a base64 PDF by its page objects ("/Type
// /Page", not "/Pages"); at least 1.
func pdfPages(data string) int {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return max(1, len(data)/4096) // not decodable: a page per 3 KB
	}
	n := 0
	for i := 0; ; {
		k := bytes.Index(raw[i:], []byte("/Type"))
		if k < 0 {
			break
		}
		i += k + len("/Type")
		rest := bytes.TrimLeft(raw[i:], " \r\n\t")
		if bytes.HasPrefix(rest, []byte("/Page")) && !bytes.HasPrefix(rest, []byte("/Pages")) {
			n++
		}
	}
	return max(n, 1)
}

// toolResultContent returns a tool_result's content as one string, the
// text of its text blocks joined by "\n", and its other blocks as
// [Opaque] parts in order.
func (r WireReader) toolResultContent(b AnthropicBlock) (string, []Opaque, error) {
	if b.ContentBlocks == nil {
		return b.Content, nil, nil
	}
	texts := make([]string, 0, len(b.ContentBlocks))
	var rest []Opaque
	for _, c := range b.ContentBlocks {
		if c.Type == "text" {
			texts = append(texts, c.Text)
			continue
		}
		o := anthropicOpaque(c)
		if c.Type == "image" {
			if c.Source != nil && c.Source.Type == "base64" {
				im := withSize(inlineImage(c.Source.MediaType, c.Source.Data, true), c.Width, c.Height, c.Bytes)
				o.Tokens = ImageTokens(im.Width, im.Height)
			}
		}
		rest = append(rest, o)
	}
	return strings.Join(texts, "\n"), rest, nil
}

// callNames tracks the names of unanswered tool calls per id, so that a
// result is matched with the most recent unanswered call of its id, as
// [Pair] does.
type callNames map[string][]string

func (c callNames) push(id, name string) {
	c[id] = append(c[id], name)
}

func (c callNames) pop(id string) string {
	s := c[id]
	if len(s) == 0 {
		return ""
	}
	c[id] = s[:len(s)-1]
	return s[len(s)-1]
}
