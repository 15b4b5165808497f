package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// Format names a transcript format. The zero value "" means "detect the
// format from the content" where a Format is an option.
type Format string

// The formats this package reads. FORMATS.md (../shared/data) describes each
// one: its source, its JSON structure and how it maps to messages.
const (
	// FormatClaudeCode is a Claude Code session JSONL file
	// (~/.claude/projects/<cwd>/<sessionId>.jsonl), including the sub-agent
	// side-chain files <sessionId>/subagents/agent-*.jsonl (FORMATS.md §4).
	FormatClaudeCode Format = "claude-code"
	// FormatCodex is an OpenAI Codex rollout JSONL file
	// (~/.codex/sessions/…/rollout-*.jsonl) (FORMATS.md §6).
	FormatCodex Format = "codex"
	// FormatSWEAgent is a SWE-agent .traj file, in both the text-action and
	// the function-calling style (FORMATS.md §1).
	FormatSWEAgent Format = "swe-agent"
	// FormatMiniSWEAgent is a mini-swe-agent .traj.json file: the v2 object
	// with messages[], or the 1.x bare array of messages (FORMATS.md §2).
	FormatMiniSWEAgent Format = "mini-swe-agent"
	// FormatOpenHands is an OpenHands V0 evaluation output.jsonl, one
	// trajectory per line (FORMATS.md §3). A JSON array of OpenHands events
	// is read as one trajectory too.
	FormatOpenHands Format = "openhands"
	// FormatOpenAI is plain OpenAI chat-completions messages: a JSON array
	// of messages, a JSON array of conversations (each an array of
	// messages, or an object with "messages" or, like tau-bench, "traj"),
	// one such conversation object, or JSONL with one conversation per line
	// (FORMATS.md §5). JSONL whose every line is a single message is read as
	// one conversation.
	FormatOpenAI Format = "openai"
	// FormatCline is a Cline or Roo Code task's api_conversation_history.json:
	// a JSON array of Anthropic Messages API messages, read with the
	// ui_messages.json beside it for usage (see cline.go).
	FormatCline Format = "cline"
	// FormatGeminiCLI is a Gemini CLI chat recording
	// (~/.gemini/tmp/<hash>/chats/session-*.json, or the JSONL form with
	// $set and $rewindTo records) or checkpoint (checkpoint-*.json: a
	// Gemini API Content[] history) (see gemini.go).
	FormatGeminiCLI Format = "gemini-cli"
	// FormatCopilotCLI is a GitHub Copilot CLI session event log
	// (~/.copilot/session-state/<id>/events.jsonl) (see copilot.go).
	FormatCopilotCLI Format = "copilot-cli"
	// FormatAider is an aider chat history (.aider.chat.history.md) or LLM
	// history (.aider.llm.history) (see aider.go).
	FormatAider Format = "aider"
	// FormatCrush is a crush or opencode (Go) SQLite session store
	// (.crush/crush.db, .opencode/opencode.db), one trajectory per session
	// (see crush.go).
	FormatCrush Format = "crush"
)

var formats = []Format{FormatClaudeCode, FormatCodex, FormatSWEAgent, FormatMiniSWEAgent, FormatOpenHands, FormatOpenAI, FormatCline, FormatGeminiCLI, FormatCopilotCLI, FormatAider, FormatCrush}

// Formats returns every format this package reads, in a fixed order, for
// error messages and help text. The slice is a fresh copy.
func Formats() []Format {
	return slices.Clone(formats)
}

