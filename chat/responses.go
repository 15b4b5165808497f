package chat

import (
	"encoding/json"
	"strings"
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
func (it ResponsesItem) IsAssistantSide() bool {
	switch it.Type {
	case "reasoning", "function_call", "custom_tool_call":
		return true
	case "message", "":
		return it.Role == "assistant"
	}
	return false
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
		parts, err := responsesContent(it.Content)
		if err != nil {
			return Message{}, err
		}
		return Message{Role: role, Parts: parts}, nil
	case "reasoning":
		var texts []string
		var sum []struct {
			Text string `json:"text"`
		}
		if len(it.Summary) > 0 {
			if err := json.Unmarshal(it.Summary, &sum); err != nil {
				return Message{}, errorf(ErrInvalid, "chat: responses: reasoning summary: %v", err)
			}
		}
		for _, s := range sum {
			texts = append(texts, s.Text)
		}
		return Message{Role: RoleAssistant, Parts: []Part{Thinking{Text: strings.Join(texts, "\n"), Encrypted: it.EncryptedContent}}}, nil
	case "function_call":
		args := json.RawMessage(it.Arguments)
		if !json.Valid(args) {
			args, _ = json.Marshal(it.Arguments) // a string always marshals
		}
		return Message{Role: RoleAssistant, Parts: []Part{ToolCall{ID: it.CallID, Name: it.Name, Arguments: args}}}, nil
	case "custom_tool_call":
		args, _ := json.Marshal(struct {
			Input string `json:"input"`
		}{it.Input}) // a struct of one string always marshals
		return Message{Role: RoleAssistant, Parts: []Part{ToolCall{ID: it.CallID, Name: it.Name, Arguments: args}}}, nil
	case "function_call_output", "custom_tool_call_output":
		text, err := responsesOutput(it.Output)
		if err != nil {
			return Message{}, err
		}
		return Message{Role: RoleTool, Parts: []Part{ToolResult{ToolCallID: it.CallID, Content: text}}}, nil
	}
	return Message{}, errorf(ErrUnsupported, "chat: responses: input item type %q is not supported", it.Type)
}

// responsesContent reads a message's content: a string or an array of
// parts (input_text, output_text, text, refusal, input_image).
func responsesContent(raw json.RawMessage) ([]Part, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Part{Text{Text: s}}, nil
	}
	var items []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errorf(ErrInvalid, "chat: responses: message content: %v", err)
	}
	var texts []string
	var images []Part
	for i, p := range items {
		switch p.Type {
		case "input_text", "output_text", "text":
			texts = append(texts, p.Text)
		case "refusal":
			texts = append(texts, p.Refusal)
		case "input_image":
			images = append(images, Image{})
		default:
			return nil, errorf(ErrUnsupported, "chat: responses: content[%d].type %q is not supported", i, p.Type)
		}
	}
	var parts []Part
	if len(texts) > 0 {
		parts = append(parts, Text{Text: strings.Join(texts, "\n")})
	}
	return append(parts, images...), nil
}

// responsesOutput reads a tool output: a string or an array of content
// parts whose texts are joined.
func responsesOutput(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	parts, err := responsesContent(raw)
	if err != nil {
		return "", err
	}
	var texts []string
	for _, p := range parts {
		if t, ok := p.(Text); ok {
			texts = append(texts, t.Text)
		} else {
			return "", errorf(ErrUnsupported, "chat: responses: an image in a tool output is not supported")
		}
	}
	return strings.Join(texts, "\n"), nil
}

// ToResponses converts messages to Responses API input items, reversing
// [FromResponses]: text messages become message items (system as
// "developer"; assistant text as output_text, other text as input_text);
// an assistant message's tool calls become function_call items, or
// custom_tool_call items when custom(id) says the call was one (its
// arguments' "input" is the free text); tool results become
// function_call_output or custom_tool_call_output items. Thinking parts
// are left out: a reasoning item cannot be sent back without the id the
// provider gave it, and the API accepts an input without it. It returns an
// [ErrInvalid] error for an [Image] (its data is not kept) or an unknown
// role. custom may be nil.
func ToResponses(msgs []Message, custom func(callID string) bool) ([]ResponsesItem, error) {
	var out []ResponsesItem
	text := func(role, typ, s string) ResponsesItem {
		c, _ := json.Marshal([]map[string]string{{"type": typ, "text": s}}) // strings always marshal
		return ResponsesItem{Type: "message", Role: role, Content: c}
	}
	isCustom := func(id string) bool { return custom != nil && custom(id) }
	for i, m := range msgs {
		for _, p := range m.Parts {
			if _, ok := p.(Image); ok {
				return nil, errorf(ErrInvalid, "chat: responses: message %d: an image cannot be sent without its data", i)
			}
		}
		switch m.Role {
		case RoleUser:
			out = append(out, text("user", "input_text", m.Text()))
		case RoleSystem:
			out = append(out, text("developer", "input_text", m.Text()))
		case RoleAssistant:
			for _, p := range m.Parts {
				switch p := p.(type) {
				case Text:
					out = append(out, text("assistant", "output_text", p.Text))
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
				}
			}
		case RoleTool:
			r, ok := m.ToolResult()
			if !ok {
				return nil, errorf(ErrInvalid, "chat: responses: message %d: a tool message must hold one tool result", i)
			}
			typ := "function_call_output"
			if isCustom(r.ToolCallID) {
				typ = "custom_tool_call_output"
			}
			o, _ := json.Marshal(r.Content) // a string always marshals
			out = append(out, ResponsesItem{Type: typ, CallID: r.ToolCallID, Output: o})
		default:
			return nil, errorf(ErrInvalid, "chat: responses: message %d: role %q is not valid", i, m.Role)
		}
	}
	return out, nil
}
