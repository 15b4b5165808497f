package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// Cline and Roo Code task history: api_conversation_history.json, with
// ui_messages.json beside it for usage.
//
// Cline (github.com/cline/cline, src/shared/messages/content.ts) stores a
// task's model conversation as a JSON array of Anthropic Messages API
// messages ({role: "user"|"assistant", content: string | blocks}), each
// optionally extended with "id", "ts" (Unix milliseconds), "modelInfo"
// {modelId, providerId, mode} and "metrics" {tokens: {prompt, completion,
// cached}, cost} (src/shared/messages/metrics.ts). Roo Code, its fork,
// writes the same file. The UI's ui_messages.json holds one
// {say: "api_req_started", text: JSON} entry per API request, whose text
// carries tokensIn, tokensOut, cacheWrites and cacheReads
// (src/shared/getApiMetrics.ts, ClineApiReqInfo).

// clineHistoryName and clineUIName are the file names Cline gives a
// task's two histories, in the task's folder.
const (
	clineHistoryName = "api_conversation_history.json"
	clineUIName      = "ui_messages.json"
)

type clineMsg struct {
	Role      string    `json:"role"`
	Content   ccContent `json:"content"`
	ID        string    `json:"id"`
	TS        count     `json:"ts"`
	ModelInfo *struct {
		ModelID string `json:"modelId"`
	} `json:"modelInfo"`
	Metrics *struct {
		Tokens *struct {
			Prompt     count `json:"prompt"`
			Completion count `json:"completion"`
			Cached     count `json:"cached"`
		} `json:"tokens"`
	} `json:"metrics"`
}

// clineOnlyBlocks are the content-block types of the Anthropic Messages
// API that an OpenAI content array never holds: one of them, with no
// OpenAI field anywhere, makes an array of role messages a Cline history
// ([isClineArray]).
var clineOnlyBlocks = map[string]bool{
	"tool_use": true, "tool_result": true, "thinking": true, "redacted_thinking": true, "document": true,
}

// isClineArray reports whether items, the elements of a JSON array, are
// Anthropic Messages API messages as Cline writes them: every element an
// object with role user or assistant and none of the OpenAI message
// fields (tool_calls, tool_call_id, function_call, name), and at least one
// block of a type only the Anthropic API has (tool_use, tool_result,
// thinking, …), an image block with a "source", or a Cline field
// (modelInfo, metrics).
func isClineArray(items []json.RawMessage) bool {
	anthropic := false
	for _, raw := range items {
		m := keysOf(raw)
		if m == nil || has(m, "tool_calls", "tool_call_id", "function_call", "name") {
			return false
		}
		switch str(m["role"]) {
		case "user", "assistant":
		default:
			return false
		}
		if has(m, "modelInfo", "metrics") {
			anthropic = true
		}
		if anthropic || !rawArray(m["content"]) {
			continue
		}
		var blocks []json.RawMessage
		_ = jsonx.Unmarshal(m["content"], &blocks)
		for _, b := range blocks {
			k := keysOf(b)
			typ := str(k["type"])
			if clineOnlyBlocks[typ] || (typ == "image" && rawObject(k["source"])) {
				anthropic = true
				break
			}
		}
	}
	return anthropic
}

// readCline reads a Cline or Roo Code api_conversation_history.json.
//
// Rules: each assistant message is one model response: its text,
// thinking, redacted_thinking and tool_use blocks become [chat.Text],
// [chat.Thinking] and [chat.ToolCall] parts. A user message's tool_result
// blocks become tool messages (text blocks joined by "\n", an image block
// noted as "[image]"), in block order, and so do its "[NAME for '…']
// Result:" text blocks, Cline's results sent as text, each answering the
// first unanswered call of that name of the assistant message before it
// (see [clineUser]); its other text, image and document blocks make a
// user message. Blocks of another type are dropped and each is
// reported as a [Problem]; so is an element without role user or
// assistant.
//
// Usage, per assistant message: its "metrics.tokens" where Cline wrote
// them (prompt includes the cached tokens: input = prompt − cached, cache
// read = cached, output = completion); else, when name is the path of a
// file named api_conversation_history.json whose folder holds
// ui_messages.json, the api_req_started entries there that report tokens,
// the n-th such entry to the n-th assistant message (input = tokensIn,
// output = tokensOut, cache write = cacheWrites, cache read = cacheReads,
// Anthropic's split), only when there are as many entries as assistant
// messages; a mismatch, or an unreadable ui_messages.json, is reported as
// a Problem and no usage is taken from it.
func readCline(data []byte, name string) ([]*Trajectory, error) {
	var msgs []clineMsg
	if err := decodeDoc(data, name, &msgs); err != nil {
		return nil, err
	}
	if msgs == nil {
		return nil, &ParseError{File: name, Line: 1, Reason: "not a JSON array of Anthropic messages"}
	}
	t := &Trajectory{}
	var probs []Problem
	drop := func(i int, what string) {
		probs = append(probs, Problem{Err: &ParseError{File: name, Reason: fmt.Sprintf("message %d: %s dropped", i, what)}})
	}
	models := map[string]int{}
	var times []time.Time
	anyTime := false
	var assistants []int // indexes in t.Messages
	withMetrics := 0
	for i, m := range msgs {
		start := len(t.Messages)
		switch m.Role {
		case "assistant":
			t.Messages = append(t.Messages, clineAssistant(m, func(what string) { drop(i, what) }))
			assistants = append(assistants, start)
			if t.Messages[start].Usage != nil {
				withMetrics++
			}
			if m.ModelInfo != nil && m.ModelInfo.ModelID != "" {
				models[m.ModelInfo.ModelID]++
			}
		case "user":
			t.Messages = clineUser(t.Messages, m, clinePending(t.Messages), func(what string) { drop(i, what) })
		default:
			drop(i, fmt.Sprintf("a message with role %q", m.Role))
		}
		var ts time.Time
		if m.TS > 0 {
			ts = time.UnixMilli(int64(m.TS)).UTC()
			anyTime = true
		}
		for len(times) < len(t.Messages) {
			times = append(times, ts)
		}
	}
	if anyTime {
		t.Times = times
		for _, ts := range times {
			if !ts.IsZero() {
				t.Started = ts
				break
			}
		}
	}
	t.Model = mostCommon(models)
	if filepath.Base(name) == clineHistoryName {
		t.ID = filepath.Base(filepath.Dir(name))
		if withMetrics == 0 && len(assistants) > 0 {
			probs = append(probs, clineUIUsage(t, name, assistants)...)
		}
	}
	t.Problems = probs
	return []*Trajectory{t}, nil
}

