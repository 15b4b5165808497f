package agentconf

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicRequest is the part of a Messages API request the server reads.
type anthropicRequest struct {
	Model    string             `json:"model"`
	Messages []anthropicMessage `json:"messages"`
	System   json.RawMessage    `json:"system"`
	Tools    []struct {
		Name         string          `json:"name"`
		Type         string          `json:"type"`
		CacheControl json.RawMessage `json:"cache_control"`
	} `json:"tools"`
	Stream   bool `json:"stream"`
	Thinking *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	OutputConfig *struct {
		Format json.RawMessage `json:"format"`
	} `json:"output_config"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type         string          `json:"type"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	Text         string          `json:"text"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	CacheControl json.RawMessage `json:"cache_control"`
}

// anthropicBlocks decodes a message's content: a string is one text block.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var bs []anthropicBlock
	if err := json.Unmarshal(raw, &bs); err != nil {
		return nil, err
	}
	return bs, nil
}

// blockText is the text of a tool_result's content: a string, or its text
// blocks joined.
func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []anthropicBlock
	if json.Unmarshal(raw, &bs) != nil {
		return string(raw)
	}
	var b strings.Builder
	for _, x := range bs {
		b.WriteString(x.Text)
	}
	return b.String()
}

// anthropicTurn is a run of consecutive messages of one role, which the
// Messages API combines into one turn.
type anthropicTurn struct {
	role   string
	index  []int // message index of each block
	blocks []anthropicBlock
}

// validateAnthropic checks the Messages API's documented rules and returns
// the error message the API would send, or "".
func (s *Server) validateAnthropic(req *anthropicRequest) string {
	if len(req.Messages) == 0 {
		return "messages: at least one message is required"
	}
	breakpoints := 0
	var sys []anthropicBlock
	if len(req.System) > 0 && json.Unmarshal(req.System, &sys) == nil {
		for _, b := range sys {
			if len(b.CacheControl) > 0 && string(b.CacheControl) != "null" {
				breakpoints++
			}
		}
	}
	for _, t := range req.Tools {
		if len(t.CacheControl) > 0 && string(t.CacheControl) != "null" {
			breakpoints++
		}
	}
	var turns []anthropicTurn
	for i, m := range req.Messages {
		bs, err := anthropicBlocks(m.Content)
		if err != nil {
			return fmt.Sprintf("messages.%d.content: Input should be a valid list", i)
		}
		seenOther := false
		for j, b := range bs {
			if len(b.CacheControl) > 0 && string(b.CacheControl) != "null" {
				breakpoints++
			}
			if b.Type == "tool_result" {
				var inner []anthropicBlock
				if json.Unmarshal(b.Content, &inner) == nil {
					for _, x := range inner {
						if len(x.CacheControl) > 0 && string(x.CacheControl) != "null" {
							breakpoints++
						}
					}
				}
				if seenOther {
					return fmt.Sprintf("messages.%d.content.%d: tool_result blocks must come before any other content in a user message", i, j)
				}
			} else {
				seenOther = true
			}
			if m.Role == "assistant" && b.Type == "thinking" && b.Signature != s.sign(b.Thinking) {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
			}
			if m.Role == "assistant" && b.Type == "redacted_thinking" {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", i, j)
			}
		}
		switch m.Role {
		case "system":
			continue // Claude Code's default model sends these; they do not break turns here
		case "user", "assistant":
		default:
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if len(turns) == 0 && m.Role != "user" {
			return "messages: first message must use the \"user\" role"
		}
		if len(turns) == 0 || turns[len(turns)-1].role != m.Role {
			turns = append(turns, anthropicTurn{role: m.Role})
		}
		t := &turns[len(turns)-1]
		for range bs {
			t.index = append(t.index, i)
		}
		t.blocks = append(t.blocks, bs...)
	}
	if breakpoints > 4 {
		return fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", breakpoints)
	}
	for k, t := range turns {
		uses := map[string]bool{}
		if t.role == "assistant" {
			var missing []string
			var next map[string]bool
			if k+1 < len(turns) {
				next = map[string]bool{}
				for _, b := range turns[k+1].blocks {
					if b.Type == "tool_result" {
						next[b.ToolUseID] = true
					}
				}
			}
			for _, b := range t.blocks {
				if b.Type == "tool_use" && !next[b.ID] {
					missing = append(missing, b.ID)
				}
			}
			if len(missing) > 0 {
				return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", t.index[len(t.index)-1], strings.Join(missing, ", "))
			}
			continue
		}
		if k > 0 {
			for _, b := range turns[k-1].blocks {
				if b.Type == "tool_use" {
					uses[b.ID] = true
				}
			}
		}
		for j, b := range t.blocks {
			if b.Type == "tool_result" && !uses[b.ToolUseID] {
				return fmt.Sprintf("messages.%d.content: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", t.index[j], b.ToolUseID)
			}
		}
	}
	return ""
}

// anthropicState finds the latest tool call in the conversation: its step,
// its result's text, the number of tool calls, and whether the last user
// message holds text a user wrote (a new prompt).
func anthropicState(req *anthropicRequest) (last Step, result string, calls int, prompt bool) {
	results := map[string]string{}
	var lastID string
	for _, m := range req.Messages {
		bs, _ := anthropicBlocks(m.Content)
		for _, b := range bs {
			switch b.Type {
			case "tool_use":
				calls++
				last, lastID = Classify(string(b.Input)), b.ID
			case "tool_result":
				results[b.ToolUseID] = blockText(b.Content)
			}
		}
		if m.Role == "user" {
			// A prompt: text the user wrote, alone or after tool results
			// (Claude Code appends its compaction prompt to the last tool
			// results), but not Claude Code's system reminders.
			prompt = false
			for _, b := range bs {
				if b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>") {
					prompt = true
				}
			}
		}
	}
	return last, results[lastID], calls, prompt
}

// anthropicOut is one content block of the scripted answer.
type anthropicOut struct {
	typ, text, id, name string
	input               json.RawMessage
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request, rec *Record) {
	var req anthropicRequest
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		rec.Violation = "invalid JSON: " + err.Error()
		writeJSON(w, http.StatusBadRequest, errorBody(WireAnthropic, 400, "invalid_request_error", rec.Violation))
		return
	}
	if v := s.validateAnthropic(&req); v != "" {
		rec.Violation = v
		writeJSON(w, http.StatusBadRequest, errorBody(WireAnthropic, 400, "invalid_request_error", v))
		return
	}
	rec.Tokens, _ = Count(rec.Body)
	tools := map[string]bool{}
	for _, t := range req.Tools {
		tools[t.Name] = true
	}
	var out []anthropicOut
	stop := "end_turn"
	last, result, calls, prompt := anthropicState(&req)
	thinking := req.Thinking != nil && req.Thinking.Type != "" && req.Thinking.Type != "disabled"
	// Claude Code declares Bash, Read and Edit (snake_case parameters);
	// opencode bash, read and edit (camelCase).
	shellTool, readTool, editTool := "Bash", "Read", "Edit"
	pathKey, oldKey, newKey := "file_path", "old_string", "new_string"
	if !tools["Bash"] && tools["bash"] {
		shellTool, readTool, editTool = "bash", "read", "edit"
		pathKey, oldKey, newKey = "filePath", "oldString", "newString"
	}
	switch {
	case !tools[shellTool]:
		text := "agentconf: a side answer."
		if req.OutputConfig != nil && len(req.OutputConfig.Format) > 0 {
			text = `{"title":"Fix the calc test","isNewTopic":true}`
		}
		out = append(out, anthropicOut{typ: "text", text: text})
	case prompt && calls > 0:
		// A new prompt after tool calls: /compact or an auto-compaction.
		rec.Main, rec.Step = true, StepSummary
		out = append(out, anthropicOut{typ: "text", text: s.opts.Task.Summary(last, result)})
	default:
		rec.Main = true
		if calls == 0 {
			last = Progress(rec.Body)
		}
		a := s.opts.Task.Next(last, result, calls)
		rec.Step = a.Step
		if thinking {
			out = append(out, anthropicOut{typ: "thinking", text: a.Thinking})
		}
		call := func(name string, input any) {
			b, _ := json.Marshal(input)
			out = append(out, anthropicOut{typ: "tool_use", id: s.nextID("toolu_ac"), name: name, input: b})
			stop = "tool_use"
		}
		switch {
		case a.Kind == ActionFinal:
			out = append(out, anthropicOut{typ: "text", text: a.Text})
		case a.Kind == ActionRead && tools[readTool]:
			call(readTool, map[string]any{pathKey: a.Path})
		case a.Kind == ActionRead:
			call(shellTool, map[string]any{"command": a.Command, "description": "Read calc.js"})
		case a.Kind == ActionEdit && tools[editTool]:
			call(editTool, map[string]any{pathKey: a.Path, oldKey: a.Old, newKey: a.New})
		case a.Kind == ActionEdit:
			call(shellTool, map[string]any{"command": a.SedCommand, "description": "Fix calc.js"})
		default:
			call(shellTool, map[string]any{"command": a.Command, "description": "agentconf step " + string(a.Step)})
		}
	}
	outTokens := 0
	for _, o := range out {
		n, _ := Count([]byte(fmt.Sprintf("%q", o.text+string(o.input))))
		outTokens += n
	}
	usage := map[string]any{"input_tokens": rec.Tokens, "output_tokens": outTokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	id := s.nextID("msg_ac")
	if !req.Stream {
		var content []map[string]any
		for _, o := range out {
			switch o.typ {
			case "thinking":
				content = append(content, map[string]any{"type": "thinking", "thinking": o.text, "signature": s.sign(o.text)})
			case "tool_use":
				content = append(content, map[string]any{"type": "tool_use", "id": o.id, "name": o.name, "input": o.input})
			default:
				content = append(content, map[string]any{"type": "text", "text": o.text})
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := startSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": rec.Tokens, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	e.event("ping", map[string]any{"type": "ping"})
	for i, o := range out {
		switch o.typ {
		case "thinking":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, c := range chunks(o.text, 24) {
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": c}})
			}
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": s.sign(o.text)}})
		case "tool_use":
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": o.id, "name": o.name, "input": map[string]any{}}})
			for _, c := range chunks(string(o.input), 32) {
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": c}})
			}
		default:
			e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, c := range chunks(o.text, 24) {
				e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": c}})
			}
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": outTokens}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}
