package cli

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// userHZ is the unit of the clock ticks in /proc (USER_HZ): 100 on every
// architecture Go supports on Linux (proc(5)).
const userHZ = 100

// osSinceStart returns how long ago the process started by the kernel's
// account: now on CLOCK_BOOTTIME minus field 22 of /proc/self/stat
// (starttime, ticks since boot). ok is false when either is unavailable.
func osSinceStart() (time.Duration, bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	ticks, ok := statStartTime(stat)
	if !ok {
		return 0, false
	}
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0, false
	}
	since := time.Duration(ts.Nano()) - time.Duration(ticks)*(time.Second/userHZ)
	return since, since >= 0
}

// statStartTime returns field 22 (starttime) of a /proc/PID/stat line.
// The command name (field 2) is in parentheses and may hold spaces and
// parentheses, so fields are counted after the last ')'.
func statStartTime(stat []byte) (uint64, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	// fields[0] is field 3 (state); starttime is field 22.
	if len(fields) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(fields[19]), 10, 64)
	return n, err == nil
}
