package tools

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestReadLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name, in string
		keep     int
		want     []string
		cut      []bool
	}{
		{"short lines", "a\nbb\r\nccc", 10, []string{"a", "bb", "ccc"}, []bool{false, false, false}},
		{"exactly keep", "abcd\nabcd\r\n", 4, []string{"abcd", "abcd"}, []bool{false, false}},
		{"one over keep", "abcde\n", 4, []string{"abcd"}, []bool{true}},
		{"over the reader's buffer", long + "\nz\n", 3, []string{"xxx", "z"}, []bool{true, false}},
		{"empty lines", "\n\n", 3, []string{"", ""}, []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var got []string
			var cuts []bool
			for {
				line, size, cut, _ := readLine(r, nil, tt.keep)
				if size == 0 {
					break
				}
				got = append(got, string(line))
				cuts = append(cuts, cut)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
			for i := range min(len(cuts), len(tt.cut)) {
				if cuts[i] != tt.cut[i] {
					t.Errorf("line %d cut = %v, want %v", i+1, cuts[i], tt.cut[i])
				}
			}
		})
	}
}

// TestReadFileHugeLine: a range read over a file of one 200 MB line
// allocates what it shows, not the line (it took 4.24 GB for a 2 GB
// line). Not parallel: it measures the process's allocations.
func TestReadFileHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 200 MB file")
	}
	env := project(t, nil)
	p := filepath.Join(env.Root, "huge.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	for range 200 {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.WriteString("\nsecond line\nthird line\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name       string
		start, end int
		want       []string
	}{
		{"the huge line", 1, 1, []string{"     1\t0123456789abcdef", "[line cut at 2000 bytes of 209715201]"}},
		{"past it", 2, 3, []string{"     2\tsecond line\n     3\tthird line\n"}},
	} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		r := call(t, readFile{env}, args{"path": "huge.txt", "start_line": tt.start, "end_line": tt.end})
		el := time.Since(start)
		runtime.ReadMemStats(&after)
		check(t, r, false, tt.want...)
		if len(r.Content) > 2200 {
			t.Errorf("%s: %d bytes of output", tt.name, len(r.Content))
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: allocated %d bytes, want under 1 MiB", tt.name, alloc)
		}
		t.Logf("%s: %s", tt.name, el)
	}
}
