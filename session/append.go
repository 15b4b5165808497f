package session

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// CheckAppend validates an entry given to [Store.Append] for session id:
// it has a type, its session id is empty or id, and a compact boundary
// has its metadata. Every store calls it on each entry of a batch before
// writing any. It returns an error wrapping [ErrInvalidEntry] saying what
// is wrong.
func CheckAppend(id string, e *Entry) error {
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

// AppendContext is what a store knows of a session when it encodes an
// appended entry ([EncodeAppend]).
type AppendContext struct {
	// ID is the session id.
	ID string
	// Prev is the uuid of the entry before this one with a uuid, not a
	// side chain; "" for the first.
	Prev string
	// Now is the time given to an entry without a timestamp, UTC, cut to
	// milliseconds as on the wire.
	Now time.Time
	// Session is the session's metadata: Project and GitBranch fill an
	// entry's cwd and gitBranch.
	Session *Session
	// Version fills an entry's version when empty ("" for none).
	Version string
}

// EncodeAppend fills e's empty fields as [Store.Append] documents and
// returns its line (without the newline), the bytes every store keeps
// for the entry: a JSONL store writes them as a line, a database store
// keeps them as the entry's row, so that a session moved between stores
// stays byte for byte the same. e.Raw becomes the line when the entry
// had to be re-encoded.
//
// Filled when empty: UUID (a version 7 UUID), SessionID, Timestamp
// (c.Now), CWD (the project), GitBranch, Version and ParentUUID (c.Prev).
// A compact boundary gets a null parent and LogicalParentUUID instead
// (Claude Code's form). A side-chain entry's parent is left as given. An
// entry read from a file (with Raw) gets only UUID, SessionID, Timestamp
// and its parent filled, and is written as Raw, byte for byte, when that
// still describes it ([MarshalLine]); a foreign entry with Raw gets
// nothing filled. Errors: those of MarshalLine, wrapping
// [ErrInvalidEntry].
func EncodeAppend(e *Entry, c AppendContext) ([]byte, error) {
	if e.Known() || len(e.Raw) == 0 {
		fill(e, c)
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

// fill sets e's empty fields (see EncodeAppend). An entry read from a
// file (with Raw) gets only its identity, time and parent filled: the
// fields that describe who wrote it (cwd, gitBranch, version) stay as
// they were, so that a line that needs nothing filled is written back
// byte for byte (MarshalLine).
func fill(e *Entry, c AppendContext) {
	if e.UUID == "" {
		e.UUID = NewID()
	}
	if e.SessionID == "" {
		e.SessionID = c.ID
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = c.Now
	} else if len(e.Raw) == 0 {
		e.Timestamp = e.Timestamp.UTC().Truncate(time.Millisecond)
	}
	if len(e.Raw) == 0 {
		if e.CWD == "" && c.Session != nil {
			e.CWD = c.Session.Project
		}
		if e.GitBranch == "" && c.Session != nil {
			e.GitBranch = c.Session.GitBranch
		}
		if e.Version == "" {
			e.Version = c.Version
		}
	}
	switch {
	case e.IsBoundary():
		if e.LogicalParentUUID == "" {
			e.LogicalParentUUID = cmp.Or(e.ParentUUID, c.Prev)
		}
		e.ParentUUID = ""
	case e.ParentUUID == "" && !e.IsSidechain:
		e.ParentUUID = c.Prev
	}
}

// SyncsAtTurn reports whether an Append holding e must be on disk when it
// returns under the stores' "turn" sync policy (jsonlstore.SyncTurn,
// which sqlitestore shares): e ends a turn ([EndsTurn]), or e is a
// compact boundary an operating-system crash could not cheaply redo: one
// the user asked for (Trigger "manual"), a fork or a rewind
// ([TriggerFork], [TriggerRewind]), or one whose summary a model wrote
// (its Usage is set, or its Summarizer names a model, "llm:…"). An
// automatic compaction computed locally (the tiered levels, the
// extractive summary) needs no fsync of its own: it belongs to the turn
// in progress, which the policy may lose to a crash anyway, and a crash
// that loses it loses that turn's later entries with it (both stores keep
// the order of their writes), so the reloaded session is the one before
// it and its next request compacts again. Issue 29: the fsync of those
// boundaries was most of a compacting request's time under load.
func SyncsAtTurn(e *Entry) bool {
	if !e.IsBoundary() {
		return EndsTurn(e)
	}
	m := e.CompactMetadata
	if m == nil {
		return true // not ours: a boundary of unknown making is kept durable
	}
	return m.Trigger != "auto" || m.Usage != nil || strings.HasPrefix(m.Summarizer, "llm:")
}

// EndsTurn reports whether e is an assistant message without tool calls:
// the model is done and the turn ends, which is when a store's "turn"
// sync policy calls fsync. Both message forms are read
// ([Entry.Messages]); a message that does not contain "tool_call" or
// "tool_use" is not decoded.
func EndsTurn(e *Entry) bool {
	if e.Type != TypeAssistant || len(e.Message) == 0 {
		return false
	}
	// Fast path: a message without either word holds no tool call.
	if !bytes.Contains(e.Message, []byte(`"tool_call"`)) && !bytes.Contains(e.Message, []byte(`"tool_use"`)) {
		return true
	}
	msgs, err := e.Messages()
	if err != nil || len(msgs) == 0 {
		return false
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if _, ok := p.(chat.ToolCall); ok {
				return false
			}
		}
	}
	return true
}
