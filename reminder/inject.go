package reminder

import (
	"slices"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// Render formats rs as seed 004 sends them: each reminder as
// "<system-reminder>\n" + Text + "\n</system-reminder>\n", concatenated in
// order. It returns "" for none.
func Render(rs []Reminder) string {
	if len(rs) == 0 {
		return ""
	}
	const open, closing = BlockOpen, BlockClose
	n := 0
	for _, r := range rs {
		n += len(open) + len(r.Text) + len(closing)
	}
	var b strings.Builder
	b.Grow(n)
	for _, r := range rs {
		b.WriteString(open)
		b.WriteString(r.Text)
		b.WriteString(closing)
	}
	return b.String()
}

// BlockOpen and BlockClose wrap each reminder's text in [Render]: every
// block is BlockOpen + text + BlockClose.
const (
	BlockOpen  = "<system-reminder>\n"
	BlockClose = "\n</system-reminder>\n"
)

// Inject returns the messages of an outgoing request with rs rendered
// ([Render]) into the user's turn, and whether it placed them (seed 004:
// reminders are prepended to the last user message of the request only,
// never stored as user text):
//
//   - last message RoleUser: the message is cloned and a [chat.Text] part
//     with the rendered reminders is put before its parts;
//   - last message RoleTool (a tool loop, the results are the user's
//     turn): a new RoleUser message holding the rendered reminders is
//     appended; the Anthropic conversion merges it into the tool-result
//     user turn, and OpenAI accepts a user message after tool messages;
//   - otherwise (no messages, or a system or assistant message last), and
//     when rs is empty: msgs itself and false.
//
// msgs and its messages and parts are never modified: the result is a new
// slice whose other messages are shallow copies sharing their parts with
// msgs, so callers must not modify those parts in place. Safe for
// concurrent use on distinct or read-only inputs.
func Inject(msgs []chat.Message, rs []Reminder) ([]chat.Message, bool) {
	if len(rs) == 0 || len(msgs) == 0 {
		return msgs, false
	}
	switch msgs[len(msgs)-1].Role {
	case chat.RoleUser:
		return InjectInPlace(slices.Clone(msgs), rs)
	case chat.RoleTool:
		return InjectInPlace(slices.Clip(msgs), rs) // the append copies
	}
	return msgs, false
}

// InjectInPlace is [Inject] for a caller that owns msgs (the slice, not
// its messages' parts): the last message is replaced in msgs itself by
// its clone with the reminders, or the new user message is appended to
// msgs (in its spare capacity, if any). The parts of msgs's messages are
// never modified.
func InjectInPlace(msgs []chat.Message, rs []Reminder) ([]chat.Message, bool) {
	if len(rs) == 0 || len(msgs) == 0 {
		return msgs, false
	}
	last := msgs[len(msgs)-1]
	switch last.Role {
	case chat.RoleUser:
		c := last.Clone()
		parts := make([]chat.Part, 0, len(c.Parts)+1)
		parts = append(parts, chat.Text{Text: Render(rs)})
		c.Parts = append(parts, c.Parts...)
		msgs[len(msgs)-1] = c
		return msgs, true
	case chat.RoleTool:
		return append(msgs, chat.NewText(chat.RoleUser, Render(rs))), true
	}
	return msgs, false
}
