package prompt

import (
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
)

// Kinds of the tail sections that are not generated reminders: the
// tracker's section and the working memory's context travel in the same
// <system-reminder> blocks, but are rebuilt for every request and never
// count against the reminder caps.
const (
	KindTracker       = "tracker"
	KindWorkingMemory = "working_memory"
)

// Input is what [Assemble] builds a request from.
type Input struct {
	// Static is the session's static system prompt ([BuildStatic]).
	Static Static
	// Rehydration is the text a summarizing compaction left to re-include
	// (recent files, todo and plan state), placed as a second system
	// message after the static prompt. Optional.
	Rehydration string
	// Window holds the conversation. Required. Assemble reads its
	// messages and their cached counts; it does not change it.
	Window *window.Window
	// Tracker is the runtime state tracker's section and WorkingMemory
	// the working memory's context, both optional; they go first in the
	// tail.
	Tracker, WorkingMemory string
	// Reminders are the generated system reminders for this request, in
	// order. Optional.
	Reminders []reminder.Reminder
	// Tools are the tool schemas, and ToolTokens their size in tokens
	// (token.Tools), counted once by the caller.
	Tools      []chat.ToolDef
	ToolTokens int
	// Counter counts the tail's parts for the token table. Optional.
	// Defaults to the window's counter; a caching counter (token.Cache)
	// over the same encoding saves recounting the parts that did not
	// change since the last request.
	Counter token.Counter
	// BlockTokens returns the size in tokens of a tail part's block,
	// reminder.Render of it alone, for a caller that knows it without
	// rendering it (the Engine joins the counts it made of the working
	// memory and the tracker's section). Optional. Defaults to counting
	// the rendered block with Counter.
	BlockTokens func(reminder.Reminder) int
	// Buffer keeps the messages between requests of the same window, so
	// that a request copies only the messages added since the last one.
	// Optional: without it every request has messages of its own. See
	// [Buffer] for how long a request's messages stay as they are.
	Buffer *Buffer
	// Model, MaxTokens and CacheKey are copied to the provider request.
	Model     string
	MaxTokens int
	CacheKey  string
}

// Request is an assembled model request and its accounting.
type Request struct {
	// Request is the provider-neutral request: the messages to send, the
	// tools and the cache breakpoints (CacheAfter).
	provider.Request
	// Rows is the token table, part by part; the rows sum to Tokens.
	Rows []Row
	// Tokens is the prompt's size in tokens: every message with its
	// framing, the tool schemas and the reply priming.
	Tokens int
	// Budget is the window's token budget (0: none), and Over how many
	// tokens the prompt exceeds it by (0 when it fits).
	Budget, Over int
	// CachedTokens is the size of the prefix up to the last cache
	// breakpoint, in tokens: what a warm provider cache can serve.
	CachedTokens int
	// Tail is the tail sections and reminders injected, in order.
	Tail []reminder.Reminder
	// Kept is how many leading messages this request shares with the
	// request assembled before it with the same [Buffer]: the same
	// messages in the same memory, not written since. 0 without a
	// Buffer, for the first request and after a compaction.
	Kept int
}

