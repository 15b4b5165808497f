package vocabfile_test

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/token/internal/vocabfile"
)

// tiktokenFile writes toks as a tiktoken file, token i with rank i.
func tiktokenFile(toks ...string) []byte {
	var b strings.Builder
	for i, t := range toks {
		fmt.Fprintf(&b, "%s %d\n", base64.StdEncoding.EncodeToString([]byte(t)), i)
	}
	return []byte(b.String())
}

func TestBuildOpen(t *testing.T) {
	toks := []string{"a", "b", "ab", "hello", " world", "\xff\xfe", "a long token of more than eight bytes"}
	bin, err := vocabfile.Build(tiktokenFile(toks...))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := vocabfile.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != len(toks) {
		t.Errorf("Len = %d", tab.Len())
	}
	for i, tok := range toks {
		if r := tab.Rank(tok); int(r) != i {
			t.Errorf("Rank(%q) = %d, want %d", tok, r, i)
		}
		if got := tab.Token(i); got != tok {
			t.Errorf("Token(%d) = %q", i, got)
		}
	}
	for _, s := range []string{"", "c", "abc", "hello ", "a long token of more than eight byte"} {
		if r := tab.Rank(s); r != vocabfile.NoRank {
			t.Errorf("Rank(%q) = %d, want NoRank", s, r)
		}
	}
	if tab.Token(-1) != "" || tab.Token(len(toks)) != "" {
		t.Error("Token out of range is not empty")
	}
	var zero vocabfile.Table
	if zero.Rank("a") != vocabfile.NoRank || zero.Token(0) != "" {
		t.Error("the zero Table is not empty")
	}
}

// TestBuildGaps: unused ranks are empty ids.
func TestBuildGaps(t *testing.T) {
	src := "YQ== 0\n\nYg== 3\n"
	bin, err := vocabfile.Build([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := vocabfile.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 4 || tab.Token(1) != "" || tab.Rank("b") != 3 {
		t.Errorf("Len %d, Token(1) %q, Rank(b) %d", tab.Len(), tab.Token(1), tab.Rank("b"))
	}
}

func TestBuildErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"YQ==\n", "line 1: no rank"},
		{"YQ== 0\n!!! 1\n", "line 2: illegal base64"},
		{"YQ== x\n", `line 1: bad rank "x"`},
		{"YQ== -1\n", "bad rank"},
		{"YQ== 0\nYg== 0\n", "rank 0 given twice"},
		{"YQ== 0\nYQ== 1\n", `token "a" given twice`},
	} {
		_, err := vocabfile.Build([]byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%q) = %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	good, err := vocabfile.Build(tiktokenFile("a", "b", "ab"))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	put := func(b []byte, at int, v uint32) []byte { binary.LittleEndian.PutUint32(b[at:], v); return b }
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad magic"},
		{"magic", edit(func(b []byte) []byte { b[0] = 'X'; return b }), "bad magic"},
		{"truncated", good[:len(good)-1], "the header says"},
		{"slots", edit(func(b []byte) []byte { return put(b, 8, 3) }), "not a power of two"},
		{"offset order", edit(func(b []byte) []byte { return put(b, 16+4, 9) }), "out of order"},
		{"slot id", edit(func(b []byte) []byte {
			for i := 16 + 4*4; ; i += 4 {
				if binary.LittleEndian.Uint32(b[i:]) == 0 {
					return put(b, i, 99)
				}
			}
		}), "past the 3 ids"},
	} {
		if _, err := vocabfile.Open(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Open = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// FuzzOpen: whatever the bytes, Open either refuses them or returns a table
// whose lookups do not panic; and a vocabulary built from fuzzed tokens
// gives every token its rank back.
func FuzzOpen(f *testing.F) {
	good, _ := vocabfile.Build(tiktokenFile("a", "b", "ab", "hello"))
	f.Add(good, "ab")
	f.Add([]byte("ACV1"), "")
	f.Fuzz(func(t *testing.T, data []byte, s string) {
		if tab, err := vocabfile.Open(data); err == nil {
			_ = tab.Rank(s)
			for i := range min(tab.Len(), 64) {
				_ = tab.Token(i)
			}
		}
		toks := strings.Split(s, "\x00")
		seen := map[string]bool{}
		var uniq []string
		for _, tok := range toks {
			if !seen[tok] && tok != "" {
				seen[tok] = true
				uniq = append(uniq, tok)
			}
		}
		if len(uniq) == 0 {
			return
		}
		bin, err := vocabfile.Build(tiktokenFile(uniq...))
		if err != nil {
			t.Fatal(err)
		}
		tab, err := vocabfile.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		for i, tok := range uniq {
			if r := tab.Rank(tok); int(r) != i {
				t.Fatalf("Rank(%q) = %d, want %d", tok, r, i)
			}
		}
	})
}
