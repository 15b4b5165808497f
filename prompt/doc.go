// Package prompt assembles the request of one model call from what the
// engine holds (seed 004's formatSystemPromptWithContext and query):
//
//   - the static system prompt: the base prompt, the project's instruction
//     files and the workspace's <context name="..."> blocks, gathered once
//     per session and byte-identical from turn to turn, so that provider
//     prompt caches hit ([Static], [BuildStatic]);
//   - the rehydration block a summarizing compaction leaves (recent files,
//     todo and plan state), stable until the next compaction;
//   - the context window's messages, unchanged;
//   - the dynamic tail: the runtime state tracker's section, the working
//     memory's context and the system reminders, as <system-reminder>
//     blocks on the last user turn of the outgoing request only.
//
// # Layout and caching
//
// The order is chosen for prompt caches, which match the longest
// identical prefix: everything that changes every call (tracker, working
// memory, reminders) comes last, so the static system prompt, the
// rehydration block and the whole history before the newest turn stay a
// cached prefix. [Assemble] marks cache breakpoints after each
// (provider.Request.CacheAfter: Anthropic's cache_control; OpenAI caches
// prefixes by itself). Seed 004 puts the tracker section and working
// memory in the system prompt; there they would change the prefix on
// every call and no message would ever be served from the cache.
//
// # Budget
//
// [Assemble] counts every part and reports a token table ([Row]) whose
// rows sum exactly to [Request].Tokens, the prompt size the budget is
// checked against. The engine subtracts the static part, the tail and the
// tool schemas from the budget before it asks for compaction (the
// window's reserved tokens), and drops tail parts by priority when the
// request would still not fit.
package prompt
