package token

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPrefixes: every prefix of texts made of awkward lines, followed by
// a cut marker or another suffix, counts as the whole does, for both
// encodings and for the estimator (which counts the whole).
func TestPrefixes(t *testing.T) {
	counters := []Counter{mustBPE(t, O200kBase), mustBPE(t, Cl100kBase), Estimator{}}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range counters {
		for range 60 {
			var sb strings.Builder
			for range rng.IntN(12) {
				sb.WriteString(appendTexts[rng.IntN(len(appendTexts))])
			}
			text := sb.String()
			p := NewPrefixes(c, text)
			for _, suffix := range []string{" …[cut]\n", "", "\n", "/x", "s"} {
				for k := 0; k <= len(text); k++ {
					if got, want := p.Count(k, suffix), c.Count(text[:k]+suffix); got != want {
						t.Fatalf("%s: Count(%q[:%d], %q) = %d, want %d", c.Name(), text, k, suffix, got, want)
					}
				}
			}
		}
	}
}

// FuzzPrefixes: any text, any cut, both encodings.
func FuzzPrefixes(f *testing.F) {
	f.Add("line one\n/two\n- three\nfour", 12, " …[cut]\n")
	f.Add("a.\n\nb\n c", 5, "")
	o, cl := mustBPE(f, O200kBase), mustBPE(f, Cl100kBase)
	f.Fuzz(func(t *testing.T, text string, k int, suffix string) {
		if k < 0 || k > len(text) {
			return
		}
		for _, c := range []*BPE{o, cl} {
			if got, want := NewPrefixes(c, text).Count(k, suffix), c.Count(text[:k]+suffix); got != want {
				t.Fatalf("%s: Count(%q[:%d], %q) = %d, want %d", c.Name(), text, k, suffix, got, want)
			}
		}
	})
}

// countingCounter counts the texts it was asked to count.
type countingCounter struct {
	Counter
	calls int
}

func (c *countingCounter) Count(text string) int {
	c.calls++
	return c.Counter.Count(text)
}

// TestMemo: a text counted in a round or the one before is not counted
// again; one counted two rounds ago is; the counts are the counter's.
func TestMemo(t *testing.T) {
	c := &countingCounter{Counter: mustBPE(t, O200kBase)}
	var m Memo
	a, b := "the first text\n", "another one"
	if got, want := m.Count(c, a), c.Counter.Count(a); got != want {
		t.Fatalf("Count(%q) = %d, want %d", a, got, want)
	}
	m.Count(c, a)
	if c.calls != 1 {
		t.Fatalf("counted %d times in one round, want 1", c.calls)
	}
	m.Turn()
	m.Count(c, a) // from the round before
	m.Count(c, b)
	if c.calls != 2 {
		t.Fatalf("counted %d times after a round, want 2", c.calls)
	}
	m.Turn()
	m.Turn() // a and b two rounds ago: forgotten
	m.Count(c, a)
	if c.calls != 3 {
		t.Fatalf("counted %d times after two idle rounds, want 3", c.calls)
	}
}

// TestMemoCountLines: texts of awkward lines count line by line as
// whole, both encodings and the estimator, with the memo warm or cold.
func TestMemoCountLines(t *testing.T) {
	counters := []Counter{mustBPE(t, O200kBase), mustBPE(t, Cl100kBase), Estimator{}}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range counters {
		var m Memo
		for i := range 300 {
			var sb strings.Builder
			for range rng.IntN(14) {
				sb.WriteString(appendTexts[rng.IntN(len(appendTexts))])
			}
			text := sb.String()
			if got, want := m.CountLines(c, text), c.Count(text); got != want {
				t.Fatalf("%s: CountLines(%q) = %d, want %d", c.Name(), text, got, want)
			}
			if i%10 == 0 {
				m.Turn()
			}
		}
	}
}

