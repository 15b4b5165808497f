package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// OpenAI Codex rollout JSONL (FORMATS.md §6).

type cxLine struct {
	Type    string    `json:"type"`
	Payload cxPayload `json:"payload"`
	// Early rollouts: a first line {id, timestamp, instructions}, then bare
	// response items and {"record_type": "state"} lines.
	ID         string `json:"id"`
	RecordType string `json:"record_type"`
	Timestamp  string `json:"timestamp"`
}

type cxItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent string          `json:"encrypted_content"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Input            json.RawMessage `json:"input"`
	CallID           string          `json:"call_id"`
	ID               string          `json:"id"`
	Output           json.RawMessage `json:"output"`
	Action           json.RawMessage `json:"action"`
}

type cxUsage struct {
	InputTokens           count `json:"input_tokens"`
	CachedInputTokens     count `json:"cached_input_tokens"`
	OutputTokens          count `json:"output_tokens"`
	ReasoningOutputTokens count `json:"reasoning_output_tokens"`
	TotalTokens           count `json:"total_tokens"`
}

type cxEventInfo struct {
	TotalTokenUsage *cxUsage `json:"total_token_usage"`
	LastTokenUsage  *cxUsage `json:"last_token_usage"`
}

// cxPayload is a line's payload, decoded where it stands, in the pass
// that decodes the line: the fields of every payload type in one struct
// (each key means one thing in all of them). object is false when the
// payload is absent or not an object. A duplicate payload key replaces
// the payload, as it replaces a json.RawMessage.
type cxPayload struct {
	object bool
	cxPayloadFields
}

// UnmarshalJSON decodes raw, which the decoder of the line has checked.
// It never fails: values of an unexpected type are skipped.
func (p *cxPayload) UnmarshalJSON(raw []byte) error {
	*p = cxPayload{}
	if !rawObject(raw) {
		return nil
	}
	p.object = true
	_ = decodeLoose(raw, &p.cxPayloadFields)
	return nil
}

type cxPayloadFields struct {
	cxItem
	// session_meta (its id is cxItem's ID). The system prompt Codex
	// sends as the request's instructions: base_instructions.text, or
	// instructions in earlier rollouts (codex-rs/protocol/src/protocol.rs,
	// SessionMeta).
	Timestamp        string `json:"timestamp"`
	Instructions     string `json:"instructions"`
	BaseInstructions *struct {
		Text string `json:"text"`
	} `json:"base_instructions"`
	CWD string `json:"cwd"`
	Git *struct {
		Branch string `json:"branch"`
	} `json:"git"`
	// turn_context
	Model string `json:"model"`
	// event_msg (its type is cxItem's Type)
	Info *cxEventInfo `json:"info"`
	// compacted
	Message            string     `json:"message"`
	ReplacementHistory cxItemList `json:"replacement_history"`
}

// cxItemList is a replacement_history: its items, objects decoded as
// items and anything else dropped; nil when it is absent or not an
// array.
type cxItemList []cxItem

// UnmarshalJSON decodes raw, which the decoder of the line has checked,
// in one pass when every item is an object, item by item otherwise. It
// never fails.
func (l *cxItemList) UnmarshalJSON(raw []byte) error {
	*l = nil
	if !rawArray(raw) {
		return nil
	}
	items := make([]cxItem, 0, arrayLen(raw))
	if err := jsonx.Unmarshal(raw, &items); isTypeError(err) {
		items = []cxItem{}
		var raws []json.RawMessage
		_ = decodeLoose(raw, &raws)
		for _, r := range raws {
			if rawObject(r) {
				var it cxItem
				_ = decodeLoose(r, &it)
				items = append(items, it)
			}
		}
	}
	*l = items
	return nil
}

// cxNonContext is what a Codex rollout records beside the conversation
// and Codex leaves out of the prompt: the known non-context kinds, by
// response item type, "event_msg" for the events the reader does not
// use, and "record" for the
// state lines of early rollouts ({"record_type": "state"}). The
// model-visible history is the response items; event_msg lines are for
// the UI (FORMATS.md §6).
var cxNonContext = nonContextTable{
	"additional_tools": "the tool list (Codex 0.169 records it as an input item beside the conversation)",
	"ghost_snapshot":   "Codex's own undo snapshot, left out of the prompt",
	"record":           "an early rollout's state line",
	"event_msg":        "an event for the UI (copies of messages, turn markers, errors shown); the prompt is built from response items only. token_count and context_compacted events are read, not counted here",
}

var cxItemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"local_shell_call_output": true, "web_search_call": true,
	"additional_tools": true, "ghost_snapshot": true,
}

var cxLineTypes = map[string]bool{
	"session_meta": true, "turn_context": true, "response_item": true, "event_msg": true, "compacted": true,
}

// readCodex reads a Codex rollout.
//
// Rules (FORMATS.md §6): response_item lines are the history. Rollouts do
// not mark which items came from one model response, so: an assistant
// message or reasoning item opens a new assistant message unless the open
// one holds only reasoning; a function_call / custom_tool_call /
// local_shell_call / web_search_call joins the open assistant message if no
// tool output or other message came since, else opens a new one with empty
// content. A web_search_call, run by the provider within the response,
// is a [chat.Opaque] part of it (Kind "web_search_call", Text its query),
// not a tool call: no result follows it (FORMATS.md reads it as a call
// without a result, which replay answered as interrupted). The session
// header's base_instructions.text (instructions in earlier rollouts), the
// system prompt Codex sends as the request's instructions, is the first
// message, a system message. event_msg token_count gives the usage of the call that just
// ended: it goes on the most recent assistant message when that has none
// yet; records with info null, an all-zero last_token_usage (unknown, not
// an empty prompt) or a total repeating the previous record (Codex writes
// each one twice) are ignored. A compacted line is a [Compaction] whose
// Replacement is its replacement_history; an event_msg context_compacted
// next to it marks the same compaction.
func readCodex(data []byte, name string) ([]*Trajectory, error) {
	return readCodexLines(newBytesLineReader(data), name)
}

// readCodexLines reads the lines of lr one at a time (see readCodex):
// only the messages are kept, never the lines.
func readCodexLines(lr *lineReader, name string) ([]*Trajectory, error) {
	var probs []Problem
	t := &Trajectory{}
	c := &cxConv{open: -1, d: drops{}}
	recognized := 0
	var lastTotal *cxUsage
	lineIdx, eventIdx := -1, -1 // compactions awaiting their twin marker
	md := meta{t: t}
	var ts time.Time // the time of the line the messages appended since the last stamp came from
	var l cxLine
	for {
		rec, ok := lr.next()
		if !ok {
			break
		}
		md.stamp(len(c.msgs), ts)
		ts = time.Time{}
		l = cxLine{} // one line decoded at a time, into the same struct
		if ok, p := decodeRecord(name, rec, &l); !ok {
			probs = append(probs, p)
			continue
		}
		ts = parseTime(l.Timestamp)
		md.line("", "", ts)
		switch {
		case cxLineTypes[l.Type] || (l.Type != "" && l.Payload.object):
			recognized++
		case l.RecordType != "":
			recognized++
			cxNonContext.count(t, "record")
			continue
		case cxItemTypes[l.Type]:
			recognized++
			var it cxItem
			_ = decodeLoose(rec.raw, &it)
			cxNonContext.count(t, it.Type)
			c.item(it)
			continue
		case l.Type == "" && l.ID != "":
			recognized++
			if t.ID == "" {
				t.ID = l.ID
			}
			continue
		default:
			probs = append(probs, recProblem(name, rec, "not a Codex rollout record"))
			continue
		}
		p := &l.Payload
		switch l.Type {
		case "session_meta":
			if t.ID == "" {
				t.ID = p.ID
			}
			branch := ""
			if p.Git != nil {
				branch = p.Git.Branch
			}
			md.line(p.CWD, branch, time.Time{})
			if st := parseTime(p.Timestamp); !st.IsZero() {
				t.Started = st
			}
			instr := p.Instructions
			if b := p.BaseInstructions; b != nil && b.Text != "" {
				instr = b.Text
			}
			if instr != "" && len(c.msgs) == 0 {
				// The first call's system prompt, sent as the
				// request's instructions: counted in that call as
				// the provider counted it.
				c.msgs = append(c.msgs, chat.Message{Role: chat.RoleSystem, Parts: textParts(instr, nil)})
			}
		case "turn_context":
			if p.Model != "" {
				c.model, t.Model = p.Model, p.Model
			}
		case "response_item":
			cxNonContext.count(t, p.Type)
			c.item(p.cxItem)
		case "event_msg":
			switch p.Type {
			case "token_count":
				if p.Info == nil || p.Info.LastTokenUsage == nil {
					continue
				}
				if tot := p.Info.TotalTokenUsage; tot != nil {
					if lastTotal != nil && *tot == *lastTotal {
						continue
					}
					lastTotal = tot
				}
				c.attachUsage(*p.Info.LastTokenUsage)
			case "context_compacted":
				if lineIdx >= 0 && lineIdx == len(t.Compactions)-1 && t.Compactions[lineIdx].At == len(c.msgs) {
					lineIdx = -1
					continue
				}
				t.Compactions = append(t.Compactions, Compaction{At: len(c.msgs)})
				eventIdx = len(t.Compactions) - 1
				c.open = -1
			default:
				cxNonContext.count(t, "event_msg")
			}
		case "compacted":
			var repl []chat.Message
			if p.ReplacementHistory != nil {
				rc := &cxConv{open: -1, model: c.model}
				for _, it := range p.ReplacementHistory {
					rc.item(it)
				}
				repl = rc.msgs
				if repl == nil {
					repl = []chat.Message{}
				}
			}
			comp := Compaction{At: len(c.msgs), Summary: p.Message, Replacement: repl}
			if eventIdx >= 0 && eventIdx == len(t.Compactions)-1 && t.Compactions[eventIdx].At == len(c.msgs) {
				t.Compactions[eventIdx] = comp
				eventIdx = -1
			} else {
				t.Compactions = append(t.Compactions, comp)
				lineIdx = len(t.Compactions) - 1
			}
			c.open = -1
		}
	}
	if lr.err != nil {
		return nil, fmt.Errorf("transcript: read %s: %w", displayName(name), lr.err)
	}
	if recognized == 0 {
		return nil, noRecords(name, probs, "Codex rollout")
	}
	md.stamp(len(c.msgs), ts)
	md.finish(len(c.msgs))
	sortProblems(probs)
	t.Messages, t.Problems = c.msgs, probs
	if len(c.d) > 0 {
		t.Dropped = c.d
	}
	return []*Trajectory{t}, nil
}

// cxConv turns response items into messages.
type cxConv struct {
	msgs  []chat.Message
	open  int // index of the open assistant message, or -1
	model string
	d     drops // what was left out; nil for a replacement history
}

// joinable reports whether the open assistant message is still the
// response that a message or reasoning item continues: it holds only
// reasoning and web searches (run by the provider within the response,
// no output item follows), and no token_count has closed it.
func (c *cxConv) joinable() bool {
	if c.open < 0 || c.msgs[c.open].Usage != nil {
		return false
	}
	for _, p := range c.msgs[c.open].Parts {
		switch p := p.(type) {
		case chat.Thinking:
		case chat.Opaque:
			if p.Kind != webSearchCall {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// webSearchCall is the item type, and the [chat.Opaque] kind, of a web
// search the provider ran within a response (the Responses API's hosted
// web_search tool): a call that needs no result, for none follows it.
const webSearchCall = "web_search_call"

// assistant returns the index of the assistant message new parts go to:
// the open one when join allows it, else a new one.
func (c *cxConv) assistant(join bool) int {
	if c.open >= 0 && join {
		return c.open
	}
	c.msgs = append(c.msgs, chat.Message{Role: chat.RoleAssistant, Model: c.model})
	c.open = len(c.msgs) - 1
	return c.open
}

func (c *cxConv) add(parts ...chat.Part) {
	c.msgs[c.open].Parts = append(c.msgs[c.open].Parts, parts...)
}

func (c *cxConv) item(it cxItem) {
	switch it.Type {
	case "message":
		if it.Role == "" {
			c.d.add(`item "message" without role`)
			return
		}
		text, imgs := oaContentD(it.Content, c.d)
		parts := textParts(text, imgs)
		switch it.Role {
		case "assistant":
			c.assistant(c.joinable())
			c.add(parts...)
		case "developer", "system":
			c.msgs = append(c.msgs, chat.Message{Role: chat.RoleSystem, Parts: parts})
			c.open = -1
		default:
			c.msgs = append(c.msgs, chat.Message{Role: chat.RoleUser, Parts: parts})
			c.open = -1
		}
	case "reasoning":
		var texts []string
		for _, raw := range []json.RawMessage{it.Summary, it.Content} {
			if s, _ := oaContent(raw); s != "" {
				texts = append(texts, s)
			}
		}
		c.assistant(c.joinable())
		c.add(chat.Thinking{Text: strings.Join(texts, "\n"), Encrypted: it.EncryptedContent})
	case "function_call":
		c.assistant(true)
		c.add(chat.ToolCall{ID: it.CallID, Name: it.Name, Arguments: parseArgs(it.Arguments)})
	case "custom_tool_call":
		c.assistant(true)
		c.add(chat.ToolCall{ID: it.CallID, Name: it.Name, Arguments: cxCustomInput(it.Input)})
	case "local_shell_call":
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		c.assistant(true)
		c.add(chat.ToolCall{ID: id, Name: "local_shell", Arguments: parseArgs(it.Action)})
	case webSearchCall:
		// Run by the provider within the response: kept as what it
		// is, an item of the response, not a tool call awaiting a
		// result (a call would be answered as interrupted).
		raw, _ := json.Marshal(struct {
			Type   string          `json:"type"`
			ID     string          `json:"id,omitempty"`
			Action json.RawMessage `json:"action,omitempty"`
		}{webSearchCall, it.ID, parseArgs(it.Action)})
		c.assistant(true)
		c.add(chat.Opaque{Wire: chat.WireResponses, Kind: webSearchCall, Raw: raw, Text: cxSearchQuery(it.Action)})
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		content, isErr := cxOutput(it.Output)
		c.msgs = append(c.msgs, chat.NewToolResult(it.CallID, "", content, isErr))
		c.open = -1
	case "additional_tools", "ghost_snapshot":
		// Known non-context (cxNonContext), counted by the caller.
	default:
		c.d.add(kindOf(dropItem, it.Type))
	}
}

// cxSearchQuery returns the query of a web_search_call's action
// ({"type": "search", "query": "…"}), or "".
func cxSearchQuery(action json.RawMessage) string {
	var a struct {
		Query string `json:"query"`
	}
	if rawObject(action) && decodeLoose(action, &a) == nil {
		return a.Query
	}
	return ""
}

// cxCustomInput wraps a custom tool call's free-text input as
// {"input": "…"}.
func cxCustomInput(raw json.RawMessage) json.RawMessage {
	if rawObject(raw) {
		return parseArgs(raw)
	}
	b, _ := json.Marshal(struct {
		Input string `json:"input"`
	}{str(raw)}) // a struct of one string always marshals
	return b
}

// cxOutput reads a tool output: a string, an array of content items, or an
// object {content, success}. success false, or an exit_code other than 0
// in a JSON-encoded string output ({"output", "metadata": {"exit_code"}}),
// marks an error.
func cxOutput(raw json.RawMessage) (string, bool) {
	switch {
	case rawArray(raw):
		return cxItemsText(raw), false
	case rawObject(raw):
		var o struct {
			Content json.RawMessage `json:"content"`
			Output  json.RawMessage `json:"output"`
			Success *bool           `json:"success"`
		}
		_ = decodeLoose(raw, &o)
		content := o.Content
		if content == nil {
			content = o.Output
		}
		text := str(content)
		if rawArray(content) {
			text = cxItemsText(content)
		}
		return text, o.Success != nil && !*o.Success
	}
	s := str(raw)
	if strings.HasPrefix(s, "{") && strings.Contains(s, `"exit_code"`) {
		var o struct {
			Metadata *struct {
				ExitCode *count `json:"exit_code"`
			} `json:"metadata"`
		}
		if jsonx.Unmarshal([]byte(s), &o) == nil && o.Metadata != nil && o.Metadata.ExitCode != nil {
			return s, *o.Metadata.ExitCode != 0
		}
	}
	return s, false
}

func cxItemsText(raw json.RawMessage) string {
	text, imgs := oaContent(raw)
	for _, im := range imgs {
		note := "[image]"
		if im.Source != "" && len(im.Source) < 200 {
			note = "[image: " + im.Source + "]"
		}
		if text != "" {
			text += "\n"
		}
		text += note
	}
	return text
}

// attachUsage puts a token_count's last_token_usage on the most recent
// assistant message when it has no usage yet. OpenAI's input_tokens
// include cached_input_tokens.
func (c *cxConv) attachUsage(u cxUsage) {
	in, cached := int(u.InputTokens), int(u.CachedInputTokens)
	usage := chat.Usage{
		InputTokens:     max(in-cached, 0),
		CacheReadTokens: cached,
		OutputTokens:    int(u.OutputTokens),
		ReasoningTokens: int(u.ReasoningOutputTokens),
	}
	if in < cached {
		usage.InputTokens = in
	}
	if usage.IsZero() {
		return
	}
	for i := len(c.msgs) - 1; i >= 0; i-- {
		if c.msgs[i].Role == chat.RoleAssistant {
			if c.msgs[i].Usage == nil {
				c.msgs[i].Usage = &usage
			}
			return
		}
	}
}
