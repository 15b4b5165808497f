package server

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// The Server-Timing metrics (https://www.w3.org/TR/server-timing/) a
// response may carry after [ServerTimingMetric]'s total, each
// "name;dur=D" in milliseconds, present when the request spent time in
// it: where a slow request's time went, for an operator (a browser's
// network panel shows them) and for the load generator's tail report.
// The parts do not add up to the total: what is left is the Engine's own
// work (the window, the prompt, the limiter, a compaction's strategy)
// and the answer's encoding.
const (
	// TimingRead is reading and decoding the request's body.
	TimingRead = "read"
	// TimingLock is waiting for the session: the requests before this
	// one on the same session, then reading its metadata from the store.
	TimingLock = "lock"
	// TimingResume is resuming the session's Engine from the store (a
	// session this server had not cached, or one another server wrote).
	TimingResume = "resume"
	// TimingStore is the Engine's writes to the store: encoding the
	// entries, the store's writer lock, its transaction and, for a turn's
	// end, the wait for its fsync (a resume's writes are in TimingResume
	// too).
	TimingStore = "store"
	// TimingCompact is a next-request call's compactions: from the
	// Engine's start on the request to its end, when it compacted (the
	// compaction's writes, in TimingStore too, included).
	TimingCompact = "compact"
)

// timingNames are the metrics in the header's order.
var timingNames = [...]string{TimingRead, TimingLock, TimingResume, TimingStore, TimingCompact}

// phase indexes timingNames.
type phase int

const (
	phaseRead phase = iota
	phaseLock
	phaseResume
	phaseStore
	phaseCompact
)

// timing is the time one request spent in each phase.
type timing [len(timingNames)]time.Duration

type timingKey struct{}

// withTiming returns ctx carrying t, for the handlers and the store
// under them to add to.
func withTiming(ctx context.Context, t *timing) context.Context {
	return context.WithValue(ctx, timingKey{}, t)
}

// spent adds the time since start to ctx's request's phase p; a context
// without a timing (a test's, the store's own) adds nowhere.
func spent(ctx context.Context, p phase, start time.Time) {
	if t, ok := ctx.Value(timingKey{}).(*timing); ok {
		t[p] += time.Since(start)
	}
}

// header returns the Server-Timing value of a request that took total
// so far: [ServerTimingMetric]'s then each phase it spent a microsecond
// or more in.
func (t *timing) header(total time.Duration) string {
	var b strings.Builder
	b.WriteString(ServerTimingMetric)
	appendDur(&b, total)
	for i, d := range t {
		if d >= time.Microsecond {
			b.WriteString(", ")
			b.WriteString(timingNames[i])
			appendDur(&b, d)
		}
	}
	return b.String()
}

// appendDur writes ";dur=" and d in milliseconds, to the microsecond.
func appendDur(b *strings.Builder, d time.Duration) {
	b.WriteString(";dur=")
	b.WriteString(strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64))
}