func formatList() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// ParseFormat returns the format named s: one of the names [Formats]
// returns, ignoring case and surrounding spaces, or a common alias
// ("claude", "sweagent", "mini", "tau-bench", …). An empty s is an error.
// The error wraps [ErrUnknownFormat] and lists the known names.
func ParseFormat(s string) (Format, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.NewReplacer("_", "-", " ", "-").Replace(k)
	switch k {
	case "claude-code", "claude", "claudecode":
		return FormatClaudeCode, nil
	case "codex", "codex-rollout", "openai-codex":
		return FormatCodex, nil
	case "swe-agent", "sweagent", "swe":
		return FormatSWEAgent, nil
	case "mini-swe-agent", "miniswe-agent", "mini-swe", "miniswe", "mini", "mswea":
		return FormatMiniSWEAgent, nil
	case "openhands", "open-hands":
		return FormatOpenHands, nil
	case "openai", "openai-chat", "chat", "tau-bench", "taubench":
		return FormatOpenAI, nil
	case "cline", "roo", "roo-code", "roocode":
		return FormatCline, nil
	case "gemini-cli", "gemini", "geminicli":
		return FormatGeminiCLI, nil
	case "copilot-cli", "copilot", "copilotcli", "github-copilot":
		return FormatCopilotCLI, nil
	case "aider", "aider-chat":
		return FormatAider, nil
	case "crush", "opencode", "opencode-go", "crush-sqlite":
		return FormatCrush, nil
	}
	return "", fmt.Errorf("transcript: format %q: %w", s, ErrUnknownFormat)
}

// ErrUnknownFormat reports that the input matched none of the known formats
// (or that a format name is not known). Its message lists the known formats;
// pass one explicitly in [Options].Format if detection guessed wrong.
var ErrUnknownFormat = errors.New("unknown transcript format (known formats: " + formatList() + ")")

// ErrMalformed reports that the input is not valid for its format: broken
// JSON, or no usable record at all. Every such error is a [*ParseError]
// that names the file, line and byte offset; fix or drop the input.
var ErrMalformed = errors.New("malformed transcript")

// ParseError describes malformed input at one place. Line is 1-based (0
// for a problem of a message rather than a line, see [Trajectory].DroppedUsage);
// Offset is in bytes from the start of the input: the start of the bad line
// for JSONL formats, the position of the error for single JSON documents.
// Reason says what is wrong; Err is the underlying cause (a
// *json.SyntaxError, say), or nil. A ParseError unwraps to [ErrMalformed]
// and to Err. It is not modified after it is returned.
type ParseError struct {
	File   string
	Line   int
	Offset int64
	Reason string
	Err    error
}

// Error formats the error as "transcript: FILE:LINE (byte OFFSET): REASON",
// followed by ": " and Err's message when Err is set. Line 0 (a problem
// of a message, not of a line: a dropped usage record) leaves out
// ":LINE (byte OFFSET)".
func (e *ParseError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	s := fmt.Sprintf("transcript: %s:%d (byte %d): %s", file, e.Line, e.Offset, e.Reason)
	if e.Line == 0 {
		s = fmt.Sprintf("transcript: %s: %s", file, e.Reason)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns [ErrMalformed] and, when set, Err.
func (e *ParseError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrMalformed}
	}
	return []error{ErrMalformed, e.Err}
}

// Problem is a part of the input that was skipped while the rest was read:
// a malformed JSONL line (a torn last line, a garbage line), or a record
// that is valid JSON but not a record of the format. Line is 1-based, Offset
// is the byte offset of the line's start. Err is a [*ParseError].
type Problem struct {
	Line   int
	Offset int64
	Err    error
}

