// Package jsonlstore is the embedded default [session.Store]: one
// append-only JSON Lines transcript per session, in the line format of
// seed 001 and Claude Code, so that a session survives the agent (a
// crash, a kill -9, a resume a week later).
//
// # Layout
//
//	<root>/projects/<escaped project path>/project.json      {"path": "<project path>"}
//	<root>/projects/<escaped project path>/<id>.jsonl        the transcript (the truth)
//	<root>/projects/<escaped project path>/<id>.meta.json    the sidecar (a cache)
//
// The root is Options.Root, by default [DefaultRoot]: $AGENTCTX_HOME, else
// $XDG_DATA_HOME/agentctx (when absolute), else ~/.local/share/agentctx. The folder name
// is [EscapeProject] of the project's absolute path: readable, and unlike
// seed 001's escaping collision-free and reversible ([UnescapeProject]);
// project.json holds the path too, for names too long to keep whole.
// Folders are created 0700 and files 0600, temporary files included:
// transcripts hold source code and secrets.
//
// # Sidecar
//
// The sidecar holds the [session.Session] metadata plus an index of the
// transcript: the bytes it covers, the byte offsets of the compact
// boundaries and the last entry's uuid. It is rewritten atomically (a
// temporary file renamed over it) by the session's writer at Create,
// Update, Sync, Close, after a boundary, and otherwise at most once a
// second (or every 1024 appends). Readers that find the transcript longer than the
// sidecar says scan only the new tail; a missing or corrupt sidecar (a
// foreign .jsonl dropped in, a crash) is rebuilt by one streaming scan.
// Only the caller-owned fields set through Update (Title, Model,
// Metadata) and Create's Origin live nowhere else.
//
// # Writing
//
// The first Append (or Update, or Delete) of a session takes an advisory
// lock on its transcript (flock(2) through github.com/gofrs/flock) and
// keeps it until Close or Delete, so two processes never interleave
// bytes: the second gets [session.ErrSessionBusy] at once, or after
// Options.LockTimeout. A session written holds 2 file descriptors; past
// Options.MaxOpen (default [DefaultMaxOpen]) sessions the least recently
// used idle one is closed, its lock released, and taken again by its next
// write, so a process serving thousands of sessions holds a bounded
// number of descriptors. Running out of descriptors anyway (EMFILE) is an
// error of the write, which then wrote nothing. Opening learns the last entry's uuid and whether
// the last line is torn by reading backwards from the end; after a torn
// line the next write starts with a newline, so the torn bytes stay on a
// line of their own (reported by Load) and the new entries load. Each
// Append is marshaled into one buffer and written with one write on a
// file opened with O_APPEND: once Append returns, the entries are in the
// file and survive the process. Options.Sync says when they are also
// fsynced (see [SyncPolicy]). [Store.Lock] takes the lock without
// writing: an Engine calls it when it resumes a session.
//
// [Store.Import] writes a whole session to a temporary file and links it
// into place, so that a killed import leaves nothing; [Store.Rewrite]
// replaces a transcript under its lock (a repair in place), keeping the
// old one as "<id>.jsonl.bak". Every file of the store is opened only
// when it is a regular file, never through a symbolic link
// ([ErrNotRegular]).
//
// # Loading
//
// Load seeks to the last compact boundary the index knows and reads from
// there only, so resuming a long session costs the live part, not the
// file: BenchmarkLoad100MB loads the live megabyte of a 100 MB session in
// about 20 ms with an 11 MiB peak heap, against 1.6 s and 370 MiB for a
// 100 MB session without a compaction. Lines of any length are read: one
// 64 MiB tool result is one line.
//
// # Concurrency
//
// A [Store] is safe for concurrent use; calls on one session are
// serialized in the process, and Appends from several goroutines keep one
// linear parentUuid chain. Reads (Get, List, Load) never take the file
// lock and work while another process writes.
package jsonlstore
