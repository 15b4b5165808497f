// Package agentconf is the real-agents conformance suite: scripted model
// servers that speak the providers' real wires, play a small coding task
// with the tools the agent declares, enforce the documented request rules
// and record every request, so that the unmodified coding agents from npm
// (Claude Code, Codex CLI, Gemini CLI, opencode) can be run against them
// directly and through `agentctx proxy`. TestAgents does that for every
// agent installed under $AGENTCTX_AGENTS_DIR (see scripts/agents.sh).
//
// # Servers
//
// [Start] serves, on one loopback listener, the three wires the agents
// speak:
//
//   - the Anthropic Messages API: POST /v1/messages (JSON and server-sent
//     events), POST /v1/messages/count_tokens, GET /v1/models;
//   - the OpenAI Responses API: POST /v1/responses (server-sent events and
//     JSON), GET /v1/models;
//   - the Gemini API: POST /v1beta/models/{model}:generateContent,
//     :streamGenerateContent?alt=sse and :countTokens.
//
// Each wire's rules are checked before the model answers, and a violation
// gets the provider's real error status and body (see [Record.Violation]):
// the Messages API's tool_use/tool_result pairing, role order, at most 4
// cache_control breakpoints, signed thinking blocks returned unchanged and
// its 32 MB request limit (413); the Responses API's call/output pairing by
// call_id and signed reasoning items; the Gemini API's function call and
// response turns.
//
// # The task
//
// [NewTask] writes a temporary git repository with a failing test
// (calc.js sums from index 1; test.sh checks it) and a 3,000-line big.txt.
// The scripted model reads calc.js, runs the test, asks for [BigSteps] (16)
// large tool outputs of 6,000 to 9,000 tokens each (400-line windows of
// big.txt, forwards and reversed, and 3,000 numbers of seq: each under the
// 30,000 characters above which Claude Code saves an output to a file and
// sends a preview), fixes the off-by-one, runs the test again and ends with a text answer. Each step is
// chosen from the latest tool call and its result in the request (every
// command carries an "agentconf-step:NAME" marker), never from a request
// counter, so the play survives a proxy that compacted earlier history.
// Each wire maps the steps to the tools the agent declared: Claude Code's
// Read, Bash and Edit; opencode's read, bash and edit; Codex's exec_command
// and apply_patch, or, for its default model, JavaScript for its freeform
// exec tool calling tools.exec_command and tools.apply_patch; Gemini CLI's
// read_file, run_shell_command and replace.
//
// A request whose last user message is a new prompt after tool calls is
// the agent's own compaction (Claude Code's "Your task is to create a
// detailed summary", Codex's "CONTEXT CHECKPOINT COMPACTION"): the model
// answers with a summary carrying an "agentconf-progress:STEP" marker, and
// a request without tool calls goes on from the last such marker.
//
// # Counting
//
// [Count] is the suite's own token count of a request body: the
// o200k_base count of every JSON string value but signatures, encrypted
// reasoning and inline binary data. It is the same for every wire, so the
// tokens an agent sent and the tokens the upstream received compare.
package agentconf
