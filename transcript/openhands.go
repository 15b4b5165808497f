package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// OpenHands V0 evaluation output.jsonl (FORMATS.md §3).

type ohLine struct {
	InstanceID json.RawMessage `json:"instance_id"`
	History    ohEvents        `json:"history"`
	Metadata   *struct {
		LLMConfig *struct {
			Model           string `json:"model"`
			MaxMessageChars count  `json:"max_message_chars"`
		} `json:"llm_config"`
	} `json:"metadata"`
	Metrics *struct {
		TokenUsages []ohTokenUsage `json:"token_usages"`
	} `json:"metrics"`
}

type ohTokenUsage struct {
	PromptTokens     count  `json:"prompt_tokens"`
	CompletionTokens count  `json:"completion_tokens"`
	CacheReadTokens  count  `json:"cache_read_tokens"`
	CacheWriteTokens count  `json:"cache_write_tokens"`
	ResponseID       string `json:"response_id"`
}

type ohEvent struct {
	// Timestamp is when the event happened, without a zone (read as
	// UTC): the message's time ([Trajectory].Times).
	Timestamp        string          `json:"timestamp"`
	Source           string          `json:"source"`
	Message          string          `json:"message"`
	Action           string          `json:"action"`
	Observation      string          `json:"observation"`
	Content          json.RawMessage `json:"content"`
	Args             json.RawMessage `json:"args"`
	Extras           json.RawMessage `json:"extras"`
	ToolCallMetadata *struct {
		FunctionName  string          `json:"function_name"`
		ToolCallID    string          `json:"tool_call_id"`
		ModelResponse json.RawMessage `json:"model_response"`
	} `json:"tool_call_metadata"`
}

type ohArgs struct {
	Content      json.RawMessage `json:"content"`
	Tools        json.RawMessage `json:"tools"`
	Thought      string          `json:"thought"`
	FinalThought string          `json:"final_thought"`
	ImageURLs    []string        `json:"image_urls"`
	Command      string          `json:"command"`
	Code         string          `json:"code"`
	Summary      string          `json:"summary"`
}

// readOpenHands reads an OpenHands output.jsonl: one trajectory per line,
// [Trajectory].Index is the line's position among the non-blank lines.
// A single JSON object, or a JSON array of events, is read as one
// trajectory. Problems (bad lines) are reported on the first trajectory.
func readOpenHands(data []byte, name string) ([]*Trajectory, error) {
	trimmed := bytes.TrimSpace(data)
	if looksJSONL(trimmed) {
		return readOpenHandsLines(newBytesLineReader(data), name)
	}
	if rawArray(trimmed) {
		var events ohEvents
		if err := decodeDoc(data, name, &events); err != nil {
			return nil, err
		}
		t := &Trajectory{}
		ohHistory(t, events.events, nil)
		return []*Trajectory{t}, nil
	}
	if err := decodeDoc(data, name, new(json.RawMessage)); err != nil {
		return nil, err
	}
	out, probs := ohLines([]record{{line: 1, raw: trimmed}}, name)
	return ohResult(out, probs, name)
}

// readOpenHandsLines reads the lines of lr one at a time, each one
// trajectory: only the trajectories are kept, never the lines.
func readOpenHandsLines(lr *lineReader, name string) ([]*Trajectory, error) {
	var out []*Trajectory
	var probs []Problem
	for i := 0; ; i++ {
		rec, ok := lr.next()
		if !ok {
			break
		}
		if t, p := ohRecord(i, rec, name); t != nil {
			out = append(out, t)
		} else {
			probs = append(probs, p)
		}
	}
	if lr.err != nil {
		return nil, fmt.Errorf("transcript: read %s: %w", displayName(name), lr.err)
	}
	return ohResult(out, probs, name)
}

