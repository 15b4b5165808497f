package token

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// codePointGolden is testdata/codepoints.bin.gz, written by
// testdata/gen_codepoints.mjs with the reference tokenizer: the count of
// each probe around each Unicode scalar value.
type codePointGolden struct {
	Generator string   `json:"generator"`
	Encodings []string `json:"encodings"`
	Probes    []string `json:"probes"`
	Scalars   int      `json:"scalars"`
	// counts[e][p][i] is the count of probe p around the i-th scalar value
	// in encoding e.
	counts [][][]byte
}

// numScalars is the number of Unicode scalar values: U+0000..U+10FFFF less
// the 2,048 surrogates.
const numScalars = 0x110000 - 0x800

// scalarAt returns the i-th Unicode scalar value.
func scalarAt(i int) rune {
	if i >= 0xD800 {
		i += 0x800
	}
	return rune(i)
}

var loadCodePointGolden = sync.OnceValues(func() (*codePointGolden, error) {
	f, err := os.Open(filepath.Join("testdata", "codepoints.bin.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(zr)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	g := &codePointGolden{}
	if err := json.Unmarshal(line, g); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if g.Scalars != numScalars || len(g.Encodings) == 0 || len(g.Probes) == 0 {
		return nil, fmt.Errorf("header %s: want %d scalars, encodings and probes", line, numScalars)
	}
	body, err := io.ReadAll(br)
	if err != nil {
		return nil, err
	}
	if want := len(g.Encodings) * len(g.Probes) * numScalars; len(body) != want {
		return nil, fmt.Errorf("%d bytes of counts, want %d", len(body), want)
	}
	for range g.Encodings {
		var enc [][]byte
		for range g.Probes {
			enc = append(enc, body[:numScalars:numScalars])
			body = body[numScalars:]
		}
		g.counts = append(g.counts, enc)
	}
	return g, nil
})

// TestCodePoints compares the exact counters with the reference tokenizer
// on every Unicode scalar value, each in every probe of the golden file
// (alone, after a letter, before a contraction, after a digit...): a code
// point whose class (letter and case, mark, number, white space) differs
// from tiktoken's gives a wrong count in some probe. Under the race
// detector, which slows counting tenfold and has nothing to check here,
// every 16th code point and every one Go's unicode package classes
// differently (TestClassTable checks the class of every code point).
func TestCodePoints(t *testing.T) {
	t.Parallel()
	g, err := loadCodePointGolden()
	if err != nil {
		t.Fatalf("testdata/codepoints.bin.gz: %v (regenerate: testdata/README.md)", err)
	}
	t.Logf("reference: %s", g.Generator)
	var sample []int // indices of the scalar values checked under the race detector
	if raceEnabled {
		for i := range numScalars {
			if r := scalarAt(i); i%16 == 0 || classOfRune(r) != goClass(r) {
				sample = append(sample, i)
			}
		}
	}
	for e, enc := range g.Encodings {
		c := mustBPE(t, enc)
		for p, probe := range g.Probes {
			parts := strings.Split(probe, "{c}")
			want := g.counts[e][p]
			t.Run(fmt.Sprintf("%s/%q", enc, probe), func(t *testing.T) {
				t.Parallel()
				bad, first := 0, []string(nil)
				var buf []byte
				check := func(i int) {
					r := scalarAt(i)
					buf = buf[:0]
					for k, part := range parts {
						if k > 0 {
							buf = utf8.AppendRune(buf, r)
						}
						buf = append(buf, part...)
					}
					if got := c.Count(string(buf)); got != int(want[i]) {
						bad++
						if len(first) < 10 {
							first = append(first, fmt.Sprintf("U+%04X: Count(%q) = %d, tiktoken %d", r, buf, got, want[i]))
						}
					}
				}
				if sample == nil {
					for i := range numScalars {
						check(i)
					}
				}
				for _, i := range sample {
					check(i)
				}
				if bad > 0 {
					t.Errorf("%d code points count differently from tiktoken, first:\n%s", bad, strings.Join(first, "\n"))
				}
			})
		}
	}
}

// goClass returns the class bits of r from Go's unicode package, as the
// pre-tokenizer classified runes before it had its own table.
func goClass(r rune) uint8 {
	var c uint8
	switch {
	case unicode.IsLetter(r):
		c = clLetter
		switch {
		case unicode.IsUpper(r), unicode.IsTitle(r):
			c |= clUpper
		case unicode.IsLower(r):
			c |= clLower
		default:
			c |= clOther
		}
	case unicode.IsNumber(r):
		c = clNumber
	case unicode.IsMark(r):
		c = clMark
	case unicode.IsSpace(r):
		c = clSpace
		if r == '\r' || r == '\n' {
			c |= clNewline
		}
	}
	return c
}

// goAssigned reports whether r is assigned in Go's unicode tables (Go's
// unicode.C also holds the unassigned code points, hence its parts).
func goAssigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z,
		unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// TestClassTable checks the generated class table (unicode_tables.go)
// against Go's unicode package so that it cannot rot: on every code point
// Go's tables assign, both give the same class; only code points assigned
// after Go's Unicode version (15.0.0 in Go 1.26: 5,055 letters, marks and
// numbers of Unicode 15.1 and 16.0) may differ, and they must be
// unassigned in Go. With a Go whose tables are newer than the generated
// one, only code points the table classes (assigned in its version) are
// compared.
func TestClassTable(t *testing.T) {
	t.Parallel()
	if classIndex[0] != 0 {
		t.Fatalf("classIndex[0] = %d: classAt reads ASCII from block 0", classIndex[0])
	}
	goNewer := versionLess(t, unicodeVersion, unicode.Version)
	if goNewer {
		t.Logf("Go's unicode tables (%s) are newer than the class table (%s): regenerate it if tiktoken's regex moved on (token/internal/genclasses)", unicode.Version, unicodeVersion)
	}
	added := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		got, want := classOfRune(r), goClass(r)
		switch {
		case got == want:
		case !goNewer && !goAssigned(r) && want == 0:
			added++ // assigned after Go's version
		case goNewer && got == 0:
		default:
			t.Errorf("U+%04X: class %08b, Go's unicode %s says %08b", r, got, unicode.Version, want)
		}
	}
	t.Logf("%d code points classed that Go's unicode %s does not assign", added, unicode.Version)
	if got := classOfRune(utf8.RuneError); got != 0 {
		t.Errorf("classOfRune(RuneError) = %08b, want 0 (a symbol)", got)
	}
}

// versionLess reports whether Unicode version a ("15.0.0") is older than b.
func versionLess(t *testing.T, a, b string) bool {
	t.Helper()
	parse := func(v string) [3]int {
		var x [3]int
		if _, err := fmt.Sscanf(v, "%d.%d.%d", &x[0], &x[1], &x[2]); err != nil {
			t.Fatalf("Unicode version %q: %v", v, err)
		}
		return x
	}
	x, y := parse(a), parse(b)
	return slices.Compare(x[:], y[:]) < 0
}

// TestCountExample is the example: U+2EBF0 (CJK Extension I,
// Unicode 15.1) is a letter, so "'s" joins it in o200k_base.
func TestCountExample(t *testing.T) {
	t.Parallel()
	if got := mustBPE(t, O200kBase).Count("\U0002EBF0's"); got != 5 {
		t.Errorf(`o200k_base Count("\U0002EBF0's") = %d, tiktoken 5`, got)
	}
}

// TestInvalidUTF8 checks the convention for bytes that are not UTF-8: each
// counts as one U+FFFD, as Go's range loop and []rune conversion decode
// them (a cut 3-byte sequence is two U+FFFD, where Rust's
// String::from_utf8_lossy and the WHATWG decoder make one). The reference
// counts (testdata/invalid_utf8.json) are tiktoken's counts of the texts
// with each bad byte replaced.
func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "invalid_utf8.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			Parts  []any `json:"parts"`
			O200k  int   `json:"o200k_base"`
			Cl100k int   `json:"cl100k_base"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("testdata/invalid_utf8.json: %v", err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("testdata/invalid_utf8.json: no cases")
	}
	o200k, cl100k := mustBPE(t, O200kBase), mustBPE(t, Cl100kBase)
	for _, c := range g.Cases {
		var raw, replaced []byte
		for _, p := range c.Parts {
			switch p := p.(type) {
			case string:
				raw, replaced = append(raw, p...), append(replaced, p...)
			case float64:
				raw, replaced = append(raw, byte(p)), utf8.AppendRune(replaced, utf8.RuneError)
			default:
				t.Fatalf("testdata/invalid_utf8.json: part %v: want a string or a byte", p)
			}
		}
		text := string(raw)
		if utf8.ValidString(text) {
			t.Errorf("%q is valid UTF-8", text)
		}
		if got := string([]rune(text)); got != string(replaced) {
			t.Errorf("%q decodes to %q, want one U+FFFD per bad byte: %q", text, got, replaced)
		}
		for _, k := range []struct {
			c    *BPE
			want int
		}{{o200k, c.O200k}, {cl100k, c.Cl100k}} {
			if got := k.c.Count(text); got != k.want {
				t.Errorf("%s: Count(%q) = %d, tiktoken counts %q as %d", k.c.Name(), text, got, replaced, k.want)
			}
			if got, want := len(k.c.Encode(text)), k.want; got != want {
				t.Errorf("%s: len(Encode(%q)) = %d, want %d", k.c.Name(), text, got, want)
			}
			if got, want := k.c.Decode(k.c.Encode(text)), string(replaced); got != want {
				t.Errorf("%s: Decode(Encode(%q)) = %q, want %q", k.c.Name(), text, got, want)
			}
		}
	}
}