// Trajectory is one agent run read from a transcript, as a neutral message
// list plus the side data the transcript recorded.
//
// Messages follow the rules of FORMATS.md ("The neutral message list"): one
// model response is one assistant message (its text, [chat.Thinking] and
// [chat.ToolCall] parts), each tool result is one [chat.RoleTool] message
// with exactly one [chat.ToolResult]. Every tool result answers an earlier
// call ([chat.Pair] finds no orphan): a result that answers no call is
// turned into a user text message, as OpenHands does. Calls without a
// result are kept. Assistant messages carry [chat.Usage] where the provider
// reported the usage of that call; each call's usage is on exactly one
// message.
//
// A Trajectory is plain data; it is not safe for concurrent mutation.
type Trajectory struct {
	// File is the name given to [Read] (the path for [ReadFile]).
	File string
	// Index is the 0-based position of the trajectory in a file that holds
	// several (the OpenHands output.jsonl line, the OpenAI conversation),
	// else 0.
	Index int
	// ID is the session or instance id where the transcript records one
	// (Claude Code sessionId, Codex session_meta id, OpenHands and
	// mini-swe-agent instance_id, SWE-agent replay_config problem id,
	// OpenAI "id"/"instance_id"/"task_id"), else "".
	ID string
	// Format is the format the trajectory was read as.
	Format Format
	// Model is the model name as recorded, or "": Claude Code message.model
	// (the most common one), Codex turn_context model (the last one),
	// mini-swe-agent info.config.model.model_name, OpenHands
	// metadata.llm_config.model, SWE-agent replay_config agent.model name.
	Model string
	// Tools are the tool schemas where the transcript records them
	// (OpenHands system action args.tools, OpenAI "tools"/"functions").
	Tools []chat.ToolDef
	// Messages is the neutral message list, in the order of the file.
	Messages []chat.Message
	// Compactions are the compactions the transcript recorded, in order.
	Compactions []Compaction
	// Problems are the malformed parts skipped while reading, and the
	// usage records dropped as implausible (see DroppedUsage).
	Problems []Problem
	// DroppedUsage counts the usage records (and compaction PreTokens)
	// that were dropped because a count was negative or above
	// [chat.MaxCallTokens]; each is also a Problem naming the message.
	DroppedUsage int
	// Dropped counts what the reader read but did not understand and
	// left out, by kind: `content block "x"` (a block or content part
	// of an unknown type), "message without role", `record "x"` (a line
	// of an unknown type that holds a message), `item "x"` (a Codex
	// response item of an unknown type), `tool block "x"`; nil when
	// nothing was. See [Trajectory.MoreThanTrace]. An input where more
	// than half is dropped is refused ([FormatError]).
	Dropped map[string]int
	// NonContext counts, by kind, the records the agent wrote but never
	// sends to the model, which the reader skipped as such: the known
	// non-context kinds of the reader's table ([NonContextKinds]:
	// progress lines, request blobs, undo snapshots, UI events, CLI
	// notices). Unlike Dropped, nothing of the conversation is missing.
	// Nil when none.
	NonContext map[string]int
	// Orphans counts the tool results that answered no earlier
	// unanswered call (their call missing, or after them: out-of-order
	// lines) and were turned into user text; FORMATS.md's invariant
	// holds in every collected file, so any is a sign of a damaged or
	// misread transcript.
	Orphans int
	// Notes says, in a sentence each, where the messages differ from
	// what the provider was sent, or what the file held beside them
	// (side chains replayed as their own trajectories, OpenHands
	// observations the agent cut before sending). Nil when none.
	Notes []string

	// CWD is the agent's working directory where the transcript records
	// one (Claude Code "cwd", the first line's; Codex session_meta cwd),
	// else "". See meta.go.
	CWD string
	// GitBranch is the git branch the transcript records (Claude Code
	// "gitBranch", Codex session_meta git.branch), else "".
	GitBranch string
	// Started is when the run started where recorded (Codex session_meta
	// timestamp, else the first timestamp of the file), else zero.
	Started time.Time
	// Times holds each message's timestamp (the first line of a Claude
	// Code response, the line of a Codex item), zero where the line has
	// none; nil when the format records no per-message times. When not
	// nil it has one element per message of Messages.
	Times []time.Time
}

// Compaction is a compaction the transcript recorded, kept as side data:
// Messages keep the whole history, before and after it. Like
// [Trajectory], it is plain data owned by the caller.
type Compaction struct {
	// At is the index in Messages of the first message after the
	// compaction (len(Messages) when nothing followed). For Claude Code it
	// is the isCompactSummary user message, which is in Messages.
	At int
	// Trigger is "auto", "manual", or "" when not recorded.
	Trigger string
	// PreTokens is the context size in tokens when the compaction fired,
	// if recorded (Claude Code compactMetadata.preTokens), else 0.
	PreTokens int
	// Summary is the summary text, if recorded.
	Summary string
	// Replacement is the complete new history that replaced the old one
	// (Codex compacted.replacement_history); nil for other formats.
	Replacement []chat.Message
}

