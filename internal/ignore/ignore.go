package ignore

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/agentctx/agentctx/internal/safefile"
)

// Result is the outcome of matching an entry.
type Result uint8

// Results of [Pattern.Match] and [Match].
const (
	// NoMatch: the pattern says nothing about the entry.
	NoMatch Result = iota
	// Exclude: the entry is ignored.
	Exclude
	// Include: a "!" pattern re-includes the entry.
	Include
)

// kind is how a pattern is matched: the fast paths git takes too.
type kind uint8

const (
	kindWild   kind = iota // wildmatch
	kindExact              // a literal name
	kindSuffix             // "*literal"
	kindPrefix             // "literal*"
)

// Pattern is one parsed gitignore line. The zero value matches nothing.
// Safe for concurrent use.
type Pattern struct {
	// glob is the pattern without "!", trailing slash and leading slash.
	glob string
	// lit is the literal of a fast pattern (kind != kindWild).
	lit      string
	kind     kind
	negated  bool
	dirOnly  bool
	basename bool // no slash: matches the entry's name
	lit0     int  // length of glob's literal start, before any wildcard
	domain   []string
}

// Parse parses one line of a gitignore file held in the folder whose
// path components, relative to the root of the walk, are domain (nil for
// the root). ok is false for blank lines, comments and lines that match
// nothing ("!", "/").
func Parse(line string, domain []string) (p Pattern, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return Pattern{}, false
	}
	if line[0] == '!' {
		p.negated = true
		line = line[1:]
	}
	line = trimTrailingSpaces(line)
	if strings.HasSuffix(line, "/") {
		// git strips one slash: "a//" is the pattern "a/", which matches
		// no path.
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return Pattern{}, false
	}
	if !strings.Contains(line, "/") {
		p.basename = true
	} else {
		line = strings.TrimPrefix(line, "/")
	}
	if line == "" {
		return Pattern{}, false
	}
	p.glob = line
	p.domain = append([]string(nil), domain...)
	for p.lit0 < len(line) && !isSpecial(line[p.lit0]) {
		p.lit0++
	}
	switch {
	case !hasSpecial(line):
		p.kind, p.lit = kindExact, line
	case line[0] == '*' && !hasSpecial(line[1:]):
		p.kind, p.lit = kindSuffix, line[1:]
	case line[len(line)-1] == '*' && !hasSpecial(line[:len(line)-1]):
		p.kind, p.lit = kindPrefix, line[:len(line)-1]
	}
	if !p.basename && p.kind != kindExact {
		// A slash pattern's "*" must not cross a slash: wildmatch.
		p.kind = kindWild
	}
	return p, true
}

// hasSpecial reports whether s holds a wildcard or escape character.
func hasSpecial(s string) bool {
	return strings.ContainsAny(s, `*?[\`)
}

// trimTrailingSpaces drops the trailing spaces of s that no backslash
// escapes, as git does.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end == len(s) {
				end = i
			}
			continue
		case '\\':
			i++ // the escaped character stays, whatever it is
		}
		end = len(s)
	}
	return s[:end]
}

// Negated reports whether the pattern re-includes ("!").
func (p Pattern) Negated() bool { return p.negated }

// Match matches the entry whose path components relative to the root of
// the walk are path (the last one its name); isDir says whether it is a
// folder (a symlink is not). It returns NoMatch when the entry is not
// below the pattern's folder.
func (p Pattern) Match(path []string, isDir bool) Result {
	if p.glob == "" || len(path) <= len(p.domain) || (p.dirOnly && !isDir) {
		return NoMatch
	}
	for i, d := range p.domain {
		if path[i] != d {
			return NoMatch
		}
	}
	rest := path[len(p.domain):]
	var hit bool
	switch {
	case p.basename:
		name := rest[len(rest)-1]
		switch p.kind {
		case kindExact:
			hit = name == p.lit
		case kindSuffix:
			hit = strings.HasSuffix(name, p.lit)
		case kindPrefix:
			hit = strings.HasPrefix(name, p.lit)
		default:
			hit = wildmatch(p.glob, name)
		}
	case p.kind == kindExact:
		hit = equalPath(p.glob, rest)
	case pathHasPrefix(rest, p.glob[:p.lit0]):
		hit = p.matchPath(strings.Join(rest, "/"))
	}
	switch {
	case !hit:
		return NoMatch
	case p.negated:
		return Include
	}
	return Exclude
}

// matchPath matches a slash pattern against the path relative to the
// pattern's folder as git's match_pathname does: the literal part before
// the first wildcard is compared, then the rest is wildmatched on its
// own, so that a "**" right after that part counts as starting the
// pattern ("a**/b" matches "a/x/b" in git).
func (p Pattern) matchPath(name string) bool {
	glob := p.glob
	n := 0
	for n < len(glob) && !isSpecial(glob[n]) {
		n++
	}
	if n > 0 {
		if n > len(name) || name[:n] != glob[:n] {
			return false
		}
		glob, name = glob[n:], name[n:]
		if glob == "" && name == "" {
			return true
		}
	}
	return wildmatch(glob, name)
}

// pathHasPrefix reports whether the components rest, joined by slashes,
// start with prefix; it does not allocate.
func pathHasPrefix(rest []string, prefix string) bool {
	for i, c := range rest {
		if prefix == "" {
			return true
		}
		if i > 0 {
			if prefix[0] != '/' {
				return false
			}
			prefix = prefix[1:]
		}
		n := min(len(c), len(prefix))
		if c[:n] != prefix[:n] {
			return false
		}
		prefix = prefix[n:]
	}
	return prefix == ""
}

// equalPath reports whether the slash path s is the components rest.
func equalPath(s string, rest []string) bool {
	for i, c := range rest {
		if i > 0 {
			if s == "" || s[0] != '/' {
				return false
			}
			s = s[1:]
		}
		if !strings.HasPrefix(s, c) {
			return false
		}
		s = s[len(c):]
	}
	return s == ""
}

// Match returns the outcome of the last pattern of ps (the highest
// priority; files read lowest priority first) that matches the entry, or
// NoMatch.
func Match(ps []Pattern, path []string, isDir bool) Result {
	for i := len(ps) - 1; i >= 0; i-- {
		if r := ps[i].Match(path, isDir); r != NoMatch {
			return r
		}
	}
	return NoMatch
}

// Parse all lines of data, an ignore file in the folder domain.
func parseAll(data []byte, domain []string) []Pattern {
	var ps []Pattern
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark, as git skips
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		if p, ok := Parse(sc.Text(), domain); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// MaxFileBytes caps the bytes read from one ignore file; git reads them
// whole, but a real one is a few kilobytes.
const MaxFileBytes = 1 << 20

// ReadFile reads the ignore file name, in the folder domain, and parses
// it, lowest priority first. The file must be a regular file, not a
// symlink (git does not follow a symlinked .gitignore in the work tree;
// set follow for .git/info/exclude, which git does follow); a FIFO or
// device is never opened (package safefile). Only its first
// [MaxFileBytes] bytes are read. It fails with safefile's errors; a
// missing file fails with an error wrapping [fs.ErrNotExist].
func ReadFile(name string, domain []string, follow bool) ([]Pattern, error) {
	data, _, err := safefile.ReadFile(name, MaxFileBytes, safefile.Options{NoFollow: !follow})
	if err != nil {
		return nil, err
	}
	return parseAll(data, domain), nil
}
