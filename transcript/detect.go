package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// Detect returns the format of a transcript from its content: it looks at
// the first JSON value of a document, or the first lines of a JSONL file,
// and the keys they hold (FORMATS.md, the table at the top):
//
//   - JSONL lines {type, payload}: [FormatCodex]; lines whose type is user,
//     assistant, system, progress, … with uuid/sessionId/message:
//     [FormatClaudeCode]; lines with history[] of events:
//     [FormatOpenHands]; lines holding a conversation or a message:
//     [FormatOpenAI].
//   - An object with history[] of role messages: [FormatSWEAgent]; with
//     messages[] and trajectory_format or info: [FormatMiniSWEAgent]; with
//     messages[] or traj[]: [FormatOpenAI].
//   - An array of role messages: [FormatMiniSWEAgent] when it is a
//     text-style mini-swe-agent 1.x run (fenced bash blocks answered by
//     <returncode> observations, or ```mswea_bash_command), else
//     [FormatOpenAI]; an array of conversations: [FormatOpenAI]; an array
//     of OpenHands events: [FormatOpenHands].
//   - The newer agents' shapes, checked first: a Gemini CLI session,
//     JSONL record or checkpoint and a Copilot CLI event (detect_agents.go),
//     an array of Anthropic messages with a block or field OpenAI messages
//     never have ([FormatCline]), aider's "# aider chat started at" or
//     "TO LLM" first line ([FormatAider]), the SQLite header
//     ([FormatCrush]).
//
// A document that is broken (a truncated .traj) is classified from the
// top-level keys read before the break, so that [Read] can report where
// it breaks. The error, when no format matches, wraps [ErrUnknownFormat]
// and names every known format. Detect does not modify data and never
// panics.
func Detect(data []byte) (Format, error) {
	f, reason := detect(data)
	if f == "" {
		return "", fmt.Errorf("transcript: %s: %w", reason, ErrUnknownFormat)
	}
	return f, nil
}

func detect(data []byte) (Format, string) {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(data) == 0 {
		return "", "empty input"
	}
	if data[0] != '{' && data[0] != '[' {
		if isAider(data) {
			return FormatAider, ""
		}
		if isSQLite(data) {
			return FormatCrush, ""
		}
		return "", "input is not JSON or JSON Lines"
	}
	if f, valid := classifyDoc(data); valid {
		if f != "" {
			return f, ""
		}
		return "", "no known format has this JSON document's shape"
	}
	if !hasJSONLine(data) {
		if f := sniffBroken(data); f != "" {
			return f, ""
		}
		return "", "input is broken JSON of no recognizable shape"
	}
	if f := classifyLines(data); f != "" {
		return f, ""
	}
	return "", "no known format has these JSON Lines records"
}

// classifyLines returns the format of the first of the first 50 lines of
// data holding JSON that [classifyRecord] classifies, or "".
func classifyLines(data []byte) Format {
	seen := 0
	for len(data) > 0 && seen < 50 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) == 0 || !jsonx.Valid(line) {
			continue
		}
		seen++
		if f := classifyRecord(line); f != "" {
			return f
		}
	}
	return ""
}

