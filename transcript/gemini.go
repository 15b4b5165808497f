package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// Gemini CLI chat recordings and checkpoints.
//
// Gemini CLI (github.com/google-gemini/gemini-cli,
// packages/core/src/services/chatRecordingService.ts and
// chatRecordingTypes.ts) records each session under
// ~/.gemini/tmp/<projectHash>/chats/ as one JSON ConversationRecord
// {sessionId, projectHash, startTime, lastUpdated, messages[]}, or, in
// newer versions, as JSONL: a metadata line {sessionId, projectHash, …},
// then message records (a record rewrites the message of its id, in
// place), {"$set": {…}} metadata patches (a "messages" array in one
// replaces the list), {"$patch": {…}} edits and {"$rewindTo": id}
// records (the message of that id and all after it are removed; an
// unknown id clears the list). A
// message is {id, timestamp, type: user|gemini|info|error|warning,
// content: string or Gemini API parts, and for gemini: toolCalls[{id,
// name, args, result: parts, status}], thoughts[{subject, description}]
// (summaries), tokens {input, output, cached, thoughts, tool, total}, model}.
//
// A checkpoint (/chat save, checkpoint-*.json; packages/core/src/core/
// logger.ts) is the model's history as Gemini API Content: a bare array
// of {role: user|model, parts[]} or {history: [...]}.

// gmTokens is a message's token counts: the response's usageMetadata
// (input = promptTokenCount, which includes cached =
// cachedContentTokenCount; output = candidatesTokenCount; thoughts =
// thoughtsTokenCount, not part of output; tool = toolUsePromptTokenCount).
type gmTokens struct {
	Input    count `json:"input"`
	Output   count `json:"output"`
	Cached   count `json:"cached"`
	Thoughts count `json:"thoughts"`
	Tool     count `json:"tool"`
}

type gmToolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Result json.RawMessage `json:"result"`
	Status string          `json:"status"`
}

type gmMsg struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []gmToolCall    `json:"toolCalls"`
	Tokens    *gmTokens       `json:"tokens"`
	Model     string          `json:"model"`
}

// gmRecord is a JSON session document or one JSONL record: metadata, a
// message, a $set patch or a $rewindTo.
type gmRecord struct {
	gmMsg
	SessionID string          `json:"sessionId"`
	StartTime string          `json:"startTime"`
	Messages  json.RawMessage `json:"messages"`
	History   json.RawMessage `json:"history"`
	Set       json.RawMessage `json:"$set"`
	Patch     json.RawMessage `json:"$patch"`
	RewindTo  *string         `json:"$rewindTo"`
}

// gmPart is one Gemini API Part.
type gmPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		FileURI string `json:"fileUri"`
	} `json:"fileData"`
}

// gmContent is one Gemini API Content of a checkpoint.
type gmContent struct {
	Role  string          `json:"role"`
	Parts json.RawMessage `json:"parts"`
}

// isGeminiContent reports whether m, the keys of a JSON object, is a
// Gemini API Content: a role of user or model and a parts array.
func isGeminiContent(m map[string]json.RawMessage) bool {
	r := str(m["role"])
	return (r == "user" || r == "model") && rawArray(m["parts"])
}

// isGeminiRecord reports whether m, the keys of a JSON object with type
// typ, is a Gemini CLI session document, JSONL record or checkpoint
// object: metadata (sessionId and projectHash, no type), a gemini
// message (type gemini with an id), a record holding nothing but $set,
// $patch or $rewindTo, or {history: [Content…]}.
func isGeminiRecord(typ string, m map[string]json.RawMessage) bool {
	switch {
	case typ == "" && has(m, "sessionId") && has(m, "projectHash"):
		return true
	case typ == "gemini" && has(m, "id") && has(m, "content", "toolCalls"):
		return true
	case len(m) == 1 && has(m, "$set"):
		return rawObject(m["$set"])
	case len(m) == 1 && has(m, "$rewindTo"):
		return true
	case len(m) == 1 && has(m, "$patch"):
		return rawObject(m["$patch"])
	case typ == "" && rawArray(m["history"]):
		var hist []json.RawMessage
		_ = jsonx.Unmarshal(m["history"], &hist)
		return len(hist) > 0 && isGeminiContent(keysOf(hist[0]))
	}
	return false
}