// ohLines reads the records, each one trajectory, and returns the
// trajectories and the problems of the records that hold none.
func ohLines(recs []record, name string) ([]*Trajectory, []Problem) {
	var out []*Trajectory
	var probs []Problem
	for i, rec := range recs {
		if t, p := ohRecord(i, rec, name); t != nil {
			out = append(out, t)
		} else {
			probs = append(probs, p)
		}
	}
	return out, probs
}

// ohResult returns the trajectories of an OpenHands input, its problems
// on the first, or the error of an input without any.
func ohResult(out []*Trajectory, probs []Problem, name string) ([]*Trajectory, error) {
	if len(out) == 0 {
		return nil, noRecords(name, probs, "OpenHands")
	}
	sortProblems(probs)
	out[0].Problems = probs
	return out, nil
}

// ohRecord reads record i of an output.jsonl: its trajectory, or nil and
// the problem that keeps it from being one.
func ohRecord(i int, rec record, name string) (*Trajectory, Problem) {
	var l ohLine
	if ok, p := decodeRecord(name, rec, &l); !ok {
		return nil, p
	}
	if !l.History.array {
		return nil, recProblem(name, rec, "not an OpenHands output record (no history)")
	}
	t := &Trajectory{Index: i, ID: str(l.InstanceID)}
	maxChars := 0
	if l.Metadata != nil && l.Metadata.LLMConfig != nil {
		t.Model = l.Metadata.LLMConfig.Model
		maxChars = int(l.Metadata.LLMConfig.MaxMessageChars)
	}
	usages := map[string]*chat.Usage{}
	if l.Metrics != nil {
		for _, u := range l.Metrics.TokenUsages {
			if u.ResponseID != "" {
				usages[u.ResponseID] = ohUsage(u)
			}
		}
	}
	ohHistory(t, l.History.events, usages)
	ohNoteCut(t, maxChars)
	return t, Problem{}
}

// ohNoteCut says, in a note on t, how many tool results are longer than
// limit characters (metadata.llm_config.max_message_chars; 0: no limit):
// OpenHands stores observations whole but cuts each to that many
// characters when it builds the prompt (FORMATS.md §3), so the provider
// saw fewer tokens than a replay counts. The messages keep the whole
// text: the cut's exact form is not recorded in the file.
func ohNoteCut(t *Trajectory, limit int) {
	if limit <= 0 {
		return
	}
	n, longest := 0, 0
	for _, m := range t.Messages {
		r, ok := m.ToolResult()
		if !ok || len(r.Content) <= limit {
			continue
		}
		if c := utf8.RuneCountInString(r.Content); c > limit {
			n++
			longest = max(longest, c)
		}
	}
	if n > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d observations are longer than max_message_chars (%d characters; the longest %d): OpenHands cut each to %d characters before sending it, so the provider saw fewer tokens than are counted here", n, limit, longest, limit))
	}
}

// ohEvents is a history value, decoded where it stands: an array of
// events, flattened when it holds [action, observation] pairs; items
// that are not objects are dropped. array is false for anything but an
// array (an absent or null history).
type ohEvents struct {
	array  bool
	events []ohEvent
}

// UnmarshalJSON decodes raw, which the decoder of the enclosing value
// has checked: in one pass when every item is an object, as in current
// outputs, item by item otherwise. It never fails: values of an
// unexpected type are skipped.
func (h *ohEvents) UnmarshalJSON(raw []byte) error {
	*h = ohEvents{}
	if !rawArray(raw) {
		return nil
	}
	h.array = true
	if err := jsonx.Unmarshal(raw, &h.events); !isTypeError(err) {
		return nil
	}
	h.events = nil
	var items []json.RawMessage
	_ = decodeLoose(raw, &items)
	for _, it := range flattenEvents(items) {
		if !rawObject(it) {
			continue
		}
		var e ohEvent
		_ = decodeLoose(it, &e)
		h.events = append(h.events, e)
	}
	return nil
}

