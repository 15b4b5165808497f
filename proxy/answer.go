package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// readAnswer reads the model's answer from an upstream response body (the
// first maxTee bytes of it, Content-Encoding as for readUsage): a JSON
// reply or a stream of server-sent events, in wire w's shapes. It returns
// the answer as one assistant message, or nil when the body holds none
// (an error, a stream cut before any content). Usage is not set: the
// caller has it from readUsage.
//
// The shapes: Anthropic's message ("content" blocks) and its stream
// (content_block_start, content_block_delta with text_delta,
// input_json_delta, thinking_delta and signature_delta, in index order);
// the Responses API's response ("output" items) and its
// response.completed event; OpenAI chat completions' message and its
// chunks (content, reasoning_content and tool_calls deltas by index).
func readAnswer(w Wire, data []byte, encoding string) *chat.Message {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
	case "gzip":
		if data = gunzip(data); data == nil {
			return nil
		}
	default:
		return nil
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	var m *chat.Message
	if len(t) > 0 && t[0] == '{' {
		m = answerOfJSON(w, t)
	} else {
		m = answerOfStream(w, data)
	}
	if m == nil || len(m.Parts) == 0 {
		return nil
	}
	return m
}

// answerOfJSON reads the answer of one JSON reply.
func answerOfJSON(w Wire, data []byte) *chat.Message {
	switch w {
	case WireAnthropic:
		var v struct {
			ID      string                `json:"id"`
			Model   string                `json:"model"`
			Content chat.AnthropicContent `json:"content"`
		}
		if json.Unmarshal(data, &v) != nil {
			return nil
		}
		return anthropicAnswer(v.ID, v.Model, v.Content)
	case WireResponses:
		var v struct {
			ID     string               `json:"id"`
			Model  string               `json:"model"`
			Output []chat.ResponsesItem `json:"output"`
		}
		if json.Unmarshal(data, &v) != nil {
			return nil
		}
		return responsesAnswer(v.ID, v.Model, v.Output)
	case WireOpenAI:
		var v struct {
			ID      string `json:"id"`
			Model   string `json:"model"`
			Choices []struct {
				Message chat.OpenAIMessage `json:"message"`
			} `json:"choices"`
		}
		if json.Unmarshal(data, &v) != nil || len(v.Choices) == 0 {
			return nil
		}
		msgs, err := chat.FromOpenAI([]chat.OpenAIMessage{v.Choices[0].Message})
		if err != nil || len(msgs) != 1 {
			return nil
		}
		msgs[0].ID, msgs[0].Model = v.ID, v.Model
		return &msgs[0]
	}
	return nil
}

func anthropicAnswer(id, model string, content chat.AnthropicContent) *chat.Message {
	msgs, err := wireReader.FromAnthropic(nil, []chat.AnthropicMessage{{Role: "assistant", Content: content}})
	if err != nil || len(msgs) != 1 {
		return nil
	}
	msgs[0].ID, msgs[0].Model = id, model
	return &msgs[0]
}

func responsesAnswer(id, model string, items []chat.ResponsesItem) *chat.Message {
	m := chat.Message{Role: chat.RoleAssistant, ID: id, Model: model}
	for _, it := range items {
		if !it.IsAssistantSide() {
			continue
		}
		part, err := wireReader.FromResponses(it)
		if err != nil {
			continue
		}
		m.Parts = append(m.Parts, part.Parts...)
	}
	return &m
}

// sseEvents calls fn with the data of each server-sent event of data that
// is a JSON object.
func sseEvents(data []byte, fn func(payload []byte)) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxTee)
	for sc.Scan() {
		payload, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
		if !ok {
			continue
		}
		payload = bytes.TrimSpace(payload)
		if len(payload) > 0 && payload[0] == '{' {
			fn(payload)
		}
	}
}

// answerOfStream assembles the answer of a stream of server-sent events.
func answerOfStream(w Wire, data []byte) *chat.Message {
	switch w {
	case WireAnthropic:
		return anthropicStreamAnswer(data)
	case WireResponses:
		var out *chat.Message
		sseEvents(data, func(payload []byte) {
			var ev struct {
				Type     string `json:"type"`
				Response *struct {
					ID     string               `json:"id"`
					Model  string               `json:"model"`
					Output []chat.ResponsesItem `json:"output"`
				} `json:"response"`
			}
			if json.Unmarshal(payload, &ev) != nil || ev.Response == nil {
				return
			}
			switch ev.Type {
			case "response.completed", "response.incomplete", "response.done":
				out = responsesAnswer(ev.Response.ID, ev.Response.Model, ev.Response.Output)
			}
		})
		return out
	case WireOpenAI:
		return openAIStreamAnswer(data)
	}
	return nil
}