// Options configures [Read] and [ReadFile]. The zero value detects the
// format. Options is plain data, safe to share between goroutines.
type Options struct {
	// Format is the format to read the input as. Optional. Defaults to ""
	// (detect from the content with [Detect]).
	Format Format
}

// ReadFile reads the transcript at path. See [Read]: a Claude Code,
// Codex or OpenHands JSONL file is streamed, in memory proportional to
// its messages plus its longest line.
func ReadFile(path string, opts Options) ([]*Trajectory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	return Read(f, path, opts)
}

// Read reads a whole transcript from r and returns the trajectories it
// holds: one for most formats, one per line for OpenHands, one per
// conversation for OpenAI arrays. name is used in errors and as
// [Trajectory].File.
//
// Errors: an error wrapping [ErrUnknownFormat] when the format is not given
// and [Detect] finds none; a [*ParseError] (wrapping [ErrMalformed]) with
// file, line and byte offset when the input is malformed — for JSONL
// formats only when no line was usable, otherwise the bad lines are
// reported in [Trajectory].Problems and the rest is returned; an error from
// r. Read never panics on any input.
//
// Memory: the JSONL formats of long sessions and many runs
// ([FormatClaudeCode], [FormatCodex], [FormatOpenHands] output.jsonl)
// are streamed line by line: Read holds the messages it returns, a 64 KiB
// buffer and the line being decoded, never the input (detection reads at
// most the first 50 lines, or 4 MiB of whole lines). The other formats
// are single JSON documents, or small JSONL files, read whole. Lines
// have no length limit.
//
// Each line, or document, is checked and decoded in one pass where it
// can be (see the package documentation, Speed): nested values (message
// content, tool results, OpenHands histories) are decoded where they
// stand rather than kept as raw bytes and decoded again, and the result
// is what encoding/json alone decodes.
func Read(r io.Reader, name string, opts Options) ([]*Trajectory, error) {
	size := sizeOf(r)
	br := bufio.NewReaderSize(r, firstBufSize(size))
	if b, _ := br.Peek(len(bom)); bytes.Equal(b, bom) {
		_, _ = br.Discard(len(bom))
	}
	if b, _ := br.Peek(len(sqliteMagic)); isSQLite(b) {
		return readSQLite(r, br, name, opts.Format)
	}
	f := opts.Format
	if size >= 0 && (opensDocument(br) || (f != "" && linesReaderFor(f) == nil)) {
		// A document of known size: read whole, at once, into a
		// buffer of its size (+1 finds the end without another read).
		// A document under a forced JSON Lines format too, so that
		// the error can name the document's format.
		data, err := readRest(make([]byte, 0, size+1), br)
		if err != nil {
			return nil, fmt.Errorf("transcript: read %s: %w", displayName(name), err)
		}
		return parse(data, name, opts)
	}
	br = bufio.NewReaderSize(br, bufSize(size))
	// The head is read to detect the format, and under a forced format
	// to name the right one should the forced one read no model call.
	head, complete, err := readHead(br, size)
	if err != nil {
		return nil, fmt.Errorf("transcript: read %s: %w", displayName(name), err)
	}
	if f == "" && !complete {
		f = detectHead(head)
	}
	lines := linesReaderFor(f)
	if lines == nil {
		// A document format, or one not detected from the head: read
		// whole, as parse needs.
		data, err := readRest(head, br)
		if err != nil {
			return nil, fmt.Errorf("transcript: read %s: %w", displayName(name), err)
		}
		return parse(data, name, opts)
	}
	lr := newLineReader(io.MultiReader(bytes.NewReader(head), br))
	trajs, err := lines(lr, name)
	if lr.nonBlank == 0 && lr.err == nil {
		return nil, &ParseError{File: name, Line: 1, Reason: "empty input"}
	}
	if err != nil {
		return nil, forcedReadError(err, head, name, opts.Format)
	}
	if trajs, err = finish(trajs, name, f, opts.Format != ""); err != nil {
		return nil, forcedReadError(err, head, name, opts.Format)
	}
	if err := refuseNoCalls(trajs, head, name, opts.Format); err != nil {
		return nil, err
	}
	return trajs, nil
}

