package httpbody

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAll: what io.ReadAll reads, whatever the announced length
// (exact, short, long, unknown, over the pre-sized limit) and however the
// body comes (a byte at a time, halves, the data with its io.EOF, an
// error part-way); an exact announced length reads into one buffer of
// that size.
func TestReadAll(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	body := strings.Repeat("a tool's output line\n", 800) // 16.8 KB
	wrap := map[string]func(io.Reader) io.Reader{
		"plain":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"halves":   iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	}
	for _, n := range []int{0, 1, 100, len(body)} {
		text := body[:n]
		for _, length := range []int64{int64(n), int64(n) - 1, int64(n) + 7, -1, 0, limit + 1} {
			for name, w := range wrap {
				got, err := ReadAll(w(strings.NewReader(text)), length, limit)
				if err != nil || string(got) != text {
					t.Errorf("%d bytes, length %d, %s: %d bytes, %v", n, length, name, len(got), err)
				}
			}
		}
	}
	got, err := ReadAll(strings.NewReader(body), int64(len(body)), limit)
	if err != nil || cap(got) != len(body)+1 {
		t.Errorf("exact length: cap %d for %d bytes, %v", cap(got), len(body), err)
	}
	// An error part-way: the bytes before it and the error, as io.ReadAll.
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(body[:1000]), iotest.ErrReader(boom))
	got, err = ReadAll(r, int64(len(body)), limit)
	if !errors.Is(err, boom) || !bytes.Equal(got, []byte(body[:1000])) {
		t.Errorf("error part-way: %d bytes, %v", len(got), err)
	}
}
