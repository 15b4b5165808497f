package window

import (
	"maps"
	"slices"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
)

// Breakdown is an account of a window's size by what the tokens are, in
// the manner of Claude Code's /context command. Every field is in tokens.
// The categories (every field but Total, Messages and the per-tool maps,
// which detail ToolCalls and ToolResults) sum exactly to Total, which is
// [Window.Tokens]. The zero value is the breakdown of an empty window
// without reserve or reply priming. Breakdown is plain data.
type Breakdown struct {
	// System is the text of system messages (the system prompt).
	System int `json:"system"`
	// User is the text of user messages other than the compaction note.
	User int `json:"user"`
	// Assistant is the text of assistant messages.
	Assistant int `json:"assistant"`
	// Thinking is the model's reasoning kept in assistant messages: its
	// text and encrypted reasoning ([token.EncryptedTokens]).
	Thinking int `json:"thinking"`
	// ToolCalls is the tool calls of assistant messages: each call's name,
	// arguments and the format's per-call overhead
	// ([token.Overhead].PerToolCall). ToolCallsByTool splits it by tool
	// name.
	ToolCalls int `json:"tool_calls"`
	// ToolResults is the content of tool results (and any text in tool
	// messages). ToolResultsByTool splits it by tool name: the result's
	// ToolName, else the name of the call it answers, else "unknown".
	ToolResults int `json:"tool_results"`
	// Summary is the text of the compaction note or summary
	// ([Window.IsNote]).
	Summary int `json:"summary"`
	// Images is the estimated cost of images in any message
	// ([token.ImageTokens]) and of other media (opaque parts marked
	// [chat.Opaque].Media). Other opaque parts count in the category of
	// their message's role (a tool message's in ToolResults).
	Images int `json:"images"`
	// Reserved is the fixed tokens counted outside the messages: tool
	// schemas, static context ([Window.Reserved]).
	Reserved int `json:"reserved"`
	// Overhead is the chat format's framing: each message's per-message
	// overhead, role and participant name, plus the reply priming once
	// ([token.Overhead]).
	Overhead int `json:"overhead"`
	// Total is [Window.Tokens]: the sum of the categories above.
	Total int `json:"total"`
	// Messages is the number of messages in the window.
	Messages int `json:"messages"`
	// ToolCallsByTool maps a tool name to its calls' tokens; nil when the
	// window holds no tool call.
	ToolCallsByTool map[string]int `json:"tool_calls_by_tool,omitempty"`
	// ToolResultsByTool maps a tool name to its results' tokens; nil when
	// the window holds no tool result.
	ToolResultsByTool map[string]int `json:"tool_results_by_tool,omitempty"`
}

// Category is one line of a [Breakdown]: a category's name and its size in
// tokens.
type Category struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// The category names [Breakdown.Categories] returns, in its order.
const (
	CategorySystem      = "system prompt"
	CategoryUser        = "user text"
	CategoryAssistant   = "assistant text"
	CategoryThinking    = "thinking"
	CategoryToolCalls   = "tool calls"
	CategoryToolResults = "tool results"
	CategorySummary     = "summary"
	CategoryImages      = "images"
	CategoryReserved    = "reserved"
	CategoryOverhead    = "overhead"
)

// UnknownTool is the name under which [Breakdown] files tool calls and
// results whose tool name is not known.
const UnknownTool = "unknown"

// Categories returns b's categories in a fixed order (system prompt, user
// text, assistant text, thinking, tool calls, tool results, summary,
// images, reserved, overhead), zero ones included. Their tokens sum to
// b.Total.
func (b Breakdown) Categories() []Category {
	return []Category{
		{CategorySystem, b.System},
		{CategoryUser, b.User},
		{CategoryAssistant, b.Assistant},
		{CategoryThinking, b.Thinking},
		{CategoryToolCalls, b.ToolCalls},
		{CategoryToolResults, b.ToolResults},
		{CategorySummary, b.Summary},
		{CategoryImages, b.Images},
		{CategoryReserved, b.Reserved},
		{CategoryOverhead, b.Overhead},
	}
}

// Sum returns the sum of b's categories in tokens, which equals b.Total
// for a breakdown returned by [Window.Breakdown].
func (b Breakdown) Sum() int {
	n := 0
	for _, c := range b.Categories() {
		n += c.Tokens
	}
	return n
}

// ByTool returns the names in m sorted by tokens, largest first, then by
// name: the order a report lists m's tools in.
func ByTool(m map[string]int) []Category {
	out := make([]Category, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Category{Name: k, Tokens: m[k]})
	}
	slices.SortStableFunc(out, func(a, b Category) int { return b.Tokens - a.Tokens })
	return out
}

