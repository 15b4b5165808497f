package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// Wire names the API a model request speaks.
type Wire string

// The wire formats the proxy manages. Every other route passes through.
const (
	// WireAnthropic is the Anthropic Messages API: POST …/v1/messages,
	// a top-level "system", content blocks
	// (https://docs.anthropic.com/en/api/messages).
	WireAnthropic Wire = "anthropic"
	// WireOpenAI is the OpenAI chat completions API: POST
	// …/chat/completions, system and developer messages in "messages"
	// (https://platform.openai.com/docs/api-reference/chat/create).
	WireOpenAI Wire = "openai"
)

// span is a byte range [start, end) of a request body.
type span struct{ start, end int }

// body is a model request parsed only as far as the proxy needs: the byte
// span of its "messages" array and of each element, and the few fields it
// reads. Everything else stays in raw, untouched.
type body struct {
	raw      []byte
	wire     Wire
	model    string
	stream   bool
	messages span   // the "messages" value, brackets included
	elems    []span // each element of "messages", in order
	system   json.RawMessage
	tools    json.RawMessage
	// maxTokens is "max_tokens" (or OpenAI's "max_completion_tokens"),
	// 0 when absent.
	maxTokens int
}

// errNoMessages reports a body without a "messages" array: not a model
// request the proxy can manage.
var errNoMessages = errors.New(`no "messages" array`)

// parseBody reads a request body of wire w. Errors name the byte offset;
// a body the proxy cannot read is forwarded unchanged by the caller.
func parseBody(raw []byte, w Wire) (*body, error) {
	b := &body{raw: raw, wire: w, messages: span{-1, -1}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("body: want a JSON object at offset 0")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("body: offset %d: %w", dec.InputOffset(), err)
		}
		key, _ := t.(string)
		if key == "messages" {
			if err := b.readMessages(dec); err != nil {
				return nil, err
			}
			continue
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("body: field %q: offset %d: %w", key, dec.InputOffset(), err)
		}
		switch key {
		case "model":
			_ = json.Unmarshal(v, &b.model)
		case "stream":
			_ = json.Unmarshal(v, &b.stream)
		case "system":
			b.system = v
		case "tools":
			b.tools = v
		case "max_tokens", "max_completion_tokens":
			var n int
			if json.Unmarshal(v, &n) == nil && n > 0 {
				b.maxTokens = n
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("body: offset %d: %w", dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("body: data after the JSON object at offset %d", dec.InputOffset())
	}
	if b.messages.start < 0 {
		return nil, errNoMessages
	}
	return b, nil
}

// readMessages records the spans of the "messages" array and its elements.
func (b *body) readMessages(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil || t != json.Delim('[') {
		return fmt.Errorf("body: field \"messages\" at offset %d: want an array", dec.InputOffset())
	}
	b.messages.start = int(dec.InputOffset()) - 1
	b.elems = b.elems[:0]
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("body: messages[%d]: offset %d: %w", len(b.elems), dec.InputOffset(), err)
		}
		end := int(dec.InputOffset())
		b.elems = append(b.elems, span{end - len(v), end})
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("body: messages: offset %d: %w", dec.InputOffset(), err)
	}
	b.messages.end = int(dec.InputOffset())
	return nil
}

// elem returns the raw bytes of messages[i].
func (b *body) elem(i int) []byte { return b.raw[b.elems[i].start:b.elems[i].end] }

// splice returns the body with its "messages" array replaced by the
// elements given, each a raw JSON value, in order; every other byte of
// the body is kept.
func (b *body) splice(elems [][]byte) []byte {
	n := len(b.raw) - (b.messages.end - b.messages.start) + 2 + len(elems)
	for _, e := range elems {
		n += len(e)
	}
	out := make([]byte, 0, n)
	out = append(out, b.raw[:b.messages.start]...)
	out = append(out, '[')
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	out = append(out, ']')
	return append(out, b.raw[b.messages.end:]...)
}

