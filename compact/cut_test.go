package compact_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/compact"
	"github.com/google/go-cmp/cmp"
)

func TestHead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 0, ""},
		{"hello", -3, ""},
		{"hello", 5, "hello"},
		{"hello", 9, "hello"},
		{"héllo wörld", 4, "héll"},
		{"中文字符串测试", 3, "中文字"},
		{"a😀b😀c", 2, "a😀"},
		{"👨‍👩‍👧x", 2, "👨\u200d"},              // a ZWJ sequence is cut between runes, still valid UTF-8
		{"aaaaaaaaa\nbb", 11, "aaaaaaaaa"},    // line break in the last 30 %: cut there
		{"aa\naaaaaaaaa", 11, "aa\naaaaaaaa"}, // line break early: cut at n
		{"一二三四五六七八九\n十十", 11, "一二三四五六七八九"},
	}
	for _, tc := range cases {
		if got := compact.Head(tc.s, tc.n); got != tc.want {
			t.Errorf("Head(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"hello", 5, "hello"},
		{"héllo wörld", 4, "örld"},
		{"中文字符串测试", 3, "串测试"},
		{"a😀b😀c", 2, "😀c"},
		{"aa\nbbbbbbbbb", 11, "bbbbbbbbb"},    // line break in the first 30 %: cut after it
		{"bbbbbbbbb\naa", 11, "bbbbbbbb\naa"}, // line break late: cut at n
		{"十十\n一二三四五六七八九", 11, "一二三四五六七八九"},
	}
	for _, tc := range cases {
		if got := compact.Tail(tc.s, tc.n); got != tc.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// checkHeadTail asserts Head's and Tail's contract for any s and n.
func checkHeadTail(t *testing.T, s string, n int) {
	total := utf8.RuneCountInString(s)
	h, tl := compact.Head(s, n), compact.Tail(s, n)
	for _, c := range []struct {
		name, got string
		ok        bool
	}{{"Head", h, strings.HasPrefix(s, h)}, {"Tail", tl, strings.HasSuffix(s, tl)}} {
		if !c.ok {
			t.Fatalf("%s(%q, %d) = %q is not a prefix/suffix", c.name, s, n, c.got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(c.got) {
			t.Fatalf("%s(%q, %d) = %q is not valid UTF-8", c.name, s, n, c.got)
		}
		k := utf8.RuneCountInString(c.got)
		switch {
		case n <= 0:
			if c.got != "" {
				t.Fatalf("%s(%q, %d) = %q, want empty", c.name, s, n, c.got)
			}
		case total <= n:
			if c.got != s {
				t.Fatalf("%s(%q, %d) = %q, want s unchanged", c.name, s, n, c.got)
			}
		case k > n || k < n-n*3/10-1:
			t.Fatalf("%s(%q, %d) = %q has %d runes, want %d..%d", c.name, s, n, c.got, k, n-n*3/10-1, n)
		}
	}
}

func TestCutText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		s          string
		keep, tail int
		want       string
	}{
		{"short", "hello", 5, 2, "hello"},
		{"head only", "abcdefghij", 4, 0, "abcd\n…[agentctx: why; 4 of 10 chars kept]"},
		{"head and tail", "abcdefghij", 4, 2, "ab\n…[agentctx: why; 4 of 10 chars kept]\nij"},
		{"tail capped at half", "abcdefghij", 4, 3, "ab\n…[agentctx: why; 4 of 10 chars kept]\nij"},
		{"negative tail", "abcdefghij", 4, -2, "abcd\n…[agentctx: why; 4 of 10 chars kept]"},
		{"cjk", "一二三四五六七八九十", 4, 2, "一二\n…[agentctx: why; 4 of 10 chars kept]\n九十"},
		{"emoji", "😀😁😂🤣😃😄😅😆", 3, 1, "😀😁\n…[agentctx: why; 3 of 8 chars kept]\n😆"},
		{"keep zero", "abc", 0, 0, "\n…[agentctx: why; 0 of 3 chars kept]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := compact.CutText(tc.s, tc.keep, tc.tail, "why")
			if got != tc.want {
				t.Errorf("CutText(%q, %d, %d) = %q, want %q", tc.s, tc.keep, tc.tail, got, tc.want)
			}
			checkCutText(t, tc.s, tc.keep, tc.tail, got)
		})
	}
}

func TestCutTextNegativeKeep(t *testing.T) {
	t.Parallel()
	got := compact.CutText("some text", -1000, 0, "why")
	checkCutText(t, "some text", -1000, 0, got)
}

// checkCutText asserts CutText's contract: valid UTF-8 out of valid UTF-8
// in, s unchanged when short enough, otherwise a head of s, the marker,
// and a tail of s, never longer than that.
func checkCutText(t testing.TB, s string, keep, tail int, got string) {
	t.Helper()
	total := utf8.RuneCountInString(s)
	if utf8.ValidString(s) && !utf8.ValidString(got) {
		t.Fatalf("CutText(%q, %d, %d) = %q: invalid UTF-8", s, keep, tail, got)
	}
	// A negative keep means keep nothing: the contract is that of keep 0.
	kept := max(keep, 0)
	if total <= kept {
		if got != s {
			t.Fatalf("CutText(%q, %d, %d) = %q, want s unchanged", s, keep, tail, got)
		}
		return
	}
	marker := fmt.Sprintf("\n…[agentctx: why; %d of %d chars kept]", kept, total)
	i := strings.Index(got, marker)
	if i < 0 {
		t.Fatalf("CutText(%q, %d, %d) = %q: no marker %q", s, keep, tail, got, marker)
	}
	head, rest := got[:i], got[i+len(marker):]
	if !strings.HasPrefix(s, head) {
		t.Fatalf("CutText(%q, %d, %d): %q is not a head of s", s, keep, tail, head)
	}
	if rest != "" && (!strings.HasPrefix(rest, "\n") || !strings.HasSuffix(s, rest[1:])) {
		t.Fatalf("CutText(%q, %d, %d): %q is not a tail of s", s, keep, tail, rest)
	}
	if k := utf8.RuneCountInString(head) + max(utf8.RuneCountInString(rest)-1, 0); k > kept {
		t.Fatalf("CutText(%q, %d, %d) kept %d runes of s, more than %d", s, keep, tail, k, keep)
	}
}

func TestShrinkJSON(t *testing.T) {
	t.Parallel()
	longStr := strings.Repeat("日本語のテキスト ", 2000)
	var many strings.Builder
	many.WriteByte('{')
	for i := range 400 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `"key%03d":%d`, i, i)
	}
	many.WriteByte('}')
	big := fmt.Sprintf(`{"z_first":%q,"a_second":[%s],"m_third":{"n":12345678901234567890,"f":1e400,"neg":-0.0,"t":true,"nil":null},"list":[%s]}`,
		longStr, strings.TrimSuffix(strings.Repeat(`"item",`, 5000), ","), strings.TrimSuffix(strings.Repeat(`{"x":"y"},`, 3000), ","))
	cases := []struct {
		name    string
		in      string
		max     int
		markers []string // each must occur in the output
		same    bool     // the output must be the input
	}{
		{name: "small and valid", in: `{"a": [1, 2, 3]}`, max: 100, same: true},
		{name: "pretty printed", in: "{\n  \"a\": \"" + strings.Repeat("x", 300) + "\",\n  \"b\": 2\n}", max: 200, markers: []string{"…[cut", `"b":2`}},
		{name: "nested and long", in: big, max: 2000, markers: []string{"…[cut", "more items]", `"n":12345678901234567890`, `"f":1e400`, `"neg":-0.0`}},
		{name: "many keys", in: many.String(), max: 600, markers: []string{`"…":"[`, "more keys cut]", `"key000":0`}},
		{name: "top-level string", in: fmt.Sprintf("%q", longStr), max: 300, markers: []string{"…[cut"}},
		{name: "top-level array", in: "[" + strings.TrimSuffix(strings.Repeat("123456,", 10000), ",") + "]", max: 100, markers: []string{"more items]"}},
		{name: "escapes and surrogates", in: `{"s":"` + strings.Repeat(`\u0000\ud800\"\\\n\t😀`, 500) + `"}`, max: 400, markers: []string{"…[cut"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, ok := compact.ShrinkJSON([]byte(tc.in), tc.max)
			if !ok {
				t.Fatalf("ShrinkJSON(%.60s…, %d) = false", tc.in, tc.max)
			}
			checkShrunk(t, []byte(tc.in), tc.max, out)
			if tc.same && string(out) != tc.in {
				t.Errorf("ShrinkJSON changed a document that fits: %s", out)
			}
			for _, m := range tc.markers {
				if !strings.Contains(string(out), m) {
					t.Errorf("output does not hold %q:\n%s", m, out)
				}
			}
		})
	}
}

