// Package agentctx manages the LLM context of coding agents: what goes into
// every model call, what is kept when the context window fills, what is
// written to disk, and how a session comes back.
//
// This root package holds the [Engine], the one object an agent embeds
// (seed 001's ContextManager): one session's context window, its
// compaction, its session file, the runtime state tracker, the working
// memory, the static workspace context, system reminders and prompt
// assembly. [Open] starts a session, [Engine.Add] records every message,
// [Engine.Request] returns the next model call's request (compacted first
// when needed, always within the budget), [Engine.Compact] summarizes on
// demand, [Resume] brings a stored session back and [Engine.Close] ends
// it. See Example.
//
// # The live loop
//
// A live agent is harsher than a recorded history, and the Engine is built
// for it:
//
//   - Interrupts. A tool call left without a result (the user typed, the
//     process died) is answered with a synthetic result
//     ([InterruptedResult], error flag set, recorded in the session) as
//     soon as a later message comes, or when the next request is built:
//     no request ever holds a call without its result, which both the
//     OpenAI and the Anthropic APIs reject with a 400.
//   - Retries. [Engine.Request] has no lasting effect beyond compaction:
//     a request whose provider call failed is built again, byte for byte,
//     with the same reminders. Reminders, counters and their session
//     entries are committed when the agent reports the request sent
//     ([Request.Sent]) or adds the model's reply ([Engine.Add]).
//   - Overflow. A provider's "prompt is too long" (an error wrapping
//     provider.ErrContextOverflow) goes to [Engine.RecoverOverflow], which
//     lowers the budget to what the provider reported, compacts and
//     returns the next request.
//   - Resume. The engine's configuration (model, budget and its source,
//     strategy, tool schemas, system prompt and the static prompt built
//     from the workspace, switches) is recorded in the session; [Resume]
//     with nothing but the store continues byte-identically.
//   - Recall. With [RecallTool] among the tools, the limiter's note on a
//     cut tool result names the call, and [Engine.HandleRecall] answers
//     the model's recall_output calls with the lines it asks for. Every
//     summary names the spans of history it replaced ("s1", "s2"…); the
//     engine keeps them (in memory and in the session's compact
//     boundaries), and recall_output with span_id reads one back, whole,
//     by lines or by query. [Engine.Recoverable] lists what can be read
//     back this way.
//   - Instructions. [Engine.Pin] keeps a user instruction verbatim in
//     every later request (and across a resume); without pins, every
//     summary carries the user's instruction sentences under a "User
//     instructions" section (compact.CarriedInstructions), so they
//     survive any number of compactions.
//   - Thrashing. A compaction that comes within [RefillCalls] model calls
//     of the previous one records what regrew (compact.Record's Refill);
//     the [ThrashCompactions]-th in a row sets [Request].Thrash to an
//     error wrapping [ErrCompactionThrash], for the agent to show, as
//     Claude Code does.
//
// The sub-packages are usable on their own:
//
//   - [github.com/agentctx/agentctx/chat]: the one message model (roles,
//     sealed content parts, usage, rounds) and loss-free conversion to and
//     from the OpenAI and Anthropic wire shapes.
//   - [github.com/agentctx/agentctx/token]: exact tiktoken-compatible
//     counts (o200k_base, cl100k_base) with no network, a CJK-aware
//     estimator, chat-format overheads and usage-anchored counting.
//   - [github.com/agentctx/agentctx/model]: context window, output limit and
//     encoding per model family, and the budget policies.
//   - [github.com/agentctx/agentctx/window]: the managed context window of
//     one session, with its invariants and O(1) accounting.
//   - [github.com/agentctx/agentctx/compact]: the compaction strategies
//     (compact.Summarize, the Engine's default: a summary by a model,
//     compact.ModelSummarizer, else the extractive summarizer;
//     compact.Tiered, seed 003's L1-L3, replay's default; compact.Mask,
//     observation masking; compact.None), the tool-result limiter and safe
//     cutting. A new strategy is one file there: see its "Extending".
//   - [github.com/agentctx/agentctx/transcript]: readers for real agent
//     trajectories (Claude Code, Codex, SWE-agent, mini-swe-agent,
//     OpenHands, OpenAI message arrays).
//   - [github.com/agentctx/agentctx/replay]: replay a trajectory under a
//     budget through an Engine and report what compaction did.
//   - [github.com/agentctx/agentctx/session]: the session format (Claude
//     Code's JSONL lines), the Store interface and its JSONL store.
//   - [github.com/agentctx/agentctx/track] and
//     [github.com/agentctx/agentctx/workmem]: the runtime state tracker and
//     the working memory.
//   - [github.com/agentctx/agentctx/workspace]: the static project context
//     (tree, git, instruction files with @imports, README, code style).
//   - [github.com/agentctx/agentctx/reminder]: system reminders.
//   - [github.com/agentctx/agentctx/prompt]: request assembly with a
//     cache-stable static prefix and a token table.
//   - [github.com/agentctx/agentctx/provider]: the small model interface
//     and its OpenAI and Anthropic adapters (which import no other
//     agentctx package but chat).
//
// CONTRIBUTING.md at the module's root maps the packages and says where a
// new strategy, transcript format, store backend or provider goes.
//
// # Defaults
//
// [Open] and [Resume] default to [DefaultModel], the model's budget under
// model.DefaultPolicy and the summarizing strategy (compact.Summarize with
// the extractive summarizer unless [Options].Summarizer is set). replay.Run
// and `agentctx replay` use the same model and budget defaults, but the
// tiered strategy (compact.Tiered) unless one is chosen: a replay measures
// compaction without a model.
//
// # Embedding the window alone
//
// Build a window for a model, add messages as the agent produces them, and
// compact before each model call (the Engine keeps its own window: it
// reports it through [Engine.WindowStats], [Engine.Check] and
// [Engine.Breakdown]):
//
//	info := model.Lookup("claude-sonnet-4-5")
//	counter, _ := model.Counter(info)
//	w, _ := window.New(window.Options{Budget: model.DefaultPolicy.Budget(info), Counter: counter})
//	strategy := &compact.Tiered{}
//	// for each turn:
//	_ = w.Add(chat.NewText(chat.RoleUser, "fix the failing test"))
//	records, _ := strategy.Compact(ctx, w) // before the model call
//	prompt := w.Messages()                // fits the budget
package agentctx
