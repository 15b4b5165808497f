// Package providertest runs fake model servers that speak the real wire
// formats of the OpenAI chat-completions API and the Anthropic Messages
// API, for tests of code that talks to models through provider/openai and
// provider/anthropic (the engine's, the agent's). It is test support, but
// an ordinary package so that any package's tests can import it; it
// imports no SDK and touches no network beyond the loopback listener of
// net/http/httptest.
//
// # Servers
//
// [NewOpenAI] serves POST /v1/chat/completions and [NewAnthropic] serves
// POST /v1/messages, both as JSON and, with "stream": true, as
// server-sent events in the providers' documented event sequences. Point
// an adapter at [Server.BaseURL]. Every request is recorded
// ([Server.Requests]) with its raw body and its decoded, provider-neutral
// form.
//
// # Scripts
//
// A [Script] decides each answer from the decoded [Request]: assistant
// text and tool calls with usage ([Reply]), or an injected [Failure]
// carrying the provider's real error body. [Wire] has constructors for the
// common failures: [Wire.Overflow], [Wire.RateLimited], [Wire.Overloaded],
// [Wire.ServerError], [Wire.Unauthorized]. [Options.Faults] fails chosen
// requests without a script; [Options.ContextLimit] answers any prompt
// over the limit with the provider's real overflow body.
//
// # Ordering rules
//
// Before the script sees a request, the server checks it against the
// provider's documented message-ordering rules and answers a violation
// as the real API does: status 400 and its error body and message. The
// checks are exported for tests without a server: [ValidateOpenAI] and
// [ValidateAnthropic] take a raw request body and return a
// *[ValidationError].
package providertest
