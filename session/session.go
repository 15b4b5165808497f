package session

import (
	"context"
	"time"
)

// Session is a session's metadata: what `agentctx sessions list` shows.
// Stores keep it current as entries are appended; [Store.Update] changes
// the fields a caller owns (Title, Model, Metadata). Session is plain data.
type Session struct {
	// ID is the session id (see [ValidateID]).
	ID string `json:"id"`
	// Project is the absolute path of the project (working directory) the
	// session belongs to.
	Project string `json:"project"`
	// Title is the first user prompt cut to one line of at most
	// [MaxTitleRunes] runes, unless set through Update.
	Title string `json:"title,omitempty"`
	// Created is when the session was created; LastActivity when its last
	// entry was written (UTC).
	Created      time.Time `json:"created"`
	LastActivity time.Time `json:"last_activity"`
	// GitBranch is the project's git branch when the session was created,
	// detected once ("" outside a repository).
	GitBranch string `json:"git_branch,omitempty"`
	// Model is the model the session talks to, the last one an assistant
	// entry named unless set through Update.
	Model string `json:"model,omitempty"`
	// Entries is the number of entries (lines) in the transcript, foreign
	// ones included.
	Entries int `json:"entries"`
	// Messages is the number of message entries in the live window: those
	// after the last compact boundary (a Claude Code response written over
	// several lines counts each line). See [Session.Observe].
	Messages int `json:"messages"`
	// PromptTokens is the last known prompt size in tokens: the prompt
	// tokens of the last provider-reported usage (input plus cache read
	// and write), or, after a compact boundary that records its
	// postTokens, that size until the next usage; 0 when none is known.
	PromptTokens int `json:"prompt_tokens"`
	// Compactions is the number of compact boundaries.
	Compactions int `json:"compactions,omitempty"`
	// Origin says where an imported session came from: the format and
	// file ("claude-code:/home/…/x.jsonl"); "" for a native session.
	Origin string `json:"origin,omitempty"`
	// Metadata holds the caller's own string fields.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// MaxTitleRunes is the length in runes a session title is cut to.
const MaxTitleRunes = 80

// ListOptions selects the sessions [Store.List] returns. The zero value
// lists every session.
type ListOptions struct {
	// Project, when set, lists only the sessions of this project path
	// (compared after filepath.Clean). Optional.
	Project string
	// Limit, when positive, returns at most this many sessions, the most
	// recently active first. Optional.
	Limit int
}

// LoadOptions configures [Store.Load]. The zero value loads the live part.
type LoadOptions struct {
	// All loads the whole transcript instead of only the live part (from
	// the last complete compact boundary on). Optional.
	All bool
}

// Transcript is a loaded session: its metadata and its entries in
// conversation order, with what was skipped or repaired on the way.
type Transcript struct {
	Session Session
	// Entries are the live entries (from the last complete compact
	// boundary on, the boundary included) or, with LoadOptions.All, every
	// entry of the conversation, as [Resolve] returns them: in file order,
	// which is the parentUuid chain's order where it is sound, with the
	// chain's breaks bridged and abandoned branches and side-chain entries
	// left out.
	Entries []Entry
	// Offset is the byte offset in the file of the first line read.
	Offset int64
	// Problems lists the lines skipped (torn, malformed) and the links
	// repaired, in file order.
	Problems []Problem
}

// ProblemKind names a kind of [Problem].
type ProblemKind string

// Problem kinds, as `agentctx sessions check` reports them.
const (
	// ProblemTornLine is a line cut short by a crash: the last line without
	// its newline, skipped unless its entry is complete (then kept and
	// Repaired: the next append must start a new line); or, in the middle
	// of the file, a line that ends in incomplete JSON or whose torn bytes
	// have the next append glued to them (see [Read]).
	ProblemTornLine ProblemKind = "torn-line"
	// ProblemMalformed is a line that is not a JSON object or not an entry.
	ProblemMalformed ProblemKind = "malformed"
	// ProblemDanglingParent is a parentUuid that names no entry, or a null
	// parentUuid on an entry that is neither the first nor a compact
	// boundary.
	ProblemDanglingParent ProblemKind = "dangling-parent"
	// ProblemCycle is a parentUuid chain that loops (which takes a link to
	// an entry written later).
	ProblemCycle ProblemKind = "cycle"
	// ProblemDuplicateUUID is a uuid used by two entries.
	ProblemDuplicateUUID ProblemKind = "duplicate-uuid"
	// ProblemOrphanResult is a tool result without an earlier call of its
	// id in the same context.
	ProblemOrphanResult ProblemKind = "orphan-result"
	// ProblemAfterTorn is an entry after a torn line in the middle of the
	// file (a crash, then more appends).
	ProblemAfterTorn ProblemKind = "after-torn-line"
	// ProblemIncompleteBoundary is a compact boundary followed by fewer
	// entries than its metadata announces (a compaction cut short); see
	// [Live].
	ProblemIncompleteBoundary ProblemKind = "incomplete-boundary"
	// ProblemUnreadable is an entry whose message cannot be decoded.
	ProblemUnreadable ProblemKind = "unreadable-message"
)

// Problem is one defect found in a transcript. Line is 1-based (0 when the
// line number is not known, as when loading started at a boundary's
// offset); Offset is the byte offset of the line's start; UUID names the
// entry when it has one. Repaired says whether loading worked around it.
type Problem struct {
	Kind     ProblemKind `json:"kind"`
	File     string      `json:"file,omitempty"`
	Line     int         `json:"line,omitempty"`
	Offset   int64       `json:"offset"`
	UUID     string      `json:"uuid,omitempty"`
	Detail   string      `json:"detail"`
	Repaired bool        `json:"repaired,omitempty"`
}

// Warning reports whether p is a warning rather than a defect: a torn
// line ([ProblemTornLine]: a write a crash or a kill cut short, which its
// writer was never told had succeeded) or an entry after one
// ([ProblemAfterTorn]). Reading recovers every complete entry around
// them, and appends go on on a fresh line, so a session that has one
// loads whole; [Report.OK] ignores warnings, and a repair removes them.
func (p Problem) Warning() bool {
	return p.Kind == ProblemTornLine || p.Kind == ProblemAfterTorn
}

// Store persists sessions. Implementations: package jsonlstore (one JSONL
// file per session, the command line's default), package sqlitestore (one
// SQLite database, the service's default) and package pgstore
// (PostgreSQL, shared by several servers); package storeurl opens one
// from a URL. Every implementation passes sessiontest.Run.
//
// All methods are safe for concurrent use. Writes to one session are
// serialized by a lock that the first Append takes and keeps until Close
// or Delete: a second writer, in this process or another, gets
// [ErrSessionBusy]. Reads never take the lock.
type Store interface {
	// Create records a new session with s's metadata and returns it as
	// stored. An empty s.ID gets [NewID]; an empty s.Project is an error;
	// Created defaults to now and GitBranch is detected once, here, when
	// empty. Errors: [ErrInvalidID], [ErrExists].
	Create(ctx context.Context, s Session) (Session, error)

	// Append writes entries to the end of session id, in one write, and
	// returns them as stored. It fills UUID, SessionID, Timestamp, CWD,
	// GitBranch and ParentUUID (the session's last entry, or the previous
	// entry of the batch) when they are empty; a compact boundary keeps a
	// null parent and gets LogicalParentUUID instead. Append returns after
	// the bytes are written to the file (and synced, by the store's sync
	// policy): a process killed afterwards loses none of them. Errors:
	// [ErrNotFound], [ErrInvalidID], [ErrInvalidEntry], [ErrSessionBusy].
	Append(ctx context.Context, id string, entries ...Entry) ([]Entry, error)

	// Sync flushes session id's appended entries to stable storage
	// (fsync), whatever the sync policy; an agent calls it at the end of
	// a turn. Errors: [ErrNotFound], [ErrInvalidID].
	Sync(ctx context.Context, id string) error

	// Load reads session id: by default only its live part, from the last
	// complete compact boundary on, without reading the earlier part of
	// the file. Torn and malformed lines are skipped and reported in
	// Problems, never fatal. Errors: [ErrNotFound], [ErrInvalidID].
	Load(ctx context.Context, id string, opts LoadOptions) (*Transcript, error)

	// Get returns session id's metadata. Errors: [ErrNotFound],
	// [ErrInvalidID].
	Get(ctx context.Context, id string) (Session, error)

	// List returns the sessions opts selects, the most recently active
	// first.
	List(ctx context.Context, opts ListOptions) ([]Session, error)

	// Update applies fn to session id's metadata under the session's lock
	// and stores the result: a read-modify-write. fn may change Title,
	// Model and Metadata; changes to other fields are ignored. If fn
	// returns an error, nothing is stored and Update returns it. Errors:
	// [ErrNotFound], [ErrInvalidID], [ErrSessionBusy].
	Update(ctx context.Context, id string, fn func(*Session) error) (Session, error)

	// Delete removes session id and its transcript. Errors: [ErrNotFound],
	// [ErrInvalidID], [ErrSessionBusy] when another process is writing it.
	Delete(ctx context.Context, id string) error

	// Close releases the store's locks and files. Later calls return
	// [ErrClosed].
	Close() error
}

// Locker is implemented by a [Store] whose writes take a per-session lock
// (package jsonlstore's file lock). Lock takes session id's lock now, as
// the first write would, and keeps it as that write would (until the
// store's Close or the session's Delete); it writes nothing. A writer
// that is going to write (an agentctx Engine at Open and Resume) calls it
// first, so that a second writer learns at once that the session is busy
// rather than at its first write. Errors: [ErrSessionBusy] (nothing was
// written: retry later, or open read-only), [ErrNotFound],
// [ErrInvalidID], [ErrClosed].
type Locker interface {
	Lock(ctx context.Context, id string) error
}
