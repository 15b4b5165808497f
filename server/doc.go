// Package server is agentctx as a service: an HTTP/JSON API over the
// [agentctx.Engine] for agents written in any language, served by
// `agentctx serve`. Its OpenAPI 3.1 document is [OpenAPI], served at GET
// /openapi.json.
//
// # A turn
//
// An agent creates a session (POST /v1/sessions), then for each turn adds
// its messages (POST /v1/sessions/{id}/messages, in the chat, OpenAI or
// Anthropic shape), asks for the next request (POST .../request: compacted,
// assembled, in the provider shape it asks for, with its token table),
// sends it to its provider itself, and hands the provider's reply back
// (POST .../reply, the provider's response body as it came, usage
// included). Tool results go back through .../messages. GET .../events
// streams the session's compaction, reminder and usage events as
// Server-Sent Events.
//
// # Tenants
//
// Bearer tokens ([Tokens], from a tokens file) map to tenants. Ids are
// per tenant: tenant "acme"'s session "x" is stored as "acme~x"
// ([TenantSep]), its tenant also in its metadata ([TenantKey]), and the
// API shows it as "x"; another tenant may have its own "x", and no tenant
// can take an id from another or learn that another uses it. Every route
// answers 404 for a session of another tenant, the same as for no
// session. A tenant's session stored before ids were per tenant (under
// its bare id) is still found by its tenant. Without tokens every request
// is the anonymous tenant, whose sessions are stored under their own ids
// (those the command line made); the serve command then listens on
// loopback only.
//
// # Errors
//
// Every failure is a [Problem] with one status and one code per kind, on
// every route (the OpenAPI document lists each route's): an id the server
// cannot use 400 [CodeInvalidID], no such session 404 [CodeNotFound], a
// body that is not what the route takes (bad JSON, a null for a typed
// field) 400 [CodeBadRequest], 401, 403, 408, 409, 413, 415, 421, 503 and
// 500 as their codes say. Details name the field or the rule, never the
// store or a path on the server.
//
// # Web pages
//
// A page in the user's browser can send requests to a server on
// localhost, and after DNS rebinding (its name made to resolve to
// 127.0.0.1) read the answers. Without tokens, a request whose Host names
// neither a loopback address or name with the listener's port nor the
// address it came in on, nor one of [Options].AllowedHosts, answers 421
// ([CodeMisdirected]). A request with an Origin header (browsers send it)
// of another origin than its Host, not in [Options].AllowedOrigins,
// answers 403 ([CodeForbiddenOrigin]). A POST body not sent as
// application/json (a page's text/plain or form POST needs no CORS
// preflight) answers 415 ([CodeMediaType]).
//
// # State and several servers
//
// A server keeps no state of its own: sessions live in the store. It
// keeps the Engines of recently used sessions open ([Options].CacheSessions),
// and before each use checks the session's entry count in the store: when
// someone else wrote the session, the Engine is resumed from the store
// again; after a request that failed, it is resumed too (it may hold what
// the store refused). Writers of one session are kept apart by the
// store's writer lock ([session.Locker]: jsonlstore's file lock, a
// database store's lease). On a store whose lease can be given back
// (package pgstore), a server gives it back after each request, so that
// any server of a fleet takes the session's next request; a server that
// dies mid-request keeps it until it expires (the lease's lifetime), and
// another server meanwhile answers 409 session-busy with Retry-After.
// Each write of a request is one store append, so a request cut short by
// a crash wrote all of it or nothing: a client that lost an answer can
// read the session's entry count (GET /v1/sessions/{id}) to tell.
//
// A request's reminders are recorded when the request is handed out
// (POST .../request), not when its reply comes, so that the reply may go
// to another server, or to this one restarted; a request asked for again
// then carries no reminder already handed out. The request an agent got
// and has not yet answered lives in the server's memory only (for the
// reply's usage event).
//
// Events on a store that keeps them ([EventLog]: package pgstore) are
// shared by the fleet: each server stores the events of the requests it
// handles, numbered per session in the store, and PostgreSQL's
// LISTEN/NOTIFY tells every server (a notification carries the session
// and the last number only). A stream on any server then reads the new
// events from the store, so it carries every server's events in order,
// and resumes after its Last-Event-ID on any server. A lost notification
// loses nothing: the listener's reconnection, the next notification or
// the stream's periodic read ([Options].EventPoll) brings the events. On
// another store (SQLite, JSONL: one host, one server) events stay in the
// server's memory: a stream carries the events of the requests this
// server handles from the time it opens, and a subscriber that lags
// [EventBuffer] events behind misses some.
//
// # Files
//
// Engines run with [agentctx.Options].NoDiskReads: the paths a session's
// tool calls name are the agent's, not the server's, and nothing is read
// from the server's disk on a session's behalf.
package server
