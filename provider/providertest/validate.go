package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// ValidationError is a request that the real API would refuse with 400:
// the message is the API's own wording. Where a text below was copied
// from a real response quoted in a public issue, the issue is named next
// to it; the others follow the API's documented rule in the API's usual
// phrasing and are marked "not confirmed".
type ValidationError struct {
	// Wire is the API whose rule was broken.
	Wire Wire
	// Param is OpenAI's "param" ("messages.[3].role"); "" for Anthropic,
	// which names the place at the start of Message.
	Param string
	// Code is OpenAI's "code" ("missing_required_parameter"); often "".
	Code string
	// Message is the API's message.
	Message string
}

// Error returns the API's message, prefixed with the wire.
func (e *ValidationError) Error() string {
	return "providertest: " + string(e.Wire) + ": " + e.Message
}

// Failure returns the 400 response the API sends for e: its error body
// (type invalid_request_error) with Message, Param and Code.
func (e *ValidationError) Failure() Failure {
	return Failure{Status: http.StatusBadRequest, Header: jsonHeader(), Body: e.Wire.errorBody("invalid_request_error", e.Code, e.Param, e.Message)}
}

func openAIError(param, code, format string, args ...any) *ValidationError {
	return &ValidationError{Wire: WireOpenAI, Param: param, Code: code, Message: fmt.Sprintf(format, args...)}
}

