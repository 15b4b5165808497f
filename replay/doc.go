// Package replay feeds a recorded agent trajectory into a context window
// one message at a time, as if it were live under a model's token budget,
// and reports what the engine did to keep every model call inside the
// budget.
//
// Before each assistant message — each point where the agent called the
// model — [Run] compacts the window with the chosen [compact.Strategy] and
// records the prompt's size. The result ([Result]) says how many calls went
// over budget (none, when the pinned parts fit), how often each compaction
// level ran, how many tokens were removed, whether any invariant broke, and,
// where the transcript recorded the provider's usage, how far agentctx's
// own count of the uncompacted context is from the provider's numbers, both
// counted and usage-anchored.
//
// # Saving
//
// With [Options].Store set, a replay is also recorded as a session, as a
// live agent would record it (session.Recorder): every message as it
// entered the window and, after each compaction, a compact boundary
// followed by the window as compaction left it, and the engine's
// configuration (model, budget, tool schemas, strategy). Resuming the
// saved session (agentctx.Resume, or session.Restore under the same
// model, budget and reserve) gives back, message for message and token for token, the window
// [Result].Window holds at the end of the replay; [Options].StopAfter ends
// a replay early, as a process stopped mid-session.
package replay
