// Package mcpserver is agentctx's MCP server: the tools an agent needs to
// see and steer its own context, over the sessions of a [session.Store],
// served with the official Go SDK (github.com/modelcontextprotocol/go-sdk)
// on stdio or streamable HTTP. `agentctx mcp` runs it.
//
// # Tools
//
//   - recall_output: the full text, a range of lines or bytes, or the lines
//     matching a query, of a tool output the tool-result limiter cut (the
//     proxy's or an Engine's), by the call id the cut note names
//     ([agentctx.RecallStored]);
//   - recall_span: the messages of a span of history a summary replaced,
//     by the span id the summary lists (s1, s2…);
//   - context: the context window's breakdown by category, the budget and
//     the free space, the pins, the outputs and spans that can be read
//     back;
//   - pin and unpin: instructions kept verbatim in every later request,
//     whatever compaction does ([agentctx.Engine.Pin]);
//   - search_session: the lines of the session's whole history (what
//     compaction removed included) that hold a text.
//
// # Sessions
//
// Each tool takes an optional session_id. Without it the server uses
// [Options].Session, else the session most recently active in
// [Options].Project (the folder the agent started the server in), else
// the store's most recent one. recall_output given a call id the default
// session does not have looks for it in the most recent sessions
// ([Options].SearchSessions): an agent behind `agentctx proxy` does not
// know the id of the session the proxy keeps for it, only the call id the
// cut note gives.
//
// Reads take no lock: the server answers while the proxy or an agent
// writes the session. pin and unpin write: they open the session with
// [agentctx.Resume], which fails while another process holds it (a
// running proxy or chat), and say so.
package mcpserver
