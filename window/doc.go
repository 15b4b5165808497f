// Package window is the managed context of one session: the ordered list of
// messages that the next model call will see, with its size in tokens kept
// current as messages come and go (seed 003's ContextWindow with seed 001's
// semantics).
//
// # Invariants
//
// A [Window] keeps, and [Window.Check] verifies:
//
//  1. the system prompt (a system message added first) stays first;
//  2. the first user message is never removed (its content may be cut to
//     fit, and says so);
//  3. a round — an assistant message with tool calls and the tool results
//     answering it — is never split: it is kept or removed whole;
//  4. no tool result without its call;
//  5. a call without a result is allowed only in the last round (the model
//     asked for it and its result has not come yet): once a user or
//     assistant message follows, every call before it has its result, as
//     both the OpenAI and the Anthropic APIs require. A system message in
//     mid-conversation (Codex's developer messages) does not end a round. The window does not
//     enforce this one in [Window.Add] (an interrupted run leaves such
//     calls behind); [Window.Unanswered] finds them, and the agentctx
//     Engine answers them with a synthetic result before anything follows;
//  6. order is preserved.
//
// Mutations that would break an invariant return an error and change
// nothing.
//
// # Accounting
//
// Each message is counted once, when it is added or replaced, with the
// window's [token.Counter] and [token.Overhead]. [Window.Tokens],
// [Window.Ratio] and [Window.Fits] are O(1). When a provider reported the
// prompt size of the last call (an assistant message added with
// [chat.Usage]), [Window.Anchored] reports the usage-anchored size: the
// provider's number plus the exact count of what was added since.
//
// # Compaction
//
// The window does not decide what to drop; package compact does, through
// [Window.Units], [Window.Replace], [Window.Remove] and [Window.SetNote].
// Everything removed is tallied in [Dropped] so that the compaction note can
// say what is gone.
package window
