package tools

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// DefaultCommandTimeout bounds one run_command when Env.CommandTimeout
// is 0.
const DefaultCommandTimeout = 2 * time.Minute

// DefaultOutputBytes caps a tool's output, in bytes, when
// Env.OutputBytes is 0.
const DefaultOutputBytes = 100 << 10

// Default returns the reference agent's tools over env: read_file,
// write_file, edit_file, search, list_files, run_command and todo_write,
// and, when env.Engine is set, note_finding and recall_output. The tools
// are safe for concurrent use.
func Default(env Env) []Tool {
	ts := []Tool{
		readFile{env}, writeFile{env}, editFile{env}, search{env: env},
		listFiles{env}, runCommand{env}, todoWrite{},
	}
	if env.Engine != nil {
		ts = append(ts, noteFinding{env}, recallOutput{env})
	}
	return ts
}

func (env Env) outputBytes() int {
	if env.OutputBytes > 0 {
		return env.OutputBytes
	}
	return DefaultOutputBytes
}

func (env Env) commandTimeout() time.Duration {
	if env.CommandTimeout > 0 {
		return env.CommandTimeout
	}
	return DefaultCommandTimeout
}

// ok and fail build a call's result.
func ok(call chat.ToolCall, text string) chat.ToolResult {
	return chat.ToolResult{ToolCallID: call.ID, ToolName: call.Name, Content: text}
}

func fail(call chat.ToolCall, format string, args ...any) chat.ToolResult {
	return chat.ToolResult{ToolCallID: call.ID, ToolName: call.Name, Content: "Error: " + fmt.Sprintf(format, args...), IsError: true}
}

// decode reads call's arguments into v; an empty argument list is {}.
func decode(call chat.ToolCall, v any) error {
	raw := call.Arguments
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	// Some models send the object as a JSON string.
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %w", call.Name, err)
	}
	return nil
}

// schema builds a JSON Schema object from its properties and required names.
func schema(props map[string]any, required ...string) json.RawMessage {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // static schemas only
	}
	return b
}

func prop(typ, desc string) map[string]any {
	return map[string]any{"type": typ, "description": desc}
}

// Decode reads a tool call's JSON arguments into v, as the tools of this
// package read theirs: no arguments read as {}, and an object sent as a
// JSON string (as some models do) is read as the object. The error names
// the tool.
func Decode(call chat.ToolCall, v any) error { return decode(call, v) }

// Schema returns a JSON Schema object with the properties props (name
// to schema) and the required names, for a tool's Def. It panics when
// props cannot be marshalled: pass static schemas only.
func Schema(props map[string]any, required ...string) json.RawMessage {
	return schema(props, required...)
}
