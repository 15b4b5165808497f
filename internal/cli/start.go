package cli

import (
	"time"
)

// initTime is when package cli was initialized: after the Go runtime
// started, before main ran. It is the process's start where the
// operating system does not say (see processStart).
var initTime = time.Now()

// maxStartup bounds how long before initTime the process may have
// started for the operating system's start time to be believed: a Go
// program's start-up takes milliseconds, so an older start means the
// time is wrong or Main runs inside a longer-lived process (a test).
const maxStartup = time.Minute

// processStart returns when the process started, with a monotonic clock
// reading so that time.Since is exact: on Linux the kernel's start time
// of the process (/proc/self/stat starttime, in clock ticks of 10 ms
// since boot, against CLOCK_BOOTTIME), which counts the program's
// loading, the Go runtime's start and every package's initialization
// before main; it is up to one tick early, as starttime is truncated
// to a tick. Elsewhere, or when that time is unavailable, after initTime
// or more than maxStartup before it, it returns initTime.
func processStart() time.Time {
	since, ok := osSinceStart()
	if !ok {
		return initTime
	}
	start := time.Now().Add(-since)
	if start.After(initTime) || initTime.Sub(start) > maxStartup {
		return initTime
	}
	return start
}