// Assemble builds the request: the static system prompt, the rehydration
// block, the window's messages and the tail injected into the last user
// turn (reminder.Inject). It changes nothing it is given: the window and
// its messages are left as they are, so the stored history never holds
// the tail. Cache breakpoints go after the static prompt, after the
// rehydration block and on the last message before the tail (or the last
// message when there is no tail). O(messages) for the slice, O(messages
// added since the last request) with a [Buffer]; the window's
// messages are not counted again, nor is the tail (its blocks' counts are
// Input.BlockTokens'), nor, for an exact tiktoken counter, the text of a
// user message the tail is injected into: only the tail's last line is.
func Assemble(in Input) *Request {
	w := in.Window
	counter := w.Counter()
	ov := w.Overhead()
	req := &Request{Budget: w.Budget()}
	req.Model, req.MaxTokens, req.CacheKey, req.Tools = in.Model, in.MaxTokens, in.CacheKey, in.Tools

	// tc counts the texts rebuilt for every request (a token.Cache in the
	// Engine): the static prompt, the rehydration block and the tail.
	tc := in.Counter
	if tc == nil {
		tc = counter
	}
	// The system messages: the static prompt and the rehydration block.
	var head []string
	if in.Static.Text != "" {
		head = append(head, in.Static.Text)
	}
	if in.Rehydration != "" {
		head = append(head, in.Rehydration)
	}
	base := len(head)
	history := w.Len()
	var msgs []chat.Message
	if in.Buffer != nil {
		msgs, req.Kept = in.Buffer.sync(w, head)
	} else {
		msgs = make([]chat.Message, 0, base+history+1) // room for the tail's message
		for _, t := range head {
			msgs = append(msgs, chat.NewText(chat.RoleSystem, t))
		}
		msgs = w.AppendMessages(msgs)
	}
	// sizes are the sizes of the system messages, in tokens, for the
	// cached prefix.
	var sizes []int
	framing := ov.ReplyPriming
	var cached int
	k := 0
	if in.Static.Text != "" {
		req.Rows = append(req.Rows, in.Static.Rows...)
		n := token.Message(tc, ov, msgs[k])
		sizes = append(sizes, n)
		framing += n - sumRows(in.Static.Rows)
		req.CacheAfter = append(req.CacheAfter, k)
		k++
	}
	if in.ToolTokens > 0 {
		req.Rows = append(req.Rows, Row{Name: PartTools, Tokens: in.ToolTokens})
	}
	if in.Rehydration != "" {
		content := tc.Count(in.Rehydration)
		n := ov.PerMessage + token.RoleTokens + content // token.Message of one text
		sizes = append(sizes, n)
		req.Rows = append(req.Rows, Row{Name: PartRehydration, Tokens: content})
		framing += n - content
		req.CacheAfter = append(req.CacheAfter, k)
	}
	msgTokens := w.MessageTokens()
	req.Rows = append(req.Rows, Row{Name: PartMessages, Tokens: msgTokens})

	var tail []reminder.Reminder
	if in.Tracker != "" {
		tail = append(tail, reminder.Reminder{Kind: KindTracker, Text: in.Tracker})
	}
	if in.WorkingMemory != "" {
		tail = append(tail, reminder.Reminder{Kind: KindWorkingMemory, Text: in.WorkingMemory})
	}
	tail = append(tail, in.Reminders...)
	last := len(msgs) - 1
	replaced := -1 // the message the tail was injected into
	var lastMsg chat.Message
	if last >= 0 {
		lastMsg = msgs[last]
	}
	if out, ok := reminder.InjectInPlace(msgs, tail); ok { // msgs is this request's own, or the Buffer's
		if in.Buffer != nil {
			in.Buffer.injected(msgs, out)
		}
		req.Tail = tail
		rows := tailRows(tail, blockCounter(in, tc))
		// The tail either replaced the last message or appended one.
		delta := 0
		if len(out) == len(msgs) {
			replaced = last
			req.Kept = min(req.Kept, last) // written by the tail
			delta = injectedDelta(tc, ov, out[last], lastMsg, w.TokensAt(last-base), sumRows(rows))
			if last > base {
				req.CacheAfter = append(req.CacheAfter, last-1)
			}
		} else {
			// A message of the rendered tail alone: its blocks end in
			// ">\n" and begin with "<", seams where tiktoken's
			// pre-tokenizer always splits, so its count is the sum of
			// the blocks' counts (TestTailBlocksAdd), which tailRows
			// has made; the text is not counted again.
			delta = ov.PerMessage + token.RoleTokens + sumRows(rows)
			req.CacheAfter = append(req.CacheAfter, last)
		}
		framing += delta - sumRows(rows)
		req.Rows = append(req.Rows, rows...)
		msgs = out
	} else if history > 0 {
		req.CacheAfter = append(req.CacheAfter, last)
	}
	req.Rows = append(req.Rows, Row{Name: PartFraming, Tokens: framing})
	req.Messages = msgs[:len(msgs):len(msgs)] // an append by the caller does not write into the Buffer

	total := sumRows(req.Rows)
	req.Tokens = total
	if req.Budget > 0 && total > req.Budget {
		req.Over = total - req.Budget
	}
	// What a warm cache serves: everything up to the last breakpoint.
	if n := len(req.CacheAfter); n > 0 {
		end := min(req.CacheAfter[n-1], len(msgs)-1)
		cached = in.ToolTokens
		// Every message's size is known: the system messages' from
		// above, the history's from the window. The breakpoint is at or
		// next to the end of the history, so the history's part is its
		// total less the few messages after the breakpoint: O(1), not
		// O(messages), per request.
		for i := 0; i <= end && i < base; i++ {
			cached += sizes[i]
		}
		if end >= base {
			hist := min(end-base, history-1) // the last history message cached
			cached += msgTokens
			for j := history - 1; j > hist; j-- {
				cached -= w.TokensAt(j)
			}
			if replaced >= base && replaced <= end {
				cached += token.Message(counter, ov, msgs[replaced]) - w.TokensAt(replaced-base)
			}
			for i := base + history; i <= end; i++ { // the tail's own message
				cached += token.Message(counter, ov, msgs[i])
			}
		}
		for i := range req.Rows {
			switch req.Rows[i].Name {
			case PartTracker, PartWorkingMemory, PartReminders, PartFraming:
			case PartMessages:
				req.Rows[i].Cached = end >= base
			default:
				req.Rows[i].Cached = true
			}
		}
	}
	req.CachedTokens = cached
	return req
}

