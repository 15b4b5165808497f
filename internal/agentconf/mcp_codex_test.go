//go:build unix

package agentconf

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Codex on the Responses wire. Codex 0.169.0 does not declare MCP tools
// to the model: it names the server under "Deferred tool namespaces"
// (mcp__agentctx) and reaches its tools in one of two ways, by model
// family. Its default models get one freeform JavaScript tool, exec,
// whose code calls every tool as tools.NAME(…), deferred MCP tools
// included (tools.mcp__agentctx__recall_output); gpt-5.5 gets function
// tools and tool_search (execution "client"): the model searches, Codex
// answers with a tool_search_output holding the namespace's tools, and
// the model then calls the function in that namespace. The script plays
// both.

// codexShellJS runs cmd through exec_command in Codex's exec tool, with
// room for the whole output (Codex's own cap is 10,000 tokens).
func codexShellJS(cmd string) string {
	return `// @exec: {"max_output_tokens": 100000}` + "\n" +
		"const r = await tools.exec_command({ cmd: " + jsString(cmd) + ", max_output_tokens: 100000 });\ntext(r.output);\n"
}

// codexRecallJS calls the recall tool (name as the cut note gave it) in
// Codex's exec tool and returns its text.
func codexRecallJS(name string, args map[string]any) string {
	b, _ := json.Marshal(args)
	return "const r = await tools." + name + "(" + string(b) + ");\n" +
		`text(typeof r === "string" ? r : (r.content ?? []).map((c) => c.text ?? "").join("\n") || JSON.stringify(r));` + "\n"
}

// codexName is the tool a Codex call item stands for in the script: the
// function's name (its namespace prefixed, as the cut note names it), or
// for an exec call the tool its code calls.
func codexName(it responsesItem, namespace string) string {
	switch it.Type {
	case "function_call":
		if namespace != "" {
			return namespace + "__" + it.Name
		}
		return it.Name
	case "custom_tool_call":
		if strings.Contains(it.Input, "tools.exec_command(") {
			return "exec_command"
		}
		if i := strings.Index(it.Input, "tools."); i >= 0 {
			name, _, _ := strings.Cut(it.Input[i+len("tools."):], "(")
			return name
		}
	}
	return it.Type
}