// readGemini reads a Gemini CLI chat recording (JSON or JSONL) or a
// checkpoint.
//
// Rules, those of Gemini CLI when it resumes a session
// (packages/cli/src/utils/sessionUtils.ts,
// convertSessionToHistoryFormats): a user message is a user message (its
// text parts joined by "\n", inline images as [chat.Image]) unless it
// starts with "/" or "?", a CLI command; a gemini message is one model
// response: its content's text and a [chat.ToolCall] per toolCalls entry
// (id, name, args), followed by a tool message per call that has a result (the
// functionResponse's response.output, or response.error as an error, or
// the response's JSON; text parts too), an error status marking it
// failed. info, error and warning messages are the CLI's own notices,
// never sent to the model, and are skipped; so are the thought summaries
// (thoughts), which the CLI shows and does not send back (their tokens
// are in the usage). Usage, per gemini message,
// from tokens: input = input − cached, cache read = cached, output =
// output + thoughts, reasoning = thoughts (Gemini counts thoughts apart
// from the candidates); tool-use prompt tokens are not kept.
//
// A checkpoint's model contents are assistant messages (thought parts
// as [chat.Thinking], functionCall parts as calls) and its user contents
// user messages, their functionResponse parts tool messages answering
// the call of the same id, or, without an id, the last unanswered call
// of the same name. Checkpoints record no usage.
func readGemini(data []byte, name string) ([]*Trajectory, error) {
	trimmed := bytes.TrimSpace(data)
	if rawArray(trimmed) {
		var hist []gmContent
		if err := decodeDoc(data, name, &hist); err != nil {
			return nil, err
		}
		return []*Trajectory{gmCheckpoint(hist, name)}, nil
	}
	if jsonx.Valid(trimmed) {
		var doc gmRecord
		if err := decodeDoc(data, name, &doc); err != nil {
			return nil, err
		}
		if rawArray(doc.History) {
			var hist []gmContent
			_ = decodeLoose(doc.History, &hist)
			return []*Trajectory{gmCheckpoint(hist, name)}, nil
		}
		var msgs []gmMsg
		if err := decodeLoose(doc.Messages, &msgs); err != nil || !rawArray(doc.Messages) {
			return nil, &ParseError{File: name, Line: 1, Reason: "not a Gemini CLI session: no messages array"}
		}
		t := &Trajectory{ID: doc.SessionID, Started: parseTime(doc.StartTime)}
		t.Problems = gmSession(t, msgs, name)
		return []*Trajectory{t}, nil
	}
	return readGeminiLines(data, name)
}

// readGeminiLines folds the records of a JSONL chat recording into the
// final message list, as Gemini CLI does when it loads one: a message
// record replaces the message of its id in place, or is appended; a
// "messages" array in a metadata record or a $set replaces the list;
// $rewindTo removes the message of its id and all after it (all of
// them for an unknown id); $patch {updates: [{id, …}], removeIds,
// orderIds} (or a single update) sets fields of messages, removes some,
// and moves the ordered ones last, in that order.
func readGeminiLines(data []byte, name string) ([]*Trajectory, error) {
	recs, _ := splitLines(data, name)
	var probs []Problem
	t := &Trajectory{}
	var slots []gmSlot
	items := 0
	for _, rec := range recs {
		var r gmRecord
		if ok, p := decodeRecord(name, rec, &r); !ok {
			probs = append(probs, p)
			continue
		}
		switch {
		case r.RewindTo != nil:
			cut := 0
			for i, sl := range slots {
				if sl.id == *r.RewindTo {
					cut = i
					break
				}
			}
			slots = slots[:cut]
		case rawObject(r.Set):
			var patch gmRecord
			_ = decodeLoose(r.Set, &patch)
			gmMeta(t, patch)
			if rawArray(patch.Messages) {
				slots = gmSlots(patch.Messages)
			}
		case rawObject(r.Patch):
			slots = gmPatch(slots, r.Patch)
		case r.ID != "" && r.Type != "":
			sl := gmSlot{id: r.ID, fields: keysOf(rec.raw)}
			replaced := false
			for i := range slots {
				if slots[i].id == sl.id {
					slots[i], replaced = sl, true
					break
				}
			}
			if !replaced {
				slots = append(slots, sl)
			}
		case r.SessionID != "":
			gmMeta(t, r)
			if rawArray(r.Messages) {
				slots = gmSlots(r.Messages)
			}
		default:
			probs = append(probs, recProblem(name, rec, "not a Gemini CLI record (no id and type, $set, $patch, $rewindTo or sessionId)"))
			continue
		}
		items++
	}
	if items == 0 {
		return nil, noRecords(name, probs, "Gemini CLI")
	}
	msgs := make([]gmMsg, 0, len(slots))
	for _, sl := range slots {
		var m gmMsg
		if raw, err := json.Marshal(sl.fields); err == nil {
			_ = decodeLoose(raw, &m)
		}
		msgs = append(msgs, m)
	}
	probs = append(probs, gmSession(t, msgs, name)...)
	sortProblems(probs)
	t.Problems = probs
	return []*Trajectory{t}, nil
}