func anthropicError(format string, args ...any) *ValidationError {
	return &ValidationError{Wire: WireAnthropic, Message: fmt.Sprintf(format, args...)}
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// ValidateOpenAI checks a chat-completions request body
// (https://platform.openai.com/docs/api-reference/chat/create) against the
// API's message rules and returns a *[ValidationError] with the API's
// answer to the first rule broken, or nil:
//
//   - the body is JSON with a non-empty "messages" array;
//   - every role is system, developer, user, assistant, tool or function
//     (invalid_value, not confirmed);
//   - content is present and not null, except on an assistant message
//     with tool_calls ("Invalid value for 'content': expected a string,
//     got null.", param "messages.[1].content": langchain-ai/langchainjs#4153);
//   - a tool message has a tool_call_id;
//   - an assistant message with tool_calls is followed by tool messages
//     answering each tool_call_id before any other message ("An assistant
//     message with 'tool_calls' must be followed by tool messages
//     responding to each 'tool_call_id'. The following tool_call_ids did
//     not have response messages: call_…", param "messages.[57].role":
//     sdcb/chats#132); the param names the assistant message;
//   - a tool message follows an assistant message with its tool_call_id,
//     or another such tool message ("Invalid parameter: messages with role
//     'tool' must be a response to a preceeding message with
//     'tool_calls'.", param "messages.[3].role": simonw/llm#937,
//     sdcb/chats#132).
//
// It never panics, on any input.
func ValidateOpenAI(body []byte) error {
	var req struct {
		Messages *[]map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return openAIError("", "", "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)")
	}
	if req.Messages == nil {
		return openAIError("messages", "missing_required_parameter", "Missing required parameter: 'messages'.")
	}
	msgs := *req.Messages
	if len(msgs) == 0 {
		return openAIError("messages", "empty_array", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	}
	type wireCall struct {
		ID string `json:"id"`
	}
	roles := make([]string, len(msgs))
	calls := make([][]wireCall, len(msgs))
	for i, m := range msgs {
		if m == nil {
			return openAIError(fmt.Sprintf("messages.[%d]", i), "invalid_type", "Invalid type for 'messages[%d]': expected an object, but got null instead.", i)
		}
		var role string
		_ = json.Unmarshal(m["role"], &role)
		switch role {
		case "system", "developer", "user", "assistant", "tool", "function":
		default:
			if isNull(m["role"]) {
				return openAIError(fmt.Sprintf("messages[%d].role", i), "missing_required_parameter", "Missing required parameter: 'messages[%d].role'.", i)
			}
			return openAIError(fmt.Sprintf("messages[%d].role", i), "invalid_value",
				"Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", role)
		}
		roles[i] = role
		if role == "assistant" {
			_ = json.Unmarshal(m["tool_calls"], &calls[i])
		}
		content, present := m["content"]
		switch {
		case role == "assistant" && len(calls[i]) > 0:
		case !present && role != "assistant":
			return openAIError(fmt.Sprintf("messages[%d].content", i), "missing_required_parameter", "Missing required parameter: 'messages[%d].content'.", i)
		case isNull(content):
			return openAIError(fmt.Sprintf("messages.[%d].content", i), "", "Invalid value for 'content': expected a string, got null.")
		}
		if role == "tool" {
			var id string
			_ = json.Unmarshal(m["tool_call_id"], &id)
			if id == "" {
				return openAIError(fmt.Sprintf("messages[%d].tool_call_id", i), "missing_required_parameter", "Missing required parameter: 'messages[%d].tool_call_id'.", i)
			}
		}
	}
	orphan := func(i int) error {
		return openAIError(fmt.Sprintf("messages.[%d].role", i), "", "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
	}
	for i := 0; i < len(msgs); {
		if roles[i] == "tool" {
			return orphan(i)
		}
		if roles[i] != "assistant" || len(calls[i]) == 0 {
			i++
			continue
		}
		var pending []string
		for _, c := range calls[i] {
			pending = append(pending, c.ID)
		}
		j := i + 1
		for ; j < len(msgs) && roles[j] == "tool"; j++ {
			var id string
			_ = json.Unmarshal(msgs[j]["tool_call_id"], &id)
			k := slices.Index(pending, id)
			if k < 0 {
				return orphan(j)
			}
			pending = slices.Delete(pending, k, k+1)
		}
		if len(pending) > 0 {
			return openAIError(fmt.Sprintf("messages.[%d].role", i), "",
				"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(pending, ", "))
		}
		i = j
	}
	return nil
}

// anthropicBlock is what the checks need of a content block.
type anthropicBlock struct {
	Type         string          `json:"type"`
	ID           string          `json:"id"`
	ToolUseID    string          `json:"tool_use_id"`
	CacheControl json.RawMessage `json:"cache_control"`
}

// anthropicBlocks reads a "content" or "system" value: a string (one text
// block, empty when the string is) or an array of blocks.
func anthropicBlocks(raw json.RawMessage) (blocks []anthropicBlock, empty bool, ok bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil, true, true
		}
		return []anthropicBlock{{Type: "text"}}, false, true
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, false, false
	}
	return blocks, len(blocks) == 0, true
}

// ValidateAnthropic checks a Messages API request body
// (https://docs.anthropic.com/en/api/messages) against the API's rules
// and returns a *[ValidationError] with the API's answer to the first
// rule broken, or nil. Consecutive messages of one role are merged into
// one turn first, as the API documents ("Consecutive user or assistant
// turns in your request will be combined into a single turn"); indexes in
// messages are those of the request's own messages. The rules:
//
//   - "model", "max_tokens" and a non-empty "messages" are present
//     ("max_tokens: Field required", not confirmed);
//   - the first message is not of role "system" ("messages: Unexpected
//     role \"system\". The Messages API accepts a top-level `system`
//     parameter, not \"system\" as an input message role.":
//     aaronrussell/anthropix#2); later system messages are instructions
//     in place, not turns (Claude Code 2.1.328's default model sends
//     them); every other role is user or assistant;
//   - every message has non-empty content except a final assistant one
//     ("messages.0: all messages must have non-empty content except for
//     the optional final assistant message": anthropics/claude-code#6774);
//   - the first turn is a user turn ("messages: first message must use
//     the \"user\" role": lobehub/lobehub#1601). Anthropic's own endpoint
//     has been seen accepting an assistant first (anthropics/anthropic-sdk-typescript#622)
//     while Bedrock refuses it; this check keeps the strict rule;
//   - each tool_use is answered by a tool_result with its id in the very
//     next turn, also when it is the last turn ("messages.22: `tool_use`
//     ids were found without `tool_result` blocks immediately after:
//     toolu_…. Each `tool_use` block must have a corresponding
//     `tool_result` block in the next message.": anthropics/claude-code#1237);
//   - those tool_result blocks come first in that turn ("messages.156:
//     Did not find 1 `tool_result` block(s) at the beginning of this
//     message. Messages following `tool_use` blocks must begin with a
//     matching number of `tool_result` blocks.":
//     anthropics/anthropic-sdk-typescript#653, Zoo-Code-Org/Zoo-Code#1705);
//   - each tool_result answers a tool_use of the previous turn
//     ("messages.48.content.1: unexpected `tool_use_id` found in
//     `tool_result` blocks: toolu_…. Each `tool_result` block must have a
//     corresponding `tool_use` block in the previous message.":
//     anthropics/claude-code#13460);
//   - at most 4 blocks (system, messages and tools together) carry
//     cache_control ("A maximum of 4 blocks with cache_control may be
//     provided. Found 5.": tghamm/Anthropic.SDK#50).
//
// It never panics, on any input.
func ValidateAnthropic(body []byte) error {
	var req struct {
		Model     *string                       `json:"model"`
		MaxTokens *json.RawMessage              `json:"max_tokens"`
		System    json.RawMessage               `json:"system"`
		Messages  *[]map[string]json.RawMessage `json:"messages"`
		Tools     []anthropicBlock              `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return anthropicError("There was an error parsing the body of your request as JSON (not confirmed): %v", err)
	}
	switch {
	case req.Model == nil:
		return anthropicError("model: Field required")
	case req.MaxTokens == nil:
		return anthropicError("max_tokens: Field required")
	case req.Messages == nil:
		return anthropicError("messages: Field required")
	case len(*req.Messages) == 0:
		return anthropicError("messages: at least one message is required")
	}
	msgs := *req.Messages
	cached := 0
	if !isNull(req.System) {
		blocks, _, ok := anthropicBlocks(req.System)
		if !ok {
			return anthropicError("system: Input should be a valid string or a list of text blocks")
		}
		for _, b := range blocks {
			if !isNull(b.CacheControl) {
				cached++
			}
		}
	}
	for _, t := range req.Tools {
		if !isNull(t.CacheControl) {
			cached++
		}
	}
	// turn is a run of messages of one role, merged.
	type place struct{ msg, block int }
	type turn struct {
		role    string
		first   int
		blocks  []anthropicBlock
		places  []place
		toolUse []place
	}
	var turns []*turn
	for i, m := range msgs {
		var role string
		_ = json.Unmarshal(m["role"], &role)
		switch role {
		case "user", "assistant":
		case "system":
			if len(turns) == 0 {
				return anthropicError(`messages: Unexpected role "system". The Messages API accepts a top-level ` + "`system`" + ` parameter, not "system" as an input message role.`)
			}
			// After the first turn, the models Claude Code 2.1.3xx
			// defaults to take system messages in place (it sends one
			// in every request, with the per-turn-control beta): they
			// are instructions, not a turn.
			continue
		default:
			return anthropicError("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		blocks, empty, ok := anthropicBlocks(m["content"])
		if !ok {
			return anthropicError("messages.%d.content: Input should be a valid list", i)
		}
		if empty && !(role == "assistant" && i == len(msgs)-1) {
			return anthropicError("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		if len(turns) == 0 || turns[len(turns)-1].role != role {
			turns = append(turns, &turn{role: role, first: i})
		}
		t := turns[len(turns)-1]
		for j, b := range blocks {
			if !isNull(b.CacheControl) {
				cached++
			}
			t.blocks = append(t.blocks, b)
			t.places = append(t.places, place{i, j})
			if b.Type == "tool_use" && role == "assistant" {
				t.toolUse = append(t.toolUse, place{i, len(t.blocks) - 1})
			}
		}
	}
	if cached > 4 {
		return anthropicError("A maximum of 4 blocks with cache_control may be provided. Found %d.", cached)
	}
	if turns[0].role != "user" {
		return anthropicError(`messages: first message must use the "user" role`)
	}
	for k, t := range turns {
		if t.role == "user" {
			var asked []string
			if k > 0 {
				for _, p := range turns[k-1].toolUse {
					asked = append(asked, turns[k-1].blocks[p.block].ID)
				}
			}
			for j, b := range t.blocks {
				if b.Type == "tool_result" && !slices.Contains(asked, b.ToolUseID) {
					p := t.places[j]
					return anthropicError("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", p.msg, p.block, b.ToolUseID)
				}
			}
			continue
		}
		if len(t.toolUse) == 0 {
			continue
		}
		var answered []string
		leading := 0
		if k+1 < len(turns) {
			next := turns[k+1]
			for j, b := range next.blocks {
				if b.Type == "tool_result" {
					answered = append(answered, b.ToolUseID)
					if leading == j {
						leading++
					}
				}
			}
		}
		var missing []string
		for _, p := range t.toolUse {
			if id := t.blocks[p.block].ID; !slices.Contains(answered, id) {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return anthropicError("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
				t.toolUse[0].msg, strings.Join(missing, ", "))
		}
		if leading < len(t.toolUse) {
			return anthropicError("messages.%d: Did not find %d `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.",
				turns[k+1].first, len(t.toolUse))
		}
	}
	return nil
}
