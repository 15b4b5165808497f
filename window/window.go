package window

import (
	"errors"
	"fmt"
	"slices"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
)

// Errors returned by [Window] methods. Each is returned wrapped with detail;
// test with errors.Is. A method that returns an error has changed nothing.
var (
	// ErrOrphanToolResult reports a tool result that answers no unanswered
	// call in the window (its call was never added, was already answered,
	// or was removed by compaction). Add it as user text instead, as
	// OpenHands does with observations that answer no call.
	ErrOrphanToolResult = errors.New("window: tool result answers no call in the window")
	// ErrInvalidMessage reports a message the window cannot hold: an
	// unknown role, or a tool message without exactly one tool result.
	ErrInvalidMessage = errors.New("window: invalid message")
	// ErrPinned reports an attempt to remove a pinned message: the system
	// prompt, the first user message or the compaction note.
	ErrPinned = errors.New("window: message is pinned")
	// ErrSplitRound reports a removal or replacement that would split a
	// round or change which calls and results it holds.
	ErrSplitRound = errors.New("window: operation would split a round")
	// ErrRange reports an index or range outside the window.
	ErrRange = errors.New("window: index out of range")
)

// OrphanError is the error [Window.Add] returns for a tool result that
// answers no call. It unwraps to [ErrOrphanToolResult].
type OrphanError struct {
	ToolCallID string
	ToolName   string
}

// Error names the call id and tool name of the orphan result.
func (e *OrphanError) Error() string {
	return fmt.Sprintf("window: tool result for call %q (%s) answers no call in the window", e.ToolCallID, e.ToolName)
}

// Unwrap returns [ErrOrphanToolResult].
func (e *OrphanError) Unwrap() error { return ErrOrphanToolResult }

// Options configures a [Window]. The zero value is usable: no budget, the
// exact o200k_base counter and the OpenAI chat-format overhead.
type Options struct {
	// Budget is the most tokens a prompt built from the window may hold.
	// Optional. Zero means no budget: [Window.Ratio] is 0 and
	// [Window.Fits] is always true.
	Budget int
	// Counter counts tokens. Optional. Defaults to the exact o200k_base
	// counter ([token.ForEncoding]).
	Counter token.Counter
	// Overhead is the chat format's per-message overhead. Optional.
	// Defaults to [token.OpenAIOverhead].
	Overhead *token.Overhead
	// Reserved is a fixed number of tokens every prompt holds outside the
	// messages: tool schemas, static context. Optional. Defaults to 0.
	Reserved int
	// Classify reads the tool calls compaction removes, for
	// [Dropped.Files]; each call removed is read once, and never comes
	// back: a cache may forget it ([tooluse.Recent.Take]). Optional.
	// Defaults to [tooluse.Classify].
	Classify func(chat.ToolCall) tooluse.Use
	// Peek reads a tool call that stays in the window, for a strategy
	// that looks at calls before removing them ([Window.Classify]): the
	// call keeps its cached reading for Classify to take when it leaves.
	// Optional. Defaults to Classify when that is set (a plain reader),
	// else [tooluse.Classify].
	Peek func(chat.ToolCall) tooluse.Use
	// Anchored makes [Window.Size], [Window.Ratio] and [Window.Fits] use
	// the usage-anchored size when a provider has reported usage, instead
	// of the local count. Optional. Defaults to false (local count).
	Anchored bool
}

// entry is one message in the window with its cached token count.
type entry struct {
	msg    chat.Message
	tokens int
	seq    uint64 // unique, increasing in Add order; the note gets a fresh one
	call   uint64 // for a tool result: seq of the assistant message it answers
	// answered counts the results this assistant message has received in
	// total (for the round-splitting check).
	answered int
	note     bool
	// boundary: a system message (instructions, wherever they stand) or
	// a message that holds a provider-written compaction or another
	// element compaction may not remove (chat.Message.IsPinned).
	boundary bool
}