// keysOf decodes the top level of a JSON object; nil for anything else.
func keysOf(raw []byte) map[string]json.RawMessage {
	if !rawObject(raw) {
		return nil
	}
	// The fast decoder makes a map for 64 keys; most objects have a
	// few.
	m := make(map[string]json.RawMessage, 8)
	if jsonx.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func has(m map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// classifyRecord classifies one JSON value that is a JSONL record or a
// whole document holding one object.
func classifyRecord(raw []byte) Format {
	if rawArray(raw) {
		return FormatOpenAI
	}
	m := keysOf(raw)
	if m == nil {
		return ""
	}
	return classifyKeys(m)
}

// classifyKeys classifies a JSON object by its top-level keys (see
// classifyRecord).
func classifyKeys(m map[string]json.RawMessage) Format {
	typ := str(m["type"])
	if f := classifyNewKeys(typ, m); f != "" {
		return f
	}
	switch {
	case typ != "" && rawObject(m["payload"]):
		return FormatCodex
	case has(m, "record_type"):
		return FormatCodex
	case ccKnownTypes[typ] && has(m, "uuid", "sessionId", "parentUuid", "messageId", "leafUuid", "message"):
		return FormatClaudeCode
	case cxItemTypes[typ] && !has(m, "uuid", "sessionId"):
		return FormatCodex
	case rawArray(m["history"]):
		return classifyHistory(m)
	case rawArray(m["messages"]):
		if isMiniObject(m) {
			return FormatMiniSWEAgent
		}
		return FormatOpenAI
	case rawArray(m["traj"]):
		return FormatOpenAI
	case typ == "" && has(m, "role"):
		return FormatOpenAI
	case typ == "" && has(m, "id") && has(m, "timestamp") && has(m, "instructions", "git"):
		return FormatCodex // early rollout header
	}
	return ""
}

// classifyHistory tells a SWE-agent .traj (history of role messages) from
// an OpenHands output line (history of events).
func classifyHistory(m map[string]json.RawMessage) Format {
	var hist []json.RawMessage
	_ = jsonx.Unmarshal(m["history"], &hist)
	for _, h := range flattenEvents(hist) {
		e := keysOf(h)
		switch {
		case has(e, "action", "observation"):
			return FormatOpenHands
		case has(e, "role"):
			return FormatSWEAgent
		}
	}
	if has(m, "trajectory", "environment", "replay_config") {
		return FormatSWEAgent
	}
	if has(m, "instance_id", "metadata", "metrics", "instruction") {
		return FormatOpenHands
	}
	return ""
}

func isMiniObject(m map[string]json.RawMessage) bool {
	if strings.HasPrefix(str(m["trajectory_format"]), "mini-swe-agent") {
		return true
	}
	info := keysOf(m["info"])
	return has(info, "mini_version", "config", "model_stats", "exit_status")
}

// classifyDoc returns the format of data, a JSON object or array, and
// whether data is one valid JSON document; the format is "" when it is
// not, or has no known shape. Decoding the document's top level checks
// it: no pass over data for validity alone.
func classifyDoc(data []byte) (Format, bool) {
	if rawObject(data) {
		m := keysOf(data)
		if m == nil {
			return "", false
		}
		return classifyKeys(m), true
	}
	var items []json.RawMessage
	if jsonx.Unmarshal(data, &items) != nil {
		return "", false
	}
	if len(items) == 0 {
		return FormatOpenAI, true
	}
	first := items[0]
	if rawArray(first) {
		return FormatOpenAI, true
	}
	m := keysOf(first)
	switch {
	case has(m, "action", "observation"):
		return FormatOpenHands, true
	case rawArray(m["messages"]) || rawArray(m["traj"]):
		return FormatOpenAI, true
	case isGeminiContent(m):
		return FormatGeminiCLI, true
	case has(m, "role") && isClineArray(items):
		return FormatCline, true
	case has(m, "role"):
		if isMiniTextArray(items) {
			return FormatMiniSWEAgent, true
		}
		return FormatOpenAI, true
	}
	return "", true
}

// isMiniTextArray reports whether a bare array of messages is a text-style
// mini-swe-agent 1.x run: no tool calls, and assistant messages with a
// ```mswea_bash_command block, or with a ```bash block together with
// mini-swe-agent's <returncode> observations or its submit sentinel.
func isMiniTextArray(items []json.RawMessage) bool {
	bash, mswea, marker := false, false, false
	for _, raw := range items {
		var m oaMsg
		if !rawObject(raw) || decodeLoose(raw, &m) != nil {
			return false
		}
		if m.Role == "tool" || m.Role == "function" || len(oaToolCalls(m.ToolCalls)) > 0 {
			return false
		}
		text, _ := oaContent(m.Content)
		switch m.Role {
		case "assistant":
			if strings.Contains(text, "```mswea_bash_command") {
				mswea = true
			}
			if bashBlock.MatchString(text) {
				bash = true
			}
		case "user":
			if strings.Contains(text, "<returncode>") {
				marker = true
			}
		}
		if strings.Contains(text, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") || strings.Contains(text, "MINI_SWE_AGENT_FINAL_OUTPUT") {
			marker = true
		}
	}
	return mswea || (bash && marker)
}

// sniffBroken classifies a broken JSON document by the top-level keys (or
// the first element's keys) read before the break.
func sniffBroken(data []byte) Format {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return ""
	}
	keys := map[string]json.RawMessage{}
	inArray := tok == json.Delim('[')
	if inArray {
		tok, err = dec.Token()
		if err != nil {
			return ""
		}
		if tok == json.Delim('[') {
			return FormatOpenAI // an array of conversations
		}
	}
	if tok != json.Delim('{') {
		return ""
	}
	readKeys(dec, keys)
	if inArray {
		switch {
		case has(keys, "action", "observation"):
			return FormatOpenHands
		case has(keys, "role") && has(keys, "parts"):
			return FormatGeminiCLI
		case has(keys, "role", "messages", "traj"):
			return FormatOpenAI
		}
		return ""
	}
	switch {
	case has(keys, "sessionId") && has(keys, "projectHash"):
		return FormatGeminiCLI
	case has(keys, "history") && has(keys, "instance_id", "metadata", "metrics", "instruction"):
		return FormatOpenHands
	case has(keys, "history", "trajectory", "environment", "replay_config"):
		return FormatSWEAgent
	case has(keys, "messages") && has(keys, "trajectory_format", "info", "instance_id"):
		return FormatMiniSWEAgent
	case has(keys, "messages", "traj"):
		return FormatOpenAI
	}
	return ""
}

// readKeys records the keys of the object whose '{' dec just returned,
// until the object ends or the input breaks.
func readKeys(dec *json.Decoder, keys map[string]json.RawMessage) {
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		k, ok := tok.(string)
		if !ok {
			return // '}' or garbage
		}
		keys[k] = nil
		if skipValue(dec) != nil {
			return
		}
	}
}

var errNotValue = errors.New("not a value")

// skipValue consumes one JSON value from dec.
func skipValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if d != '{' && d != '[' {
		return errNotValue
	}
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}