// TestMemoCountLinesParallel: texts of 64 KiB and more, of awkward lines
// with repeats and of unique ones, count on several goroutines as whole
// and leave the memo as counting them on one does, cold and warm (half
// their lines remembered from the round before), both encodings.
func TestMemoCountLinesParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	split := 0
	sharesHook = func(lines, bytes int) {
		if lines < 2 || bytes < parallelMin {
			t.Errorf("split %d lines of %d bytes", lines, bytes)
		}
		split++
	}
	defer func() { sharesHook = nil }()
	for _, c := range []*BPE{mustBPE(t, O200kBase), mustBPE(t, Cl100kBase)} {
		for i := range 6 {
			var sb strings.Builder
			for k := 0; sb.Len() < parallelMin+i*60_000; k++ {
				if rng.IntN(3) != 0 {
					fmt.Fprintf(&sb, "line %d of %d: ok\n", k, i)
				} else {
					sb.WriteString(appendTexts[rng.IntN(len(appendTexts))])
				}
			}
			text := sb.String()
			var serial, parallel Memo
			if i%2 == 1 { // warm: the first half remembered from the last round
				serial.CountLines(c, text[:len(text)/2])
				parallel.CountLines(c, text[:len(text)/2])
				serial.Turn()
				parallel.Turn()
			}
			want := c.Count(text)
			n, last := 0, 0
			forCleanLineStarts(text, func(j int) {
				n += serial.Count(c, text[last:j])
				last = j
			})
			n += serial.Count(c, text[last:])
			if n != want {
				t.Fatalf("%s: serial %d, want %d", c.Name(), n, want)
			}
			if got := parallel.countLinesParallel(c, text, 2+i%3); got != want {
				t.Fatalf("%s: text %d (%d bytes): countLinesParallel = %d, want %d", c.Name(), i, len(text), got, want)
			}
			if !maps.Equal(serial.cur, parallel.cur) || !maps.Equal(serial.prev, parallel.prev) {
				t.Fatalf("%s: text %d: the memo differs from the serial one's (%d/%d lines this round, %d/%d the last)",
					c.Name(), i, len(parallel.cur), len(serial.cur), len(parallel.prev), len(serial.prev))
			}
		}
	}
	// A text remembered whole is counted without allocating.
	var warm Memo
	o := mustBPE(t, O200kBase)
	var sb strings.Builder
	for k := 0; sb.Len() < 2*parallelMin; k++ {
		fmt.Fprintf(&sb, "remembered line %d\n", k)
	}
	text := sb.String()
	want := warm.countLinesParallel(o, text, 4)
	if allocs := testing.AllocsPerRun(5, func() {
		if got := warm.countLinesParallel(o, text, 4); got != want {
			t.Fatalf("warm count %d, want %d", got, want)
		}
	}); allocs != 0 {
		t.Errorf("a text remembered whole: %v allocations, want 0", allocs)
	}
	// The cold texts of 64 KiB and more of new lines were split.
	if split < 4 {
		t.Fatalf("%d texts counted on several goroutines, want 4 or more", split)
	}
}

// panicCounter panics on a text that holds its word, and counts others
// as c does.
type panicCounter struct {
	c    Counter
	word string
}

func (p panicCounter) Count(text string) int {
	if strings.Contains(text, p.word) {
		panic("count: " + p.word)
	}
	return p.c.Count(text)
}

func (p panicCounter) Name() string { return p.c.Name() }

// TestMemoCountLinesParallelPanic: a counter's panic on one goroutine
// reaches the caller, and the memo keeps only what it had: no line of
// the text is remembered half counted.
func TestMemoCountLinesParallelPanic(t *testing.T) {
	o := mustBPE(t, O200kBase)
	var sb strings.Builder
	for k := 0; sb.Len() < 4*parallelMin; k++ {
		fmt.Fprintf(&sb, "line %d: ok\n", k)
	}
	text := "the first line: boom\n" + sb.String() // in the first share, counted on another goroutine
	var m Memo
	m.Count(o, "kept\n")
	func() {
		defer func() {
			if r := recover(); r != "count: boom" {
				t.Errorf("recovered %v, want the counter's panic", r)
			}
		}()
		m.countLinesParallel(panicCounter{o, "boom"}, text, 4)
		t.Error("no panic")
	}()
	if len(m.cur) != 1 || m.cur["kept\n"] != o.Count("kept\n") {
		t.Fatalf("memo after the panic holds %d texts, want the one counted before", len(m.cur))
	}
	if got, want := m.CountLines(o, text), o.Count(text); got != want {
		t.Fatalf("CountLines after the panic = %d, want %d", got, want)
	}
}

// FuzzCountLines: any text counts line by line as whole, both encodings,
// with the memo cold and then warm from a text that shares its lines.
func FuzzCountLines(f *testing.F) {
	f.Add("func f() {\n\treturn 1\n}\n", "x\n")
	f.Add("     1\u2192a\n     2\u2192  b\n  \n\n  c", "  \n  c")
	f.Add("a;\n/b\n  /c\n", " \r\n d")
	o, cl := mustBPE(f, O200kBase), mustBPE(f, Cl100kBase)
	f.Fuzz(func(t *testing.T, text, other string) {
		for _, c := range []*BPE{o, cl} {
			var m Memo
			m.CountLines(c, other+text)
			for _, s := range []string{text, text + other, other + text} {
				if got, want := m.CountLines(c, s), c.Count(s); got != want {
					t.Fatalf("%s: CountLines(%q) = %d, want %d", c.Name(), s, got, want)
				}
				var p Memo
				if got, want := p.countLinesParallel(c, s, 3), c.Count(s); got != want {
					t.Fatalf("%s: countLinesParallel(%q) = %d, want %d", c.Name(), s, got, want)
				}
			}
		}
	})
}