// Breakdown returns the window's size by category. Each message's content
// is attributed part by part as [token.Message] counts it, from the
// message's cached count ([Window.TokensAt]): its largest part (by bytes)
// is not counted again but takes what remains of that count once the
// framing and the other parts are counted, so a window restored from its
// counts is not counted a second time (inspect) and the categories sum
// exactly to [Window.Tokens]. It is O(size of the window's small parts);
// it does not change the window.
func (w *Window) Breakdown() Breakdown {
	b := Breakdown{Reserved: w.reserved, Overhead: w.overhead.ReplyPriming, Total: w.Tokens(), Messages: len(w.entries)}
	// Names of the calls results answer: the seq of the calling message
	// and the call id give the name.
	type callKey struct {
		seq uint64
		id  string
	}
	names := map[callKey]string{}
	var sizes []int
	for i := range w.entries {
		e := &w.entries[i]
		m := e.msg
		sizes = w.partSizes(e, sizes[:0])
		texts := sizes[len(m.Parts)] // the texts' size, -1 without text
		for j, p := range m.Parts {
			n := sizes[j]
			switch p := p.(type) {
			case chat.ToolCall:
				b.ToolCalls += n
				addTool(&b.ToolCallsByTool, p.Name, n)
				names[callKey{e.seq, p.ID}] = p.Name
			case chat.ToolResult:
				b.ToolResults += n
				name := p.ToolName
				if name == "" {
					name = names[callKey{e.call, p.ToolCallID}]
				}
				addTool(&b.ToolResultsByTool, name, n)
			case chat.Thinking:
				b.Thinking += n
			case chat.Image:
				b.Images += n
			case chat.Opaque:
				switch {
				case p.Media:
					b.Images += n
				case m.Role == chat.RoleTool:
					b.ToolResults += n
					name := ""
					if r, ok := m.ToolResult(); ok {
						name = r.ToolName
						if name == "" {
							name = names[callKey{e.call, r.ToolCallID}]
						}
					}
					addTool(&b.ToolResultsByTool, name, n)
				case m.Role == chat.RoleSystem:
					b.System += n
				case m.Role == chat.RoleUser:
					b.User += n
				default:
					b.Assistant += n
				}
			}
		}
		if texts >= 0 {
			n := texts
			switch {
			case e.note:
				b.Summary += n
			case m.Role == chat.RoleSystem:
				b.System += n
			case m.Role == chat.RoleUser:
				b.User += n
			case m.Role == chat.RoleAssistant:
				b.Assistant += n
			default: // text in a tool message belongs to its result
				b.ToolResults += n
				name := ""
				if r, ok := m.ToolResult(); ok {
					name = r.ToolName
					if name == "" {
						name = names[callKey{e.call, r.ToolCallID}]
					}
				}
				addTool(&b.ToolResultsByTool, name, n)
			}
		}
		content := texts
		if texts < 0 {
			content = 0
		}
		for _, n := range sizes[:len(m.Parts)] {
			content += n
		}
		b.Overhead += e.tokens - content
	}
	return b
}

// partSizes appends to out the size in tokens of each part of e's message
// as [token.Message] counts it (0 for a text part), then that of its
// texts together (-1 when it has none). The largest of them by bytes is
// not counted: it is what remains of e's cached count after the framing
// (the per-message overhead, the role and the name) and the other parts;
// should that be negative (a count that does not match the message), it
// is counted.
func (w *Window) partSizes(e *entry, out []int) []int {
	c, m := w.counter, e.msg
	big, bigLen := -1, -1 // index of the largest part, len(m.Parts) for the texts
	textLen, texts := 0, false
	for j, p := range m.Parts {
		l := -1
		switch p := p.(type) {
		case chat.Text:
			texts = true
			textLen += len(p.Text)
		case chat.ToolCall:
			l = len(p.Name) + len(p.Arguments)
		case chat.ToolResult:
			l = len(p.Content)
		case chat.Thinking:
			l = len(p.Text)
		case chat.Opaque:
			l = len(p.Text)
		}
		if l > bigLen {
			big, bigLen = j, l
		}
	}
	if texts && textLen > bigLen {
		big = len(m.Parts)
	}
	size := func(j int) int {
		if j == len(m.Parts) {
			if !texts {
				return -1
			}
			return c.Count(m.Text())
		}
		switch p := m.Parts[j].(type) {
		case chat.ToolCall:
			return c.Count(p.Name) + c.Count(string(p.Arguments)) + w.overhead.PerToolCall
		case chat.ToolResult:
			return c.Count(p.Content)
		case chat.Thinking:
			return c.Count(p.Text) + token.EncryptedTokens(len(p.Encrypted))
		case chat.Image:
			return token.ImageTokens(p.Width, p.Height)
		case chat.Opaque:
			return c.Count(p.Text) + p.Estimate()
		}
		return 0
	}
	rest := e.tokens - w.overhead.PerMessage - token.RoleTokens
	if m.Name != "" {
		rest -= c.Count(m.Name) + w.overhead.PerName
	}
	for j := 0; j <= len(m.Parts); j++ {
		n := 0
		if j != big {
			n = size(j)
		}
		out = append(out, n)
		if n > 0 {
			rest -= n
		}
	}
	if big >= 0 {
		if rest < 0 {
			rest = size(big)
		}
		out[big] = rest
	}
	return out
}

func addTool(m *map[string]int, name string, n int) {
	if name == "" {
		name = UnknownTool
	}
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[name] += n
}
