package tooluse

import "slices"

// Pairer pairs tool results with tool calls by id, as a window does:
// a result answers the most recent unanswered call of its id, because
// ids are not unique in real transcripts (FORMATS.md: a SWE-agent
// demonstration reuses one id for four calls). V is what the caller keeps
// per call: a message index (chat.Pair), a window sequence number
// (window.Add), an event index (compact's facts).
//
// The zero Pairer is ready to use. A Pairer is not safe for concurrent
// use. Each operation is O(1) but [Pairer.Open], O(open calls), and
// [Pairer.Forget], O(open calls of the id).
type Pairer[V any] struct {
	open    map[string][]pending[V]
	seq     uint64
	count   int
	orphans []string
}

type pending[V any] struct {
	seq uint64
	v   V
}

// Call records an unanswered call with id and the caller's value for it.
func (p *Pairer[V]) Call(id string, v V) {
	if p.open == nil {
		p.open = map[string][]pending[V]{}
	}
	p.open[id] = append(p.open[id], pending[V]{p.seq, v})
	p.seq++
	p.count++
}

// Result pairs a result with the most recent unanswered call of id and
// returns that call's value; ok is false when no call of id is open (an
// orphan, recorded in [Pairer.Orphans]).
func (p *Pairer[V]) Result(id string) (v V, ok bool) {
	stack := p.open[id]
	if len(stack) == 0 {
		p.orphans = append(p.orphans, id)
		return v, false
	}
	last := stack[len(stack)-1]
	if len(stack) == 1 {
		delete(p.open, id)
	} else {
		p.open[id] = stack[:len(stack)-1]
	}
	p.count--
	return last.v, true
}

// Peek returns the value of the call a result of id would answer,
// without answering it.
func (p *Pairer[V]) Peek(id string) (v V, ok bool) {
	stack := p.open[id]
	if len(stack) == 0 {
		return v, false
	}
	return stack[len(stack)-1].v, true
}

// Forget drops the most recent unanswered call of id whose value
// satisfies match (the window forgets the calls of the messages
// compaction removes) and reports whether there was one.
func (p *Pairer[V]) Forget(id string, match func(V) bool) bool {
	stack := p.open[id]
	for k := len(stack) - 1; k >= 0; k-- {
		if match(stack[k].v) {
			stack = slices.Delete(stack, k, k+1)
			if len(stack) == 0 {
				delete(p.open, id)
			} else {
				p.open[id] = stack
			}
			p.count--
			return true
		}
	}
	return false
}

// Len returns the number of unanswered calls.
func (p *Pairer[V]) Len() int { return p.count }

// Open returns the values of the unanswered calls in the order they
// were recorded; nil when every call is answered.
func (p *Pairer[V]) Open() []V {
	if p.count == 0 {
		return nil
	}
	all := make([]pending[V], 0, p.count)
	for _, s := range p.open {
		all = append(all, s...)
	}
	slices.SortFunc(all, func(a, b pending[V]) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	out := make([]V, len(all))
	for i, x := range all {
		out[i] = x.v
	}
	return out
}

// Orphans returns the ids of the results that answered no call, in
// order.
func (p *Pairer[V]) Orphans() []string { return slices.Clone(p.orphans) }
