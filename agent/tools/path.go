package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside reports that a path argument leaves the project: it climbs
// out with "..", is absolute outside Root, or goes through a symlink whose
// target is outside Root. Nothing was read or written; give a path inside
// the project, or set Env.AllowOutside.
var ErrOutside = errors.New("path is outside the project")

// resolve turns a tool's path argument into an absolute path with every
// existing symlink resolved, and checks that it stays inside env.Root
// unless env.AllowOutside. A path that does not exist yet (write_file)
// resolves its longest existing ancestor and appends the rest.
func resolve(env Env, p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q holds a NUL byte", p)
	}
	root := filepath.Clean(env.Root)
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	} else {
		abs = filepath.Join(root, p)
	}
	if !env.AllowOutside && !within(root, abs) && !within(evalOr(root), abs) {
		return "", fmt.Errorf("%s: %w (%s); paths are relative to the project root", p, ErrOutside, root)
	}
	resolved, err := realPath(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	if env.AllowOutside {
		return resolved, nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("project root %s: %w", root, err)
	}
	if !within(realRoot, resolved) {
		return "", fmt.Errorf("%s: %w: a symlink leads to %s", p, ErrOutside, resolved)
	}
	return resolved, nil
}

// realPath resolves the symlinks of abs's longest existing prefix.
func realPath(abs string) (string, error) {
	rest := ""
	cur := abs
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			if rest == "" {
				return r, nil
			}
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		// A dangling symlink: resolve its target rather than its name.
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			t, rerr := os.Readlink(cur)
			if rerr != nil {
				return "", rerr
			}
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(cur), t)
			}
			if t == cur {
				return "", fmt.Errorf("symlink loop at %s", cur)
			}
			cur = filepath.Clean(t)
			continue
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Join(cur, rest), nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is root or below it; both are clean and absolute.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// display is how a resolved path is shown to the model: relative to the
// project root when inside it.
func display(env Env, abs string) string {
	for _, root := range []string{filepath.Clean(env.Root), evalOr(env.Root)} {
		if within(root, abs) {
			rel, _ := filepath.Rel(root, abs)
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

func evalOr(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return r
}
