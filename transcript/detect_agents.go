package transcript

import "encoding/json"

// classifyNewKeys classifies a JSON object, by its type and top-level
// keys, as a record of one of the agent formats whose shape no older
// format shares: a Gemini CLI session document or JSONL record
// ([isGeminiRecord]) or a Copilot CLI event ([isCopilotEvent]). It
// returns "" for anything else. [classifyKeys] asks it first, so that a
// Gemini CLI session (an object with a messages array) is not taken for
// OpenAI messages, nor a checkpoint's history for a SWE-agent one.
func classifyNewKeys(typ string, m map[string]json.RawMessage) Format {
	switch {
	case isGeminiRecord(typ, m):
		return FormatGeminiCLI
	case isCopilotEvent(typ, m):
		return FormatCopilotCLI
	}
	return ""
}
