package session

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// Reading Claude Code's form of a message: {"role", "content" (a string or
// Anthropic content blocks), "model", "id", "usage"} (FORMATS.md §4).

// syntheticModel marks assistant lines that Claude Code generated itself
// (API error notices, "No response requested."): not model output, never
// sent back to the model. [Messages] and [Restore] skip them, as package
// transcript does.
const syntheticModel = "<synthetic>"

// claudeMessages converts a Claude Code message, read as p, with
// chat.FromAnthropic after normalizing its blocks so that none makes the
// conversion fail.
func claudeMessages(e *Entry, p messageProbe) ([]chat.Message, error) {
	role := p.Role
	if role == "" {
		role = e.Type
	}
	blocks, isString := claudeBlocks(p.Content)
	if role == "user" {
		blocks = userBlocks(blocks)
		if len(blocks) == 0 && !isString {
			return nil, nil
		}
	} else {
		blocks = assistantBlocks(blocks)
	}
	am := chat.AnthropicMessage{Role: role, Content: blocks, ID: p.ID, Model: p.Model}
	if role == "assistant" {
		am.Usage = claudeUsage(p.Usage)
	}
	msgs, err := chat.FromAnthropic(nil, []chat.AnthropicMessage{am})
	if err != nil {
		return nil, err
	}
	for i := range msgs {
		if msgs[i].Role != chat.RoleAssistant && msgs[i].ID == "" {
			msgs[i].ID = e.UUID
		}
	}
	return msgs, nil
}

// claudeBlocks reads a message's content: a string is one text block, an
// array is its blocks (an element that does not decode as a block keeps
// its text, if it has one), anything else is no block.
func claudeBlocks(raw json.RawMessage) (blocks chat.AnthropicContent, isString bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil, false
	}
	switch t[0] {
	case '"':
		var s string
		if json.Unmarshal(t, &s) != nil {
			return nil, false
		}
		return chat.AnthropicContent{{Type: "text", Text: s}}, true
	case '[':
	default:
		return nil, false
	}
	var items []json.RawMessage
	if decodeLoose(t, &items) != nil {
		return nil, false
	}
	for _, it := range items {
		it = bytes.TrimSpace(it)
		if len(it) == 0 {
			continue
		}
		switch it[0] {
		case '{':
			var b chat.AnthropicBlock
			if json.Unmarshal(it, &b) == nil {
				blocks = append(blocks, b)
				continue
			}
			var loose struct {
				Type string          `json:"type"`
				Text json.RawMessage `json:"text"`
			}
			_ = decodeLoose(it, &loose)
			if s := jsonText(loose.Text); s != "" {
				blocks = append(blocks, chat.AnthropicBlock{Type: "text", Text: s})
			}
		case '"':
			if s := jsonText(it); s != "" {
				blocks = append(blocks, chat.AnthropicBlock{Type: "text", Text: s})
			}
		}
	}
	return blocks, false
}

// userBlocks keeps the blocks of a user message that chat.FromAnthropic
// converts, turning the others into text as package transcript does: a
// tool_result's non-text content becomes a note, a document "[document]",
// an image without a usable source "[image]"; other blocks keep their text
// or are dropped.
func userBlocks(in chat.AnthropicContent) chat.AnthropicContent {
	out := in[:0:0]
	for _, b := range in {
		switch b.Type {
		case "tool_result":
			if b.ContentBlocks != nil {
				b.Content, b.ContentBlocks = resultText(b.ContentBlocks), nil
			}
			out = append(out, b)
		case "text":
			out = append(out, b)
		case "image":
			out = append(out, usableImage(b))
		case "document":
			out = append(out, chat.AnthropicBlock{Type: "text", Text: "[document]"})
		default:
			if t := chat.BlockText(b); t != "" {
				out = append(out, chat.AnthropicBlock{Type: "text", Text: t})
			}
		}
	}
	return out
}

