// Package workmem is the per-task working memory of a coding agent: seed
// 002's ActiveContext. It keeps a compact, always-current picture of what
// the agent has found, observed and planned, rebuilt from state rather than
// from old messages, so it survives compaction of the message history.
//
// # Parts
//
//   - The scratchpad: [Finding]s the agent marks itself (finding, evidence,
//     importance 1-10, round). Findings are never compressed.
//   - The observation log: one [Round] per ReAct round (thought, [Action]s,
//     [Observation]s with derived metadata, reflection, [RoundSummary]).
//     A sliding window keeps the raw text of the observations of the last
//     [Options.RecentRounds] rounds (default 3); older observations keep only
//     their metadata (seed 002, "WM sliding window").
//   - The [Plan]: steps extracted from the model's numbered or bulleted list
//     ([ActiveContext.SetPlanFromText]); an existing plan is only replaced
//     when a plan was asked for ([ActiveContext.ExpectPlan]), so a numbered
//     list in an ordinary answer does not clobber it. Replaced plans go to
//     the plan history.
//
// # Output
//
// [ActiveContext.BuildContext] renders Markdown that fits a token budget,
// counted exactly with [Options.Counter]: the most important first (task,
// high-importance findings, plan, the most recent rounds), then the rest
// while room remains. [ActiveContext.Distill] returns a JSON-serializable
// [Report]; [ActiveContext.Stats], [ActiveContext.RecentSummary] and
// [ActiveContext.HighPriority] answer the seed's other queries.
//
// # Feeding it
//
// An agent loop calls [ActiveContext.StartRound], [ActiveContext.AddAction],
// [ActiveContext.Observe] and [ActiveContext.EndRound]; a replay can instead
// pass every message to [ActiveContext.ObserveMessage].
//
// # Persistence
//
// [ActiveContext.ToJSON] and [FromJSON] round-trip the whole exported state
// ([State]); FromJSON(ToJSON(x)) has the same State as x.
//
// # Secrets
//
// Every text the memory keeps (task, thoughts, reflections, findings,
// plan, tool-call arguments, observations and key facts) is redacted
// ([github.com/agentctx/agentctx/secret.Redact]): the memory goes into
// the session and into requests, and must not multiply a secret the
// agent read once.
package workmem
