package jsonlstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular reports a file of the store (a transcript, a sidecar,
// project.json) that is not a regular file: a symbolic link, a FIFO, a
// device or a folder. Nothing was read or written through it. The store
// never follows a link inside its root, so that a link planted there
// cannot make it read or append to a file elsewhere: replace the link by
// the file it names, or remove it.
var ErrNotRegular = errors.New("not a regular file (the store follows no symbolic link)")

// noFollow is added to every open of a store file: O_NOFOLLOW refuses a
// symbolic link swapped in after the Lstat check, O_NONBLOCK keeps a FIFO
// from blocking the open (on a regular file it changes nothing).
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// notRegular returns ErrNotRegular naming path and what it is.
func notRegular(path string, mode fs.FileMode) error {
	what := "a " + mode.Type().String()
	switch {
	case mode&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case mode.IsDir():
		what = "a folder"
	case mode&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	}
	return fmt.Errorf("%s is %s: %w", path, what, ErrNotRegular)
}

// checkRegular returns nil when path is a regular file (not followed),
// ErrNotRegular (wrapped, naming path) when it is something else, or
// Lstat's error.
func checkRegular(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return notRegular(path, st.Mode())
	}
	return nil
}

// openRegular opens path with flag (os.O_RDONLY, os.O_RDWR|os.O_APPEND…)
// only when it is a regular file: checked with Lstat, opened without
// following a link (noFollow), and the opened file checked again. Errors:
// ErrNotRegular (wrapped, naming path), the open's.
func openRegular(path string, flag int) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|noFollow, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, notRegular(path, fs.ModeSymlink)
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// readRegular reads a small regular file (a sidecar, project.json) whole,
// at most limit bytes. Errors: openRegular's, a file over limit.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}
