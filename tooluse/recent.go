package tooluse

import (
	"hash/maphash"
	"sync"

	"github.com/agentctx/agentctx/chat"
)

// recentSize is how many classifications a [Recent] keeps.
const recentSize = 16

// Recent is [Classify] that remembers its results, for callers that read
// the same call more than once: the Engine's limiter, tracker and working
// memory read every tool call when its result arrives, and compaction's
// tally ([Recent.Take]) when the call leaves the context window. A call
// with an id is remembered by its id until [Recent.Take] or
// [Recent.Forget] (so for as long as it stays in the window), and the last
// few calls in a ring (for readers that give a call without its id);
// either way a call is the same when its
// name and its arguments, byte for byte, are (Classify reads nothing
// else). The zero value is ready. Safe for concurrent use.
type Recent struct {
	mu   sync.Mutex
	ring [recentSize]recentEntry
	next int
	byID map[string]recentEntry
}

type recentEntry struct {
	ok         bool
	name, args string
	sum        uint64 // argsSum of args: the ring compares it first
	use        Use
}

// recentSeed seeds argsSum.
var recentSeed = maphash.MakeSeed()

// argsSum hashes a call's arguments for the ring's comparisons: calls of
// one tool often have arguments of one length and a long common start.
func argsSum(args []byte) uint64 { return maphash.Bytes(recentSeed, args) }

// Classify returns [Classify](call), remembered. The Use returned shares
// its slices with the other callers given the same call: read them, do
// not change them.
func (r *Recent) Classify(call chat.ToolCall) Use {
	r.mu.Lock()
	defer r.mu.Unlock()
	sum := argsSum(call.Arguments)
	if u, ok := r.find(call, sum); ok {
		return u
	}
	u := Classify(call)
	e := recentEntry{ok: true, name: call.Name, args: string(call.Arguments), sum: sum, use: u}
	if call.ID != "" {
		if r.byID == nil {
			r.byID = map[string]recentEntry{}
		}
		r.byID[call.ID] = e
	}
	// In the ring too: a reader may give the same call without its id.
	r.ring[r.next] = e
	r.next = (r.next + 1) % recentSize
	return u
}

// Take returns [Classify](call), remembered or read now, and forgets the
// call: for a reader that is the call's last (compaction removing it from
// the window for good).
func (r *Recent) Take(call chat.ToolCall) Use {
	r.mu.Lock()
	u, ok := r.find(call, argsSum(call.Arguments))
	if call.ID != "" {
		delete(r.byID, call.ID)
	}
	r.mu.Unlock()
	if ok {
		return u
	}
	return Classify(call)
}

// Forget forgets the call of id, if remembered.
func (r *Recent) Forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byID, id)
}

// Len returns how many calls are remembered by id.
func (r *Recent) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byID)
}

// find returns the remembered reading of call, whose arguments hash to
// sum (argsSum), with r.mu held.
func (r *Recent) find(call chat.ToolCall, sum uint64) (Use, bool) {
	if call.ID != "" {
		if e, ok := r.byID[call.ID]; ok && e.name == call.Name && e.args == string(call.Arguments) {
			return e.use, true
		}
	}
	for i := range r.ring {
		e := &r.ring[i]
		if e.ok && e.sum == sum && e.name == call.Name && e.args == string(call.Arguments) {
			return e.use, true
		}
	}
	return Use{}, false
}
