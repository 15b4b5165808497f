package transcript

import (
	"encoding/json"

	"github.com/agentctx/agentctx/chat"
)

// GitHub Copilot CLI session event log.
//
// Copilot CLI writes each session's events to
// ~/.copilot/session-state/<sessionId>/events.jsonl, one event a line:
// {type, data, id, timestamp, parentId, agentId?}. The event shapes are
// those of the Copilot SDK's session-events schema
// (github.com/github/copilot-sdk, nodejs/src/generated/session-events.ts);
// events marked ephemeral there (deltas, assistant.usage, …) are not
// written to the file.

type cpEvent struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	AgentID   string `json:"agentId"`
	Data      struct {
		// session.start
		SessionID string `json:"sessionId"`
		StartTime string `json:"startTime"`
		Context   *struct {
			CWD    string `json:"cwd"`
			Branch string `json:"branch"`
		} `json:"context"`
		// session.model_change
		NewModel string `json:"newModel"`
		// user.message, assistant.message, assistant.reasoning
		Content            string `json:"content"`
		TransformedContent string `json:"transformedContent"`
		MessageID          string `json:"messageId"`
		APICallID          string `json:"apiCallId"`
		Model              string `json:"model"`
		ReasoningText      string `json:"reasoningText"`
		ReasoningOpaque    string `json:"reasoningOpaque"`
		EncryptedContent   string `json:"encryptedContent"`
		ToolRequests       []struct {
			ToolCallID string          `json:"toolCallId"`
			Name       string          `json:"name"`
			Arguments  json.RawMessage `json:"arguments"`
		} `json:"toolRequests"`
		ParentToolCallID string `json:"parentToolCallId"`
		// tool.execution_complete
		ToolCallID string `json:"toolCallId"`
		Success    *bool  `json:"success"`
		Result     *struct {
			Content string `json:"content"`
		} `json:"result"`
		Error json.RawMessage `json:"error"` // an object {message} on tools, a string on compactions
		// session.compaction_complete
		PreCompactionTokens count  `json:"preCompactionTokens"`
		SummaryContent      string `json:"summaryContent"`
	} `json:"data"`
}

// cpTypes are the event types of the session-events schema that
// [isCopilotEvent] recognizes a log by.
var cpTypes = map[string]bool{
	"session.start": true, "session.resume": true, "session.info": true, "session.model_change": true,
	"session.shutdown": true, "user.message": true, "assistant.turn_start": true, "assistant.message": true,
	"assistant.turn_end": true, "assistant.reasoning": true, "tool.execution_start": true,
	"tool.execution_complete": true, "session.compaction_start": true, "session.compaction_complete": true,
	"system.message": true,
}

// cpNonContext is what Copilot CLI logs beside the conversation, never
// sent to the model: the known non-context kinds, by event type, and
// "sub-agent" for a sub-agent's events (agentId or parentToolCallId set:
// its own conversation). Event types outside cpTypes that carry content
// are counted as dropped (`record "TYPE"`).
var cpNonContext = nonContextTable{
	"session.info":             "a notice shown to the user",
	"session.shutdown":         "the session's end, with its totals",
	"assistant.turn_start":     "a turn's start marker",
	"assistant.turn_end":       "a turn's end marker",
	"tool.execution_start":     "a tool's start (its call is read from assistant.message)",
	"session.compaction_start": "a compaction's start (compaction_complete is read)",
	"sub-agent":                "an event of a sub-agent's own conversation",
}

// isCopilotEvent reports whether m, the keys of a JSON object with type
// typ, is a Copilot CLI session event: a known event type, an object
// "data" and an "id".
func isCopilotEvent(typ string, m map[string]json.RawMessage) bool {
	return cpTypes[typ] && rawObject(m["data"]) && has(m, "id")
}

