package session

import (
	"bytes"
	"fmt"
	"time"
)

// CheckEntry validates an entry given to [Store.Append] for session id,
// before anything is written. Every store calls it, so that entries are
// refused one way. Errors: [ErrInvalidEntry] saying why (no type, another
// session's id, a compact boundary without compactMetadata).
func CheckEntry(id string, e *Entry) error {
	switch {
	case e.Type == "":
		return fmt.Errorf("%w: no type", ErrInvalidEntry)
	case e.SessionID != "" && e.SessionID != id:
		return fmt.Errorf("%w: session id %q", ErrInvalidEntry, e.SessionID)
	case e.IsBoundary() && e.CompactMetadata == nil:
		return fmt.Errorf("%w: compact boundary without compactMetadata", ErrInvalidEntry)
	}
	return nil
}

// EncodeEntry fills e's empty fields as [Store.Append] documents them and
// returns e's transcript line (without the newline): the one place where
// every store turns an appended entry into its line. sess is the
// session's metadata (its Project and GitBranch fill CWD and GitBranch),
// prev the uuid of the session's last entry (or the batch's previous
// one), now the time of the append, version the store's program version
// ("" for none).
//
// An entry of a known type, or built in memory (no Raw), gets UUID (a
// version 7 UUID), SessionID, Timestamp (now; a given one is cut to
// milliseconds, as on the wire) and its parent filled, and when it has no
// Raw also CWD, GitBranch and Version. A compact boundary gets a null
// parent and LogicalParentUUID instead (Claude Code's form); a
// side-chain entry's parent is left as given. A foreign entry with Raw
// gets nothing filled and is written byte for byte ([MarshalLine]). When
// the line differs from e.Raw, e.Raw becomes the line. Errors:
// [ErrInvalidEntry] from MarshalLine.
func EncodeEntry(e *Entry, sess *Session, prev string, now time.Time, version string) ([]byte, error) {
	if e.Known() || len(e.Raw) == 0 {
		fillEntry(e, sess, prev, now, version)
	}
	line, err := MarshalLine(*e)
	if err != nil {
		return nil, err
	}
	if len(e.Raw) > 0 && !bytes.Equal(line, e.Raw) {
		e.Raw = line // re-encoded: Raw is what the store holds
	}
	return line, nil
}

// fillEntry sets e's empty fields for session sess; prev is the uuid of
// the entry before it. An entry read from a file (with Raw) gets only its
// identity, time and parent filled: the fields that describe who wrote it
// (cwd, gitBranch, version) stay as they were, so that a line that needs
// nothing filled is written back byte for byte (MarshalLine).
func fillEntry(e *Entry, sess *Session, prev string, now time.Time, version string) {
	if e.UUID == "" {
		e.UUID = NewID()
	}
	if e.SessionID == "" {
		e.SessionID = sess.ID
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = now
	} else if len(e.Raw) == 0 {
		e.Timestamp = e.Timestamp.UTC().Truncate(time.Millisecond)
	}
	if len(e.Raw) == 0 {
		if e.CWD == "" {
			e.CWD = sess.Project
		}
		if e.GitBranch == "" {
			e.GitBranch = sess.GitBranch
		}
		if e.Version == "" {
			e.Version = version
		}
	}
	switch {
	case e.IsBoundary():
		if e.LogicalParentUUID == "" {
			e.LogicalParentUUID = e.ParentUUID
			if e.LogicalParentUUID == "" {
				e.LogicalParentUUID = prev
			}
		}
		e.ParentUUID = ""
	case e.ParentUUID == "" && !e.IsSidechain:
		e.ParentUUID = prev
	}
}

// ChainUUID returns the uuid an entry after e takes as its parent: e's
// own when it has one and is not a side-chain entry, else prev.
func ChainUUID(e *Entry, prev string) string {
	if e.UUID != "" && !e.IsSidechain {
		return e.UUID
	}
	return prev
}