// gmSlot is a message of a JSONL recording while its records are folded:
// its id and top-level fields, decoded once the list is final.
type gmSlot struct {
	id     string
	fields map[string]json.RawMessage
}

// gmSlots returns the slots of a messages array; items that are not
// objects are dropped.
func gmSlots(raw json.RawMessage) []gmSlot {
	var items []json.RawMessage
	_ = decodeLoose(raw, &items)
	var out []gmSlot
	for _, it := range items {
		if f := keysOf(it); f != nil {
			out = append(out, gmSlot{id: str(f["id"]), fields: f})
		}
	}
	return out
}

// gmPatch applies a $patch record to slots (see [readGeminiLines]).
func gmPatch(slots []gmSlot, raw json.RawMessage) []gmSlot {
	p := keysOf(raw)
	updates := []json.RawMessage{raw}
	if rawArray(p["updates"]) {
		updates = nil
		_ = decodeLoose(p["updates"], &updates)
	}
	for _, u := range updates {
		f := keysOf(u)
		id := str(f["id"])
		for i := range slots {
			if id == "" || slots[i].id != id {
				continue
			}
			for k, v := range f {
				if k != "updates" && k != "removeIds" && k != "orderIds" {
					slots[i].fields[k] = v
				}
			}
		}
	}
	var remove, order []string
	_ = decodeLoose(p["removeIds"], &remove)
	_ = decodeLoose(p["orderIds"], &order)
	if len(remove) > 0 {
		slots = slices.DeleteFunc(slots, func(sl gmSlot) bool { return slices.Contains(remove, sl.id) })
	}
	if len(order) > 0 {
		var head, tail []gmSlot
		for _, sl := range slots {
			if !slices.Contains(order, sl.id) {
				head = append(head, sl)
			}
		}
		for _, id := range order {
			for _, sl := range slots {
				if sl.id == id {
					tail = append(tail, sl)
					break
				}
			}
		}
		slots = append(head, tail...)
	}
	return slots
}

// gmMeta takes the session id and start time of a metadata record.
func gmMeta(t *Trajectory, r gmRecord) {
	if r.SessionID != "" {
		t.ID = r.SessionID
	}
	if st := parseTime(r.StartTime); !st.IsZero() {
		t.Started = st
	}
}

