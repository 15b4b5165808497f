package token

import (
	"runtime"
	"sync"
)

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
// counted only there. Other counters count the whole text. When the lines
// not remembered come to [parallelMin] bytes or more and GOMAXPROCS is 2
// or more, they are counted on several goroutines (a large tool result
// counted in a fraction of the time; c is safe for concurrent use, as
// every [Counter] is), with the same result and the same lines
// remembered.
func (m *Memo) CountLines(c Counter, text string) int {
	if !Joinable(c) {
		return m.Count(c, text)
	}
	if procs := runtime.GOMAXPROCS(0); procs > 1 && len(text) >= parallelMin {
		return m.countLinesParallel(c, text, procs)
	}
	n, last := 0, 0
	forCleanLineStarts(text, func(i int) {
		n += m.Count(c, text[last:i])
		last = i
	})
	return n + m.Count(c, text[last:])
}

// parallelMin is the text, in bytes, that CountLines counts on more than
// one goroutine when it is not remembered, and parallelShare the least
// each goroutine then counts: below them a goroutine costs more than it
// saves.
const (
	parallelMin   = 64 << 10
	parallelShare = 32 << 10
)

// sharesHook, when set (tests), is called after countLinesParallel
// counted lines on several goroutines, with the lines and bytes counted.
var sharesHook func(lines, bytes int)

// line is a line countLinesParallel counts: its text and its count.
type line struct {
	text string
	n    int
}

// countShares counts each line of todo (their texts todoBytes bytes in
// all) into its n, on up to procs goroutines when there is enough to
// share ([parallelMin], [parallelShare]), and returns the first panic a
// count raised (the other goroutines done), nil when none did.
func countShares(c Counter, todo []line, procs, todoBytes int) (failed any) {
	var mu sync.Mutex
	count := func(ls []line) {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				if failed == nil {
					failed = r
				}
				mu.Unlock()
			}
		}()
		for i := range ls {
			ls[i].n = c.Count(ls[i].text)
		}
	}
	workers := min(procs, todoBytes/parallelShare)
	if workers < 2 || todoBytes < parallelMin {
		count(todo)
		return failed
	}
	var wg sync.WaitGroup
	share, from, got := todoBytes/workers, 0, 0
	for k := range todo {
		got += len(todo[k].text)
		if got >= share && k+1 < len(todo) && workers > 1 {
			ls := todo[from : k+1]
			wg.Go(func() { count(ls) })
			from, got = k+1, 0
			workers--
		}
	}
	count(todo[from:]) // the last share, on this goroutine
	wg.Wait()
	if sharesHook != nil {
		sharesHook(len(todo), todoBytes)
	}
	return failed
}

// countLinesParallel is CountLines for a large text: the lines
// remembered are taken from the memo, the others (each distinct line
// once) counted on up to procs goroutines, in contiguous shares of about
// equal bytes, then remembered. It allocates only for the lines it
// counts: a text remembered whole costs what the serial path does.
func (m *Memo) countLinesParallel(c Counter, text string, procs int) int {
	var (
		n         int
		todo      []line   // the lines to count, each text once
		repeats   []string // later occurrences of lines in todo
		todoBytes int
	)
	if m.cur == nil {
		m.cur = map[string]int{}
	}
	add := func(s string) {
		if k, ok := m.cur[s]; ok {
			if k < 0 { // in todo: counted below
				repeats = append(repeats, s)
			}
			n += max(k, 0)
			return
		}
		if k, ok := m.prev[s]; ok {
			m.cur[s] = k
			n += k
			return
		}
		m.cur[s] = -1
		todo = append(todo, line{text: s})
		todoBytes += len(s)
	}
	last := 0
	forCleanLineStarts(text, func(i int) {
		add(text[last:i])
		last = i
	})
	add(text[last:])
	if len(todo) == 0 {
		return n
	}
	if failed := countShares(c, todo, procs, todoBytes); failed != nil {
		// A counter's panic (none is known: the counters are fuzzed) goes
		// to the caller as it would from the serial path, the
		// placeholders taken out of the memo.
		for _, l := range todo {
			delete(m.cur, l.text)
		}
		panic(failed)
	}
	for _, l := range todo {
		m.cur[l.text] = l.n
		n += l.n
	}
	for _, s := range repeats {
		n += m.cur[s]
	}
	return n
}