// refuseNoCalls returns a [*FormatError] naming the format of data when
// forced, the format [Options].Format forced, read no model call from
// trajs while the format detection finds in data (the input, or the head
// of a streamed one) reads some (issue 28: --format swe-agent on an
// OpenHands file read 0 calls and exited 0); else nil.
func refuseNoCalls(trajs []*Trajectory, data []byte, name string, forced Format) error {
	if forced == "" || modelCalls(trajs) > 0 {
		return nil
	}
	return misforced(data, name, forced, "no model call read")
}

// misforced returns a [*FormatError] naming the format detection finds
// in data (the input, or the head of a streamed one) when it is not
// forced, the format [Options].Format forced, and its reader reads a
// model call from data; what says what the forced reader did ("no model
// call read", or its error). It returns nil when forced is empty or no
// other format reads data.
func misforced(data []byte, name string, forced Format, what string) error {
	if forced == "" {
		return nil
	}
	g, _ := detect(data)
	if g == "" || g == forced {
		return nil
	}
	read := readerFor(g)
	if read == nil {
		return nil
	}
	other, err := read(data, name)
	if err != nil || modelCalls(other) == 0 {
		return nil
	}
	return &FormatError{File: name, Closest: g, Tried: forced, Reason: what, Calls: modelCalls(other)}
}

// forcedReadError is the error of the forced format's reader on data:
// a [*FormatError] naming the format the data is in when another reader
// reads its calls (issue 28: --format swe-agent on an OpenHands file
// failed on invalid JSON without saying which format it is), else err
// (marked forced, see [forcedError]).
func forcedReadError(err error, data []byte, name string, forced Format) error {
	if forced == "" {
		return err
	}
	var what string
	var pe *ParseError
	var fe *FormatError
	switch {
	case errors.As(err, &pe):
		what = pe.Reason
		if pe.Line > 0 {
			what = fmt.Sprintf("line %d (byte %d): %s", pe.Line, pe.Offset, pe.Reason)
		}
		if pe.Err != nil {
			what += ": " + pe.Err.Error()
		}
	case errors.As(err, &fe):
		what = fe.Reason
	default:
		return err
	}
	if other := misforced(data, name, forced, what); other != nil {
		return other
	}
	return forcedError(err, true)
}

// modelCalls counts the assistant messages of trajs: one per model call.
func modelCalls(trajs []*Trajectory) int {
	n := 0
	for _, t := range trajs {
		for _, m := range t.Messages {
			if m.Role == chat.RoleAssistant {
				n++
			}
		}
	}
	return n
}

var bom = []byte("\xef\xbb\xbf")

// headLines and headBytes bound what [Read] reads ahead to detect the
// format: whole lines, up to 50 that hold JSON (as many as [Detect]
// looks at) or 4 MiB, whichever comes first.
const (
	headLines = 50
	headBytes = 4 << 20
)

// sizeOf returns the size in bytes of what r reads when r tells (a file,
// a bytes.Reader), else -1.
func sizeOf(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Stat() (fs.FileInfo, error) }:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	case interface{ Len() int }:
		return int64(r.Len())
	}
	return -1
}

