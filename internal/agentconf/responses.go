package agentconf

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// responsesRequest is the part of a Responses API request the server reads.
type responsesRequest struct {
	Model     string          `json:"model"`
	Input     json.RawMessage `json:"input"`
	Tools     []responsesTool `json:"tools"`
	Stream    bool            `json:"stream"`
	Reasoning json.RawMessage `json:"reasoning"`
	Include   []string        `json:"include"`
}

type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"`
}

type responsesItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Input            string          `json:"input"`
	Output           json.RawMessage `json:"output"`
	EncryptedContent *string         `json:"encrypted_content"`
	Tools            []responsesTool `json:"tools"`
}

// responsesItems decodes input: a string is one user message.
func responsesItems(raw json.RawMessage) ([]responsesItem, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		c, _ := json.Marshal(s)
		return []responsesItem{{Type: "message", Role: "user", Content: c}}, nil
	}
	var items []responsesItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	for i := range items {
		if items[i].Type == "" && items[i].Role != "" {
			items[i].Type = "message"
		}
	}
	return items, nil
}

// outputText is the text of a *_output item's output: a string, or the
// text of its content items joined.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// sealReasoning returns the encrypted_content the server gives a reasoning
// item: "ac1." + base64 of the text + "." + its signature.
func (s *Server) sealReasoning(text string) string {
	return "ac1." + base64.StdEncoding.EncodeToString([]byte(text)) + "." + s.sign(text)
}

func (s *Server) openReasoning(sealed string) bool {
	parts := strings.Split(sealed, ".")
	if len(parts) != 3 || parts[0] != "ac1" {
		return false
	}
	text, err := base64.StdEncoding.DecodeString(parts[1])
	return err == nil && s.sign(string(text)) == parts[2]
}

// validateResponses checks the Responses API's rules and returns the error
// message and param the API would send, or "".
func (s *Server) validateResponses(items []responsesItem) (msg, param string) {
	calls := map[string]string{}   // call_id → kind of call
	outputs := map[string]string{} // call_id → kind of output
	for i, it := range items {
		switch it.Type {
		case "function_call", "custom_tool_call":
			calls[it.CallID] = it.Type
		case "function_call_output":
			outputs[it.CallID] = "function_call"
		case "custom_tool_call_output":
			outputs[it.CallID] = "custom_tool_call"
		case "reasoning":
			if it.EncryptedContent != nil && !s.openReasoning(*it.EncryptedContent) {
				return fmt.Sprintf("The encrypted content for item %s could not be verified.", it.ID), fmt.Sprintf("input[%d].encrypted_content", i)
			}
		}
	}
	for _, it := range items {
		switch it.Type {
		case "function_call":
			if outputs[it.CallID] != "function_call" {
				return fmt.Sprintf("No tool output found for function call %s.", it.CallID), "input"
			}
		case "custom_tool_call":
			if outputs[it.CallID] != "custom_tool_call" {
				return fmt.Sprintf("No tool output found for custom tool call %s.", it.CallID), "input"
			}
		case "function_call_output":
			if calls[it.CallID] != "function_call" {
				return fmt.Sprintf("No tool call found for function call output with call_id %s.", it.CallID), "input"
			}
		case "custom_tool_call_output":
			if calls[it.CallID] != "custom_tool_call" {
				return fmt.Sprintf("No tool call found for custom tool call output with call_id %s.", it.CallID), "input"
			}
		}
	}
	return "", ""
}

// toolKinds maps each declared tool's name to its type ("function",
// "custom"), from the tools field and additional_tools input items,
// namespaces flattened.
func toolKinds(top []responsesTool, items []responsesItem) map[string]string {
	kinds := map[string]string{}
	var add func([]responsesTool)
	add = func(ts []responsesTool) {
		for _, t := range ts {
			if t.Type == "namespace" {
				add(t.Tools)
				continue
			}
			kinds[t.Name] = t.Type
		}
	}
	add(top)
	for _, it := range items {
		if it.Type == "additional_tools" {
			add(it.Tools)
		}
	}
	return kinds
}

