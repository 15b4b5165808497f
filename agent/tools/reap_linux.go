package tools

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// killTagged kills every process whose environment holds tag
// ("KEY=value"): what a command left running after it returned, in the
// background (&, nohup) or in a session of its own (setsid), which the
// kill of its process group misses. A process that cleared its
// environment (env -i) escapes it; a sandboxed command's PID namespace
// does not let it. It scans /proc until a pass finds none, at most 5
// passes, so that a process forked during a scan is found by the next.
func killTagged(tag string) {
	needle := []byte("\x00" + tag + "\x00")
	first := []byte(tag + "\x00")
	self := os.Getpid()
	for range 5 {
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := 0
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || (!bytes.HasPrefix(env, first) && !bytes.Contains(env, needle)) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				found++
			}
		}
		if found == 0 {
			return
		}
	}
}