// readHead reads whole lines from br up to the bounds above. complete
// reports that it read the whole input. size is the input's size in
// bytes, or -1: the head does not grow by doubling where size tells how
// much to hold: until its first line is read it grows at once to the
// input (up to the bounds), and when that line is not a JSON object or
// array on its own (a JSON document, read whole) to the whole input, and
// readHead returns at once: the lines of a document need no checking
// ([detectHead] finds no JSONL in such a head).
func readHead(br *bufio.Reader, size int64) (head []byte, complete bool, err error) {
	head = make([]byte, 0, min(max(size, 0)+1, int64(bufSize(size))))
	grow := func(n int64) {
		if n > int64(cap(head)) {
			head = slices.Grow(head, int(n)-len(head))
		}
	}
	first := true // no non-blank line read yet
	valid := 0
	for valid < headLines && len(head) < headBytes {
		start := len(head)
		for {
			chunk, err := br.ReadSlice('\n')
			if first && len(head)+len(chunk) > cap(head) {
				grow(min(size+1, headBytes+64<<10))
			}
			head = append(head, chunk...)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if errors.Is(err, io.EOF) {
				return head, true, nil
			}
			if err != nil {
				return nil, false, err
			}
			break
		}
		line := bytes.TrimSpace(head[start:])
		if len(line) == 0 {
			continue
		}
		ok := jsonx.Valid(line)
		if ok {
			valid++
		}
		if first {
			first = false
			if !ok || len(line) <= 2 || (line[0] != '{' && line[0] != '[') {
				grow(size + 1)
				return head, false, nil
			}
		}
	}
	return head, false, nil
}

// firstLook is the size in bytes of the buffer that first reads an
// input of known size: enough for the first line of a JSON document
// ([opensDocument]), which is then read whole into a buffer of its own;
// any other input is read on through a buffer of [bufSize].
const firstLook = 512

// firstBufSize is the size in bytes of the buffer that first reads an
// input of size bytes (-1: unknown).
func firstBufSize(size int64) int {
	if size < 0 {
		return bufSize(size)
	}
	return int(min(size+1, firstLook))
}

// opensDocument reports whether the first non-blank line of the input,
// whole in br's buffer, opens a JSON document: it cannot be a JSON value
// on its own ("{" or "[" alone, or not JSON), so that [readHead] would
// read it as the head of a document, which is read whole.
func opensDocument(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	b = bytes.TrimLeft(b, " \t\r\n")
	line, _, found := bytes.Cut(b, []byte{'\n'})
	line = bytes.TrimSpace(line)
	return found && len(line) > 0 && (len(line) <= 2 || (line[0] != '{' && line[0] != '['))
}

// bufSize is the size in bytes of the buffer that reads an input of size
// bytes (-1: unknown): 64 KiB, or at most 16 KiB for an input smaller
// than headBytes, which [readHead] reads whole, or nearly, into its own
// buffer (the +1 finds the end of an input smaller still without another
// read).
func bufSize(size int64) int {
	if size >= 0 && size < headBytes {
		return int(min(size+1, 16<<10))
	}
	return 64 << 10
}

