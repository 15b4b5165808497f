package tools

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentctx/agentctx/internal/ignore"
	"github.com/agentctx/agentctx/internal/safefile"
)

// errStop ends a walk early (a cap was reached).
var errStop = fs.SkipAll

// walker walks a directory tree the way git sees it: .git is skipped, and
// the .gitignore files from the base down (and .git/info/exclude) apply,
// with git's semantics (package internal/ignore). Symlinks are reported,
// never followed; an ignore file that is a symlink, a FIFO or a device is
// not read.
type walker struct {
	base string // the tree the ignore rules are relative to
}

// visit is called for each entry below the start directory, in lexical
// order; rel is relative to the walk's start, with '/' separators, depth
// is 1 for the start's own entries. Returning fs.SkipDir skips a
// directory; errStop ends the walk.
type visit func(rel string, d fs.DirEntry, depth int) error

// walk visits the tree under start (a directory inside w.base, or w.base)
// down to maxDepth levels (0: no limit).
func (w walker) walk(ctx context.Context, start string, maxDepth int, fn visit) error {
	var pats []ignore.Pattern
	pats = append(pats, readIgnore(filepath.Join(w.base, ".git", "info", "exclude"), nil, true)...)
	var domain []string
	if rel, err := filepath.Rel(w.base, start); err == nil && rel != "." && within(w.base, start) {
		parts := strings.Split(filepath.ToSlash(rel), "/")
		// .gitignore files of the directories above start.
		pats = append(pats, readIgnore(filepath.Join(w.base, ".gitignore"), nil, false)...)
		for i := 1; i < len(parts); i++ {
			pats = append(pats, readIgnore(filepath.Join(w.base, filepath.Join(parts[:i]...), ".gitignore"), parts[:i], false)...)
		}
		domain = parts
	}
	err := w.dir(ctx, start, domain, "", 1, maxDepth, pats, fn)
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

func (w walker) dir(ctx context.Context, abs string, domain []string, rel string, depth, maxDepth int, pats []ignore.Pattern, fn visit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pats = append(pats[:len(pats):len(pats)], readIgnore(filepath.Join(abs, ".gitignore"), domain, false)...)
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil // unreadable directories are skipped
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, d := range ents {
		name := d.Name()
		if name == ".git" {
			continue
		}
		sub := append(domain[:len(domain):len(domain)], name)
		if ignore.Match(pats, sub, d.IsDir()) == ignore.Exclude {
			continue
		}
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		err := fn(r, d, depth)
		if errors.Is(err, fs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if d.IsDir() && (maxDepth == 0 || depth < maxDepth) {
			if err := w.dir(ctx, filepath.Join(abs, name), sub, r, depth+1, maxDepth, pats, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// readIgnore parses one ignore file; a missing or unreadable one, or one
// that is not a regular file (or a symlink, unless follow), has no
// patterns.
func readIgnore(p string, domain []string, follow bool) []ignore.Pattern {
	pats, err := ignore.ReadFile(p, domain, follow)
	if err != nil {
		return nil
	}
	return pats
}

// isBinary reports whether the file at p has a NUL in its first bytes.
func isBinary(p string) bool {
	f, err := safefile.Open(p, safefile.Options{})
	if err != nil {
		return true
	}
	defer f.Close()
	buf := make([]byte, binarySniff)
	n, _ := f.Read(buf)
	return bytes.IndexByte(buf[:n], 0) >= 0
}
