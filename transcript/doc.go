// Package transcript reads the transcripts coding agents write into
// agentctx's neutral message list ([chat.Message]), with the side data they
// record: per-call provider usage, compactions, tool schemas.
//
// # Formats
//
// [Read] and [ReadFile] detect the format from the content ([Detect]) or
// take it from [Options].Format. The formats ([Formats]) and their
// mappings are specified in FORMATS.md of the shared data folder:
//
//   - [FormatClaudeCode]: Claude Code session JSONL and its sub-agent
//     side-chain files (§4).
//   - [FormatCodex]: OpenAI Codex rollout JSONL (§6).
//   - [FormatSWEAgent]: SWE-agent .traj, text-action and function-calling
//     styles (§1).
//   - [FormatMiniSWEAgent]: mini-swe-agent .traj.json, v2 object and 1.x
//     bare array (§2).
//   - [FormatOpenHands]: OpenHands V0 output.jsonl, one run per line (§3).
//   - [FormatOpenAI]: plain chat-completions message arrays, arrays of
//     conversations such as tau-bench's, and JSONL of conversations (§5).
//   - [FormatCline]: a Cline or Roo Code api_conversation_history.json
//     (Anthropic messages), with usage from ui_messages.json beside it.
//   - [FormatGeminiCLI]: Gemini CLI chat recordings (JSON, or JSONL with
//     $set and $rewindTo records) and checkpoints.
//   - [FormatCopilotCLI]: GitHub Copilot CLI events.jsonl.
//   - [FormatAider]: aider's .aider.chat.history.md and .aider.llm.history.
//   - [FormatCrush]: crush and opencode (Go) SQLite stores, opened
//     read-only, one trajectory per session.
//
// The readers of the new formats say in their files (cline.go, gemini.go,
// copilot.go, aider.go, crush.go) which source files of the agent they
// follow, what maps to messages, what is dropped and how usage is read.
//
// A file yields one [Trajectory] per run: one for most formats, one per
// line of an OpenHands output, one per conversation of an OpenAI array.
// [Collect] expands files and folders into the transcript files to read.
//
// # The neutral message list
//
// Every reader produces the same shape: roles system, user, assistant and
// tool; one model response is one assistant message holding its text,
// [chat.Thinking] and [chat.ToolCall] parts (Claude Code's streaming lines,
// OpenHands' one-action-per-call events and Codex's separate items are
// merged back into responses); each tool result is one tool message with
// exactly one [chat.ToolResult]. Tool-call arguments are JSON: recorded
// objects are kept byte for byte, JSON-encoded strings are decoded, and
// arguments that are not JSON are kept as a JSON string.
//
// Tool-call ids are not unique (a SWE-agent demonstration reuses one id for
// four calls), so results pair with the most recent unanswered call of
// their id, as [chat.Pair] does. Calls without a result are kept (the
// final submit or finish call); a result that answers no call is turned
// into a user text message, so [chat.Pair] finds no orphan in any
// trajectory a reader returns.
//
// Assistant messages carry [chat.Usage] where the provider's usage for that
// call was recorded, each call counted once (Claude Code repeats the usage
// on every line of a response; Codex writes each token_count twice;
// all-zero records mean "unknown" and are dropped). A usage record with a
// count that is negative or above [chat.MaxCallTokens] is corrupt: it is
// dropped, counted in [Trajectory].DroppedUsage and reported as a
// [Problem] naming the message. Compactions are side
// data ([Compaction]): the messages keep the whole history.
//
// Where the format records them (Claude Code, Codex), a trajectory also
// says where and when it ran: the working directory, git branch, start
// time and each message's timestamp ([Trajectory].CWD, GitBranch, Started,
// Times), which `agentctx sessions import` keeps.
//
// # Errors and robustness
//
// Readers never panic. Input of an unknown shape is an error wrapping
// [ErrUnknownFormat], whose message names every known format. Readers
// refuse rather than guess: an input that a reader claims but does not
// accept fully (it would read no message and leave something out, leave
// out more than half, or drop another format's tool calls, such as
// Anthropic tool_use blocks in what looks like OpenAI messages) is a
// [*FormatError] naming the closest format and what did not match, also
// when the format was forced in [Options]. What a reader leaves out of an
// input it accepts is counted by kind in [Trajectory].Dropped
// ([Trajectory.MoreThanTrace] tells a trace from more), and tool results
// that answer no earlier call in [Trajectory].Orphans. Malformed
// input is a [*ParseError] (wrapping [ErrMalformed]) naming the file, the
// line and the byte offset. JSONL readers skip bad lines (a torn last line,
// garbage) and report them in [Trajectory].Problems; only input with
// nothing usable is an error. Lines have no length limit (1 MB tool
// outputs occur in real OpenHands runs).
//
// # Memory
//
// Claude Code and Codex transcripts, the ones that grow to gigabytes, and
// OpenHands output.jsonl files of many runs are streamed: [Read] decodes
// them line by line and holds only the messages it returns, a 64 KiB
// buffer and the line being decoded. The other formats are single JSON
// documents (or small JSONL files) and are read whole.
//
// # Speed
//
// Each line, or document, is checked and decoded in one pass, by
// github.com/segmentio/encoding/json (encoding/json checks a whole value
// before decoding it, and again for each nested value); JSON strings,
// most of a transcript, are decoded by this package, copying the runs
// between escapes whole. Where the fast decoder fails (broken JSON, a
// value of an unexpected type) the value is decoded again by
// encoding/json, so that what Read returns, errors included, is what
// encoding/json alone returns; a fuzz test compares both on every
// format. Tool-call arguments are decoded and checked once. A document
// is read into one buffer of its size, and the messages of a document
// into one slice made to their number. Reading the shared data's real
// transcripts takes 1 s of CPU for 140-350 MB, depending on the format,
// and allocates 0.6-1.6 bytes per byte read (BenchmarkReadFiles, on a
// 2-core machine).
//
// # Concurrency
//
// The functions of this package hold no state and are safe for concurrent
// use. A returned [Trajectory] is owned by the caller.
package transcript
