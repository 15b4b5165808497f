//go:build !unix

package transcript_test

import (
	"testing"
	"time"
)

// cpuTime stands in for the process's CPU time where getrusage is
// absent: the wall clock since the process started.
func cpuTime(testing.TB) time.Duration { return time.Since(processStart) }

var processStart = time.Now()