func TestShrinkJSONRefuses(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 100000)
	cases := []struct {
		name string
		in   string
		max  int
	}{
		{"empty", ``, 100},
		{"whitespace", `   `, 100},
		{"truncated", `{"a": [1, 2`, 100},
		{"missing value", `{"a":}`, 100},
		{"trailing comma", `[1,]`, 100},
		{"bare word", `nul`, 100},
		{"leading zero", `[01]`, 100},
		{"two documents", `{} {}`, 100},
		{"unclosed deep nesting", deep, 100},
		{"zero budget", `{"a":1}`, 0},
		{"negative budget", `{"a":1}`, -5},
		{"too small to hold anything", `{"a":"` + strings.Repeat("x", 100) + `"}`, 3},
		{"long number", strings.Repeat("9", 500), 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if out, ok := compact.ShrinkJSON([]byte(tc.in), tc.max); ok {
				t.Errorf("ShrinkJSON(%.40q, %d) = %q, true; want false", tc.in, tc.max, out)
			}
		})
	}
}

func TestShrinkJSONTrailingData(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{"a":1} xyz`, `{}}`, `[1] ]`, `"s" ,`} {
		if out, ok := compact.ShrinkJSON([]byte(in), 100); ok {
			t.Errorf("ShrinkJSON(%q) = %q, true; want false for invalid JSON", in, out)
		}
	}
}

func TestShrinkJSONDeepButValid(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{100, 2500, 4999} { // 2 levels each; encoding/json allows 10,000
		in := strings.Repeat(`{"k":[`, depth) + `"` + strings.Repeat("v", 5000) + `"` + strings.Repeat(`]}`, depth)
		for _, max := range []int{len(in) - 100, 50} {
			out, ok := compact.ShrinkJSON([]byte(in), max)
			if ok {
				checkShrunk(t, []byte(in), max, out)
			}
			if max > len(in)/2 && !ok {
				t.Errorf("depth %d: ShrinkJSON(max %d) = false, want a cut string", depth, max)
			}
		}
	}
}

// checkShrunk asserts ShrinkJSON's contract for an ok result.
func checkShrunk(t testing.TB, in []byte, limit int, out []byte) {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf("ShrinkJSON output is not valid JSON: %.300s", out)
	}
	if len(out) > limit {
		t.Fatalf("ShrinkJSON output is %d bytes, more than %d", len(out), limit)
	}
	if utf8.Valid(in) && !utf8.Valid(out) {
		t.Fatalf("ShrinkJSON output is not valid UTF-8")
	}
	inKeys, outKeys := topKeys(in), topKeys(out)
	if n := len(outKeys); n > 0 && outKeys[n-1] == "…" {
		outKeys = outKeys[:n-1]
	}
	if len(outKeys) > len(inKeys) || !slicesEqual(inKeys[:len(outKeys)], outKeys) {
		t.Fatalf("keys not kept in order:\n%s", cmp.Diff(inKeys, outKeys))
	}
	if a, b := firstByte(in), firstByte(out); a != b && !(a >= '0' && a <= '9' || a == '-') {
		t.Fatalf("ShrinkJSON changed the document's kind from %q to %q", a, b)
	}
}

func slicesEqual(a, b []string) bool { return cmp.Equal(a, b, cmpEmpty) }

var cmpEmpty = cmp.Comparer(func(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
})

func firstByte(b []byte) byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// topKeys returns the keys of a top-level JSON object in order, or nil.
func topKeys(b []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return keys
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

func FuzzShrinkJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `[1,2,3]`, `"str"`, `null`, `{"k":"` + strings.Repeat("长", 200) + `"}`,
		`{"b":[{"c":"d"},{"e":[1,2,{"f":"g"}]}],"a":"` + strings.Repeat("x", 300) + `"}`,
		`[` + strings.Repeat(`"abc",`, 100) + `1]`, `{"\u00e9\ud83d\ude00":"\n\t"}`, `1e400`, `[[[[[[]]]]]]`,
		`{"a":1} xyz`, `{} {}`, `[1,]`, ``,
	} {
		f.Add([]byte(s), 64)
		f.Add([]byte(s), 16)
	}
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		limit = limit % (1 << 16)
		out, ok := compact.ShrinkJSON(raw, limit)
		valid := json.Valid(raw)
		if valid && len(raw) <= limit && (!ok || !bytes.Equal(out, raw)) {
			t.Fatalf("ShrinkJSON(%q, %d) = %q, %v; want the input unchanged", raw, limit, out, ok)
		}
		if !ok {
			return
		}
		if !valid {
			t.Fatalf("ShrinkJSON(%q) = true for invalid JSON", raw)
		}
		checkShrunk(t, raw, limit, out)
	})
}

func FuzzCutText(f *testing.F) {
	for _, s := range []string{"", "hello world", "中文字符串测试\n第二行", "a😀b😀c\n👨‍👩‍👧", strings.Repeat("line\n", 50), "\xff\xfe invalid"} {
		f.Add(s, 5, 2)
		f.Add(s, 0, 0)
		f.Add(s, 40, 10)
	}
	f.Fuzz(func(t *testing.T, s string, keep, tail int) {
		keep %= 1 << 20
		got := compact.CutText(s, keep, tail, "why")
		checkCutText(t, s, keep, tail, got)
		for _, n := range []int{keep, keep / 3, tail} {
			checkHeadTail(t, s, n)
		}
	})
}
