package jsonlstore

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxProjectName is the longest project folder name [EscapeProject]
// returns, in bytes: well under the 255-byte file-name limit of common
// file systems.
const MaxProjectName = 200

// hashSep separates a long name's readable prefix from its hash. The
// escaping never produces it, so a hashed name is told apart at a glance.
const hashSep = '~'

// hashHex is the number of hex digits of SHA-256 a long name ends with.
const hashHex = 16

// EscapeProject returns the name of the folder holding a project's
// sessions. The store passes a clean absolute path; any string is
// accepted. The escaping keeps ordinary paths readable and, unlike seed
// 001's (which maps "/a-b" and "/a/b" to the same folder), is injective
// and reversible by [UnescapeProject]:
//
//   - '/' becomes '-';
//   - the bytes A-Z, a-z, 0-9, '.' and '_' are kept, except a '.' that
//     would start the name (no hidden folders, never "." or "..");
//   - every other byte, '-' and '%' included, becomes %XX (upper-case hex).
//
// So "/home/u/my-proj" becomes "-home-u-my%2Dproj". A name longer than
// [MaxProjectName] bytes becomes its first bytes (never a cut %XX), '~'
// and the first 16 hex digits of the SHA-256 of the path; only the
// folder's project.json then gives the path back. The empty path gives
// "".
func EscapeProject(path string) string {
	var b strings.Builder
	b.Grow(len(path) + 8)
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c == '/':
			b.WriteByte('-')
		case kept(c, i):
			b.WriteByte(c)
		default:
			const hexDigits = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xF])
		}
	}
	name := b.String()
	if len(name) <= MaxProjectName {
		return name
	}
	cut := MaxProjectName - 1 - hashHex
	// Do not cut inside a %XX triple.
	if i := strings.LastIndexByte(name[max(cut-2, 0):cut], '%'); i >= 0 {
		cut = max(cut-2, 0) + i
	}
	sum := sha256.Sum256([]byte(path))
	return name[:cut] + string(hashSep) + hex.EncodeToString(sum[:])[:hashHex]
}

// UnescapeProject returns the project path that [EscapeProject] turned
// into name, and true. It returns false for a name EscapeProject cannot
// have produced (only its own canonical escapes are accepted, so
// EscapeProject(path) == name whenever it returns true for a name of at
// most [MaxProjectName] bytes) and for a hashed long name (one holding '~'), whose path
// only the folder's project.json holds.
func UnescapeProject(name string) (string, bool) {
	if len(name) > MaxProjectName {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-':
			b.WriteByte('/')
		case c == '%':
			if i+2 >= len(name) {
				return "", false
			}
			hi, ok1 := unhex(name[i+1])
			lo, ok2 := unhex(name[i+2])
			d := hi<<4 | lo
			if !ok1 || !ok2 || d == '/' || kept(d, b.Len()) {
				return "", false // not how EscapeProject writes d
			}
			b.WriteByte(d)
			i += 2
		case kept(c, b.Len()):
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// kept reports whether EscapeProject writes byte c, at byte position i of
// the path, as itself.
func kept(c byte, i int) bool {
	return c == '.' && i > 0 || c == '_' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// unhex decodes one upper-case hex digit, as EscapeProject writes them.
func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
