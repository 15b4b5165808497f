package sharedtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BigClaudeCode is the shared data's largest Claude Code session (2.9 MB,
// 1,593 lines, one compaction), relative to [Root]; [WriteHuge] repeats it.
const BigClaudeCode = "claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"

// hugeToken matches what must differ between copies of a session: uuids
// (but the session id, see WriteHuge), message ids (Claude Code merges
// lines by message.id), tool-use ids, and the first null parent.
var hugeToken = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|msg_[A-Za-z0-9]+|toolu_[A-Za-z0-9]+|"parentUuid":null`)

var lastUUID = regexp.MustCompile(`"uuid":"([0-9a-f-]{36})"`)

// WriteHuge writes to w at least size bytes of one Claude Code session
// made of copies of template (a Claude Code session file, whole lines):
// copy k has its uuids, message ids and tool-use ids changed to k's own
// (copy 0 is template itself), keeps sessionID, and its first null
// parentUuid points at the last uuid of copy k-1, so the copies form one
// chain. It returns the bytes written. The output is a valid session for
// package transcript and for package session (whose format Claude Code's
// lines share); it has one compaction per copy when template has one.
func WriteHuge(w io.Writer, template []byte, sessionID string, size int64) (int64, error) {
	if len(template) == 0 || template[len(template)-1] != '\n' {
		template = append(bytes.Clone(template), '\n')
	}
	locs := hugeToken.FindAllIndex(template, -1)
	last := ""
	if m := lastUUID.FindAllSubmatch(template, -1); len(m) > 0 {
		last = string(m[len(m)-1][1])
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	// A bufio.Writer keeps its first error and returns it from every later
	// write and from Flush, which is checked.
	write := func(b []byte) { _, _ = bw.Write(b) }
	var n int64
	for k := 0; n < size; k++ {
		prev, nulled := 0, false
		for _, l := range locs {
			tok := template[l[0]:l[1]]
			write(template[prev:l[0]])
			prev = l[1]
			switch {
			case k == 0 || string(tok) == sessionID:
				write(tok)
			case tok[0] == '"': // "parentUuid":null
				if nulled || last == "" {
					write(tok)
					continue
				}
				nulled = true
				fmt.Fprintf(bw, `"parentUuid":"%s"`, hugeUUID(last, k-1))
			case tok[0] == 'm' || tok[0] == 't':
				fmt.Fprintf(bw, "%sK%d", tok, k)
			default:
				write([]byte(hugeUUID(string(tok), k)))
			}
		}
		if _, err := bw.Write(template[prev:]); err != nil {
			return n, err
		}
		n += int64(len(template)) + int64(len(locs))*2 // about: ids grow by a few bytes
	}
	if err := bw.Flush(); err != nil {
		return n, err
	}
	return n, nil
}

// hugeUUID is uuid u of copy k: its first eight hex digits XORed with k.
func hugeUUID(u string, k int) string {
	if k == 0 {
		return u
	}
	head, err := strconv.ParseUint(u[:8], 16, 32)
	if err != nil {
		return u
	}
	return fmt.Sprintf("%08x", uint32(head)^uint32(k)) + u[8:]
}

// HugeClaudeCode writes a Claude Code session of at least size bytes
// into dir, made by [WriteHuge] from the shared data's [BigClaudeCode],
// and returns its path (<dir>/<session id>.jsonl) and size in bytes. The
// test is skipped when the shared data is absent (failed under CI=true,
// see [Dir]).
func HugeClaudeCode(tb testing.TB, dir string, size int64) (string, int64) {
	tb.Helper()
	template, err := os.ReadFile(filepath.Join(Dir(tb), BigClaudeCode))
	if err != nil {
		tb.Fatal(err)
	}
	const id = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := WriteHuge(f, template, id, size); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return path, st.Size()
}

// HeapPeak samples the Go heap (runtime/metrics
// /memory/classes/heap/objects:bytes: live objects and those not yet
// swept) every millisecond from the call, after a GC, until stop is
// called. stop returns the highest sample and the heap at the start, in
// bytes. Benchmarks and tests use it to report and bound peak memory.
func HeapPeak() (stop func() (peak, base uint64)) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var (
		mu   sync.Mutex
		peak = base
	)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		s := []metrics.Sample{{Name: sample[0].Name}}
		for {
			metrics.Read(s)
			mu.Lock()
			peak = max(peak, s[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(quit)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return peak, base
	}
}

// HeapLive returns the heap in use after a GC, in bytes: what the
// program holds alive at the call.
func HeapLive() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
