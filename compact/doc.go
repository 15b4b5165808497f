// Package compact decides what a context window keeps when it fills. It is
// run before each model call (seed 003: "compact before every model call")
// and always leaves the window within its budget when the pinned parts fit.
//
// # Strategies
//
// A [Strategy] compacts a [window.Window] in place and returns one [Record]
// per level it applied:
//
//   - [Tiered], seed 003's three levels by usage ratio: L1 (60-70 %) cuts
//     tool results older than the latest round and longer than 2,000 runes
//     to 500 with a note of the original size; L2 (70-95 %) replaces all
//     but the last three rounds (seed 003: two) with one note saying what was removed, with
//     the paths and identifiers the removed tool outputs held, by the file
//     or command each came from ([Tiered.NamesRatio]); L3
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
// # The anchors' strategies
//
// Other agents' documented compaction, each written from its source and
// citing it (the file, the repository, the date read), so that agentctx's
// own strategies can be measured against them on the same trajectories.
// Their numbers are tokens of the agent's own window; here each is a share
// of the window's budget (the budget is the window), and each file says
// how it maps. Every summary is written by the summarizer the caller
// configures ([BuildOptions].Summarizer; the extractive one by default,
// so a model-free comparison is about structure), and every strategy
// keeps the window's invariants and runs the tiered levels when it would
// leave a request over budget:
//
//   - [ClaudeCode] ("claude-code"): at 83.5 % (the window minus the
//     summary's output reserve and the 13,000-token buffer) the whole
//     history becomes a summary, and up to 5 recently read files are
//     restored after it, each within its token cap;
//   - [Codex] ("codex"): at 94 % (auto_compact_token_limit) everything
//     becomes a summary but the most recent user messages, up to
//     COMPACT_USER_MESSAGE_MAX_TOKENS (7.35 % of the window);
//   - [OpenCode] ("opencode"): before every call, tool outputs older than
//     the last two user turns and the newest 20 % of tool output are
//     erased (PRUNE_PROTECT, PRUNE_MINIMUM); at overflow (74 %) all but
//     the most recent 7.5 % becomes a summary;
//   - [OpenHands] ("openhands"): the LLM-summarizing condenser: past
//     max_size = 100 messages, or over budget, the first messages and the
//     recent half are kept and the middle summarized;
//   - [GeminiCLI] ("gemini-cli"): at 50 % of the window, older tool
//     outputs past 4.8 % are cut to their last 30 lines, the latest 30 %
//     of the history is kept and the rest summarized;
//   - [Truncate] ("truncate"): the system prompt, the first user message
//     and the newest messages that fit: the floor every strategy must
//     beat.
//
// [Mask] is the observation masking of the JetBrains study with its
// window of M = 10 turns.
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
