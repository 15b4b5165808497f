package sqlitestore

import (
	"errors"
	"os"
	"syscall"
)

// datasync flushes f's data and the metadata needed to read it back
// (its size), not its times: fdatasync(2), as SQLite syncs its log on
// Linux. fsync(2) also commits the file's modification time to the
// file system's journal, which made each sync of the log several times
// slower under load.
func datasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if !errors.Is(serr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}
