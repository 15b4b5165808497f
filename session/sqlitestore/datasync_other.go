//go:build !linux

package sqlitestore

import "os"

// datasync flushes f to stable storage: f.Sync (fsync(2), or
// F_FULLFSYNC on macOS).
func datasync(f *os.File) error { return f.Sync() }