// injectedDelta returns the tokens the tail adds to message orig, of
// size n, by making it injected, whose first part is the rendered tail,
// of size tail (the sum of its blocks' counts, as tailRows made them).
// For an exact tiktoken counter and a message of text parts alone,
// injected's text is the tail, a newline and orig's text, so the tail
// and the newline are counted from the tail's last line, and orig's text
// is not counted again (token.AppendCount, token.JoinCount: orig's text
// is n less the framing). Otherwise injected is counted whole.
func injectedDelta(c token.Counter, ov token.Overhead, injected, orig chat.Message, n, tail int) int {
	if !token.Joinable(c) || orig.Name != "" || len(orig.Parts) == 0 {
		return token.Message(c, ov, injected) - n
	}
	for _, p := range orig.Parts {
		if _, ok := p.(chat.Text); !ok {
			return token.Message(c, ov, injected) - n
		}
	}
	r, ok := injected.Parts[0].(chat.Text)
	if !ok {
		return token.Message(c, ov, injected) - n
	}
	text := orig.Text()
	frame := ov.PerMessage + token.RoleTokens
	head := token.AppendCount(c, r.Text, tail, "\n") // the tail and the newline before orig's text
	return frame + token.JoinCount(c, r.Text+"\n", head, text, n-frame) - n
}

// blockCounter returns in.BlockTokens, else a function counting the
// rendered block with tc.
func blockCounter(in Input, tc token.Counter) func(reminder.Reminder) int {
	if in.BlockTokens != nil {
		return in.BlockTokens
	}
	return func(r reminder.Reminder) int { return tc.Count(reminder.Render([]reminder.Reminder{r})) }
}

// tailRows counts the tail's parts, each block with count: the tracker,
// the working memory and the reminders together.
func tailRows(tail []reminder.Reminder, count func(reminder.Reminder) int) []Row {
	var rows []Row
	rem := 0
	for _, r := range tail {
		n := count(r)
		switch r.Kind {
		case KindTracker:
			rows = append(rows, Row{Name: PartTracker, Tokens: n})
		case KindWorkingMemory:
			rows = append(rows, Row{Name: PartWorkingMemory, Tokens: n})
		default:
			rem += n
		}
	}
	if rem > 0 {
		rows = append(rows, Row{Name: PartReminders, Tokens: rem})
	}
	return rows
}

func sumRows(rows []Row) int {
	n := 0
	for _, r := range rows {
		n += r.Tokens
	}
	return n
}