// ohUsage converts a metrics.token_usages entry; prompt_tokens includes
// the cache reads and writes, as in LiteLLM's usage.
func ohUsage(u ohTokenUsage) *chat.Usage {
	out := chat.Usage{
		InputTokens:      int(u.PromptTokens),
		OutputTokens:     int(u.CompletionTokens),
		CacheReadTokens:  int(u.CacheReadTokens),
		CacheWriteTokens: int(u.CacheWriteTokens),
	}
	if in := out.InputTokens - out.CacheReadTokens - out.CacheWriteTokens; in >= 0 {
		out.InputTokens = in
	}
	if out.IsZero() {
		return nil
	}
	return &out
}

// ohHistory maps the events of one run (FORMATS.md §3): the system action
// is the system message and its args.tools the [Trajectory].Tools; user
// message actions are user messages, agent message actions without tool
// metadata are assistant text; recall events are skipped. Actions with
// tool_call_metadata are grouped by model_response.id into one assistant
// message at the first action, with content and tool_calls taken from
// model_response.choices[0].message (what the model emitted) and usage
// from model_response.usage (else metrics.token_usages by response id).
// An observation with tool_call_metadata is the tool result of its
// tool_call_id, kept untruncated and without the extras.metadata.suffix
// OpenHands appends when it builds the prompt; IsError is set for error
// observations and a positive exit code. Observations without tool
// metadata are user text; actions without it (older CodeAct runs) are
// text of their source, the thought followed by the command. The history
// of older outputs, [action, observation] pairs, is flattened. finish has
// no observation (a dangling call). A
// condensation action is a [Compaction] with its args.summary. Each
// message's time is its event's timestamp ([Trajectory].Times), the
// first event's the run's start.
func ohHistory(t *Trajectory, events []ohEvent, usages map[string]*chat.Usage) {
	byResp := map[string]int{}
	// Each message takes the time of the event that made it; Started is
	// the first event's.
	md := meta{t: t}
	var ts time.Time
	defer func() {
		md.stamp(len(t.Messages), ts)
		md.finish(len(t.Messages))
	}()
	for _, e := range events {
		md.stamp(len(t.Messages), ts)
		ts = parseTime(e.Timestamp)
		md.line("", "", ts)
		var args ohArgs
		if rawObject(e.Args) {
			_ = decodeLoose(e.Args, &args)
		}
		switch {
		case e.Action != "":
			switch e.Action {
			case "system":
				text, _ := oaContent(args.Content)
				t.Messages = append(t.Messages, chat.Message{Role: chat.RoleSystem, Parts: textParts(text, nil)})
				if defs := toolDefs(args.Tools); defs != nil {
					t.Tools = defs
				}
			case "recall", "condensation_request":
			case "condensation":
				t.Compactions = append(t.Compactions, Compaction{At: len(t.Messages), Summary: args.Summary})
			default:
				if tcm := e.ToolCallMetadata; tcm != nil && (tcm.ToolCallID != "" || rawObject(tcm.ModelResponse)) {
					ohToolAction(t, e, byResp, usages)
					continue
				}
				text, _ := oaContent(args.Content)
				if e.Action != "message" {
					// An action from before function calling: its thought
					// and the command it ran.
					text = firstNonEmpty(text, args.Thought, args.FinalThought)
					if cmd := firstNonEmpty(args.Command, args.Code); cmd != "" {
						text = strings.TrimSpace(text + "\n" + cmd)
					}
				}
				if text == "" {
					text = e.Message
				}
				var imgs []chat.Image
				for _, u := range args.ImageURLs {
					imgs = append(imgs, imageFromURL(u))
				}
				role := chat.RoleAssistant
				if e.Source == "user" {
					role = chat.RoleUser
				}
				if text == "" && len(imgs) == 0 {
					continue
				}
				t.Messages = append(t.Messages, chat.Message{Role: role, Parts: textParts(text, imgs)})
			}
		case e.Observation != "":
			switch e.Observation {
			case "recall", "null", "agent_state_changed":
				continue
			}
			content := str(e.Content)
			if tcm := e.ToolCallMetadata; tcm != nil && tcm.ToolCallID != "" {
				t.Messages = append(t.Messages, chat.NewToolResult(tcm.ToolCallID, tcm.FunctionName, content, e.Observation == "error" || ohExitCode(e.Extras) > 0))
				continue
			}
			if content == "" {
				content = e.Message
			}
			if content != "" {
				t.Messages = append(t.Messages, chat.NewText(chat.RoleUser, content))
			}
		}
	}
}

