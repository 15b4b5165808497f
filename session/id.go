package session

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// MaxIDLength is the longest session id accepted, in bytes. It leaves room
// under the 255-byte file-name limit of common file systems for the
// ".jsonl" suffix and a temporary-file prefix.
const MaxIDLength = 128

// NewID returns a fresh session id: a UUID version 7 (time-ordered, RFC
// 9562), so ids sort by creation time. Claude Code uses version 4 UUIDs;
// both are valid ids.
func NewID() string {
	return newUUID()
}

// newUUID returns a version 7 UUID. uuid.NewV7 fails only when the
// operating system's random source does, after which nothing else in the
// process can work either; uuid.Must panics then, as uuid.New does.
func newUUID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// ValidateID returns nil when id can be used as a session id, else an error
// that wraps [ErrInvalidID] and says why. A valid id is 1 to [MaxIDLength]
// bytes of valid UTF-8, holds no '/', '\\', NUL or other control character,
// does not contain "..", and does not start with '.' or '-' (so it is never
// a hidden file or a command-line flag). The seed's store put a configured
// id straight into a file path (seeds/README.md); every store calls
// ValidateID before touching a path or a key.
func ValidateID(id string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidID, id, why)
	}
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", ErrInvalidID)
	case len(id) > MaxIDLength:
		return fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidID, len(id), MaxIDLength)
	case !utf8.ValidString(id):
		return bad("not valid UTF-8")
	case strings.Contains(id, ".."):
		return bad(`holds ".."`)
	case strings.HasPrefix(id, ".") || strings.HasPrefix(id, "-"):
		return bad(`starts with "." or "-"`)
	}
	for _, r := range id {
		switch {
		case r == '/' || r == '\\':
			return bad("holds a path separator")
		case r == 0:
			return bad("holds a NUL")
		case unicode.IsControl(r):
			return bad("holds a control character")
		}
	}
	return nil
}
