// Package pgstore is the PostgreSQL [session.Store], for fleets: any
// number of stateless agentctx servers share one database, and a session
// can be written through any of them, one at a time. It passes
// sessiontest.Run, like package jsonlstore, and mirrors its semantics:
// the same lines, the same metadata ([session.Session.Observe]), Load
// from the last complete compact boundary, the same sentinel errors.
//
// # Schema
//
// [Open] creates Options.Schema (default "agentctx") when missing and
// applies the embedded migrations (migrations/NNNN_name.sql) not yet
// recorded in its schema_version table, all in one transaction under a
// transaction-level advisory lock keyed by the schema's name: servers
// that start together wait for the first, which migrates; the others
// find nothing to do. PostgreSQL's DDL is transactional, so a migration
// cut short leaves the schema as it was (no "dirty" state to clear by
// hand, unlike golang-migrate), and a schema newer than the program is
// refused ([ErrSchemaTooNew]). This is 100 lines on the pgx pool the store
// already has, rather than a migration library with a database/sql
// driver of its own and a global lock number (see migrate.go).
//
//	sessions(tenant, id, project, title, created, last_activity, …, size, last_uuid, lease_owner, lease_expires)
//	entries(tenant, session_id, seq, off, uuid, boundary, entry jsonb, line bytea)
//	events(tenant, session_id, seq, data bytea)
//
// The events table keeps what servers did for a session (package
// server's events: compactions, reminders, usage), numbered per session
// by the sessions row's event_seq in the transaction that inserts them
// ([Store.AppendEvents]); each append sends a NOTIFY on the schema's
// channel carrying the tenant, the session and the last number, and
// [Store.ListenEvents] hears them on a connection of its own (reconnecting
// with a backoff), so that the subscribers of every server read the new
// events from the table ([Store.ReadEvents]). Events go with their
// session when it is deleted, and are not copied with it to another
// store (they are not transcript entries).
//
// A session's entries are rows keyed by (tenant, session id, seq): seq is
// the entry's line number and off its byte offset in the session's JSONL
// form. line holds the exact bytes jsonlstore would write, so that
// [Store.WriteJSONL] is byte for byte a jsonlstore transcript (tested on every
// real transcript); entry holds the same line as jsonb for queries
// (jsonb normalizes key order and white space, so it cannot be the
// truth), NULL for the rare line jsonb refuses (a \u0000 escape, invalid
// UTF-8). A partial index on the boundaries lets Load read only the live
// part.
//
// # Writing and the lease
//
// Each Append is one transaction: it locks the session's row (SELECT …
// FOR UPDATE, which also serializes appends from goroutines of one
// process), checks the writer lease, inserts the batch in one statement,
// updates the metadata and takes or renews the lease; Append returns
// after the commit, so a killed server loses no acknowledged entry
// (TestCrash) and a failed Append writes nothing.
//
// The lease is a pair of columns on the session's row: the owner (a
// random UUID per Open) and an expiry by the database's clock, so
// servers' clocks never matter. A write finding another owner's lease
// unexpired gets [session.ErrSessionBusy] (after Options.LockTimeout); an
// expired one is taken over. A Store renews all its leases in one
// statement every LeaseTTL/3, releases them on Close, and releases one on
// [Store.Unlock]; a crashed server's leases expire LeaseTTL (default 15 s)
// after its last renewal, and a stalled one that wakes up finds its
// writes refused (the check is in the write's own transaction: fencing).
//
// Why not advisory locks: a session-level advisory lock lives on one
// connection, so a server would pin a connection for the locks it holds,
// lose them silently when that connection drops (while it still believes
// it holds them), keep them for as long as a half-open connection
// lingers (TCP keepalive: minutes to hours) after a network partition,
// and could not work through a transaction-mode connection pooler. A
// lease row is checked in the transaction that writes, expires by time,
// and needs nothing but ordinary transactions: servers stay stateless.
//
// # Tenants
//
// Every row carries a tenant; a Store sees only Options.Tenant's
// sessions, and [Store.WithTenant] returns views of other tenants over
// the same pool and leases. A server binds each bearer token to a tenant
// and serves each request through that tenant's view, so a second
// tenant gets session.ErrNotFound on the first one's ids.
//
// # Reading
//
// Get, List, Load, Export and WriteJSONL never wait for a writer; Load,
// Export and WriteJSONL read one consistent snapshot (a read-only REPEATABLE READ
// transaction). Entries come back with Offset and Line of their line in
// the JSONL form, as jsonlstore gives them. BenchmarkLoad10k: loading the
// live part of a 10,000-entry session after a compaction costs the live
// part only.
//
// # Moving sessions
//
// [Store.Import] (one transaction: all or nothing) and [Store.Export]
// implement session.Importer and session.Exporter, so session.Copy moves
// sessions between this store and any other losslessly; [Store.WriteJSONL]
// streams a session as a JSONL transcript. [ParseURL] reads a
// postgres:// store URL with the store's own parameters (schema, lease,
// lock_timeout).
package pgstore