// responsesOut is one output item of the scripted answer.
type responsesOut struct {
	typ, text, name, args string // typ: message, function_call, custom_tool_call
}

// jsString returns s as a JavaScript (and JSON) string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request, rec *Record) {
	var req responsesRequest
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		rec.Violation = "invalid JSON: " + err.Error()
		writeJSON(w, http.StatusBadRequest, errorBody(WireResponses, 400, "invalid_request_error", rec.Violation))
		return
	}
	items, err := responsesItems(req.Input)
	if err != nil {
		rec.Violation = "input: " + err.Error()
		writeJSON(w, http.StatusBadRequest, errorBody(WireResponses, 400, "invalid_request_error", rec.Violation))
		return
	}
	if msg, param := s.validateResponses(items); msg != "" {
		rec.Violation = msg
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": param, "code": nil}})
		return
	}
	rec.Tokens, _ = Count(rec.Body)
	kinds := toolKinds(req.Tools, items)
	var last Step
	var lastID string
	calls := 0
	results := map[string]string{}
	prompt := false
	for _, it := range items {
		switch it.Type {
		case "function_call":
			calls++
			last, lastID = Classify(it.Arguments), it.CallID
		case "custom_tool_call":
			calls++
			last, lastID = Classify(it.Input), it.CallID
		case "function_call_output", "custom_tool_call_output":
			results[it.CallID] = outputText(it.Output)
		}
		if it.Type == "message" && it.Role == "user" {
			prompt = true
		} else if it.Type != "message" {
			prompt = false
		}
	}
	jsMode := kinds["exec"] == "custom" && kinds["exec_command"] == ""
	var out responsesOut
	reasoning := ""
	switch {
	case !jsMode && kinds["exec_command"] == "" && kinds["shell"] == "":
		out = responsesOut{typ: "message", text: "agentconf: a side answer."}
	case prompt && calls > 0:
		rec.Main, rec.Step = true, StepSummary
		out = responsesOut{typ: "message", text: s.opts.Task.Summary(last, results[lastID])}
	default:
		rec.Main = true
		if calls == 0 {
			last = Progress(rec.Body)
		}
		a := s.opts.Task.Next(last, results[lastID], calls)
		rec.Step, reasoning = a.Step, a.Thinking
		shell := func(cmd string) responsesOut {
			switch {
			case jsMode:
				return responsesOut{typ: "custom_tool_call", name: "exec", args: "const r = await tools.exec_command({ cmd: " + jsString(cmd) + ", workdir: " + jsString(s.opts.Task.Dir) + " });\ntext((r.exit_code === undefined ? \"\" : \"exit_code: \" + r.exit_code + \"\\n\") + r.output);\n"}
			case kinds["exec_command"] != "":
				b, _ := json.Marshal(map[string]any{"cmd": cmd, "workdir": s.opts.Task.Dir})
				return responsesOut{typ: "function_call", name: "exec_command", args: string(b)}
			}
			b, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", cmd}, "workdir": s.opts.Task.Dir})
			return responsesOut{typ: "function_call", name: "shell", args: string(b)}
		}
		switch {
		case a.Kind == ActionFinal:
			out = responsesOut{typ: "message", text: a.Text}
		case a.Kind == ActionEdit && jsMode:
			out = responsesOut{typ: "custom_tool_call", name: "exec", args: "const r = await tools.apply_patch(" + jsString(a.Patch) + ");\ntext(typeof r === \"string\" ? r : JSON.stringify(r));\n"}
		case a.Kind == ActionEdit && kinds["apply_patch"] == "custom":
			out = responsesOut{typ: "custom_tool_call", name: "apply_patch", args: a.Patch}
		case a.Kind == ActionEdit && kinds["apply_patch"] == "function":
			b, _ := json.Marshal(map[string]any{"input": a.Patch})
			out = responsesOut{typ: "function_call", name: "apply_patch", args: string(b)}
		case a.Kind == ActionEdit:
			out = shell(a.SedCommand)
		default:
			out = shell(a.Command)
		}
	}
	s.respond(w, rec, &req, out, reasoning)
}