// gmSession turns the final message list of a session into t's messages
// and returns the problems: messages of an unknown type.
func gmSession(t *Trajectory, msgs []gmMsg, name string) []Problem {
	var probs []Problem
	md := meta{t: t}
	models := map[string]int{}
	started := t.Started
	for i, m := range msgs {
		ts := parseTime(m.Timestamp)
		md.line("", "", ts)
		switch m.Type {
		case "user":
			text, imgs, _ := gmParts(m.Content)
			if c := strings.TrimSpace(text); strings.HasPrefix(c, "/") || strings.HasPrefix(c, "?") {
				gmNonContext.count(t, "command")
				break
			}
			t.Messages = append(t.Messages, chat.Message{Role: chat.RoleUser, ID: m.ID, Parts: textParts(text, imgs)})
		case "gemini":
			if m.Model != "" {
				models[m.Model]++
			}
			t.Messages = append(t.Messages, gmAssistant(m))
			for _, c := range m.ToolCalls {
				if len(bytes.TrimSpace(c.Result)) == 0 || string(bytes.TrimSpace(c.Result)) == "null" {
					continue
				}
				text, imgs, failed := gmParts(c.Result)
				for _, im := range imgs {
					text = joinNonEmpty(text, "[image: "+im.Source+"]")
				}
				t.Messages = append(t.Messages, chat.Message{Role: chat.RoleTool, ID: m.ID, Parts: []chat.Part{chat.ToolResult{
					ToolCallID: c.ID, ToolName: c.Name, Content: text, IsError: failed || c.Status == "error",
				}}})
			}
		case "info", "error", "warning":
			gmNonContext.count(t, m.Type)
		default:
			probs = append(probs, Problem{Err: &ParseError{File: name, Reason: fmt.Sprintf("message %d: type %q is not a Gemini CLI message type, dropped", i, m.Type)}})
		}
		md.stamp(len(t.Messages), ts)
	}
	md.finish(len(t.Messages))
	if !started.IsZero() {
		t.Started = started
	}
	t.Model = mostCommon(models)
	return probs
}

// gmAssistant returns the assistant message of a gemini message.
func gmAssistant(m gmMsg) chat.Message {
	out := chat.Message{Role: chat.RoleAssistant, ID: m.ID, Model: m.Model}
	text, imgs, _ := gmParts(m.Content)
	out.Parts = append(out.Parts, textParts(text, imgs)...)
	for _, c := range m.ToolCalls {
		out.Parts = append(out.Parts, chat.ToolCall{ID: c.ID, Name: c.Name, Arguments: parseArgs(c.Args)})
	}
	if tk := m.Tokens; tk != nil {
		u := chat.Usage{
			InputTokens:     int(tk.Input - tk.Cached),
			CacheReadTokens: int(tk.Cached),
			OutputTokens:    int(tk.Output + tk.Thoughts),
			ReasoningTokens: int(tk.Thoughts),
		}
		if !u.IsZero() {
			out.Usage = &u
		}
	}
	return out
}

// gmNonContext is what a Gemini CLI chat recording holds beside the
// conversation, never sent to the model: the known non-context kinds, by
// message type, and "command" for a user input that is a CLI command
// ("/…" or "?…").
var gmNonContext = nonContextTable{
	"info":    "a notice of the CLI, shown to the user",
	"error":   "an error shown to the user",
	"warning": "a warning shown to the user",
	"command": "a CLI command typed by the user (/… or ?…), run by the CLI",
}

// gmParts reads a PartListUnion (a string, a part, or an array of parts
// and strings): its text (text parts, function responses' output or
// error) joined by "\n", its inline and file images, and whether a
// function response reported an error.
func gmParts(raw json.RawMessage) (text string, imgs []chat.Image, failed bool) {
	raw = bytes.TrimSpace(raw)
	var items []json.RawMessage
	switch {
	case len(raw) == 0:
		return "", nil, false
	case rawArray(raw):
		_ = decodeLoose(raw, &items)
	default:
		items = []json.RawMessage{raw}
	}
	var texts []string
	for _, it := range items {
		if !rawObject(it) {
			if s := str(it); s != "" {
				texts = append(texts, s)
			}
			continue
		}
		var p gmPart
		_ = decodeLoose(it, &p)
		switch {
		case p.Text != nil:
			texts = append(texts, *p.Text)
		case p.FunctionResponse != nil:
			s, isErr := gmResponseText(p.FunctionResponse.Response)
			texts = append(texts, s)
			failed = failed || isErr
		case p.InlineData != nil:
			imgs = append(imgs, chat.Image{Source: p.InlineData.MimeType, Bytes: base64Size(p.InlineData.Data)})
		case p.FileData != nil:
			imgs = append(imgs, chat.Image{Source: p.FileData.FileURI})
		}
	}
	return strings.Join(texts, "\n"), imgs, failed
}

