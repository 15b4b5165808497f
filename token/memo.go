package token

// Memo remembers the counts of the texts a caller counted in its current
// round of work (a request, a render) and the round before, for a caller
// that counts mostly the same texts round after round: a text counted in
// either is not counted again. Unlike [Cache] it keeps texts of any
// length, takes no lock, and holds at most two rounds' texts, so it needs
// no size. The zero value is ready; not safe for concurrent use (its
// owner's lock guards it).
type Memo struct {
	cur, prev map[string]int
}

// Count returns c.Count(text), remembered for this round and the next.
// The memo assumes one counter: pass the same c every time.
func (m *Memo) Count(c Counter, text string) int {
	if n, ok := m.cur[text]; ok {
		return n
	}
	n, ok := m.prev[text]
	if !ok {
		n = c.Count(text)
	}
	if m.cur == nil {
		m.cur = map[string]int{}
	}
	m.cur[text] = n
	return n
}

// Turn ends a round: the texts it counted are remembered through the
// next round, those of the round before are forgotten.
func (m *Memo) Turn() {
	m.prev, m.cur = m.cur, m.prev
	if len(m.cur) > memoReuse {
		// clear costs the map's capacity, which never shrinks: a round
		// that counted many texts (a session's history added at once)
		// would make every other Turn after it that slow. The next
		// round is sized as the one that ended (m.prev now), so that it
		// does not grow through every size up to it.
		m.cur = make(map[string]int, len(m.prev))
		return
	}
	clear(m.cur)
}

// memoReuse is the most texts a round's map may hold to be cleared and
// reused by the next round rather than dropped.
const memoReuse = 1024

// CountLines returns c.Count(text) as the sum of the counts of its lines
// from one clean line start to the next (a line that begins with a
// character other than whitespace or "/", where an exact tiktoken counter
// splits anyway: [JoinCount]), each remembered as Count remembers texts:
// a text that grew or changed in a few lines since the last round is
// counted only there. Other counters count the whole text.
func (m *Memo) CountLines(c Counter, text string) int {
	if !Joinable(c) {
		return m.Count(c, text)
	}
	n, last := 0, 0
	forCleanLineStarts(text, func(i int) {
		n += m.Count(c, text[last:i])
		last = i
	})
	return n + m.Count(c, text[last:])
}
