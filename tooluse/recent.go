package tooluse

import (
	"sync"

	"github.com/agentctx/agentctx/chat"
)

// recentSize is how many classifications a [Recent] keeps.
const recentSize = 16

// Recent is [Classify] that remembers its last few results, for callers
// that read the same call more than once: the Engine's tracker and
// working memory each read every tool call when its result arrives. A
// call is the same when its name and its arguments, byte for byte, are
// (Classify reads nothing else). The zero value is ready. Safe for
// concurrent use.
type Recent struct {
	mu   sync.Mutex
	ring [recentSize]recentEntry
	next int
}

type recentEntry struct {
	ok         bool
	name, args string
	use        Use
}

// Classify returns [Classify](call), remembered. The Use returned shares
// its slices with the other callers given the same call: read them, do
// not change them.
func (r *Recent) Classify(call chat.ToolCall) Use {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.ring {
		e := &r.ring[i]
		if e.ok && e.name == call.Name && e.args == string(call.Arguments) {
			return e.use
		}
	}
	u := Classify(call)
	r.ring[r.next] = recentEntry{ok: true, name: call.Name, args: string(call.Arguments), use: u}
	r.next = (r.next + 1) % recentSize
	return u
}
