package loadgen

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// TestProcessCPU reads this process's own CPU time: it grows with the
// work the test does, and a process that does not exist has none.
func TestProcessCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	read := func() CPU {
		c, err := processCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// The time grows by 50 ms within 10 s of wall time, however busy
	// the machine.
	before := read()
	x := 0
	for deadline := time.Now().Add(10 * time.Second); read().Total()-before.Total() < 50*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("10 s of work: CPU time %+v → %+v", before, read())
		}
		for i := range 100_000 {
			x += i * i
		}
	}
	_ = x
	if after := read(); after.User < before.User || after.System < before.System {
		t.Errorf("CPU time went back: %+v → %+v", before, after)
	}
	if _, err := processCPU(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
