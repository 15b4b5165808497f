package chat

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// This file follows the OpenAI Responses API reference
// (https://platform.openai.com/docs/api-reference/responses/create): the
// request's "input" items and the response's "usage".

// ResponsesItem is one element of a Responses API "input" array, in the
// field names of the wire JSON: a message ({"type": "message", "role",
// "content"}; "type" may be left out), a reasoning item, a function or
// custom tool call, or their outputs. Fields of the other item types are
// not modelled: [FromResponses] refuses those items.
type ResponsesItem struct {
	Type    string          `json:"type,omitempty"`
	ID      string          `json:"id,omitempty"`
	Role    string          `json:"role,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
	// Function and custom tool calls.
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Input     string `json:"input,omitempty"`
	// Outputs: a string or an array of content items.
	Output json.RawMessage `json:"output,omitempty"`
	// Reasoning.
	Summary          json.RawMessage `json:"summary,omitempty"`
	EncryptedContent string          `json:"encrypted_content,omitempty"`

	// Raw is the item's JSON as read, kept for the item types the message
	// model does not interpret field by field (every type but message,
	// reasoning, function_call, custom_tool_call and their outputs:
	// additional_tools, compaction, web_search_call, local_shell_call,
	// computer_call, mcp_*, item_reference, types yet to come), and written
	// back byte for byte by MarshalJSON.
	Raw json.RawMessage `json:"-"`
}

// modeledItem reports whether items of type t are read field by field.
func modeledItem(t string) bool {
	switch t {
	case "message", "", "reasoning", "function_call", "custom_tool_call", "function_call_output", "custom_tool_call_output":
		return true
	}
	return false
}

// UnmarshalJSON reads an item; one of a type the model does not interpret
// keeps its JSON in Raw (and only its type and id are read: its fields may
// have other types than the modelled items' fields of the same name). It
// reads as encoding/json does, with internal/jsonx's fast path, and the
// item's fields first: encoding/json checked the whole item again for
// each of its two reads, a tool output scanned four times (issue 29).
func (it *ResponsesItem) UnmarshalJSON(data []byte) error {
	type plain ResponsesItem // without this method
	var v plain
	err := jsonx.Unmarshal(data, &v)
	if err == nil && modeledItem(v.Type) {
		*it = ResponsesItem(v)
		// The fast decoder's json.RawMessage points into data, which
		// the caller may reuse: the item keeps copies.
		it.Content, it.Output, it.Summary = bytes.Clone(it.Content), bytes.Clone(it.Output), bytes.Clone(it.Summary)
		return nil
	}
	var probe struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Role string `json:"role"`
	}
	if perr := jsonx.Unmarshal(data, &probe); perr != nil {
		return perr
	}
	if !modeledItem(probe.Type) {
		*it = ResponsesItem{Type: probe.Type, ID: probe.ID, Role: probe.Role, Raw: append(json.RawMessage(nil), bytes.TrimSpace(data)...)}
		return nil
	}
	return err
}

// MarshalJSON writes the item's fields, or Raw byte for byte for an item
// of a type the model does not interpret.
func (it ResponsesItem) MarshalJSON() ([]byte, error) {
	if it.Raw != nil && !modeledItem(it.Type) {
		return it.Raw, nil
	}
	type plain ResponsesItem // without this method
	return jsonx.MarshalNoEscape(plain(it))
}

// ResponsesUsage is the "usage" of a Responses API response, in tokens.
// InputTokens includes the cached ones.
type ResponsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// UsageFromResponses converts a Responses API usage: [Usage.InputTokens]
// is input_tokens less the cached ones, as for [UsageFromOpenAI].
func UsageFromResponses(u ResponsesUsage) Usage {
	cached := u.InputTokensDetails.CachedTokens
	return Usage{
		InputTokens:     max(u.InputTokens-cached, 0),
		OutputTokens:    u.OutputTokens,
		CacheReadTokens: cached,
		ReasoningTokens: u.OutputTokensDetails.ReasoningTokens,
	}
}

// IsAssistantSide reports whether the item is model output: an assistant
// message, reasoning, or a tool call. Consecutive model-output items are
// one model response, one assistant [Message].
//
// Items the model does not interpret count as model output unless they
// name another role: server-side tool calls and their outputs
// (web_search_call, local_shell_call and local_shell_call_output,
// computer_call and computer_call_output, mcp_call …), provider-written
// compaction and item references stay with the response they belong to.
// An additional_tools item (Codex's tool list, role "developer") is a
// system message.
func (it ResponsesItem) IsAssistantSide() bool {
	switch it.Type {
	case "reasoning", "function_call", "custom_tool_call":
		return true
	case "message", "":
		return it.Role == "assistant"
	case "function_call_output", "custom_tool_call_output", "additional_tools":
		return false
	}
	return it.Role == "" || it.Role == "assistant"
}

// FromResponses converts one Responses API input item to the message
// model:
//
//   - a message becomes a message of its role ("developer" and "system"
//     are [RoleSystem]), its text parts joined by "\n", an image part an
//     [Image] placeholder (its data is not kept);
//   - reasoning becomes a [Thinking] part (summary texts joined, the
//     encrypted content kept);
//   - a function call becomes a [ToolCall] with its arguments as JSON (a
//     JSON string when they are not valid JSON); a custom tool call, whose
//     input is free text, a [ToolCall] with the arguments {"input": text};
//   - a function or custom tool call output becomes a [RoleTool] message
//     with one [ToolResult] (text parts of an array output joined).
//
// Assistant-side items give an assistant message holding one part (or the
// message's text): join consecutive ones with [Message] Parts to make one
// response. It returns an [ErrUnsupported] error for other item types
// (web search, shell, computer use, item references …) and content part
// types, naming them.
func FromResponses(it ResponsesItem) (Message, error) {
	return WireReader{}.FromResponses(it)
}

// FromResponses converts one Responses API input item as the package's
// [FromResponses] does; with r.KeepMedia an image, file or audio content
// part is an [Opaque] part holding its JSON rather than an [Image]
// placeholder.
func (r WireReader) FromResponses(it ResponsesItem) (Message, error) {
	switch it.Type {
	case "message", "":
		var role Role
		switch it.Role {
		case "user":
			role = RoleUser
		case "assistant":
			role = RoleAssistant
		case "system", "developer":
			role = RoleSystem
		default:
			return Message{}, errorf(ErrUnsupported, "chat: responses: message role %q is not supported", it.Role)
		}
		parts, err := r.responsesContent(it.Content)
		if err != nil {
			return Message{}, err
		}
		m := Message{Role: role, Parts: parts}
		if role != RoleAssistant {
			m.ID = it.ID // written back by ToResponses
		}
		return m, nil
	case "reasoning":
		var texts []string
		var sum []struct {
			Text string `json:"text"`
		}
		if len(it.Summary) > 0 {
			if err := jsonx.Unmarshal(it.Summary, &sum); err != nil {
				return Message{}, errorf(ErrInvalid, "chat: responses: reasoning summary: %v", err)
			}
		}
		for _, s := range sum {
			texts = append(texts, s.Text)
		}
		return Message{Role: RoleAssistant, Parts: []Part{Thinking{Text: strings.Join(texts, "\n"), Encrypted: it.EncryptedContent}}}, nil
	case "function_call":
		args := json.RawMessage(it.Arguments)
		if !jsonx.Valid(args) {
			args, _ = json.Marshal(it.Arguments) // a string always marshals
		}
		return Message{Role: RoleAssistant, Parts: []Part{ToolCall{ID: it.CallID, Name: it.Name, Arguments: args}}}, nil
	case "custom_tool_call":
		args, _ := json.Marshal(struct {
			Input string `json:"input"`
		}{it.Input}) // a struct of one string always marshals
		return Message{Role: RoleAssistant, Parts: []Part{ToolCall{ID: it.CallID, Name: it.Name, Arguments: args}}}, nil
	case "function_call_output", "custom_tool_call_output":
		text, rest, err := r.responsesOutput(it.Output)
		if err != nil {
			return Message{}, err
		}
		m := Message{Role: RoleTool, ID: it.ID, Parts: []Part{ToolResult{ToolCallID: it.CallID, Content: text}}}
		for _, o := range rest {
			m.Parts = append(m.Parts, o)
		}
		return m, nil
	}
	o := responsesItemOpaque(it)
	role := RoleAssistant
	switch {
	case it.Type == "additional_tools" || it.Role == "developer" || it.Role == "system":
		role = RoleSystem
	case it.Role == "user":
		role = RoleUser
	}
	return Message{Role: role, Parts: []Part{o}}, nil
}

// responsesItemOpaque returns the [Opaque] part of an item the model does
// not interpret.
func responsesItemOpaque(it ResponsesItem) Opaque {
	raw := it.Raw
	if raw == nil {
		raw, _ = it.MarshalJSON()
	}
	o := Opaque{Wire: WireResponses, Kind: it.Type, Raw: append(json.RawMessage(nil), raw...)}
	switch it.Type {
	case "compaction":
		// Opaque by design: encrypted_content carries the state
		// (the "Context management" guide).
		o.Boundary = true
	case "additional_tools":
		// The tool list: counted as its JSON, pinned like "tools".
		o.Pinned = true
	}
	return o
}

// responsesContent reads a message's content: a string or an array of
// parts. Text parts (input_text, output_text, text, refusal) are joined
// in one [Text] part; an input_image is an [Image] placeholder (an
// [Opaque] part with r.KeepMedia); every other part type (input_file,
// input_audio, types yet to come) is an [Opaque] part, in order after the
// text.
func (r WireReader) responsesContent(raw json.RawMessage) ([]Part, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if maybeString(raw) && jsonx.Unmarshal(raw, &s) == nil {
		return []Part{Text{Text: s}}, nil
	}
	var items []json.RawMessage
	if err := jsonx.Unmarshal(raw, &items); err != nil {
		return nil, errorf(ErrInvalid, "chat: responses: message content: %v", err)
	}
	var texts []string
	var rest []Part
	for i, item := range items {
		var p struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Refusal  string `json:"refusal"`
			ImageURL string `json:"image_url"`
		}
		if err := jsonx.Unmarshal(item, &p); err != nil {
			// A part of a type to come, whose fields are not ours.
			var probe struct {
				Type string `json:"type"`
			}
			if jsonx.Unmarshal(item, &probe) != nil {
				return nil, errorf(ErrInvalid, "chat: responses: content[%d]: %v", i, err)
			}
			p.Type = probe.Type
		}
		switch p.Type {
		case "input_text", "output_text", "text":
			texts = append(texts, p.Text)
		case "refusal":
			texts = append(texts, p.Refusal)
		case "input_image":
			if !r.KeepMedia {
				rest = append(rest, imageFromURL(p.ImageURL))
				continue
			}
			im := imageFromURL(p.ImageURL)
			rest = append(rest, Opaque{Wire: WireResponses, Kind: p.Type, Raw: append(json.RawMessage(nil), bytes.TrimSpace(item)...), Media: true, Tokens: ImageTokens(im.Width, im.Height)})
		default:
			o := Opaque{Wire: WireResponses, Kind: p.Type, Raw: append(json.RawMessage(nil), bytes.TrimSpace(item)...)}
			o.Media = p.Type == "input_file" || p.Type == "input_audio"
			rest = append(rest, o)
		}
	}
	var parts []Part
	if len(texts) > 0 {
		parts = append(parts, Text{Text: strings.Join(texts, "\n")})
	}
	return append(parts, rest...), nil
}

// maybeString reports whether raw may decode into a Go string: only a
// JSON string or null does, and both start with '"' or 'n'. Anything
// else is not tried as one (encoding/json would scan all of it to say
// no: a tool output's array of parts).
func maybeString(raw []byte) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && (t[0] == '"' || t[0] == 'n')
}

// imageFromURL is the [Image] placeholder of an image URL: a data URL's
// media type and measured size, or the URL.
func imageFromURL(url string) Image {
	if url == "" {
		return Image{}
	}
	return imageFromOpenAI(OpenAIContentPart{Type: "image_url", ImageURL: &OpenAIImageURL{URL: url}})
}

// responsesOutput reads a tool output: a string, or an array of content
// parts whose texts are joined and whose other parts are returned as
// [Opaque] parts (an image as one holding its JSON).
func (r WireReader) responsesOutput(raw json.RawMessage) (string, []Opaque, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var s string
	if maybeString(raw) && jsonx.Unmarshal(raw, &s) == nil {
		return s, nil, nil
	}
	parts, err := WireReader{KeepMedia: true}.responsesContent(raw)
	if err != nil {
		return "", nil, err
	}
	var texts []string
	var rest []Opaque
	for _, p := range parts {
		switch p := p.(type) {
		case Text:
			texts = append(texts, p.Text)
		case Opaque:
			rest = append(rest, p)
		}
	}
	return strings.Join(texts, "\n"), rest, nil
}

// ToResponses converts messages to Responses API input items, reversing
// [FromResponses]: text messages become message items (system as
// "developer"; assistant text as output_text, other text as input_text);
// an assistant message's tool calls become function_call items, or
// custom_tool_call items when custom(id) says the call was one (its
// arguments' "input" is the free text); tool results become
// function_call_output or custom_tool_call_output items. Thinking parts
// are left out: a reasoning item cannot be sent back without the id the
// provider gave it, and the API accepts an input without it.
//
// A user, system or tool message's ID (the item id [FromResponses] kept)
// goes back on its item, so a rewritten item keeps its id.
//
// An [Opaque] part of the Responses wire is written byte for byte: an item
// (web_search_call, compaction, additional_tools …) as an item in its
// place, a content part (input_image, input_file, input_audio; kinds
// starting "input_") in its message's content after the text, or in a
// tool output's content array. One of another wire becomes a text naming
// it. It returns an [ErrInvalid] error for an [Image] (its data is not
// kept) or an unknown role. custom may be nil.
func ToResponses(msgs []Message, custom func(callID string) bool) ([]ResponsesItem, error) {
	var out []ResponsesItem
	isCustom := func(id string) bool { return custom != nil && custom(id) }
	for i, m := range msgs {
		for _, p := range m.Parts {
			if _, ok := p.(Image); ok {
				return nil, errorf(ErrInvalid, "chat: responses: message %d: an image cannot be sent without its data", i)
			}
		}
		switch m.Role {
		case RoleUser, RoleSystem:
			role := "user"
			if m.Role == RoleSystem {
				role = "developer"
			}
			var content []json.RawMessage
			id := m.ID // the item's own id, for the first item written
			flush := func() {
				if len(content) > 0 {
					c, _ := json.Marshal(content) // raw values marshal
					out = append(out, ResponsesItem{Type: "message", ID: id, Role: role, Content: c})
					content, id = nil, ""
				}
			}
			text := m.Text()
			wroteText := false
			for _, p := range m.Parts {
				switch p := p.(type) {
				case Text:
					if !wroteText {
						content = append(content, textPart("input_text", text))
						wroteText = true
					}
				case Opaque:
					switch {
					case p.Wire == WireResponses && responsesContentKind(p.Kind):
						content = append(content, p.Raw)
					case p.Wire == WireResponses:
						flush()
						out = append(out, ResponsesItem{Type: p.Kind, Raw: append(json.RawMessage(nil), p.Raw...)})
					default:
						content = append(content, textPart("input_text", opaqueNote(p)))
					}
				}
			}
			if len(content) == 0 && len(m.Parts) == 0 {
				content = append(content, textPart("input_text", ""))
			}
			flush()
		case RoleAssistant:
			for _, p := range m.Parts {
				switch p := p.(type) {
				case Text:
					c, _ := json.Marshal([]json.RawMessage{textPart("output_text", p.Text)})
					out = append(out, ResponsesItem{Type: "message", Role: "assistant", Content: c})
				case ToolCall:
					if isCustom(p.ID) {
						var in struct {
							Input string `json:"input"`
						}
						_ = json.Unmarshal(p.Arguments, &in)
						out = append(out, ResponsesItem{Type: "custom_tool_call", CallID: p.ID, Name: p.Name, Input: in.Input})
						continue
					}
					args := string(p.Arguments)
					if args == "" {
						args = "{}"
					}
					out = append(out, ResponsesItem{Type: "function_call", CallID: p.ID, Name: p.Name, Arguments: args})
				case Opaque:
					if p.Wire == WireResponses && !responsesContentKind(p.Kind) {
						out = append(out, ResponsesItem{Type: p.Kind, Raw: append(json.RawMessage(nil), p.Raw...)})
					} else {
						c, _ := json.Marshal([]json.RawMessage{textPart("output_text", opaqueNote(p))})
						out = append(out, ResponsesItem{Type: "message", Role: "assistant", Content: c})
					}
				}
			}
		case RoleTool:
			r, attached, err := m.ToolParts()
			if err != nil {
				return nil, prefixed(err, "chat: responses: message %d", i)
			}
			typ := "function_call_output"
			if isCustom(r.ToolCallID) {
				typ = "custom_tool_call_output"
			}
			var o json.RawMessage
			if len(attached) == 0 {
				o, _ = json.Marshal(r.Content) // a string always marshals
			} else {
				parts := make([]json.RawMessage, 0, len(attached)+1)
				if r.Content != "" {
					parts = append(parts, textPart("input_text", r.Content))
				}
				for _, a := range attached {
					if a.Wire == WireResponses {
						parts = append(parts, a.Raw)
					} else {
						parts = append(parts, textPart("input_text", opaqueNote(a)))
					}
				}
				o, _ = json.Marshal(parts) // raw values marshal
			}
			out = append(out, ResponsesItem{Type: typ, ID: m.ID, CallID: r.ToolCallID, Output: o})
		default:
			return nil, errorf(ErrInvalid, "chat: responses: message %d: role %q is not valid", i, m.Role)
		}
	}
	return out, nil
}

// textPart is a {"type": typ, "text": s} content part.
func textPart(typ, s string) json.RawMessage {
	b, _ := jsonx.MarshalNoEscape(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{typ, s}) // strings always marshal
	return b
}

// responsesContentKind reports whether an opaque part of the Responses
// wire is a content part of a message (input_image, input_file,
// input_audio, refusal) rather than an item.
func responsesContentKind(kind string) bool {
	return strings.HasPrefix(kind, "input_") || kind == "output_text" || kind == "refusal"
}