// responses answers Codex: the main conversation (exec or exec_command
// declared) through s.next, any other request (a title, a memory) with a
// side answer.
func (s *mcpScript) responses(w http.ResponseWriter, body []byte) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(WireResponses, 400, "invalid_request_error", err.Error()))
		return
	}
	items, err := responsesItems(stringArguments(req.Input))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(WireResponses, 400, "invalid_request_error", err.Error()))
		return
	}
	var namespaced struct {
		Namespace string `json:"namespace"`
	}
	kinds := toolKinds(req.Tools, items)
	var names []string
	for n := range kinds {
		names = append(names, n)
	}
	jsMode := kinds["exec"] == "custom" && kinds["exec_command"] == ""
	search := false
	for _, t := range req.Tools {
		search = search || t.Type == "tool_search"
	}
	// The last call, its result, and the namespaces a search found.
	var lastName, lastID string
	results := map[string]string{}
	found := map[string]bool{}
	raw := rawItems(req.Input)
	for i, it := range items {
		switch it.Type {
		case "function_call", "custom_tool_call":
			namespaced.Namespace = ""
			if i < len(raw) {
				_ = json.Unmarshal(raw[i], &namespaced)
			}
			lastName, lastID = codexName(it, namespaced.Namespace), it.CallID
		case "tool_search_call":
			lastName, lastID = "tool_search", it.CallID
		case "function_call_output", "custom_tool_call_output":
			results[it.CallID] = outputText(it.Output)
		case "tool_search_output":
			for _, t := range it.Tools {
				found[t.Name] = true
			}
			results[it.CallID] = "found"
		}
	}
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	out := map[string]any{"type": "message", "role": "assistant", "status": "completed", "content": []any{map[string]any{"type": "output_text", "text": "agentconf: a side answer.", "annotations": []any{}}}}
	text := func(t string) {
		out["content"] = []any{map[string]any{"type": "output_text", "text": t, "annotations": []any{}}}
	}
	if jsMode || kinds["exec_command"] != "" {
		step, result := lastName, results[lastID]
		if step == "tool_search" {
			// The search was the way to the recall tool the shell's cut
			// note named (the proxy may have compacted that note away
			// since): play the step after the shell again.
			s.mu.Lock()
			step, result = "exec_command", s.results["exec_command"]
			s.mu.Unlock()
		}
		name, args, answer := s.next("exec_command", names, step, result)
		text(answer)
		callID := fmt.Sprintf("call_mcp%02d", n)
		switch {
		case name == "":
		case jsMode && name == "exec_command":
			out = map[string]any{"type": "custom_tool_call", "call_id": callID, "name": "exec", "input": codexShellJS(args["command"].(string)), "status": "completed"}
		case jsMode:
			out = map[string]any{"type": "custom_tool_call", "call_id": callID, "name": "exec", "input": codexRecallJS(name, args), "status": "completed"}
		case name == "exec_command":
			b, _ := json.Marshal(map[string]any{"cmd": args["command"], "max_output_tokens": 100000})
			out = map[string]any{"type": "function_call", "call_id": callID, "name": "exec_command", "arguments": string(b), "status": "completed"}
		default:
			// gpt-5.5: find the namespace with tool_search first, then
			// call the function in it.
			ns, fn := codexSplit(name)
			b, _ := json.Marshal(args)
			if search && !found[ns] {
				out = map[string]any{"type": "tool_search_call", "call_id": callID, "execution": "client", "arguments": map[string]any{"query": "agentctx recall_output"}, "status": "completed"}
			} else {
				out = map[string]any{"type": "function_call", "call_id": callID, "namespace": ns, "name": fn, "arguments": string(b), "status": "completed"}
			}
		}
	}
	out["id"] = fmt.Sprintf("item_mcp%02d", n)
	respID := fmt.Sprintf("resp_mcp%02d", n)
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}
	response := func(status string, output []any, u any) map[string]any {
		return map[string]any{"id": respID, "object": "response", "created_at": 1767225600, "status": status, "model": req.Model, "output": output, "usage": u,
			"error": nil, "incomplete_details": nil, "parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{}, "store": false}
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, response("completed", []any{out}, usage))
		return
	}
	e := startSSE(w)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		e.event(typ, fields)
	}
	ev("response.created", map[string]any{"response": response("in_progress", []any{}, nil)})
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": out})
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": out})
	ev("response.completed", map[string]any{"response": response("completed", []any{out}, usage)})
}

// codexSplit splits a tool's name as the cut note gives it
// (mcp__agentctx__recall_output) into Codex's namespace (mcp__agentctx)
// and the function's name in it (recall_output).
func codexSplit(name string) (namespace, fn string) {
	i := strings.LastIndex(name, "__")
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+2:]
}

// rawItems returns the input's items as raw JSON (nil for a string input).
func rawItems(input json.RawMessage) []json.RawMessage {
	var items []json.RawMessage
	if json.Unmarshal(input, &items) != nil {
		return nil
	}
	return items
}

// stringArguments returns input with each item's "arguments" that is not a
// string (a tool_search_call's object) turned into its JSON text, which
// responsesItem reads.
func stringArguments(input json.RawMessage) json.RawMessage {
	var items []map[string]json.RawMessage
	if json.Unmarshal(input, &items) != nil {
		return input
	}
	for _, it := range items {
		if a, ok := it["arguments"]; ok && len(a) > 0 && a[0] != '"' {
			it["arguments"], _ = json.Marshal(string(a))
		}
	}
	out, err := json.Marshal(items)
	if err != nil {
		return input
	}
	return out
}