// flattenEvents accepts the history of older OpenHands (OpenDevin)
// outputs, a list of [action, observation] pairs, as well as a flat list.
func flattenEvents(events []json.RawMessage) []json.RawMessage {
	nested := false
	for _, e := range events {
		if rawArray(e) {
			nested = true
			break
		}
	}
	if !nested {
		return events
	}
	var out []json.RawMessage
	for _, e := range events {
		if !rawArray(e) {
			out = append(out, e)
			continue
		}
		var pair []json.RawMessage
		_ = decodeLoose(e, &pair)
		out = append(out, pair...)
	}
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func ohExitCode(extras json.RawMessage) int {
	var x struct {
		Metadata *struct {
			ExitCode count `json:"exit_code"`
		} `json:"metadata"`
		ExitCode *count `json:"exit_code"`
	}
	if !rawObject(extras) || decodeLoose(extras, &x) != nil {
		return 0
	}
	if x.Metadata != nil {
		return int(x.Metadata.ExitCode)
	}
	if x.ExitCode != nil {
		return int(*x.ExitCode)
	}
	return 0
}

type ohModelResponse struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Message *struct {
			Content          json.RawMessage `json:"content"`
			ToolCalls        json.RawMessage `json:"tool_calls"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
		} `json:"message"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

func ohToolAction(t *Trajectory, e ohEvent, byResp map[string]int, usages map[string]*chat.Usage) {
	tcm := e.ToolCallMetadata
	var resp ohModelResponse
	if rawObject(tcm.ModelResponse) {
		_ = decodeLoose(tcm.ModelResponse, &resp)
	}
	idx, ok := -1, false
	if resp.ID != "" {
		idx, ok = byResp[resp.ID]
	}
	if !ok {
		msg := chat.Message{Role: chat.RoleAssistant, ID: resp.ID, Model: resp.Model}
		if len(resp.Choices) > 0 && resp.Choices[0].Message != nil {
			m := resp.Choices[0].Message
			if s := str(m.ReasoningContent); s != "" {
				msg.Parts = append(msg.Parts, chat.Thinking{Text: s})
			}
			text, imgs := oaContent(m.Content)
			msg.Parts = append(msg.Parts, textParts(text, imgs)...)
			for _, tc := range oaToolCalls(m.ToolCalls) {
				msg.Parts = append(msg.Parts, tc)
			}
		} else {
			var args ohArgs
			if rawObject(e.Args) {
				_ = decodeLoose(e.Args, &args)
			}
			msg.Parts = textParts(args.Thought, nil)
		}
		msg.Usage = usageFromOpenAI(resp.Usage)
		if msg.Usage == nil && resp.ID != "" {
			msg.Usage = usages[resp.ID]
		}
		t.Messages = append(t.Messages, msg)
		idx = len(t.Messages) - 1
		if resp.ID != "" {
			byResp[resp.ID] = idx
		}
	}
	if tcm.ToolCallID == "" {
		return
	}
	for _, p := range t.Messages[idx].Parts {
		if c, ok := p.(chat.ToolCall); ok && c.ID == tcm.ToolCallID {
			return
		}
	}
	// The response as recorded lacks this call: rebuild it from the action.
	t.Messages[idx].Parts = append(t.Messages[idx].Parts, chat.ToolCall{
		ID: tcm.ToolCallID, Name: tcm.FunctionName, Arguments: parseArgs(e.Args),
	})
}