// clineAssistant returns the assistant message of m, calling drop for each
// block it cannot map.
func clineAssistant(m clineMsg, drop func(string)) chat.Message {
	out := chat.Message{Role: chat.RoleAssistant, ID: m.ID}
	if m.ModelInfo != nil {
		out.Model = m.ModelInfo.ModelID
	}
	if !m.Content.array {
		out.Parts = textParts(m.Content.s, nil)
	}
	for _, bl := range m.Content.blocks {
		switch bl.Type {
		case "text":
			out.Parts = append(out.Parts, chat.Text{Text: string(bl.Text)})
		case "thinking":
			out.Parts = append(out.Parts, chat.Thinking{Text: bl.Thinking, Signature: bl.Signature})
		case "redacted_thinking":
			out.Parts = append(out.Parts, chat.Thinking{Encrypted: bl.Data})
		case "tool_use":
			out.Parts = append(out.Parts, chat.ToolCall{ID: bl.ID, Name: bl.Name, Arguments: parseArgs(bl.Input)})
		case "image":
			out.Parts = append(out.Parts, bl.image())
		default:
			drop(fmt.Sprintf("content block of type %q", bl.Type))
		}
	}
	if mt := m.Metrics; mt != nil && mt.Tokens != nil {
		u := chat.Usage{
			InputTokens:     int(mt.Tokens.Prompt - mt.Tokens.Cached),
			CacheReadTokens: int(mt.Tokens.Cached),
			OutputTokens:    int(mt.Tokens.Completion),
		}
		if !u.IsZero() {
			out.Usage = &u
		}
	}
	return out
}

// clineResultHead is the text block Cline puts before a tool's result
// when it sends the result as user text rather than a tool_result block
// (the provider gave the call no id, or the call was written as XML in
// the text): "[NAME for 'PARAM'] Result:" or "[NAME] Result:"
// (github.com/cline/cline, src/core/task/ToolExecutor.ts and
// src/core/task/tools/utils/ToolResultUtils.ts: the tool's description
// followed by " Result:", then the result as text blocks).
var clineResultHead = regexp.MustCompile(`^\[([A-Za-z0-9_.:-]+)(?: for '(?s:.*?)')?\] Result:`)

// clineToolError starts the result text of a tool that failed
// (src/core/prompts/responses.ts, formatResponse.toolError).
const clineToolError = "The tool execution failed"

