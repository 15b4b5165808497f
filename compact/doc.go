// Package compact decides what a context window keeps when it fills. It is
// run before each model call (seed 003: "compact before every model call")
// and always leaves the window within its budget when the pinned parts fit.
//
// # Strategies
//
// A [Strategy] compacts a [window.Window] in place and returns one [Record]
// per level it applied:
//
//   - [Tiered], seed 003's three levels by usage ratio: L1 (60-80 %) cuts
//     tool results older than the latest round and longer than 2,000 runes
//     to 500 with a note of the original size; L2 (80-95 %) replaces all
//     but the last two rounds with one note saying what was removed; L3
//     (above 95 %) keeps only the system prompt, the first user message, the
//     note and the last round. After any level, if the window is still over
//     budget, the next level runs; if even L3 is over budget because one
//     message is huge, that message's content is cut and says so
//     ([LevelCut]).
//   - [Mask], observation masking: the tool results of the last M rounds
//     (default 10) are kept, older ones are replaced by a one-line
//     placeholder with the tool name and the size (Lindenbauer et al., "The
//     Complexity Trap: Simple Observation Masking Is as Efficient as LLM
//     Summarization for Agent Context Management", JetBrains Research,
//     2025). When masking is not enough the tiered levels escalate.
//   - [Summarize], seed 001's CompactionService: old history becomes a
//     summary written by a [Summarizer] (a model: [ModelSummarizer] over a
//     [provider.Model]), else by [Extractive],
//     else seed 001's fallback keeps the most recent 30 %. Its guard
//     declines a summary that could free less than 20 % of the window, or
//     that comes fewer than 3 model calls after the last, and lets the
//     tiered levels compact instead ([Record].Escalated); a model that
//     failed 3 times in a row is tried only once in 3 summaries (Claude
//     Code's auto-compact circuit breaker). Its state ([SummarizeState])
//     belongs to one window.
//   - [None] does nothing, as a baseline.
//
// # Extending
//
// A new strategy is one file in this package (or in the caller's own)
// that implements [Strategy], plus the optional interfaces that apply,
// which the agentctx Engine and replay use instead of knowing its type:
// [Thresholder] (the usage ratio it compacts from, for the
// context-pressure reminder), [Forcer] (a manual /compact; others are
// replaced by a forced [Summarize] for it), [Escalator] (what runs when a
// summary's rehydration leaves the window over budget; others get
// [Tiered]), [Stateful] (per-window state, saved with the session) and
// [Configurable] (parameters recorded with the session). A [Register]ed
// [Builder] makes it again on resume ([Build]); [ParseStrategy] finds it
// by name.
//
// # Cutting
//
// Every cut falls on a UTF-8 rune boundary and, where the content is JSON,
// leaves valid JSON ([ShrinkJSON]) whatever the tool that produced it;
// otherwise the cut text is plainly marked as cut. Message text is not
// tool output: its tagged blocks (<system-reminder>, <environment_context>,
// <command-name>, … on their own lines) are never cut open ([CutBlocks]):
// injected context is left out whole first, and a block the cut falls in
// is left out or keeps its closing tag. The tool-result
// limiter ([LimitToolResult], seed 003) can also say in its note which
// lines were left out and how to read them back by call id
// ([LimitOptions].RecallTool).
package compact