// Window is the managed context window of one session. It is not safe for
// concurrent use; the engine serializes work within a session.
type Window struct {
	entries  []entry
	total    int // sum of entries' tokens
	budget   int
	reserved int
	counter  token.Counter
	overhead token.Overhead
	anchored bool
	classify func(chat.ToolCall) tooluse.Use
	peek     func(chat.ToolCall) tooluse.Use

	nextSeq   uint64
	systemSeq uint64 // seq of the system prompt, 0 if none
	firstUser uint64 // seq of the first user message, 0 if none yet
	// noted reports that SetNote inserted the compaction note (pinned:
	// never removed), so that Note need not walk a window without one.
	noted bool
	// open pairs tool results with the unanswered calls: for each call,
	// the seq of the assistant message holding it and the call's id.
	open   tooluse.Pairer[openCall]
	anchor token.Anchor

	dropped Dropped
	// chk is what Check verified last.
	chk checker
	// edits counts the changes other than appends (touch).
	edits uint64
}

// New returns an empty window configured by opts. It returns an error only
// when the default counter cannot be built or opts has a negative budget or
// reserve.
func New(opts Options) (*Window, error) {
	if opts.Budget < 0 || opts.Reserved < 0 {
		return nil, fmt.Errorf("window: negative budget %d or reserve %d", opts.Budget, opts.Reserved)
	}
	w := &Window{
		budget:   opts.Budget,
		reserved: opts.Reserved,
		counter:  opts.Counter,
		overhead: token.OpenAIOverhead,
		anchored: opts.Anchored,
		classify: opts.Classify,
		peek:     opts.Peek,
		nextSeq:  1,
	}
	if w.classify == nil {
		w.classify = tooluse.Classify
	}
	if w.peek == nil {
		w.peek = w.classify
	}
	if opts.Overhead != nil {
		w.overhead = *opts.Overhead
	}
	if w.counter == nil {
		c, err := token.ForEncoding(token.O200kBase)
		if err != nil {
			return nil, err
		}
		w.counter = c
	}
	return w, nil
}

// Count returns the size of m in tokens as this window would count it,
// without adding it.
func (w *Window) Count(m chat.Message) int {
	return token.Message(w.counter, w.overhead, m)
}

// Counter returns the window's token counter.
func (w *Window) Counter() token.Counter { return w.counter }

// Classify reads a tool call of the window without ending its cached
// reading ([Options.Peek]: the Engine's, which keeps each call's
// [tooluse.Use] for its life, so that compaction parses no call again);
// [tooluse.Classify] when none was given.
func (w *Window) Classify(c chat.ToolCall) tooluse.Use { return w.peek(c) }

// Overhead returns the window's chat-format overhead.
func (w *Window) Overhead() token.Overhead { return w.overhead }

// Add appends m to the window and counts it, once. A tool result is paired
// with the most recent unanswered call of its id; if there is none, Add
// returns an [*OrphanError] and adds nothing. An assistant message that
// carries non-zero [chat.Usage] sets the usage anchor: the provider's prompt
// size for the call that produced it. Add is O(size of m).
func (w *Window) Add(m chat.Message) error {
	if !m.Role.Valid() {
		return fmt.Errorf("%w: role %q", ErrInvalidMessage, m.Role)
	}
	e := entry{msg: m}
	if m.Role == chat.RoleTool {
		r, err := onlyResult(m)
		if err != nil {
			return err
		}
		// Peek first: a rejected orphan leaves no trace in the pairer.
		if _, ok := w.open.Peek(r.ToolCallID); !ok {
			return &OrphanError{ToolCallID: r.ToolCallID, ToolName: r.ToolName}
		}
		c, _ := w.open.Result(r.ToolCallID)
		e.call = c.seq
		// The call is usually within the last few messages.
		for i := len(w.entries) - 1; i >= 0; i-- {
			if w.entries[i].seq == e.call {
				w.entries[i].answered++
				break
			}
		}
	}
	e.seq = w.nextSeq
	w.nextSeq++
	e.tokens = token.Message(w.counter, w.overhead, m)
	e.boundary = m.IsPinned() || m.Role == chat.RoleSystem
	if m.Role == chat.RoleAssistant {
		for _, p := range m.Parts {
			if c, ok := p.(chat.ToolCall); ok {
				w.open.Call(c.ID, openCall{e.seq, c.ID})
			}
		}
		if m.Usage != nil && m.Usage.PromptTokens() > 0 {
			w.anchor = token.Anchor{Reported: m.Usage.PromptTokens(), Counted: w.Tokens(), Set: true}
		}
	}
	if len(w.entries) == 0 && m.Role == chat.RoleSystem {
		w.systemSeq = e.seq
	}
	if w.firstUser == 0 && m.Role == chat.RoleUser {
		w.firstUser = e.seq
	}
	w.entries = append(w.entries, e)
	w.total += e.tokens
	return nil
}

