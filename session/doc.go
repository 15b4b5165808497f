// Package session defines what a session store keeps and how a session
// comes back: [Session] metadata, the transcript [Entry] (seed 001's
// JSONLEntry, which is Claude Code's line format), the [Store] interface
// with its sentinel errors, and the logic every store shares: decoding a
// line, walking and repairing the parentUuid chain, and rebuilding the
// live context window from the entries after the last compact boundary.
//
// # Format
//
// A transcript is JSON Lines, one [Entry] per line. Messages are stored in
// the chat package's JSON form, which keeps every field of a message; a
// Claude Code transcript (content blocks, one line per block of a
// response, tool results in user lines) reads the same way. A compaction
// writes a compact boundary (a system entry with subtype
// "compact_boundary", a null parentUuid and a logicalParentUuid) followed
// by the window as compaction left it, its summary or note marked
// isCompactSummary.
//
// # Resume
//
// The live window is the entries from the last complete boundary on. In
// them the parentUuid chain is followed from the last entry back; where a
// link dangles or loops, the chain continues with the entry before it in
// file order, so a damaged chain never makes resume return a fraction of
// the session (Claude Code's most reported resume bug).
//
// # Functions
//
// [Read] and [ReadFile] decode a transcript, skipping and reporting torn
// and malformed lines; [Resolve] orders the entries along the parentUuid
// tree, bridging its breaks; [Live] finds the last complete compact
// boundary; [Restore] rebuilds the window from there, exactly as
// [Recorder] wrote it ([Snapshot] at each compaction). [Messages] turns
// entries into the conversation, merging Claude Code's one-line-per-block
// responses. [Session.Observe] keeps metadata the same way in every store.
//
// # Integrity
//
// [Check] reports what is wrong with a transcript, each [Problem] naming
// file, line and byte offset; [CheckFile] and [CheckReader] give the same
// report streaming a file, in memory proportional to its number of
// entries rather than its size; [Repair] returns a copy with the chain
// relinked in file order and duplicate uuids renamed, every foreign byte
// kept.
//
// Stores live in sub-packages: jsonlstore, the embedded default. Package
// sessiontest holds the conformance suite every store passes.
package session
