package ignore

import "strings"

// Outcomes of wild. wmAbortAll and wmAbortToStarStar prune the search:
// no later position of any enclosing star (wmAbortAll), or of any
// enclosing single "*" (wmAbortToStarStar), can match. They keep patterns
// such as "*a*a*a*b" from backtracking exponentially.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches the glob pattern with git's
// wildmatch and WM_PATHNAME: "*", "?" and sets never match a slash; "**"
// preceded by the pattern's start or a slash and followed by its end or
// a slash matches across slashes. Bytes, not runes, are the unit, as in
// git.
func wildmatch(pattern, text string) bool {
	return wild(pattern, 0, text) == wmMatch
}

// wild matches pat[pi:] against t; pat is the whole pattern, so that a
// "**" can look at the byte before it.
func wild(pat string, pi int, t string) int {
	for ; pi < len(pat); pi++ {
		pc := pat[pi]
		if len(t) == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// The next byte literally; a trailing backslash matches
			// nothing.
			pi++
			if pi == len(pat) || t[0] != pat[pi] {
				return wmNoMatch
			}
			t = t[1:]
		case '?':
			if t[0] == '/' {
				return wmNoMatch
			}
			t = t[1:]
		case '[':
			end, hit, res := matchSet(pat, pi, t[0])
			if res != wmMatch {
				return res
			}
			if !hit || t[0] == '/' {
				return wmNoMatch
			}
			pi = end // the closing ']'
			t = t[1:]
		case '*':
			return star(pat, pi, t)
		default:
			if t[0] != pc {
				return wmNoMatch
			}
			t = t[1:]
		}
	}
	if len(t) == 0 {
		return wmMatch
	}
	return wmNoMatch
}

// star matches pat[pi:], which starts with '*', against t.
func star(pat string, pi int, t string) int {
	start := pi
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	matchSlash := false
	if pi-start >= 2 {
		rest := pat[pi:]
		if (start == 0 || pat[start-1] == '/') && (rest == "" || rest[0] == '/' || strings.HasPrefix(rest, `\/`)) {
			if rest != "" && rest[0] == '/' && wild(pat, pi+1, t) == wmMatch {
				return wmMatch // "**/" matching no folder
			}
			matchSlash = true
		}
	}
	if pi == len(pat) {
		// A trailing "**" matches everything, a trailing "*" the rest of
		// the last component.
		if !matchSlash && strings.IndexByte(t, '/') >= 0 {
			return wmAbortToStarStar
		}
		return wmMatch
	}
	if !matchSlash && pat[pi] == '/' {
		// One "*" then a slash: the rest of this component.
		i := strings.IndexByte(t, '/')
		if i < 0 {
			return wmNoMatch
		}
		return wild(pat, pi, t[i:])
	}
	for len(t) > 0 {
		if c := pat[pi]; !isSpecial(c) {
			// The literal after the star must come next: skip to it.
			i := 0
			for i < len(t) && (matchSlash || t[i] != '/') && t[i] != c {
				i++
			}
			if i == len(t) || t[i] != c {
				if matchSlash {
					return wmAbortAll
				}
				return wmAbortToStarStar
			}
			t = t[i:]
		}
		switch r := wild(pat, pi, t); {
		case r == wmNoMatch:
			if !matchSlash && t[0] == '/' {
				return wmAbortToStarStar
			}
		case matchSlash && r == wmAbortToStarStar:
			// A single "*" further on met a slash: this "**" may take it.
		default:
			return r
		}
		t = t[1:]
	}
	return wmAbortAll
}

// isSpecial reports the bytes that start a wildcard or an escape.
func isSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// matchSet matches the byte c against the set that starts at pat[pi]
// ('['). It returns the index of the set's closing ']' and whether c is
// in the set (negation applied). res is wmAbortAll for a set that is not
// closed or names an unknown class: the pattern then matches nothing.
func matchSet(pat string, pi int, c byte) (end int, hit bool, res int) {
	at := func(i int) byte {
		if i < len(pat) {
			return pat[i]
		}
		return 0
	}
	pi++
	negated := false
	if b := at(pi); b == '!' || b == '^' {
		negated = true
		pi++
	}
	var prev byte
	matched := false
	pc := at(pi)
	for {
		if pc == 0 {
			return 0, false, wmAbortAll
		}
		switch {
		case pc == '\\':
			pi++
			pc = at(pi)
			if pc == 0 {
				return 0, false, wmAbortAll
			}
			if c == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && at(pi+1) != 0 && at(pi+1) != ']':
			pi++
			pc = at(pi)
			if pc == '\\' {
				pi++
				pc = at(pi)
				if pc == 0 {
					return 0, false, wmAbortAll
				}
			}
			if prev <= c && c <= pc {
				matched = true
			}
			pc = 0 // a range is no start of another
		case pc == '[' && at(pi+1) == ':':
			s := pi + 2
			j := s
			for at(j) != 0 && at(j) != ']' {
				j++
			}
			if at(j) == 0 {
				return 0, false, wmAbortAll
			}
			if j-s-1 < 0 || pat[j-1] != ':' {
				// No ":]": a plain '['.
				if c == '[' {
					matched = true
				}
				pc = '['
				break
			}
			in, known := inClass(pat[s:j-1], c)
			if !known {
				return 0, false, wmAbortAll
			}
			if in {
				matched = true
			}
			pi = j
			pc = 0
		default:
			if c == pc {
				matched = true
			}
		}
		prev = pc
		pi++
		pc = at(pi)
		if pc == ']' {
			break
		}
	}
	return pi, matched != negated, wmMatch
}

// inClass reports whether c is in the POSIX class name (C locale); known
// is false for an unknown name.
func inClass(name string, c byte) (in, known bool) {
	lower := 'a' <= c && c <= 'z'
	upper := 'A' <= c && c <= 'Z'
	digit := '0' <= c && c <= '9'
	alpha := lower || upper
	graph := 0x21 <= c && c <= 0x7e
	switch name {
	case "alnum":
		return alpha || digit, true
	case "alpha":
		return alpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return graph, true
	case "lower":
		return lower, true
	case "print":
		return 0x20 <= c && c <= 0x7e, true
	case "punct":
		return graph && !alpha && !digit, true
	case "space":
		return c == ' ' || ('\t' <= c && c <= '\r'), true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F'), true
	}
	return false, false
}
