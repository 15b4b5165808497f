package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxIgnoreBytes caps what is read of one .gitignore file, in bytes.
const maxIgnoreBytes = 256 << 10

// errStop ends a walk early (a cap was reached).
var errStop = fs.SkipAll

// walker walks a directory tree the way git sees it: .git is skipped, and
// the .gitignore files from the base down (and .git/info/exclude) apply.
// Symlinks are reported, never followed.
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
	var pats []gitignore.Pattern
	pats = append(pats, readIgnore(filepath.Join(w.base, ".git", "info", "exclude"), nil)...)
	var domain []string
	if rel, err := filepath.Rel(w.base, start); err == nil && rel != "." && within(w.base, start) {
		parts := strings.Split(filepath.ToSlash(rel), "/")
		// .gitignore files of the directories above start.
		pats = append(pats, readIgnore(filepath.Join(w.base, ".gitignore"), nil)...)
		for i := 1; i < len(parts); i++ {
			pats = append(pats, readIgnore(filepath.Join(w.base, filepath.Join(parts[:i]...), ".gitignore"), parts[:i])...)
		}
		domain = parts
	}
	err := w.dir(ctx, start, domain, "", 1, maxDepth, pats, fn)
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

func (w walker) dir(ctx context.Context, abs string, domain []string, rel string, depth, maxDepth int, pats []gitignore.Pattern, fn visit) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pats = append(pats[:len(pats):len(pats)], readIgnore(filepath.Join(abs, ".gitignore"), domain)...)
	m := gitignore.NewMatcher(pats)
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
		if m.Match(sub, d.IsDir()) {
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

// readIgnore parses one ignore file; a missing file has no patterns.
func readIgnore(p string, domain []string) []gitignore.Pattern {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var pats []gitignore.Pattern
	sc := bufio.NewScanner(&limited{f, maxIgnoreBytes})
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pats = append(pats, gitignore.ParsePattern(line, domain))
	}
	return pats
}

type limited struct {
	f *os.File
	n int
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, os.ErrClosed
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= n
	return n, err
}

// isBinary reports whether the file at p has a NUL in its first bytes.
func isBinary(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true
	}
	defer f.Close()
	buf := make([]byte, binarySniff)
	n, _ := f.Read(buf)
	return bytes.IndexByte(buf[:n], 0) >= 0
}