// anthropicStreamAnswer assembles a Messages API stream
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming).
func anthropicStreamAnswer(data []byte) *chat.Message {
	type block struct {
		b    chat.AnthropicBlock
		json strings.Builder
	}
	var (
		id, model string
		blocks    = map[int]*block{}
	)
	sseEvents(data, func(payload []byte) {
		var ev struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message *struct {
				ID    string `json:"id"`
				Model string `json:"model"`
			} `json:"message"`
			ContentBlock json.RawMessage `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				Thinking    string `json:"thinking"`
				Signature   string `json:"signature"`
			} `json:"delta"`
		}
		if json.Unmarshal(payload, &ev) != nil {
			return
		}
		switch ev.Type {
		case "message_start":
			if ev.Message != nil {
				id, model = ev.Message.ID, ev.Message.Model
			}
		case "content_block_start":
			var b chat.AnthropicBlock
			if json.Unmarshal(ev.ContentBlock, &b) != nil {
				return
			}
			if b.Type == "tool_use" {
				b.Input = nil // the input arrives as input_json_delta
			}
			blocks[ev.Index] = &block{b: b}
		case "content_block_delta":
			bl := blocks[ev.Index]
			if bl == nil {
				return
			}
			switch ev.Delta.Type {
			case "text_delta":
				bl.b.Text += ev.Delta.Text
			case "input_json_delta":
				bl.json.WriteString(ev.Delta.PartialJSON)
			case "thinking_delta":
				bl.b.Thinking += ev.Delta.Thinking
			case "signature_delta":
				bl.b.Signature += ev.Delta.Signature
			}
		}
	})
	idx := make([]int, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	content := make(chat.AnthropicContent, 0, len(idx))
	for _, i := range idx {
		bl := blocks[i]
		if bl.b.Type == "tool_use" {
			in := bl.json.String()
			if in == "" {
				in = "{}"
			}
			bl.b.Input = json.RawMessage(in)
		}
		content = append(content, bl.b)
	}
	return anthropicAnswer(id, model, content)
}

// openAIStreamAnswer assembles a chat completions stream
// (https://platform.openai.com/docs/api-reference/chat-streaming).
func openAIStreamAnswer(data []byte) *chat.Message {
	var (
		id, model string
		text      strings.Builder
		reasoning strings.Builder
		calls     = map[int]*chat.OpenAIToolCall{}
	)
	sseEvents(data, func(payload []byte) {
		var ev struct {
			ID      string `json:"id"`
			Model   string `json:"model"`
			Choices []struct {
				Delta struct {
					Content          string `json:"content"`
					ReasoningContent string `json:"reasoning_content"`
					ToolCalls        []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal(payload, &ev) != nil {
			return
		}
		if ev.ID != "" {
			id = ev.ID
		}
		if ev.Model != "" {
			model = ev.Model
		}
		if len(ev.Choices) == 0 {
			return
		}
		d := ev.Choices[0].Delta
		text.WriteString(d.Content)
		reasoning.WriteString(d.ReasoningContent)
		for _, tc := range d.ToolCalls {
			c := calls[tc.Index]
			if c == nil {
				c = &chat.OpenAIToolCall{Type: "function"}
				calls[tc.Index] = c
			}
			if tc.ID != "" {
				c.ID = tc.ID
			}
			c.Function.Name += tc.Function.Name
			c.Function.Arguments += tc.Function.Arguments
		}
	})
	o := chat.OpenAIMessage{Role: "assistant", ReasoningContent: reasoning.String()}
	if text.Len() > 0 {
		o.Content = chat.OpenAIText(text.String())
	}
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		o.ToolCalls = append(o.ToolCalls, *calls[i])
	}
	msgs, err := chat.FromOpenAI([]chat.OpenAIMessage{o})
	if err != nil || len(msgs) != 1 {
		return nil
	}
	msgs[0].ID, msgs[0].Model = id, model
	return &msgs[0]
}