// readRest returns head followed by the rest of br, read into head's
// spare capacity first.
func readRest(head []byte, br *bufio.Reader) ([]byte, error) {
	for {
		if len(head) == cap(head) {
			head = append(head, 0)[:len(head)]
		}
		n, err := br.Read(head[len(head):cap(head)])
		head = head[:len(head)+n]
		if errors.Is(err, io.EOF) {
			return head, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// detectHead returns the format of a JSONL input from its head (whole
// lines, not the whole input), or "" when the head does not settle it:
// the input is JSONL only when its first non-blank line is a JSON object
// or array on its own (then, with more input after it, it is not one JSON
// document); the format is that of the first line [Detect] classifies,
// among the first 50 lines holding JSON, as [Detect] does on the whole.
func detectHead(head []byte) Format {
	data := bytes.TrimSpace(head)
	first, _, _ := bytes.Cut(data, []byte{'\n'})
	first = bytes.TrimSpace(first)
	if len(first) <= 2 || (first[0] != '{' && first[0] != '[') || !jsonx.Valid(first) {
		return ""
	}
	return classifyLines(data)
}

// linesReaderFor returns the streaming reader of format f, or nil when f
// is read whole.
func linesReaderFor(f Format) func(*lineReader, string) ([]*Trajectory, error) {
	switch f {
	case FormatClaudeCode:
		return readClaudeCodeLines
	case FormatCodex:
		return readCodexLines
	case FormatOpenHands:
		return readOpenHandsLines
	}
	return nil
}

type readerFunc func(data []byte, name string) ([]*Trajectory, error)

func readerFor(f Format) readerFunc {
	switch f {
	case FormatClaudeCode:
		return readClaudeCode
	case FormatCodex:
		return readCodex
	case FormatSWEAgent:
		return readSWEAgent
	case FormatMiniSWEAgent:
		return readMiniSWEAgent
	case FormatOpenHands:
		return readOpenHands
	case FormatOpenAI:
		return readOpenAI
	case FormatCline:
		return readCline
	case FormatGeminiCLI:
		return readGemini
	case FormatCopilotCLI:
		return readCopilot
	case FormatAider:
		return readAider
	case FormatCrush:
		return readCrush
	}
	return nil
}

func parse(data []byte, name string, opts Options) ([]*Trajectory, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &ParseError{File: name, Line: 1, Reason: "empty input"}
	}
	f := opts.Format
	if f == "" {
		var reason string
		if f, reason = detect(data); f == "" {
			return nil, fmt.Errorf("transcript: %s: %s: %w", displayName(name), reason, ErrUnknownFormat)
		}
	}
	read := readerFor(f)
	if read == nil {
		return nil, fmt.Errorf("transcript: format %q: %w", f, ErrUnknownFormat)
	}
	trajs, err := read(data, name)
	if err != nil {
		return nil, forcedReadError(err, data, name, opts.Format)
	}
	if trajs, err = finish(trajs, name, f, opts.Format != ""); err != nil {
		return nil, forcedReadError(err, data, name, opts.Format)
	}
	if err := refuseNoCalls(trajs, data, name, opts.Format); err != nil {
		return nil, err
	}
	return trajs, nil
}

// finish completes what a reader of format f returned: it refuses an
// input no reader accepts fully ([accept]; forced tells whether f was
// forced), and every trajectory gets its file and format, the pairing
// invariant ([settle], orphans counted) and no implausible usage
// ([dropImplausible]).
func finish(trajs []*Trajectory, name string, f Format, forced bool) ([]*Trajectory, error) {
	if len(trajs) == 0 {
		return nil, &ParseError{File: name, Line: 1, Reason: "no " + string(f) + " trajectory found"}
	}
	if err := accept(trajs, name, f, forced); err != nil {
		return nil, err
	}
	for _, t := range trajs {
		t.File = name
		t.Format = f
		t.Messages, t.Orphans = settle(t.Messages)
		for i := range t.Compactions {
			if t.Compactions[i].Replacement != nil {
				t.Compactions[i].Replacement, _ = settle(t.Compactions[i].Replacement)
			}
		}
		dropImplausible(t)
	}
	return trajs, nil
}

func displayName(name string) string {
	if name == "" {
		return "<input>"
	}
	return name
}

// settle enforces the pairing invariant on msgs and fills in tool names: a
// tool result that answers no earlier unanswered call becomes a user text
// message (OpenHands' rule for observations that answer no tool call), and
// a result without a tool name takes the name of the call it answers.
// It returns msgs and the number of such orphan results.
func settle(msgs []chat.Message) ([]chat.Message, int) {
	p := chat.Pair(msgs)
	for _, i := range p.Orphans {
		m := msgs[i]
		text := ""
		if r, ok := m.ToolResult(); ok {
			text = r.Content
		}
		msgs[i] = chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: text}}, ID: m.ID}
	}
	for i, c := range p.CallOf {
		if c < 0 {
			continue
		}
		r, _ := msgs[i].ToolResult()
		if r.ToolName != "" {
			continue
		}
		// Find the call's name: the last call with this id in message c.
		for _, part := range msgs[c].Parts {
			if tc, ok := part.(chat.ToolCall); ok && tc.ID == r.ToolCallID {
				r.ToolName = tc.Name
			}
		}
		for j, part := range msgs[i].Parts {
			if _, ok := part.(chat.ToolResult); ok {
				msgs[i].Parts[j] = r
				break
			}
		}
	}
	return msgs, len(p.Orphans)
}