// readCopilot reads a Copilot CLI events.jsonl.
//
// Rules: system.message is a system message (the system prompt Copilot
// sent, its role "system" or "developer"); user.message is a user message (its transformedContent, the
// text sent to the model, else its content). assistant.message is one
// model response: reasoningText as [chat.Thinking] (an
// assistant.reasoning event just before it as well), content as text,
// toolRequests as [chat.ToolCall] parts; consecutive assistant.message
// events with the same apiCallId are chunks of one API call and merge
// into one message. tool.execution_complete is a tool message answering
// toolCallId: result.content, or error.message when success is false (a
// failed result). Events of a sub-agent (agentId or parentToolCallId
// set) are skipped: they are its own conversation. The model is the
// message's model, else the last session.model_change. A successful
// session.compaction_complete event is a [Compaction] at the next
// message (PreTokens from preCompactionTokens, Summary from
// summaryContent where written). session.start gives the id, start time, working directory and
// branch. No per-call usage is on disk (assistant.usage is ephemeral;
// assistant.message's outputTokens alone gives no prompt size), so
// Copilot trajectories carry none.
func readCopilot(data []byte, name string) ([]*Trajectory, error) {
	lr := newBytesLineReader(data)
	var probs []Problem
	t := &Trajectory{}
	md := meta{t: t}
	models := map[string]int{}
	model := ""
	var thinking []chat.Part
	lastCall := "" // apiCallId of the last message when it is an assistant message
	items := 0
	dropped := drops{}
	for {
		rec, ok := lr.next()
		if !ok {
			break
		}
		var e cpEvent
		if ok, p := decodeRecord(name, rec, &e); !ok {
			probs = append(probs, p)
			continue
		}
		if e.Type == "" {
			probs = append(probs, recProblem(name, rec, "not a Copilot CLI event (no type)"))
			continue
		}
		items++
		d := &e.Data
		if e.AgentID != "" || d.ParentToolCallID != "" {
			cpNonContext.count(t, "sub-agent")
			continue
		}
		ts := parseTime(e.Timestamp)
		switch e.Type {
		case "session.start", "session.resume":
			if t.ID == "" {
				t.ID = d.SessionID
			}
			if st := parseTime(d.StartTime); !st.IsZero() && t.Started.IsZero() {
				t.Started = st
			}
			if c := d.Context; c != nil {
				md.line(c.CWD, c.Branch, ts)
			}
		case "session.model_change":
			model = d.NewModel
		case "session.compaction_complete":
			if d.Success != nil && !*d.Success {
				break // a compaction that failed left the history as it was
			}
			t.Compactions = append(t.Compactions, Compaction{At: len(t.Messages), PreTokens: int(d.PreCompactionTokens), Summary: d.SummaryContent})
		case "assistant.reasoning":
			if d.Content != "" {
				thinking = append(thinking, chat.Thinking{Text: d.Content})
			}
		case "system.message":
			// The system prompt (role "system", or "developer"), as
			// sent (session-events.ts: SystemMessageData).
			t.Messages = append(t.Messages, chat.Message{Role: chat.RoleSystem, ID: e.ID, Parts: textParts(d.Content, nil)})
			lastCall = ""
		case "user.message":
			text := d.TransformedContent
			if text == "" {
				text = d.Content
			}
			t.Messages = append(t.Messages, chat.Message{Role: chat.RoleUser, ID: e.ID, Parts: textParts(text, nil)})
			lastCall = ""
		case "assistant.message":
			m := d.Model
			if m == "" {
				m = model
			}
			parts := thinking
			thinking = nil
			if d.ReasoningText != "" || d.ReasoningOpaque != "" || d.EncryptedContent != "" {
				parts = append(parts, chat.Thinking{Text: d.ReasoningText, Encrypted: firstNonEmpty(d.ReasoningOpaque, d.EncryptedContent)})
			}
			parts = append(parts, textParts(d.Content, nil)...)
			for _, r := range d.ToolRequests {
				parts = append(parts, chat.ToolCall{ID: r.ToolCallID, Name: r.Name, Arguments: parseArgs(r.Arguments)})
			}
			if m != "" {
				models[m]++
			}
			if n := len(t.Messages); d.APICallID != "" && d.APICallID == lastCall && n > 0 {
				t.Messages[n-1].Parts = append(t.Messages[n-1].Parts, parts...)
				break
			}
			t.Messages = append(t.Messages, chat.Message{Role: chat.RoleAssistant, ID: firstNonEmpty(d.MessageID, e.ID), Model: m, Parts: parts})
			lastCall = d.APICallID
		case "tool.execution_complete":
			r := chat.ToolResult{ToolCallID: d.ToolCallID}
			if d.Result != nil {
				r.Content = d.Result.Content
			}
			if d.Success != nil && !*d.Success {
				r.IsError = true
				var e struct {
					Message string `json:"message"`
				}
				if rawObject(d.Error) && decodeLoose(d.Error, &e) == nil {
					r.Content = joinNonEmpty(r.Content, e.Message)
				}
			}
			t.Messages = append(t.Messages, chat.Message{Role: chat.RoleTool, ID: e.ID, Parts: []chat.Part{r}})
			lastCall = ""
		default:
			if !cpNonContext.count(t, e.Type) && d.Content != "" {
				dropped.add(kindOf(dropRecord, e.Type))
			}
		}
		md.line("", "", ts)
		md.stamp(len(t.Messages), ts)
	}
	if items == 0 {
		return nil, noRecords(name, probs, "Copilot CLI")
	}
	for i := range t.Compactions {
		t.Compactions[i].At = min(t.Compactions[i].At, len(t.Messages))
	}
	md.finish(len(t.Messages))
	if t.Model = mostCommon(models); t.Model == "" {
		t.Model = model
	}
	sortProblems(probs)
	t.Problems = probs
	if len(dropped) > 0 {
		t.Dropped = dropped
	}
	return []*Trajectory{t}, nil
}
