//go:build unix

package transcript_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time the process used so far (user and
// system, every thread: GC included). On a shared machine MB/s of CPU
// time says more than MB/s of wall time.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
