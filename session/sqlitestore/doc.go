// Package sqlitestore is a [session.Store] on SQLite (modernc.org/sqlite,
// pure Go, no cgo): every session of a machine in one database file, the
// embedded default of `agentctx serve`. It passes sessiontest.Run and
// stores each entry's JSONL line byte for byte as package jsonlstore
// writes it, so that a session moves between the two losslessly
// ([session.Copy]).
//
// # Schema
//
// The schema lives in migrations/NNNN_name.sql, embedded, applied at
// [Open] in one transaction and recorded in the schema_version table; a
// database newer than the program is refused ([ErrNewerSchema]). One
// table holds sessions (metadata, the JSONL size and last uuid that
// appending needs, the writer lease), another their entries keyed by
// (session_id, seq) with the line as a BLOB and the uuid, type and
// compact-boundary flag as columns. A partial index on the boundaries
// lets Load read only the live part: from the last complete compact
// boundary on, never the rows before it.
//
// # Concurrency and leases
//
// The database runs in WAL mode: readers (Load, Get, List) never wait
// for a writer. Writes go through one connection per Store, one
// immediate transaction each (busy_timeout waits for another process's
// transaction). A session is written by one Store at a time, the holder
// of its lease: a row's lease_owner and lease_expires, taken by the
// first Append, Update, Delete or Lock in the same transaction as the
// write, renewed by every write and by a goroutine every third of
// Options.LeaseTTL, released by Close. Another Store, in this process or
// another, gets session.ErrSessionBusy until the lease is released or
// expires: a killed process's sessions can be written again LeaseTTL
// after its last renewal. Every write checks the lease in its own
// transaction, so a writer whose lease expired and was taken cannot
// interleave its entries with the new holder's.
//
// # Durability
//
// Options.Sync mirrors jsonlstore's policies: see [Options]. Commits run
// with synchronous=NORMAL and do not wait for the disk; a write that
// must be durable (a turn's end under the default SyncTurn) then waits,
// without holding the writer, for an fsync of the write-ahead log that
// covers its commit. One fsync serves every commit made before it
// started, so the turns of many sessions that end together share it
// (group commit) and the other sessions' writes go on meanwhile. As with
// jsonlstore's write then fsync, a reader may see a durable write's
// entries before its fsync has ended; a power loss can take them only
// while that Append has not returned. A
// transaction is atomic: a process killed mid-append leaves the batch
// whole or absent, and every acknowledged batch is there (TestCrash);
// every acknowledged durable batch is in the log as it was at the
// fsync that acknowledged it (TestGroupSyncDurable).
package sqlitestore
