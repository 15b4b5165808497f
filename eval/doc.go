// Package eval measures what a compaction strategy keeps for an agent's
// next step, on real trajectories and without a model: `agentctx eval`'s
// lab.
//
// # Next-action support
//
// [Run] replays a trajectory through the Engine ([replay.Run]) and, at
// every recorded model call where the uncompacted history no longer fits
// the budget (from there on every strategy must choose what to keep; the
// same calls for every strategy), reads what the agent actually did next:
// the references of its tool calls and text ([tooluse.ActionRefs]: file
// paths, the text its edits replace, error strings, line numbers with
// their file, identifiers and command arguments, the last two capped).
// Only references that occur in the uncompacted history before the call
// count: in its tool results or in a user message after the first.
// References that also occur in the system prompt or the first user
// message (every strategy keeps them) are left out, and so are those
// found only in the agent's own earlier messages (it wrote them, it did
// not read them).
//
// A reference is present when the request the Engine built for that
// call holds it (all of it: system prompt, summary, messages, working
// memory, tracker section, reminders, as [agentctx.Request] has them),
// matched on token boundaries ([tooluse.ContainsToken]: "Ash.read" is not
// in "Ash.read_one"); a path by its forms ([tooluse.PathForms]); an
// edit's text verbatim once line-number prefixes are stripped from the
// request and the history ([tooluse.StripLineNumbers]); a line number
// when its file is present and a line printed with that number is.
//
// # Figures
//
// Per call: support (present references over references), edit support
// (edits whose replaced text is present), recoverable (absent references
// found in a tool output the request shows cut or masked, which
// recall_output restores, or in a summarized span, [Options].Spans),
// instruction survival (the share of [compact.Instructions] sentences of
// the history before the call present in the request), and support
// split between references whose newest evidence is the latest round
// (the messages after the previous model call) and older history.
// Per trajectory, the mean over its calls ([Trajectory]); over
// trajectories, the mean of the trajectories' means, with a bootstrap
// 95 % confidence interval that resamples trajectories ([Summarize],
// [Bootstrap]).
package eval
