//go:build unix

package jsonlstore_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mkfifo makes a FIFO at p, and its folders.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
}
