// Package loadgen is the fleet test's load generator: it
// starts `agentctx serve` processes on loopback sharing one store
// ([Start], [Fleet]), drives sessions of replayed real trajectories
// through them ([Run]) and checks every session against a single
// in-process Engine given the same steps ([Verify]). As an operator runs
// it ([FleetConfig] Balance, Events, Proxies), the servers and
// `agentctx proxy` processes ([StartProxy]) on the same store sit behind
// load balancers that spread requests at random ([Balancer]), every
// session has an SSE subscriber that reconnects with Last-Event-ID to
// whichever server the balancer picks and must see every event of its
// session in order, and more sessions are driven through the proxies as
// agents (whole histories in the OpenAI wire, a scripted upstream that
// checks every prompt against the proxies' budget), their stored
// sessions then compared with what the agent sent. It is bounded in
// count (the sessions and their steps are fixed before the run) and in
// time ([Config].Duration, [Config].RetryFor), and talks to loopback
// servers only.
//
// # A session's steps
//
// A trajectory of ../shared/data becomes a [Script] ([NewScript]): for
// each model call of the recorded agent, the user and tool messages since
// the last one (POST .../messages), the next request (POST .../request),
// the recorded reply (POST .../reply); now and then an inspect, a
// compaction with instructions or a recall of a tool output. Each call
// goes to a server picked at random.
//
// # Retries
//
// A call answered 409 session-busy (another server's lease), 429 or 503
// is sent again after a backoff (20 ms doubling to 1 s, with jitter), to
// any server, for at most [Config].RetryFor. A call whose answer was lost
// (the server died: connection refused or cut, or a 5xx) may or may not
// have taken effect: for a write, the client reads the session's entry
// count (GET /v1/sessions/{id}) before every further attempt and counts
// the step done when it moved, else sends it again (PostgreSQL may finish
// the dead server's COMMIT after a first look; its lease keeps the
// session busy until a later look sees the write); requests, inspects and
// recalls are simply sent again. This relies on each write being one store append (Engine.Add
// writes all its entries at once) and on the client being the session's
// only writer.
//
// # Equal
//
// [Verify] replays the steps that took effect, in order, on an Engine of
// its own (ReferenceOptions: what the server's create does) over a JSONL
// store, and requires: after each step, the same entry count as the fleet
// had (the session's last sequence number: no step lost, doubled or
// interleaved with another writer's); the fleet's entries numbered 1..n
// without a gap; and the same entries one by one ([Same]: type, message,
// tool call and result, compaction boundary and its metadata, reminders,
// working-memory state), leaving out what a clock or a store fills.
//
// # Figures
//
// [Report.Print] writes throughput (acknowledged messages and answered
// calls per second of the run) and per route the calls, p50 and p99
// latency (client side, answered attempts), retries, steps found in the
// store after a lost answer, and failed attempts by cause.
// scripts/load.sh runs the fleet test at full size.
package loadgen