// gmResponseText is a function response's text: its "output" or "error"
// string (the latter an error), else the response's JSON.
func gmResponseText(resp json.RawMessage) (string, bool) {
	var r struct {
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	if rawObject(resp) {
		_ = decodeLoose(resp, &r)
	}
	switch {
	case len(r.Error) > 0 && string(r.Error) != "null":
		if s := str(r.Error); s != "" {
			return s, true
		}
		return string(r.Error), true
	case len(r.Output) > 0:
		if s := str(r.Output); s != "" || bytes.HasPrefix(bytes.TrimSpace(r.Output), []byte{'"'}) {
			return s, false
		}
		return string(r.Output), false
	}
	return string(bytes.TrimSpace(resp)), false
}

// gmCheckpoint reads a checkpoint's history (see [readGemini]).
func gmCheckpoint(hist []gmContent, name string) *Trajectory {
	t := &Trajectory{}
	open := map[string][]string{} // tool name -> ids of unanswered calls
	for i, c := range hist {
		var parts []gmPart
		var raws []json.RawMessage
		_ = decodeLoose(c.Parts, &raws)
		for _, r := range raws {
			var p gmPart
			if rawObject(r) {
				_ = decodeLoose(r, &p)
			}
			parts = append(parts, p)
		}
		switch c.Role {
		case "model":
			m := chat.Message{Role: chat.RoleAssistant}
			for k, p := range parts {
				switch {
				case p.FunctionCall != nil:
					id := p.FunctionCall.ID
					if id == "" {
						id = "gemini-" + strconv.Itoa(i) + "-" + strconv.Itoa(k)
					}
					open[p.FunctionCall.Name] = append(open[p.FunctionCall.Name], id)
					m.Parts = append(m.Parts, chat.ToolCall{ID: id, Name: p.FunctionCall.Name, Arguments: parseArgs(p.FunctionCall.Args)})
				case p.Text != nil && p.Thought:
					m.Parts = append(m.Parts, chat.Thinking{Text: *p.Text})
				case p.Text != nil:
					m.Parts = append(m.Parts, chat.Text{Text: *p.Text})
				}
			}
			t.Messages = append(t.Messages, m)
		case "user":
			var user []chat.Part
			flush := func() {
				if len(user) > 0 {
					t.Messages = append(t.Messages, chat.Message{Role: chat.RoleUser, Parts: user})
					user = nil
				}
			}
			for _, p := range parts {
				switch {
				case p.FunctionResponse != nil:
					flush()
					fr := p.FunctionResponse
					id := fr.ID
					if ids := open[fr.Name]; len(ids) > 0 {
						if id == "" {
							id = ids[len(ids)-1]
						}
						open[fr.Name] = removeLast(ids, id)
					}
					text, failed := gmResponseText(fr.Response)
					t.Messages = append(t.Messages, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{
						ToolCallID: id, ToolName: fr.Name, Content: text, IsError: failed,
					}}})
				case p.Text != nil:
					user = append(user, chat.Text{Text: *p.Text})
				case p.InlineData != nil:
					user = append(user, chat.Image{Source: p.InlineData.MimeType, Bytes: base64Size(p.InlineData.Data)})
				case p.FileData != nil:
					user = append(user, chat.Image{Source: p.FileData.FileURI})
				}
			}
			flush()
		default:
			t.Problems = append(t.Problems, Problem{Err: &ParseError{File: name, Reason: fmt.Sprintf("content %d: role %q is not user or model, dropped", i, c.Role)}})
		}
	}
	return t
}

// removeLast removes the last occurrence of id from ids.
func removeLast(ids []string, id string) []string {
	for k := len(ids) - 1; k >= 0; k-- {
		if ids[k] == id {
			return append(ids[:k:k], ids[k+1:]...)
		}
	}
	return ids
}

// joinNonEmpty joins a and b with "\n", leaving out an empty one.
func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