// assistantBlocks keeps the blocks of an assistant message that
// chat.FromAnthropic converts: server and MCP tool calls become tool
// calls; server-side tool results and unknown blocks keep their text or
// are dropped.
func assistantBlocks(in chat.AnthropicContent) chat.AnthropicContent {
	out := in[:0:0]
	for _, b := range in {
		switch b.Type {
		case "text", "thinking", "redacted_thinking", "tool_use":
			out = append(out, b)
		case "server_tool_use", "mcp_tool_use":
			b.Type = "tool_use"
			out = append(out, b)
		case "image":
			out = append(out, usableImage(b))
		default:
			if t := chat.BlockText(b); t != "" {
				out = append(out, chat.AnthropicBlock{Type: "text", Text: t})
			}
		}
	}
	return out
}

// usableImage returns b when chat.FromAnthropic can read its source, else
// a text block standing in for it.
func usableImage(b chat.AnthropicBlock) chat.AnthropicBlock {
	if s := b.Source; s != nil && (s.Type == "base64" || s.Type == "url") {
		return b
	}
	return chat.AnthropicBlock{Type: "text", Text: "[image]"}
}

// resultText is the text of a tool result's content blocks joined by
// "\n", with a note for each image.
func resultText(blocks []chat.AnthropicBlock) string {
	texts := make([]string, 0, len(blocks))
	for _, c := range blocks {
		switch {
		case c.Type == "image":
			note := "[image]"
			if s := c.Source; s != nil && s.URL != "" {
				note = "[image: " + s.URL + "]"
			} else if s != nil && s.MediaType != "" {
				note = "[image: " + s.MediaType + "]"
			}
			texts = append(texts, note)
		case c.Type == "text" || c.Text != "":
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// claudeUsage reads an Anthropic usage object whose counts may be
// written as floats or strings. It returns nil when the object is missing
// or every count is zero (some transcripts carry all-zero usage, which
// means unknown), and when a count is negative or above
// [chat.MaxCallTokens] (a corrupt record).
func claudeUsage(raw json.RawMessage) *chat.AnthropicUsage {
	var u usageCounts
	if !isObject(raw) || decodeLoose(raw, &u) != nil || !u.valid() {
		return nil
	}
	a := chat.AnthropicUsage{
		InputTokens:              int(u.InputTokens),
		OutputTokens:             int(u.OutputTokens),
		CacheCreationInputTokens: int(u.CacheCreationInputTokens),
		CacheReadInputTokens:     int(u.CacheReadInputTokens),
	}
	if a == (chat.AnthropicUsage{}) {
		return nil
	}
	return &a
}

// usageCounts holds the token counts of a usage object in either form:
// Anthropic's, as Claude Code writes it, and the chat JSON form's.
type usageCounts struct {
	InputTokens              count `json:"input_tokens"`
	OutputTokens             count `json:"output_tokens"`
	CacheCreationInputTokens count `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     count `json:"cache_read_input_tokens"`
	CacheReadTokens          count `json:"cache_read_tokens"`
	CacheWriteTokens         count `json:"cache_write_tokens"`
}

// valid reports whether every count lies in [0, [chat.MaxCallTokens]]:
// a usage record with a negative or absurd count (2^40 tokens has been
// seen) is corrupt and is read as no usage at all.
func (u usageCounts) valid() bool {
	for _, n := range []count{u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.CacheReadTokens, u.CacheWriteTokens} {
		if n < 0 || n > chat.MaxCallTokens {
			return false
		}
	}
	return true
}

// promptTokens is the prompt size the counts report, in tokens: input
// plus cache read plus cache write ([chat.Usage.PromptTokens]).
func (u usageCounts) promptTokens() int {
	return int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens + u.CacheReadTokens + u.CacheWriteTokens)
}

// count is a token count that also accepts a float or a numeric string;
// anything else reads as 0, never as an error.
type count int

// UnmarshalJSON reads b as a number, never failing.
func (c *count) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if len(s) >= 2 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			s = strings.TrimSpace(u)
		}
	}
	*c = 0
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*c = count(clamp(float64(n)))
	} else if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) {
		*c = count(clamp(f))
	}
	return nil
}

// clamp bounds f to [-2^53, 2^53], so that sums of counts never
// overflow; whether a count is plausible is [usageCounts.valid]'s call.
func clamp(f float64) int {
	const lim = 1 << 53
	switch {
	case f > lim:
		return lim
	case f < -lim:
		return -lim
	}
	return int(f)
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}
