package cli

import (
	"io"
	"sync"
)

// logBufferMax bounds the bytes a [logWriter] holds for its writer: a
// Write beyond it waits until the writer has taken the buffer.
const logBufferMax = 1 << 20

// logWriter hands a server's log lines to its writer (stderr: a file, a
// pipe, a terminal) from one goroutine of its own, so that a request
// logging its access record copies the line and goes on, instead of
// making the write(2) under the log handler's lock while every other
// request waits for that lock (a tenth of a 200-session load's blocked
// time, in the service's turn). Lines are written in order, as soon as
// the goroutine runs; those piling up meanwhile go out in one write.
// Close writes what is left. Safe for concurrent use.
type logWriter struct {
	w    io.Writer
	mu   sync.Mutex
	cond *sync.Cond // signaled when buf was taken or closed is set
	buf  []byte     // lines not yet taken by the goroutine
	kick chan struct{}
	done chan struct{}
	// closed is set by Close: Write then writes through.
	closed bool
}

// newLogWriter starts the goroutine writing to w; Close stops it.
func newLogWriter(w io.Writer) *logWriter {
	l := &logWriter{w: w, kick: make(chan struct{}, 1), done: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	go l.run()
	return l
}

// Write copies p for the goroutine and returns len(p), nil; once the
// buffer holds logBufferMax bytes it waits for the goroutine first.
// After Close it writes p through. The writer's errors are not
// reported (a log line has nowhere else to go).
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	for !l.closed && len(l.buf) > 0 && len(l.buf)+len(p) > logBufferMax {
		l.cond.Wait()
	}
	if l.closed {
		l.mu.Unlock()
		<-l.done // after the lines buffered before Close
		return l.w.Write(p)
	}
	l.buf = append(l.buf, p...)
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default: // the goroutine is already due to run
	}
	return len(p), nil
}

// run writes what Write buffered until Close.
func (l *logWriter) run() {
	defer close(l.done)
	var spare []byte
	for range l.kick {
		l.mu.Lock()
		out := l.buf
		l.buf = spare[:0]
		closed := l.closed
		l.cond.Broadcast()
		l.mu.Unlock()
		if len(out) > 0 {
			_, _ = l.w.Write(out)
		}
		spare = out
		if closed {
			return
		}
	}
}

// Close writes the lines still buffered and stops the goroutine; later
// Writes go straight to the writer. It returns nil.
func (l *logWriter) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default: // a kick is pending: the goroutine will see closed
	}
	<-l.done
	return nil
}
