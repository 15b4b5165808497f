package jsonx

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
)

// oldMarshalNoEscape is the encoding MarshalNoEscape replaced: a fresh
// encoder's, its final new line cut.
func oldMarshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// TestMarshalNoEscape: the same bytes and errors as a fresh encoder's,
// HTML characters kept, no final new line; a result stays as it was
// after later calls reuse the pooled buffer, from several goroutines, and
// a value larger than the pool keeps is encoded all the same.
func TestMarshalNoEscape(t *testing.T) {
	t.Parallel()
	values := []any{
		map[string]any{"text": "a < b && c > d", "n": 1.5, "raw": json.RawMessage(`{ "x" : [1, 2] }`)},
		"plain \u2028 text",
		[]string{strings.Repeat("line\n", 50_000)}, // over maxPooledBuffer
		struct {
			A string `json:"a,omitempty"`
			B []int  `json:"b"`
		}{B: []int{}},
		nil,
	}
	var got [][]byte
	for _, v := range values {
		b, err := MarshalNoEscape(v)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := oldMarshalNoEscape(v)
		if !bytes.Equal(b, want) {
			t.Fatalf("%.80s, want %.80s", b, want)
		}
		if bytes.HasSuffix(b, []byte("\n")) && !strings.HasPrefix(string(b), `["line`) {
			t.Fatalf("final new line: %q", b)
		}
		got = append(got, b)
	}
	if !bytes.Contains(got[0], []byte("a < b && c > d")) {
		t.Errorf("HTML escaped: %s", got[0])
	}
	// Earlier results are unchanged by the later calls.
	for i, v := range values {
		want, _ := oldMarshalNoEscape(v)
		if !bytes.Equal(got[i], want) {
			t.Errorf("value %d changed after later calls: %.80s", i, got[i])
		}
	}
	if _, err := MarshalNoEscape(math.Inf(1)); err == nil {
		t.Error("+Inf encoded")
	} else if _, werr := oldMarshalNoEscape(math.Inf(1)); err.Error() != werr.Error() {
		t.Errorf("error %v, encoding/json's %v", err, werr)
	}
	if _, err := MarshalNoEscape(func() {}); err == nil {
		t.Error("a func encoded")
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				v := map[string]int{"g": g, "i": i}
				b, err := MarshalNoEscape(v)
				want, _ := oldMarshalNoEscape(v)
				if err != nil || !bytes.Equal(b, want) {
					t.Errorf("goroutine %d: %s, %v", g, b, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
