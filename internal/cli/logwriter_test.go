package cli

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedWriter holds its Writes until gate is closed, then writes to w.
type gatedWriter struct {
	gate chan struct{}
	w    *lockedBuffer
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.gate
	return g.w.Write(p)
}

// TestLogWriter: lines written by concurrent goroutines all reach the
// writer whole, each goroutine's in its order, by Close; a Write after
// Close goes straight through.
func TestLogWriter(t *testing.T) {
	var out lockedBuffer
	l := newLogWriter(&out)
	const writers, lines = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				if n, err := fmt.Fprintf(l, "{\"writer\":%d,\"line\":%d}\n", w, i); err != nil || n == 0 {
					t.Errorf("Write: %d, %v", n, err)
				}
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	for _, line := range got {
		var w, i int
		if _, err := fmt.Sscanf(line, "{\"writer\":%d,\"line\":%d}", &w, &i); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after %d", w, i, next[w]-1)
		}
		next[w]++
	}
	fmt.Fprintln(l, "after close")
	if !strings.HasSuffix(out.String(), "after close\n") {
		t.Error("a Write after Close did not reach the writer")
	}
}

// TestLogWriterBounded: while the writer is stuck, Write returns at once
// until logBufferMax bytes are held, then waits for the writer.
func TestLogWriterBounded(t *testing.T) {
	out := &lockedBuffer{}
	gate := make(chan struct{})
	l := newLogWriter(&gatedWriter{gate: gate, w: out})
	line := []byte(strings.Repeat("x", 1023) + "\n")
	// The goroutine takes the first line and blocks in the writer; the
	// buffer then fills up to the bound.
	if _, err := l.Write(line); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		l.mu.Lock()
		taken := len(l.buf) == 0
		l.mu.Unlock()
		if taken {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the goroutine did not take the first line")
		}
	}
	for range logBufferMax / len(line) {
		done := make(chan struct{})
		go func() { _, _ = l.Write(line); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("a Write under the bound waited for the writer")
		}
	}
	blocked := make(chan struct{})
	go func() { _, _ = l.Write(line); close(blocked) }()
	select {
	case <-blocked:
		t.Fatal("a Write over the bound returned while the writer was stuck")
	case <-time.After(50 * time.Millisecond):
	}
	close(gate)
	select {
	case <-blocked:
	case <-time.After(5 * time.Second):
		t.Fatal("the Write over the bound did not return once the writer went on")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := len(out.String()), (logBufferMax/len(line)+2)*len(line); got != want {
		t.Errorf("%d bytes written, want %d", got, want)
	}
}