// openCall is an unanswered tool call: the seq of its assistant message
// and its id.
type openCall struct {
	seq uint64
	id  string
}

func onlyResult(m chat.Message) (chat.ToolResult, error) {
	var (
		r chat.ToolResult
		n int
	)
	for _, p := range m.Parts {
		if x, ok := p.(chat.ToolResult); ok {
			r = x
			n++
		}
	}
	if n != 1 {
		return r, fmt.Errorf("%w: tool message with %d tool results, want 1", ErrInvalidMessage, n)
	}
	return r, nil
}

// Unanswered returns the tool calls in the window that have no result
// yet, in window order (the order of the calls within each assistant
// message); nil when every call is answered. O(number of open calls).
func (w *Window) Unanswered() []chat.ToolCall {
	if w.open.Len() == 0 {
		return nil
	}
	// open[seq][id] counts the calls of id still open in message seq (a
	// message may repeat an id).
	open := map[uint64]map[string]int{}
	for _, c := range w.open.Open() {
		if open[c.seq] == nil {
			open[c.seq] = map[string]int{}
		}
		open[c.seq][c.id]++
	}
	var out []chat.ToolCall
	for i := range w.entries {
		ids := open[w.entries[i].seq]
		if ids == nil {
			continue
		}
		for _, c := range w.entries[i].msg.ToolCalls() {
			if ids[c.ID] > 0 {
				ids[c.ID]--
				out = append(out, c)
			}
		}
	}
	return out
}

// Len returns the number of messages in the window.
func (w *Window) Len() int { return len(w.entries) }

// At returns the i-th message. The message shares its parts with the
// window: do not modify them; use [Window.Replace].
func (w *Window) At(i int) chat.Message { return w.entries[i].msg }

// TokensAt returns the size in tokens of the i-th message, as counted when
// it was added or last replaced.
func (w *Window) TokensAt(i int) int { return w.entries[i].tokens }

// Seq returns the i-th message's sequence number: unique, increasing in
// [Window.Add] order, kept by [Window.Replace] (the note gets a fresh
// one). A caller that remembers the Seq of a message it added can tell
// later whether the window still holds it and what came after it.
func (w *Window) Seq(i int) uint64 { return w.entries[i].seq }

// FirstUserSeq returns the [Window.Seq] of the first user message added,
// which the window pins, or 0 before there is one.
func (w *Window) FirstUserSeq() uint64 { return w.firstUser }

// IsNote reports whether the i-th message is the compaction note.
func (w *Window) IsNote(i int) bool { return w.entries[i].note }

// Messages returns the window's messages in order, in a new slice. The
// messages share their parts with the window: do not modify them.
func (w *Window) Messages() []chat.Message {
	out := make([]chat.Message, len(w.entries))
	for i := range w.entries {
		out[i] = w.entries[i].msg
	}
	return out
}

// AppendMessages appends the window's messages, in order, to dst and
// returns the extended slice: [Window.Messages] without a slice of its
// own, for a caller that builds a request around them. The messages
// share their parts with the window: do not modify them.
func (w *Window) AppendMessages(dst []chat.Message) []chat.Message {
	dst = slices.Grow(dst, len(w.entries))
	for i := range w.entries {
		dst = append(dst, w.entries[i].msg)
	}
	return dst
}

