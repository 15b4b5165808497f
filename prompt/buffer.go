package prompt

import (
	"slices"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// Buffer keeps the messages of the requests [Assemble] builds for one
// window, so that the next request copies only the messages added since
// the last one (and puts back the one the tail was injected into) instead
// of the whole history: O(messages added) per request, not O(messages).
// A compaction (a change to the window other than an append,
// [window.Window.Edits]) or a new static prompt or rehydration block
// starts a new buffer.
//
// A request assembled with a Buffer shares its Messages' memory with it:
// the next Assemble with the same Buffer may write over the request's
// last message and the slots after it (the tail's message, the messages
// added since), and leaves every message before them as it is
// ([Request.Kept] says how many). Clone the slice (slices.Clone) to keep
// a request's messages past the next one; do not modify them. The zero
// value is ready to use; a Buffer is not safe for concurrent use.
type Buffer struct {
	msgs  []chat.Message // the head's system messages and the window's
	w     *window.Window
	edits uint64
	head  []string // the texts of the system messages at the front
	dirty int      // the index of msgs the tail was injected into, -1 for none
}

// sync returns the head's system messages (their texts) followed by w's
// messages, in b's memory with room after them, and how many of its
// leading slots were left as they were.
func (b *Buffer) sync(w *window.Window, head []string) (msgs []chat.Message, kept int) {
	if b.msgs == nil || b.w != w || b.edits != w.Edits() || !slices.Equal(b.head, head) || len(b.msgs)-len(head) > w.Len() {
		// Room for the tail's message and for the next requests' growth
		// without a new array each time.
		n := len(head) + w.Len()
		msgs = make([]chat.Message, 0, n+n/4+8)
		for _, t := range head {
			msgs = append(msgs, chat.NewText(chat.RoleSystem, t))
		}
		msgs = w.AppendMessages(msgs)
		*b = Buffer{msgs: msgs, w: w, edits: w.Edits(), head: append(b.head[:0:0], head...), dirty: -1}
		return msgs, 0
	}
	base := len(head)
	kept = len(b.msgs)
	if b.dirty >= 0 {
		b.msgs[b.dirty] = w.At(b.dirty - base)
		kept = b.dirty
		b.dirty = -1
	}
	old := &b.msgs[:1][0]
	for i := len(b.msgs) - base; i < w.Len(); i++ {
		b.msgs = append(b.msgs, w.At(i))
	}
	if len(b.msgs) > 0 && &b.msgs[0] != old {
		kept = 0 // a new array
	}
	return b.msgs, kept
}

// injected records the request's messages after the tail went in: out
// is msgs with its last message replaced or a message appended.
func (b *Buffer) injected(msgs, out []chat.Message) {
	if len(out) == len(msgs) {
		b.dirty = len(msgs) - 1
		return
	}
	// An appended message may have moved the array: keep the new one.
	b.msgs = out[:len(msgs)]
}
