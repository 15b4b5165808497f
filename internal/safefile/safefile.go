package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular reports that a path names something other than a regular
// file: a FIFO, a device, a socket, a folder, or a symlink when
// [Options].NoFollow is set. Nothing was opened; skip the file.
var ErrNotRegular = errors.New("not a regular file")

// ErrOutside reports that a path leads outside [Options].Root, lexically
// or through a symlink. Nothing was opened; skip the file.
var ErrOutside = errors.New("outside the project")

// Options says which files [Open] accepts. The zero value accepts any
// regular file, following symlinks.
type Options struct {
	// Root confines the file to a folder: the file's real path (symlinks
	// resolved) must lie inside Root's real path. A relative name is then
	// relative to Root. Optional: "" places no bound.
	Root string
	// NoFollow refuses a name that is itself a symlink (its folders may
	// still be symlinks). Optional.
	NoFollow bool
}

// Open opens the regular file name for reading under opts. It never
// blocks on a FIFO and never opens a device. It fails with an error
// wrapping [ErrNotRegular] for anything but a regular file, [ErrOutside]
// for a file outside opts.Root, or the [fs.PathError] of the stat or
// open. The caller closes the file.
func Open(name string, opts Options) (*os.File, error) {
	if opts.Root != "" {
		return openIn(name, opts)
	}
	stat := os.Stat
	if opts.NoFollow {
		stat = os.Lstat
	}
	fi, err := stat(name)
	if err != nil {
		return nil, err
	}
	if err := regular(name, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	if err := same(f, name, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openIn is Open with a root.
func openIn(name string, opts Options) (*os.File, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(root, abs)
	if err != nil || !Within(root, abs) {
		return nil, fmt.Errorf("%s: %w (%s)", name, ErrOutside, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	var fi fs.FileInfo
	if opts.NoFollow {
		fi, err = os.Lstat(abs)
	} else {
		fi, err = os.Stat(abs)
	}
	if err != nil {
		return nil, err
	}
	if err := regular(name, fi); err != nil {
		return nil, err
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	if !Within(realRoot, resolved) {
		return nil, fmt.Errorf("%s: %w: it links to %s", name, ErrOutside, resolved)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			// os.Root refuses a path that escapes it with an unexported
			// error; the checks above make this a race with a change.
			return nil, fmt.Errorf("%s: %w: %w", name, ErrOutside, pe.Err)
		}
		return nil, err
	}
	if err := same(f, name, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regular fails unless fi describes a regular file.
func regular(name string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, kind(fi.Mode()))
}

// same fails unless the open file f is a regular file and the one fi
// describes.
func same(f *os.File, name string, fi fs.FileInfo) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := regular(name, st); err != nil {
		return err
	}
	if !os.SameFile(fi, st) {
		return fmt.Errorf("%s: %w (replaced while opened)", name, ErrNotRegular)
	}
	return nil
}

// kind names a file mode's type for errors.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// ReadFile reads at most maxBytes bytes of the regular file name, opened
// with [Open] under opts, and returns them with the file's size in bytes
// (larger than len(data) when the cap cut it). maxBytes must be positive.
// Errors are [Open]'s and those of the read.
func ReadFile(name string, maxBytes int64, opts Options) (data []byte, size int64, err error) {
	f, err := Open(name, opts)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	data, err = io.ReadAll(io.LimitReader(f, maxBytes))
	if err != nil {
		return nil, 0, err
	}
	return data, max(fi.Size(), int64(len(data))), nil
}

// Within reports whether p is base or lies below it; both must be clean
// absolute paths (lexical: no symlink is resolved).
func Within(base, p string) bool {
	if p == base {
		return true
	}
	if !strings.HasSuffix(base, string(filepath.Separator)) {
		base += string(filepath.Separator)
	}
	return strings.HasPrefix(p, base)
}