// Edits counts the changes made to the window's messages other than
// appends ([Window.Replace], [Window.Remove], [Window.SetNote]) since
// [New]. While it stays the same, the messages seen earlier are still the
// window's first messages, unchanged, in the same order: a caller that
// keeps a copy of them (prompt.Buffer) appends only the messages added
// since.
func (w *Window) Edits() uint64 { return w.edits }

// Budget returns the token budget (0: none).
func (w *Window) Budget() int { return w.budget }

// SetBudget changes the token budget. A negative value is treated as 0.
func (w *Window) SetBudget(tokens int) { w.budget = max(tokens, 0) }

// Reserved returns the fixed tokens counted outside the messages.
func (w *Window) Reserved() int { return w.reserved }

// SetReserved changes the fixed tokens counted outside the messages (tool
// schemas, static context). A negative value is treated as 0.
func (w *Window) SetReserved(tokens int) { w.reserved = max(tokens, 0) }

// Tokens returns the locally counted size in tokens of a prompt built from
// the window now: the reserved tokens, every message, and the reply
// priming. O(1).
func (w *Window) Tokens() int {
	return w.reserved + w.total + w.overhead.ReplyPriming
}

// MessageTokens returns the tokens of the window's messages alone, each
// with its framing: [Window.Tokens] without the reserved tokens and the
// reply priming. O(1).
func (w *Window) MessageTokens() int { return w.total }

// Anchored returns the usage-anchored size in tokens: the prompt size the
// provider reported for the last call, plus the local count of what was
// added since (and minus what compaction removed since). It returns
// [Window.Tokens] and false when no provider usage has been seen. The
// anchor survives compaction: what it absorbs (hidden system prompt, tool
// schemas, the provider's own tokenizer) is still there. O(1).
func (w *Window) Anchored() (int, bool) {
	return w.anchor.Size(w.Tokens()), w.anchor.Set
}

// Anchor returns the current usage anchor (zero when none).
func (w *Window) Anchor() token.Anchor { return w.anchor }

// Size returns the size in tokens that the budget is checked against:
// [Window.Anchored] when [Options.Anchored] is set, else [Window.Tokens].
// O(1).
func (w *Window) Size() int {
	if w.anchored {
		n, _ := w.Anchored()
		return n
	}
	return w.Tokens()
}

// Ratio returns [Window.Size] divided by the budget; 0 when there is no
// budget. O(1).
func (w *Window) Ratio() float64 {
	if w.budget <= 0 {
		return 0
	}
	return float64(w.Size()) / float64(w.budget)
}

// Fits reports whether [Window.Size] is within the budget. Always true when
// there is no budget. O(1).
func (w *Window) Fits() bool {
	return w.budget <= 0 || w.Size() <= w.budget
}

// Pinned reports whether the i-th message may not be removed: the system
// prompt and every other system message (instructions an agent puts in
// the conversation, such as Claude Code's environment block and Codex's
// developer messages: never summarized or reordered), the first user
// message, the compaction note, or a message that
// holds a provider-written compaction ([chat.Opaque].Boundary: what it
// replaced is gone on the provider's side, so it is all the model has) or
// another pinned element ([chat.Message.IsPinned]: a tool list).
func (w *Window) Pinned(i int) bool {
	e := &w.entries[i]
	return e.note || e.boundary || (e.seq == w.systemSeq && w.systemSeq != 0) || (e.seq == w.firstUser && w.firstUser != 0)
}

// Dropped returns the tally of everything compaction has removed from the
// window so far. The returned value shares no memory with the window.
func (w *Window) Dropped() Dropped { return w.dropped.clone() }

// SetDropped replaces the window's tally of what compaction removed with a
// copy of d. A session store calls it when it restores a window, so that
// the next compaction note counts what earlier processes removed too.
func (w *Window) SetDropped(d Dropped) { w.dropped = d.clone() }

// SetAnchor replaces the window's usage anchor with a. A session store
// calls it when it restores a window, to restore the anchor the window had
// when it was saved. Later assistant messages with usage replace it, as
// in [Window.Add].
func (w *Window) SetAnchor(a token.Anchor) { w.anchor = a }