// conversation is a request's history in the message model: the system
// prompt's text, the messages after it, and for each message the element
// of "messages" it came from (several messages can come from one element:
// an Anthropic user message with tool results).
type conversation struct {
	system string
	// lead counts the leading elements kept as they are, outside the
	// history: OpenAI's system and developer messages.
	lead  int
	msgs  []chat.Message
	group []int // group[i] is the element msgs[i] came from
	tools []chat.ToolDef
}

// read converts the body's messages, system prompt and tools. Errors name
// the element; the caller forwards such a request unchanged.
func (b *body) read() (*conversation, error) {
	c := &conversation{}
	switch b.wire {
	case WireAnthropic:
		if len(b.system) > 0 {
			var sys chat.AnthropicContent
			if err := json.Unmarshal(b.system, &sys); err != nil {
				return nil, fmt.Errorf("system: %w", err)
			}
			c.system = blocksText(sys)
		}
		calls := map[string]string{}
		for i := range b.elems {
			var w chat.AnthropicMessage
			if err := json.Unmarshal(b.elem(i), &w); err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			ms, err := chat.FromAnthropic(nil, []chat.AnthropicMessage{w})
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			c.add(ms, i, calls)
		}
	case WireOpenAI:
		calls := map[string]string{}
		var sys []string
		for i := range b.elems {
			var w chat.OpenAIMessage
			if err := json.Unmarshal(b.elem(i), &w); err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			ms, err := chat.FromOpenAI([]chat.OpenAIMessage{w})
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			if len(c.msgs) == 0 && len(ms) == 1 && ms[0].Role == chat.RoleSystem {
				sys = append(sys, ms[0].Text())
				c.lead = i + 1
				continue
			}
			for _, m := range ms {
				if m.Role == chat.RoleSystem {
					return nil, fmt.Errorf("messages[%d]: a system message inside the conversation", i)
				}
			}
			c.add(ms, i, calls)
		}
		c.system = strings.Join(sys, "\n\n")
	}
	tools, err := readTools(b.tools)
	if err != nil {
		return nil, err
	}
	c.tools = tools
	return c, nil
}

// add appends the messages of element i, naming tool results after their
// calls (the tracker and the limiter go by tool name; OpenAI's tool
// messages carry none).
func (c *conversation) add(ms []chat.Message, i int, calls map[string]string) {
	for _, m := range ms {
		for _, tc := range m.ToolCalls() {
			calls[tc.ID] = tc.Name
		}
		if r, ok := m.ToolResult(); ok && r.ToolName == "" {
			if name := calls[r.ToolCallID]; name != "" {
				r.ToolName = name
				m.Parts = []chat.Part{r}
			}
		}
		c.msgs = append(c.msgs, m)
		c.group = append(c.group, i)
	}
}

// blocksText joins the text of an Anthropic system prompt's blocks.
func blocksText(c chat.AnthropicContent) string {
	var parts []string
	for _, b := range c {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// readTools reads tool definitions of either wire for counting: OpenAI's
// {"type": "function", "function": {name, description, parameters}},
// Anthropic's {name, description, input_schema}; any other shape (a
// server tool) counts as its whole JSON under its name.
func readTools(raw json.RawMessage) ([]chat.ToolDef, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	out := make([]chat.ToolDef, 0, len(list))
	for i, t := range list {
		var d struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			Function    *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(t, &d); err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		switch {
		case d.Function != nil:
			out = append(out, chat.ToolDef{Name: d.Function.Name, Description: d.Function.Description, Parameters: d.Function.Parameters})
		case d.InputSchema != nil:
			out = append(out, chat.ToolDef{Name: d.Name, Description: d.Description, Parameters: d.InputSchema})
		default:
			out = append(out, chat.ToolDef{Name: d.Name, Parameters: t})
		}
	}
	return out, nil
}
