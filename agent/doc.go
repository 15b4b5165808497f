// Package agent is the loop of agentctx's reference coding agent
// (`agentctx chat`), usable from Go: it drives an [agentctx.Engine] and a
// [provider.Model] through the live loop of the root package's
// documentation, runs the model's tool calls ([tools.Tool]) behind a
// permission guard, and reports what happens as typed [Event]s.
//
// # The loop
//
// [Agent.Run] adds the user's message, then, until the model answers
// without tool calls or [Options.MaxTurns] model calls were made:
//
//  1. builds the request with [agentctx.Engine.Request];
//  2. sends it, streaming text deltas when the model is a
//     [provider.Streamer];
//  3. on a context overflow, calls [agentctx.Engine.RecoverOverflow] and
//     sends the smaller request; on a rate limit or an unavailable
//     provider, waits and builds the request again (up to
//     [Options.Retries] times);
//  4. adds the reply with [agentctx.Engine.Add];
//  5. runs each tool call, asking [Options.Permission] first, and adds
//     its result. Calls of a [ConcurrentTool] (the task tool) that come
//     together in one reply run at the same time; the results are added
//     in the reply's order.
//
// # Sub-agents and file checkpoints
//
// [NewTask] is the task tool: a sub-agent on an Engine session of its
// own (its own window and budget, linked to the parent's session by
// session.MetaParent and session.MetaTask), the parent's tools but task,
// the same permissions; only its final answer and its session's id come
// back to the parent's context. Its events reach the parent's
// [Options.Events] with [Event.Agent] set.
//
// [Options.Checkpoints] ([OpenCheckpoints]) keeps the pre-image of each
// file a write_file or edit_file call changes, taken before the call runs,
// per user message; [Checkpoints.Restore] puts the files back after an
// [agentctx.Engine.Rewind], leaving alone those changed since by anything
// but the agent.
//
// # Interrupts
//
// When ctx is cancelled (the user's Ctrl-C) during a stream or a tool,
// Run returns promptly with an error wrapping ctx.Err() and
// [StopInterrupted]. It adds no result for the calls left unanswered: the
// Engine answers them itself ([agentctx.InterruptedResult]) when the next
// message comes, so the session stays valid and the next Run continues.
// That next message is [InterruptedNote], which Run adds as a user
// message, so the model knows the user stopped it.
//
// # Permissions and confinement
//
// A [Guard] asks before writes and commands unless the user allowed them
// (Yes, the CLI's --yes, or an allow rule of the project's [Rules], in
// Claude Code's syntax, read from [SettingsFile] by [LoadRules]; an
// "always" answer adds one, [AlwaysRule]). A deny rule, or an Ask that
// refuses with a reason, answers the call with a [Refusal] saying who
// refused and why; a Refusal with Stop ends the Run ([StopDenied]). What --yes cannot allow is read from the
// command's shell syntax (tooluse.Hazards, not a list of patterns): rm -r
// outside the project or of / and ~, find -delete, curl … | sh, recursive
// chmod and chown outside the project, writes to devices, mkfs, fork
// bombs, git push --force. Those are asked every time. The guard is not
// the confinement: commands run in an OS sandbox (package sandbox,
// through tools.Env.Sandbox) that lets them write only in the project and
// a private /tmp, hides the home directory and its secrets, and has no
// network unless allowed. Where no sandbox can run, Guard.Unconfined asks
// for every command.
//
// # Events
//
// [Options.Events] receives one [Event] per thing that happened, in order
// and never concurrently (the module's adapters call the stream callback on
// the goroutine that called Run; the events of sub-agents running side by
// side are serialized). Events are plain data and encode
// as JSON (the print mode's JSON Lines, the HTTP service's stream).
package agent