// respond sends the scripted answer as a Responses API response: SSE
// events when the request streams, else the response object.
func (s *Server) respond(w http.ResponseWriter, rec *Record, req *responsesRequest, out responsesOut, reasoning string) {
	respID := s.nextID("resp_ac")
	created := time.Now().Unix()
	var items []map[string]any
	encrypted := false
	for _, inc := range req.Include {
		encrypted = encrypted || inc == "reasoning.encrypted_content"
	}
	if len(req.Reasoning) > 0 && string(req.Reasoning) != "null" && reasoning != "" {
		it := map[string]any{"type": "reasoning", "id": s.nextID("rs_ac"), "summary": []any{map[string]any{"type": "summary_text", "text": reasoning}}}
		if encrypted {
			it["encrypted_content"] = s.sealReasoning(reasoning)
		}
		items = append(items, it)
	}
	var main map[string]any
	switch out.typ {
	case "function_call":
		main = map[string]any{"type": "function_call", "id": s.nextID("fc_ac"), "call_id": s.nextID("call_ac"), "name": out.name, "arguments": out.args, "status": "completed"}
	case "custom_tool_call":
		main = map[string]any{"type": "custom_tool_call", "id": s.nextID("ctc_ac"), "call_id": s.nextID("call_ac"), "name": out.name, "input": out.args, "status": "completed"}
	default:
		main = map[string]any{"type": "message", "id": s.nextID("msg_ac"), "status": "completed", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": out.text, "annotations": []any{}}}}
	}
	items = append(items, main)
	outTokens, _ := Count([]byte(jsString(out.text + out.args + reasoning)))
	usage := map[string]any{"input_tokens": rec.Tokens, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": outTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": rec.Tokens + outTokens}
	response := func(status string, output []map[string]any, u any) map[string]any {
		if output == nil {
			output = []map[string]any{}
		}
		return map[string]any{"id": respID, "object": "response", "created_at": created, "status": status, "model": req.Model, "output": output, "usage": u, "error": nil, "incomplete_details": nil, "parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}, "store": false}
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, response("completed", items, usage))
		return
	}
	e := startSSE(w)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		e.event(typ, fields)
	}
	ev("response.created", map[string]any{"response": response("in_progress", nil, nil)})
	ev("response.in_progress", map[string]any{"response": response("in_progress", nil, nil)})
	for i, it := range items {
		added := map[string]any{}
		for k, v := range it {
			added[k] = v
		}
		added["status"] = "in_progress"
		id, _ := it["id"].(string)
		switch it["type"] {
		case "reasoning":
			added["summary"] = []any{}
			delete(added, "status")
			ev("response.output_item.added", map[string]any{"output_index": i, "item": added})
			ev("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
			ev("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "delta": reasoning})
			ev("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "text": reasoning})
			ev("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": i, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": reasoning}})
		case "function_call":
			added["arguments"] = ""
			ev("response.output_item.added", map[string]any{"output_index": i, "item": added})
			for _, c := range chunks(out.args, 32) {
				ev("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": c})
			}
			ev("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i, "arguments": out.args})
		case "custom_tool_call":
			added["input"] = ""
			ev("response.output_item.added", map[string]any{"output_index": i, "item": added})
			for _, c := range chunks(out.args, 32) {
				ev("response.custom_tool_call_input.delta", map[string]any{"item_id": id, "output_index": i, "delta": c})
			}
			ev("response.custom_tool_call_input.done", map[string]any{"item_id": id, "output_index": i, "input": out.args})
		default:
			added["content"] = []any{}
			ev("response.output_item.added", map[string]any{"output_index": i, "item": added})
			ev("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, c := range chunks(out.text, 24) {
				ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "delta": c})
			}
			ev("response.output_text.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "text": out.text})
			ev("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0, "part": map[string]any{"type": "output_text", "text": out.text, "annotations": []any{}}})
		}
		ev("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	ev("response.completed", map[string]any{"response": response("completed", items, usage)})
}
