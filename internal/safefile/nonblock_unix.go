//go:build unix

package safefile

import "syscall"

// oNonblock makes opening a FIFO return at once rather than wait for a
// writer; regular files ignore it.
const oNonblock = syscall.O_NONBLOCK