// Collect expands paths into the transcript files they name, sorted and
// without duplicates: the files of [Scan], without what it skipped.
func Collect(paths []string) ([]string, error) {
	files, _, err := Scan(paths)
	return files, err
}

// Skipped is a file [Scan] found in a folder and left out: Path, and
// Reason, why (a sentence fragment).
type Skipped struct {
	Path   string
	Reason string
}

// Scan expands paths into the transcript files they name, sorted and
// without duplicates, and the files of their folders it left out, with
// why. A file named in paths is taken as is, whatever it holds. A
// folder is walked recursively, skipping hidden folders other than
// .crush and .opencode (crush's and opencode's stores); a file found in
// it is taken when a reader may accept it by its content, whatever its
// name: it opens with "{" or "[" (JSON or JSONL), is a SQLite database
// (crush, opencode: "*-crush.db" as well as crush.db), or an aider
// history (its first line aider's "# aider chat started at" heading or a
// "TO LLM" block: "*.aider.chat.history.md" as well). A file ending in
// .jsonl, .json or .traj is taken whatever it holds (its reader says
// what is wrong). Any other file is skipped, and so is a file that
// cannot be opened. A path that does not exist or cannot be walked does
// not stop the others: the files found are returned with an error for
// each such path, joined (errors.Join), each naming its path.
func Scan(paths []string) ([]string, []Skipped, error) {
	var (
		out     []string
		skipped []Skipped
		errs    []error
	)
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("transcript: collect: %w", err))
			continue
		}
		if !st.IsDir() {
			out = append(out, filepath.Clean(p))
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if q != p && strings.HasPrefix(d.Name(), ".") && !agentDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if isTranscriptName(d.Name()) {
				found = append(found, q)
				return nil
			}
			if why := sniff(q); why != "" {
				skipped = append(skipped, Skipped{Path: q, Reason: why})
				return nil
			}
			found = append(found, q)
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("transcript: collect %s: %w", p, err))
		}
		out = append(out, found...)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	skipped = slices.CompactFunc(skipped, func(a, b Skipped) bool { return a.Path == b.Path })
	skipped = slices.DeleteFunc(skipped, func(s Skipped) bool { _, ok := slices.BinarySearch(out, s.Path); return ok })
	return out, skipped, errors.Join(errs...)
}

// sniffBytes is how much of a file [sniff] reads: enough for a SQLite
// header, an aider heading or a "TO LLM" line.
const sniffBytes = 4 << 10

// sniff returns "" when the file at path may be a transcript by its
// content (see [Scan]), else why not.
func sniff(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "cannot be opened: " + err.Error()
	}
	defer f.Close()
	buf := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "cannot be read: " + err.Error()
	}
	head := buf[:n]
	if isSQLite(head) {
		return ""
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
	switch {
	case len(head) == 0:
		return "empty"
	case head[0] == '{' || head[0] == '[':
		return ""
	case isAider(head):
		return ""
	}
	return "not a transcript by its name or content (not JSON, JSONL, SQLite or an aider history)"
}

// agentDirs are the hidden folders [Scan] walks: where crush and
// opencode keep their SQLite stores.
var agentDirs = map[string]bool{".crush": true, ".opencode": true}

// isTranscriptName reports whether a file named name is taken whatever
// it holds: a .jsonl, .json or .traj file.
func isTranscriptName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".json", ".traj":
		return true
	}
	return false
}
