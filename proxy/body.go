package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
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
	// WireResponses is the OpenAI Responses API: POST …/v1/responses,
	// "instructions" and an "input" array of items
	// (https://platform.openai.com/docs/api-reference/responses/create).
	WireResponses Wire = "responses"
	// WireGemini is the Gemini API: POST …/models/{model}:generateContent
	// or :streamGenerateContent, the model in the path, a
	// "systemInstruction" and a "contents" array
	// (https://ai.google.dev/api/generate-content; see gemini.go).
	WireGemini Wire = "gemini"
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
	// maxTokens is "max_tokens" (or OpenAI's "max_completion_tokens",
	// the Responses API's "max_output_tokens"), 0 when absent.
	maxTokens int
	// previous is the Responses API's "previous_response_id": the
	// conversation lives on the provider, which the proxy cannot manage.
	previous bool
}

// errNoMessages reports a body without a "messages" array (the Responses
// API's "input"): not a model request the proxy can manage.
var errNoMessages = errors.New(`no "messages" or "input" array`)

// historyKey is the field that holds the conversation in wire w.
func historyKey(w Wire) string {
	if w == WireResponses {
		return "input"
	}
	if w == WireGemini {
		return "contents"
	}
	return "messages"
}

// parseBody reads a request body of wire w. Errors name the byte offset;
// a body the proxy cannot read is forwarded unchanged by the caller.
func parseBody(raw []byte, w Wire) (*body, error) {
	if b, ok := parseBodyFast(raw, w); ok {
		return b, nil
	}
	return parseBodySlow(raw, w)
}

// parseBodySlow is parseBody with encoding/json's tokenizer: slower than
// the scan, and its errors name where the body goes wrong.
func parseBodySlow(raw []byte, w Wire) (*body, error) {
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
		if key == historyKey(w) {
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
		case "system", "instructions":
			b.system = v
		case "previous_response_id":
			b.previous = w == WireResponses && string(v) != "null" && string(v) != `""`
		case "tools":
			b.tools = v
		case "systemInstruction", "system_instruction", "generationConfig", "generation_config":
			b.readGeminiField(key, v)
		case "max_tokens", "max_completion_tokens", "max_output_tokens":
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
			return fmt.Errorf("body: %s[%d]: offset %d: %w", historyKey(b.wire), len(b.elems), dec.InputOffset(), err)
		}
		end := int(dec.InputOffset())
		b.elems = append(b.elems, span{end - len(v), end})
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("body: %s: offset %d: %w", historyKey(b.wire), dec.InputOffset(), err)
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
	return jsonx.SpliceArray(b.raw, b.messages.start, b.messages.end, elems)
}

// conversation is a request's history in the message model: the system
// prompt's text, the messages after it, and for each message the elements
// of "messages" it came from. Several messages can come from one element
// (an Anthropic user message with tool results), and one message from
// several elements (a Responses API model response: reasoning, text and
// tool calls are items of their own).
type conversation struct {
	system string
	// lead counts the leading elements kept as they are, outside the
	// history: OpenAI's system and developer messages, Codex's
	// additional_tools item (counted with the tools).
	lead int
	msgs []chat.Message
	// group[i] and groupEnd[i] are the first element msgs[i] came from
	// and one past its last; the messages of one group share both.
	group, groupEnd []int
	tools           []chat.ToolDef
	// custom holds the ids of Responses API custom tool calls, whose
	// outputs must be sent back as custom_tool_call_output.
	custom map[string]bool
	// fps caches the messages' fingerprints (see fingerprints).
	fps []fingerprint
}

// read converts the body's messages, system prompt and tools, taking
// what an element read as from rc when it was read before (rc may be
// nil). Errors name the element; the caller forwards such a request
// unchanged.
func (b *body) read(rc *readCache) (*conversation, error) {
	c := &conversation{}
	switch b.wire {
	case WireGemini:
		if err := b.readGemini(c, rc); err != nil {
			return nil, err
		}
		return c, nil
	case WireResponses:
		if err := b.readResponses(c, rc); err != nil {
			return nil, err
		}
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
			ms, err := rc.messages(WireAnthropic, b.elem(i), func() ([]chat.Message, error) {
				// The fast path (the message's blocks keep copies of
				// what they hold, not the body's bytes).
				var w chat.AnthropicMessage
				if err := jsonx.Unmarshal(b.elem(i), &w); err != nil {
					return nil, err
				}
				return wireReader.FromAnthropic(nil, []chat.AnthropicMessage{w})
			})
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			if len(c.msgs) == 0 && len(ms) == 1 && ms[0].Role == chat.RoleSystem {
				// A system message before the conversation: kept as
				// it is, counted with the system prompt.
				if t := ms[0].Text(); t != "" {
					c.system = strings.TrimSpace(c.system + "\n\n" + t)
				}
				c.lead = i + 1
				continue
			}
			c.add(ms, i, i+1, calls)
		}
	case WireOpenAI:
		calls := map[string]string{}
		var sys []string
		for i := range b.elems {
			ms, err := rc.messages(WireOpenAI, b.elem(i), func() ([]chat.Message, error) {
				var w chat.OpenAIMessage
				if err := jsonx.Unmarshal(b.elem(i), &w); err != nil {
					return nil, err
				}
				return wireReader.FromOpenAI([]chat.OpenAIMessage{w})
			})
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			if len(c.msgs) == 0 && len(ms) == 1 && ms[0].Role == chat.RoleSystem {
				sys = append(sys, ms[0].Text())
				c.lead = i + 1
				continue
			}
			// A system or developer message inside the conversation
			// stays in its place, pinned (window.Pinned).
			c.add(ms, i, i+1, calls)
		}
		c.system = strings.Join(sys, "\n\n")
	}
	tools, err := readTools(b.tools)
	if err != nil {
		return nil, err
	}
	c.tools = append(c.tools, tools...)
	return c, nil
}

