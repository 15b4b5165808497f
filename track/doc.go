// Package track is the runtime state tracker of one agent session (seed
// 000): which files the agent has read, which commands failed, what it
// searched for recently, and which files it changed. A [Tracker] is fed
// every tool call with its result ([Tracker.Record]) and renders a short
// Markdown section for the system prompt ([Tracker.Section]). The section
// is rebuilt from the tracker's state, not from old messages, so it
// survives compaction; [Tracker.State] and [Tracker.SetState] persist it
// through a session.
//
// # Seed semantics
//
// As in seed 000: files read are keyed by path and keep the first 3 lines
// of the content, cut at record time; failed commands are keyed by the
// command cut to 100 runes and keep the first error line; the last 5
// searches keep the query and the first result line cut to 200 runes. The
// section has a part per non-empty list only and cuts each file preview
// to 80 runes and each search summary to 100 runes; an empty tracker
// renders "".
//
// # Improvements over the seed
//
//   - A failure is the tool result's structured error flag or a non-zero
//     exit code the tool reports (Claude Code "Exit code 1", mini-swe-agent
//     "<returncode>1</returncode>", Codex "Process exited with code 1",
//     OpenHands "[Command finished with exit code 1]"), never a search for
//     the word "错误".
//   - Tool calls are read by [github.com/agentctx/agentctx/tooluse.Classify]
//     (Claude Code, Codex, SWE-agent, mini-swe-agent, OpenHands and the
//     seeds' tools). Shell commands are parsed, and those that read (cat,
//     head, tail, sed, nl, …), search (grep, rg, find, ag, ack, fd, git
//     grep) or write (sed -i, tee, rm, touch, cp, mv, > and >>
//     redirection) are classified too.
//   - Files written or edited are tracked with their last operation, and a
//     file read earlier and changed since (by a write tool, or on disk as
//     [Tracker.Stale] finds) is marked stale.
//   - Lists are bounded ([Options.MaxFiles], [Options.MaxCommands]) with a
//     line saying how many entries were omitted, and the section is held
//     under a token cap ([Options.MaxTokens], default [DefaultMaxTokens]).
//   - An entry remembers the tool call that recorded it last, and the
//     section leaves out the entries of calls whose results the caller's
//     window still shows ([Tracker.SetShown]): it lists what compaction
//     removed from view, not what the prompt already holds (the seed lists
//     everything on every request). [Tracker.HiddenTokens] sizes what it
//     left out, for a caller that reserves room before compacting.
//   - Nothing recorded holds a secret: previews, search queries and
//     summaries, failed commands and error lines are redacted
//     ([github.com/agentctx/agentctx/secret.Redact]) before they are cut,
//     since the section goes with every request and the state into the
//     session (the seed keeps them verbatim).
package track