// clinePending returns the tool calls of the last assistant message in
// msgs that no tool message after it answers yet, in call order.
func clinePending(msgs []chat.Message) []chat.ToolCall {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == chat.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range msgs[last+1:] {
		if r, ok := m.ToolResult(); ok {
			answered[r.ToolCallID] = true
		}
	}
	var out []chat.ToolCall
	for _, p := range msgs[last].Parts {
		if c, ok := p.(chat.ToolCall); ok && !answered[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// clineUser appends the messages of the user message m to out: a tool
// message per tool_result block, a tool message per "[NAME …] Result:"
// text block that answers one of pending (the unanswered calls of the
// assistant message before m: the first of that name; its result is the
// text after the head and the text blocks up to the next head or the
// environment details), and a user message for the blocks between them.
func clineUser(out []chat.Message, m clineMsg, pending []chat.ToolCall, drop func(string)) []chat.Message {
	if !m.Content.array {
		return append(out, chat.Message{Role: chat.RoleUser, ID: m.ID, Parts: textParts(m.Content.s, nil)})
	}
	var parts []chat.Part
	flush := func() {
		if len(parts) > 0 {
			out = append(out, chat.Message{Role: chat.RoleUser, ID: m.ID, Parts: parts})
			parts = nil
		}
	}
	result := -1 // index in out of the tool message text blocks go to, or -1
	answer := func(name string) (chat.ToolCall, bool) {
		for i, c := range pending {
			if c.Name == name {
				pending = append(pending[:i:i], pending[i+1:]...)
				return c, true
			}
		}
		return chat.ToolCall{}, false
	}
	for _, bl := range m.Content.blocks {
		if bl.Type == "text" && len(pending) > 0 {
			text := string(bl.Text)
			if h := clineResultHead.FindStringSubmatchIndex(text); h != nil {
				if c, ok := answer(text[h[2]:h[3]]); ok {
					flush()
					rest := strings.TrimLeft(text[h[1]:], " \n")
					out = append(out, chat.Message{Role: chat.RoleTool, ID: m.ID, Parts: []chat.Part{chat.ToolResult{
						ToolCallID: c.ID, ToolName: c.Name, Content: rest, IsError: strings.HasPrefix(rest, clineToolError),
					}}})
					result = len(out) - 1
					continue
				}
			}
		}
		if bl.Type == "text" && result >= 0 && !strings.HasPrefix(strings.TrimSpace(string(bl.Text)), "<environment_details>") {
			r, _ := out[result].ToolResult()
			r.Content = joinNonEmpty(r.Content, string(bl.Text))
			r.IsError = r.IsError || strings.HasPrefix(r.Content, clineToolError)
			out[result].Parts[0] = r
			continue
		}
		result = -1
		switch bl.Type {
		case "tool_result":
			flush()
			out = append(out, chat.Message{Role: chat.RoleTool, ID: m.ID, Parts: []chat.Part{chat.ToolResult{
				ToolCallID: bl.ToolUseID, Content: ccResultText(bl.Content), IsError: bl.IsError,
			}}})
		case "text":
			parts = append(parts, chat.Text{Text: string(bl.Text)})
		case "image":
			parts = append(parts, bl.image())
		case "document":
			parts = append(parts, chat.Text{Text: "[document]"})
		default:
			drop(fmt.Sprintf("content block of type %q", bl.Type))
		}
	}
	flush()
	return out
}

// clineUIMsg is one entry of ui_messages.json; Text holds, for
// api_req_started, the JSON of the request's metrics.
type clineUIMsg struct {
	Type string `json:"type"`
	Say  string `json:"say"`
	Text string `json:"text"`
}

type clineReqInfo struct {
	TokensIn    *count `json:"tokensIn"`
	TokensOut   *count `json:"tokensOut"`
	CacheWrites *count `json:"cacheWrites"`
	CacheReads  *count `json:"cacheReads"`
}

// clineUIUsage sets the usage of t's assistant messages (indexes in
// assistants) from the ui_messages.json beside the history file at path
// (see [readCline]) and returns what went wrong as problems. A missing
// ui_messages.json is no problem: usage is then unknown.
func clineUIUsage(t *Trajectory, path string, assistants []int) []Problem {
	uiPath := filepath.Join(filepath.Dir(path), clineUIName)
	data, err := os.ReadFile(uiPath)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return []Problem{{Err: &ParseError{File: uiPath, Reason: "usage not read", Err: err}}}
	}
	var ui []clineUIMsg
	if err := decodeDoc(data, uiPath, &ui); err != nil {
		return []Problem{{Err: err}}
	}
	var usages []chat.Usage
	for _, m := range ui {
		if m.Say != "api_req_started" || m.Text == "" {
			continue
		}
		var info clineReqInfo
		if decodeLoose([]byte(m.Text), &info) != nil {
			continue
		}
		if info.TokensIn == nil && info.TokensOut == nil {
			continue // a request that failed or was cancelled before any usage
		}
		u := chat.Usage{}
		for _, f := range []struct {
			dst *int
			src *count
		}{{&u.InputTokens, info.TokensIn}, {&u.OutputTokens, info.TokensOut}, {&u.CacheWriteTokens, info.CacheWrites}, {&u.CacheReadTokens, info.CacheReads}} {
			if f.src != nil {
				*f.dst = int(*f.src)
			}
		}
		usages = append(usages, u)
	}
	if len(usages) != len(assistants) {
		return []Problem{{Err: &ParseError{File: uiPath, Reason: fmt.Sprintf(
			"%d api_req_started entries report usage for %d assistant messages: usage not paired", len(usages), len(assistants))}}}
	}
	for k, i := range assistants {
		if u := usages[k]; !u.IsZero() {
			t.Messages[i].Usage = &u
		}
	}
	return nil
}

// mostCommon returns the key with the highest count, the smallest key
// among ties, or "" for an empty map.
func mostCommon(counts map[string]int) string {
	best, n := "", 0
	for k, c := range counts {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best
}