// wireReader reads the agents' messages keeping media with their data:
// what the proxy sends again must be what the agent sent.
var wireReader = chat.WireReader{KeepMedia: true}

// readResponses reads a Responses API "input": leading developer and
// system messages are the lead, with "instructions" as the system
// prompt; consecutive model-output items (reasoning, assistant text, tool
// calls) make one assistant message.
func (b *body) readResponses(c *conversation, rc *readCache) error {
	if b.previous {
		return errors.New("previous_response_id: the conversation is kept by the provider")
	}
	var sys []string
	if len(b.system) > 0 && string(b.system) != "null" {
		var s string
		if err := json.Unmarshal(b.system, &s); err != nil {
			return fmt.Errorf("instructions: %w", err)
		}
		sys = append(sys, s)
	}
	calls := map[string]string{}
	c.custom = map[string]bool{}
	var cur *chat.Message
	start := 0
	flush := func(end int) {
		if cur != nil {
			c.add([]chat.Message{*cur}, start, end, calls)
			cur = nil
		}
	}
	for i := range b.elems {
		e, err := rc.item(b.elem(i), func() (responsesElem, error) {
			var it chat.ResponsesItem
			if err := jsonx.Unmarshal(b.elem(i), &it); err != nil {
				return responsesElem{}, err
			}
			m, err := wireReader.FromResponses(it)
			if err != nil {
				return responsesElem{}, err
			}
			e := responsesElem{msg: m, typ: it.Type, callID: it.CallID, assistant: it.IsAssistantSide()}
			if it.Type == "additional_tools" {
				// Codex's tool list as an input item: counted as
				// tools, kept in place.
				if e.tools, err = additionalTools(it.Raw); err != nil {
					return responsesElem{}, err
				}
				e.msg.Parts = []chat.Part{withTokens(m.Parts[0], 1)}
			}
			return e, nil
		})
		if err != nil {
			return fmt.Errorf("input[%d]: %w", i, err)
		}
		m := e.msg
		c.tools = append(c.tools, e.tools...)
		if e.typ == "custom_tool_call" {
			c.custom[e.callID] = true
		}
		if e.assistant {
			if cur == nil {
				cur, start = &chat.Message{Role: chat.RoleAssistant}, i
			}
			cur.Parts = append(cur.Parts, m.Parts...)
			continue
		}
		flush(i)
		if len(c.msgs) == 0 && m.Role == chat.RoleSystem {
			if t := m.Text(); t != "" {
				sys = append(sys, t)
			}
			c.lead = i + 1
			continue
		}
		c.add([]chat.Message{m}, i, i+1, calls)
	}
	flush(len(b.elems))
	c.system = strings.Join(sys, "\n\n")
	return nil
}

// add appends the messages of elements [i, end), naming tool results after
// their calls (the tracker and the limiter go by tool name; OpenAI's tool
// messages carry none).
func (c *conversation) add(ms []chat.Message, i, end int, calls map[string]string) {
	for _, m := range ms {
		for _, tc := range m.ToolCalls() {
			calls[tc.ID] = tc.Name
		}
		if r, ok := m.ToolResult(); ok && r.ToolName == "" {
			if name := calls[r.ToolCallID]; name != "" {
				r.ToolName = name
				parts := append([]chat.Part(nil), m.Parts...)
				parts[0] = r // the result leads; opaque parts follow it
				m.Parts = parts
			}
		}
		c.msgs = append(c.msgs, m)
		c.group = append(c.group, i)
		c.groupEnd = append(c.groupEnd, end)
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

// readTools reads tool definitions of every wire for counting: OpenAI's
// {"type": "function", "function": {name, description, parameters}},
// Anthropic's {name, description, input_schema}, the Responses API's
// {"type": "function", name, description, parameters}; any other shape (a
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
			Parameters  json.RawMessage `json:"parameters"`
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
		case d.Parameters != nil: // a Responses API function tool
			out = append(out, chat.ToolDef{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
		default:
			out = append(out, chat.ToolDef{Name: d.Name, Parameters: t})
		}
	}
	return out, nil
}

// additionalTools reads the tools of a Responses API additional_tools item
// (Codex: {"type": "additional_tools", "role": "developer", "tools": […]}),
// whose entries are tool definitions or namespaces of them ({"type":
// "namespace", "name", "tools": […]}).
func additionalTools(raw json.RawMessage) ([]chat.ToolDef, error) {
	var v struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("additional_tools: %w", err)
	}
	return readTools(v.Tools)
}

// withTokens returns p with Tokens set when it is an opaque part: its
// size is counted elsewhere (as tools).
func withTokens(p chat.Part, n int) chat.Part {
	if o, ok := p.(chat.Opaque); ok {
		o.Tokens = n
		return o
	}
	return p
}
