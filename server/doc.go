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
// Bearer tokens ([Tokens], from a tokens file) map to tenants. A session
// records its tenant in its metadata ([TenantKey]); every route answers
// 404 for a session of another tenant, the same as for no session. Without
// tokens every request is the anonymous tenant, which sees the sessions
// without a tenant (those the command line made); the serve command then
// listens on loopback only.
//
// # State and several servers
//
// A server keeps no state of its own: sessions live in the store. It
// keeps the Engines of recently used sessions open ([Options].CacheSessions),
// and before each use checks the session's entry count in the store: when
// someone else wrote the session, the Engine is resumed from the store
// again. Writers of one session are kept apart by the store's writer lock
// ([session.Locker]: jsonlstore's file lock, a database store's lease),
// which a server takes on the first write of a session and keeps while it
// holds the session open: a second server that writes the same session
// meanwhile gets 409 session-busy with Retry-After, and may retry, or the
// client may go back to the first. The request an agent got and has not
// yet answered lives in the server's memory only: after a restart its
// reminders are sent again with the next request.
//
// Event streams carry the events of the requests served by the server the
// stream is connected to.
//
// # Files
//
// Engines run with [agentctx.Options].NoDiskReads: the paths a session's
// tool calls name are the agent's, not the server's, and nothing is read
// from the server's disk on a session's behalf.
package server
