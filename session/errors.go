package session

import "errors"

// Sentinel errors of every [Store]. Stores return them wrapped with the
// session id and the operation ("jsonlstore: append 0192…: session busy");
// test with errors.Is. Each comment says what the caller should do.
var (
	// ErrNotFound reports that no session has the given id (or that its
	// file is gone). Nothing was changed. Check the id with List, or
	// create the session first with [Store.Create].
	ErrNotFound = errors.New("session not found")

	// ErrExists reports that [Store.Create] was given the id of a session
	// that already exists. Nothing was written; append to the existing
	// session instead, or create one with an empty id to get a fresh one.
	ErrExists = errors.New("session already exists")

	// ErrSessionBusy reports that another process (or another Store in
	// this process) holds the session's write lock. Nothing was written;
	// retry later, raise the store's lock timeout, or open read-only (Load
	// and List never need the lock).
	ErrSessionBusy = errors.New("session busy: another writer holds its lock")

	// ErrInvalidID reports a session id that cannot be used as a file name
	// or key: empty, longer than [MaxIDLength] bytes, or holding a path
	// separator, "..", a NUL or another control character. Nothing was
	// read or written; use [NewID] or a UUID.
	ErrInvalidID = errors.New("invalid session id")

	// ErrInvalidEntry reports an entry that cannot be stored: no type, a
	// session id that is not the session's, a message that is not valid
	// JSON, a compact boundary without metadata. Nothing of the batch was
	// written; fix the entry.
	ErrInvalidEntry = errors.New("invalid session entry")

	// ErrMalformed reports a transcript line that is not a valid entry.
	// Loading skips such lines and reports each as a [Problem]; the error
	// itself is returned only by [DecodeLine]. Run `agentctx sessions
	// check` to see them and `--repair` to write a clean copy.
	ErrMalformed = errors.New("malformed session entry")

	// ErrClosed reports a call on a [Store] after Close. Open a new store.
	ErrClosed = errors.New("session store closed")
)
