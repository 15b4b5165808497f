package transcript_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
)

// The independent count (issue 28, acceptance): for every file of the
// shared data and the fixtures written from the agents' sources, the
// numbers of messages, model calls, tool calls and tool results are
// counted here by a plain decoding of the documented fields
// (FORMATS.md, the agents' sources), with encoding/json into generic
// values and none of the reader's code, and must equal the reader's.

// counts are the four numbers compared.
type counts struct {
	Messages, ModelCalls, ToolCalls, ToolResults int
}

func readerCounts(trs []*transcript.Trajectory) []counts {
	var out []counts
	for _, tr := range trs {
		var c counts
		c.Messages = len(tr.Messages)
		for _, m := range tr.Messages {
			switch m.Role {
			case chat.RoleAssistant:
				c.ModelCalls++
				c.ToolCalls += len(m.ToolCalls())
			case chat.RoleTool:
				c.ToolResults++
			}
		}
		out = append(out, c)
	}
	return out
}

type obj = map[string]any

func jsonLines(t *testing.T, path string) []obj {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []obj
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var o obj
		if json.Unmarshal(sc.Bytes(), &o) == nil {
			out = append(out, o)
		}
	}
	return out
}

func jsonDoc(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func str(v any) string { s, _ := v.(string); return s }
func arr(v any) []any  { a, _ := v.([]any); return a }
func field(v any, k string) any {
	if o, ok := v.(obj); ok {
		return o[k]
	}
	return nil
}

// ccCount counts a Claude Code file (FORMATS.md §4): the user and
// assistant lines of the main session (every line when all are side
// chain); one model call per message.id (model <synthetic> excluded), one
// tool call per tool_use block, one result per tool_result block; a user
// line's other blocks (or string content) one user message per run
// between results; the first api-request-shape's system prompt one
// system message. A line of a uuid already read, a tool call of a
// response already read and a second result of a call are copies (a
// resumed file's).
func ccCount(t *testing.T, path string) counts {
	lines := jsonLines(t, path)
	main := false
	for _, l := range lines {
		if (str(l["type"]) == "user" || str(l["type"]) == "assistant") && l["isSidechain"] != true {
			main = true
		}
	}
	var c counts
	ids := map[string]bool{}
	seen, calls, answered := map[string]bool{}, map[string]bool{}, map[string]bool{}
	shaped := false
	for _, l := range lines {
		if main && l["isSidechain"] == true {
			continue
		}
		// A resumed file's copies: a line of a uuid already read, a
		// tool call or result already read.
		if t := str(l["type"]); (t == "user" || t == "assistant") && str(l["uuid"]) != "" {
			if seen[str(l["uuid"])] {
				continue
			}
			seen[str(l["uuid"])] = true
		}
		msg, _ := l["message"].(obj)
		switch str(l["type"]) {
		case "api-request-shape":
			if !shaped && (l["system"] != nil || l["tools"] != nil) {
				shaped = true
				c.Messages++
			}
		case "assistant":
			if str(msg["model"]) == "<synthetic>" {
				continue
			}
			if id := str(msg["id"]); !ids[id] || id == "" {
				ids[id] = true
				c.ModelCalls++
				c.Messages++
			}
			for _, b := range arr(msg["content"]) {
				if id := str(field(b, "id")); str(field(b, "type")) == "tool_use" && !calls[str(msg["id"])+"/"+id] {
					calls[str(msg["id"])+"/"+id] = true
					delete(answered, id)
					c.ToolCalls++
				}
			}
		case "user":
			content := msg["content"]
			if s, ok := content.(string); ok {
				_ = s
				c.Messages++
				continue
			}
			run := false
			for _, b := range arr(content) {
				if str(field(b, "type")) == "tool_result" {
					if answered[str(field(b, "tool_use_id"))] {
						continue
					}
					answered[str(field(b, "tool_use_id"))] = true
					c.ToolResults++
					c.Messages++
					run = false
					continue
				}
				if !run {
					c.Messages++
					run = true
				}
			}
		}
	}
	return c
}

// cxCount counts a Codex rollout (FORMATS.md §6): response items;
// developer/user/assistant messages, function/custom/local-shell calls
// and their outputs; one model call per token_count event with a new
// total (Codex writes each twice); the session header's instructions one
// system message.
func cxCount(t *testing.T, path string) counts {
	var c counts
	var lastTotal string
	for _, l := range jsonLines(t, path) {
		p, _ := l["payload"].(obj)
		switch str(l["type"]) {
		case "session_meta":
			if str(field(p["base_instructions"], "text")) != "" || str(p["instructions"]) != "" {
				c.Messages++
			}
		case "event_msg":
			if str(p["type"]) != "token_count" || p["info"] == nil {
				continue
			}
			b, _ := json.Marshal(field(p["info"], "total_token_usage"))
			if string(b) != lastTotal {
				lastTotal = string(b)
				c.ModelCalls++
			}
		case "response_item":
			switch str(p["type"]) {
			case "message":
				if str(p["role"]) != "assistant" {
					c.Messages++
				}
			case "function_call", "custom_tool_call", "local_shell_call":
				c.ToolCalls++
			case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
				c.ToolResults++
				c.Messages++
			}
		}
	}
	c.Messages += c.ModelCalls
	return c
}

// miniCount counts a mini-swe-agent v2 file (FORMATS.md §2): messages[]
// but the exit record; a model call per assistant message and per
// format-error feedback holding the discarded response, which
// info.model_stats.api_calls must equal; tool_calls; role tool results.
func miniCount(t *testing.T, path string) counts {
	doc := jsonDoc(t, path)
	var c counts
	for _, m := range arr(field(doc, "messages")) {
		switch str(field(m, "role")) {
		case "exit":
			continue
		case "assistant":
			c.ModelCalls++
			c.ToolCalls += len(arr(field(m, "tool_calls")))
		case "tool":
			c.ToolResults++
		case "user":
			// A format-error retry: the discarded response in extra
			// (mini-swe-agent ≥ 2.0), a model call of its own.
			if x := field(m, "extra"); str(field(x, "interrupt_type")) == "FormatError" && field(x, "response") != nil {
				c.ModelCalls++
				c.Messages++
			}
		}
		c.Messages++
	}
	if n, ok := field(field(field(doc, "info"), "model_stats"), "api_calls").(float64); ok && int(n) != c.ModelCalls {
		t.Errorf("%s: %d assistant messages, info.model_stats.api_calls %v", path, c.ModelCalls, n)
	}
	return c
}

// sweCount counts a SWE-agent .traj (FORMATS.md §1): history[] entries;
// a model call per assistant entry, its tool_calls (or, text format, its
// action: one call); role tool entries, or in the text format the entry
// after an assistant action, are results.
func sweCount(t *testing.T, path string) counts {
	doc := jsonDoc(t, path)
	var c counts
	pending := false
	for _, m := range arr(field(doc, "history")) {
		c.Messages++
		switch str(field(m, "role")) {
		case "assistant":
			c.ModelCalls++
			if n := len(arr(field(m, "tool_calls"))); n > 0 {
				c.ToolCalls += n
			} else if strings.TrimSpace(str(field(m, "action"))) != "" {
				c.ToolCalls++
				pending = true
			}
		case "tool":
			c.ToolResults++
			pending = false
		case "user":
			if pending {
				c.ToolResults++
			}
			pending = false
		}
	}
	return c
}

// ohCount counts an OpenHands output.jsonl (FORMATS.md §3), per line:
// the system action, the user's message actions and the observations
// that answer no call (recall ones left out); a model call per
// model response (tool_call_metadata.model_response.id) or per agent
// message action without one; a tool call per action with
// tool_call_metadata, a result per observation with it.
func ohCount(t *testing.T, path string) []counts {
	var out []counts
	for _, l := range jsonLines(t, path) {
		var c counts
		resp := map[string]bool{}
		for _, e := range arr(l["history"]) {
			action, obs := str(field(e, "action")), str(field(e, "observation"))
			meta := field(e, "tool_call_metadata")
			switch {
			case action == "system":
				c.Messages++
			case action == "message" && str(field(e, "source")) == "user":
				c.Messages++
			case action != "" && meta != nil:
				c.ToolCalls++
				if id := str(field(field(meta, "model_response"), "id")); !resp[id] {
					resp[id] = true
					c.ModelCalls++
					c.Messages++
				}
			case action == "message" && str(field(e, "source")) == "agent":
				c.ModelCalls++
				c.Messages++
			case obs != "" && meta != nil:
				c.ToolResults++
				c.Messages++
			case obs != "" && obs != "recall":
				// An observation that answers no tool call (an
				// error the agent reports back): user text, as
				// OpenHands sends it.
				c.Messages++
			}
		}
		out = append(out, c)
	}
	return out
}

// clineCount counts a Cline api_conversation_history.json: an assistant
// message is a model call, its tool_use blocks calls; a user message's
// tool_result blocks and "[NAME …] Result:" text blocks are results (a
// tool_result of no call is user text), its other blocks one user
// message per run between them.
func clineCount(t *testing.T, path string) counts {
	var c counts
	calls := map[string]bool{} // unanswered tool_use ids
	for _, m := range arr(jsonDoc(t, path)) {
		if str(field(m, "role")) == "assistant" {
			c.ModelCalls++
			c.Messages++
			for _, b := range arr(field(m, "content")) {
				if str(field(b, "type")) == "tool_use" {
					c.ToolCalls++
					calls[str(field(b, "id"))] = true
				}
			}
			continue
		}
		run, inResult := false, false
		for _, b := range arr(field(m, "content")) {
			text := str(field(b, "text"))
			switch {
			case str(field(b, "type")) == "tool_result" && !calls[str(field(b, "tool_use_id"))]:
				// A result of no call: user text (the pairing rule).
				c.Messages++
				run, inResult = false, false
			case str(field(b, "type")) == "tool_result",
				str(field(b, "type")) == "text" && strings.HasPrefix(text, "[") && strings.Contains(text, "] Result:"):
				delete(calls, str(field(b, "tool_use_id")))
				c.ToolResults++
				c.Messages++
				run, inResult = false, true
			case inResult && !strings.HasPrefix(text, "<environment_details>"):
			default:
				inResult = false
				if !run {
					c.Messages++
					run = true
				}
			}
		}
	}
	return c
}

// cpCount counts a Copilot CLI events.jsonl: system.message and
// user.message events; assistant.message events (chunks of one
// apiCallId one call), their toolRequests; tool.execution_complete
// events; sub-agent events left out.
func cpCount(t *testing.T, path string) counts {
	var c counts
	last := ""
	for _, e := range jsonLines(t, path) {
		d, _ := e["data"].(obj)
		if str(e["agentId"]) != "" || str(d["parentToolCallId"]) != "" {
			continue
		}
		switch str(e["type"]) {
		case "system.message", "user.message":
			c.Messages++
			last = ""
		case "assistant.message":
			c.ToolCalls += len(arr(d["toolRequests"]))
			if id := str(d["apiCallId"]); id == "" || id != last {
				c.ModelCalls++
				c.Messages++
			}
			last = str(d["apiCallId"])
		case "tool.execution_complete":
			c.ToolResults++
			c.Messages++
			last = ""
		}
	}
	return c
}

func TestIndependentCounts(t *testing.T) {
	t.Parallel()
	type file struct {
		path  string
		count func(*testing.T, string) []counts
	}
	one := func(f func(*testing.T, string) counts) func(*testing.T, string) []counts {
		return func(t *testing.T, p string) []counts { return []counts{f(t, p)} }
	}
	files := []file{
		{"testdata/cline/1764201600000/api_conversation_history.json", one(clineCount)},
		{"testdata/cline/1732612800000/api_conversation_history.json", one(clineCount)},
		{"testdata/mini-swe-agent/format-retry.traj.json", one(miniCount)},
		{"testdata/claude-code/resumed.jsonl", one(ccCount)},
	}
	cp, _ := filepath.Glob("testdata/copilot-cli/*/events.jsonl")
	for _, p := range cp {
		files = append(files, file{p, one(cpCount)})
	}
	root := sharedtest.Dir(t)
	for _, p := range sharedtest.Files(t) {
		rel, _ := filepath.Rel(root, p)
		switch strings.Split(filepath.ToSlash(rel), "/")[0] {
		case "claude-code":
			files = append(files, file{p, one(ccCount)})
		case "codex":
			files = append(files, file{p, one(cxCount)})
		case "mini-swe-agent":
			files = append(files, file{p, one(miniCount)})
		case "swe-agent":
			files = append(files, file{p, one(sweCount)})
		case "openhands":
			files = append(files, file{p, ohCount})
		default:
			t.Errorf("%s: no independent count for this folder", rel)
		}
	}
	for _, f := range files {
		trs, err := transcript.ReadFile(f.path, transcript.Options{})
		if err != nil {
			t.Errorf("%s: %v", f.path, err)
			continue
		}
		got, want := readerCounts(trs), f.count(t, f.path)
		// A Claude Code main session's inline side chains are
		// trajectories of their own: the main one is compared.
		if len(got) > len(want) {
			got = got[:len(want)]
		}
		for i := range want {
			if i >= len(got) || got[i] != want[i] {
				t.Errorf("%s #%d: reader %+v, independent count %+v", f.path, i, got, want[i])
			}
		}
	}
}
