//go:build unix

package safefile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/safefile"
)

// openWithin runs Open in a goroutine and fails the test when it does not
// return within two seconds: a FIFO opened for reading blocks until a
// writer comes.
func openWithin(t *testing.T, name string, opts safefile.Options) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := safefile.Open(name, opts)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Second):
		t.Fatalf("Open(%s) hangs", name)
		return nil
	}
}

func TestOpen(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "id_ed25519")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "hello")
	write("docs/guide.md", "guide")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	link("fifo", "to-fifo")
	link("/dev/stdin", "to-stdin")
	link("/dev/null", "to-null")
	link(secret, "to-secret")
	link("../"+filepath.Base(outside)+"/id_ed25519", "to-secret-rel")
	link("docs/guide.md", "to-guide")
	link("docs", "docs-link")

	tests := []struct {
		name string
		file string
		opts safefile.Options
		want error // nil: opens
	}{
		{"regular", "README.md", safefile.Options{}, nil},
		{"regular in root", "README.md", safefile.Options{Root: root}, nil},
		{"fifo", "fifo", safefile.Options{}, safefile.ErrNotRegular},
		{"fifo in root", "fifo", safefile.Options{Root: root}, safefile.ErrNotRegular},
		{"symlink to fifo", "to-fifo", safefile.Options{}, safefile.ErrNotRegular},
		{"symlink to stdin", "to-stdin", safefile.Options{}, safefile.ErrNotRegular},
		{"symlink to stdin in root", "to-stdin", safefile.Options{Root: root}, safefile.ErrNotRegular},
		{"symlink to a device", "to-null", safefile.Options{}, safefile.ErrNotRegular},
		{"folder", "docs", safefile.Options{}, safefile.ErrNotRegular},
		{"symlink outside, unconfined", "to-secret", safefile.Options{}, nil},
		{"symlink outside", "to-secret", safefile.Options{Root: root}, safefile.ErrOutside},
		{"relative symlink outside", "to-secret-rel", safefile.Options{Root: root}, safefile.ErrOutside},
		{"symlink inside", "to-guide", safefile.Options{Root: root}, nil},
		{"through a symlinked folder inside", "docs-link/guide.md", safefile.Options{Root: root}, nil},
		{"no follow refuses a symlink", "to-guide", safefile.Options{NoFollow: true}, safefile.ErrNotRegular},
		{"no follow in root", "to-guide", safefile.Options{Root: root, NoFollow: true}, safefile.ErrNotRegular},
		{"dot dot", "../" + filepath.Base(outside) + "/id_ed25519", safefile.Options{Root: root}, safefile.ErrOutside},
		{"absent", "nothing", safefile.Options{}, fs.ErrNotExist},
		{"absent in root", "nothing", safefile.Options{Root: root}, fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := tt.file
			if tt.opts.Root == "" {
				name = filepath.Join(root, name)
			}
			err := openWithin(t, name, tt.opts)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Open = %v, want success", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open = %v, want %v", err, tt.want)
			}
		})
	}
}
