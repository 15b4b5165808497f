package provider

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// This file recognises the answers providers give to a prompt that does not
// fit the model's context window. Each form below was confirmed from a
// real response body quoted in a public issue (the issue named), not
// guessed:
//
//   - Anthropic 400 invalid_request_error "prompt is too long: 219898
//     tokens > 200000 maximum" (earendil-works/pi#102, boldsoftware/exe.dev#62).
//   - Anthropic 400 invalid_request_error "input length and `max_tokens`
//     exceed context limit: 178959 + 64000 > 200000, decrease input length
//     or `max_tokens` and try again" (docker/docker-agent#569,
//     anthropics/claude-code#228).
//   - Anthropic 413 request_too_large "Request exceeds the maximum size"
//     (anthropics/claude-code#14567; the 32 MB limit of
//     https://docs.anthropic.com/en/api/errors, anthropic-sdk-python#938).
//   - OpenAI 400 context_length_exceeded "This model's maximum context
//     length is 8192 tokens. However, your messages resulted in 8202
//     tokens. Please reduce the length of the messages."
//     (dimagi/open-chat-studio#463), the "…However, you requested 4130
//     tokens (3130 in the messages, 1000 in the completion)…" form
//     (Chanzhaoyu/chatgpt-web#354) and "(202767 in the messages, 101 in the
//     functions)" (bytedance/deer-flow#310).
//   - OpenAI Responses-style context_length_exceeded "Your input exceeds
//     the context window of this model. Please adjust your input and try
//     again." (openai/codex#3177, james-6-23/codex2api#415).
//   - DeepSeek 400 invalid_request_error with OpenAI's wording and the
//     completion part (FoundationAgents/OpenManus#79, BerriAI/litellm#10431).
//   - vLLM: OpenAI's "you requested … (… in the messages, … in the
//     completion)" wording (vllm-project/vllm#20409) and "The decoder
//     prompt (length 17772) is longer than the maximum model length of
//     16384" (xorbitsai/inference#3785); vLLM's error object may be at the
//     top level ({"object": "error", "message": …, "code": 400}).
//   - llama.cpp server exceed_context_size_error with n_prompt_tokens and
//     n_ctx, "request (8708 tokens) exceeds the available context size
//     (8192 tokens), try increasing it" (ollama/ollama#16800 quoting it,
//     oobabooga/textgen#7257), and the older "the request exceeds the
//     available context size. try increasing the context size or enable
//     context shift", once with status 500 (ggml-org/llama.cpp#15780).
//   - Ollama: by default it truncates the prompt and answers 200
//     (ollama/ollama#4967); with truncation off it relays llama.cpp's
//     exceed_context_size_error (ollama/ollama#16800).
//   - Qwen/DashScope 400 "<400> InternalError.Algo.InvalidParameter: Range
//     of input length should be [1, 983616]" (agentscope-ai/QwenPaw#6255,
//     QwenLM/qwen-code#98): the limit only.
//   - Gemini's OpenAI-compatible endpoint 400 "The input token count
//     (1200293) exceeds the maximum number of tokens allowed (1048576)."
//     (google-gemini/gemini-cli#6678).
//
// Not overflow: OpenAI's string_above_max_length ("Invalid
// 'messages[0].content': string too long. Expected a string with maximum
// length 10485760…", VectorlyApp/bluebox#31) limits one string's
// characters, not the prompt's tokens; compacting older history does not
// shorten that string, so it stays [ErrBadRequest] (truncate the message).
// Nor is a 429 "Request too large … on tokens per min": that is a rate
// limit.

var (
	reAnthropicTooLong = regexp.MustCompile(`prompt is too long: (\d+) tokens > (\d+) maximum`)
	reAnthropicLimit   = regexp.MustCompile(`exceed context limit: (\d+) \+ (\d+) > (\d+)`)
	reMaxContext       = regexp.MustCompile(`maximum context length is (\d+) tokens`)
	reRequested        = regexp.MustCompile(`(?:resulted in|you requested(?: about)?|your request has|contains at least) (\d+) (?:input )?tokens`)
	reCompletion       = regexp.MustCompile(`(\d+) in the completion`)
	reLlamaCpp         = regexp.MustCompile(`request \((\d+) tokens\) exceeds (?:the available )?context size \((\d+) tokens\)`)
	reDecoderPrompt    = regexp.MustCompile(`prompt \((?:total )?length (\d+)\) is (?:longer than the maximum model length of|too long to fit into the model \(context length) (\d+)`)
	reDashScope        = regexp.MustCompile(`range of input length should be \[1, (\d+)\]`)
	reGemini           = regexp.MustCompile(`input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)`)
	reInputLength      = regexp.MustCompile(`input length (\d+) exceeds the maximum length (\d+)`)
)

// overflowPhrases are messages that say the prompt is over the window
// without numbers (or whose numbers the regexps above read).
var overflowPhrases = []string{
	"prompt is too long",
	"exceed context limit",
	"maximum context length is",
	"exceeds the context window",
	"exceeds the available context size",
	"exceeds context size",
	"is longer than the maximum model length",
	"too long to fit into the model",
	"longer than the model's context length",
	"range of input length should be",
	"exceeds the maximum number of tokens allowed",
	"exceeds the maximum length",
}

// overflowCodes are error codes and types that mean overflow by themselves.
var overflowCodes = map[string]bool{
	"context_length_exceeded":   true, // OpenAI
	"request_too_large":         true, // Anthropic 413
	"exceed_context_size_error": true, // llama.cpp, Ollama
	"context_window_exceeded":   true,
	"context_exceeded":          true,
}

// ParseOverflow reports whether a provider's error (HTTP status, error code
// or type, message) says the prompt exceeded the model's context window,
// and returns the window (limit) and the prompt's size (tokens) in tokens
// when the message states them, else 0. ok is true for status 413, for
// the codes context_length_exceeded (OpenAI), request_too_large
// (Anthropic) and exceed_context_size_error (llama.cpp, Ollama), and for
// the messages listed at the top of this file, whatever the status (some
// servers answer overflow with 500); it is false for 401, 403, 404 and 429,
// and for OpenAI's string_above_max_length (see above). When the provider
// reports the prompt and the completion apart ("you requested 131000
// tokens (127000 in the messages, 4000 in the completion)"), tokens is
// the prompt part. It never panics, on any input.
func ParseOverflow(status int, code, message string) (limit, tokens int, ok bool) {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests:
		return 0, 0, false
	}
	c := strings.ToLower(strings.TrimSpace(code))
	if c == "string_above_max_length" {
		return 0, 0, false
	}
	m := strings.ToLower(message)
	ok = status == http.StatusRequestEntityTooLarge || overflowCodes[c]
	for _, p := range overflowPhrases {
		if strings.Contains(m, p) {
			ok = true
			break
		}
	}
	if !ok {
		return 0, 0, false
	}
	limit, tokens = overflowNumbers(m)
	return limit, tokens, true
}

// overflowNumbers reads the window and the prompt size from a lower-case
// overflow message.
func overflowNumbers(m string) (limit, tokens int) {
	if g := reAnthropicTooLong.FindStringSubmatch(m); g != nil {
		return atoi(g[2]), atoi(g[1])
	}
	if g := reAnthropicLimit.FindStringSubmatch(m); g != nil {
		return atoi(g[3]), atoi(g[1])
	}
	if g := reMaxContext.FindStringSubmatch(m); g != nil {
		limit = atoi(g[1])
		rest := m[strings.Index(m, g[0])+len(g[0]):]
		if r := reRequested.FindStringSubmatch(rest); r != nil {
			tokens = atoi(r[1])
			if c := reCompletion.FindStringSubmatch(rest); c != nil {
				tokens = max(tokens-atoi(c[1]), 0)
			}
		}
		return limit, tokens
	}
	for _, re := range []*regexp.Regexp{reLlamaCpp, reDecoderPrompt, reGemini, reInputLength} {
		if g := re.FindStringSubmatch(m); g != nil {
			return atoi(g[2]), atoi(g[1])
		}
	}
	if g := reDashScope.FindStringSubmatch(m); g != nil {
		return atoi(g[1]), 0
	}
	return 0, 0
}

// atoi reads a decimal that a regexp matched; absurd values become 0.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// ErrorBody is the error a provider put in a response body, read by
// [ParseErrorBody]. Status is the numeric "code" some servers put in the
// body (llama.cpp, vLLM), 0 when absent. Limit and PromptTokens are
// llama.cpp's "n_ctx" and "n_prompt_tokens", 0 when absent.
type ErrorBody struct {
	Code, Message       string
	Status              int
	Limit, PromptTokens int
}

// ParseErrorBody reads the error object of a response body in the shapes
// providers use: OpenAI's {"error": {"message", "type", "code", "param"}}
// (with llama.cpp's numeric "code", "n_ctx" and "n_prompt_tokens"),
// Anthropic's {"type": "error", "error": {"type", "message"}}, vLLM's
// top-level {"object": "error", "message", "type", "code"}, and Ollama's
// {"error": "text"}. Code is the error's "code" when it is a string, else
// its "type". ok is false when body is not JSON or has no error in these
// shapes. It never panics.
func ParseErrorBody(body []byte) (e ErrorBody, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return e, false
	}
	obj := top
	if raw, found := top["error"]; found {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return ErrorBody{Message: s}, true
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) != nil {
			return e, false
		}
		obj = inner
	} else if _, found := top["message"]; !found {
		return e, false
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(obj[k], &s)
		return s
	}
	num := func(k string) int {
		var n float64
		if json.Unmarshal(obj[k], &n) != nil || n < 0 || n > 1<<40 {
			return 0
		}
		return int(n)
	}
	e.Message = str("message")
	e.Code = str("code")
	if e.Code == "" {
		e.Code = str("type")
	}
	e.Status = num("code")
	e.Limit, e.PromptTokens = num("n_ctx"), num("n_prompt_tokens")
	return e, e.Message != "" || e.Code != ""
}

// ParseOverflowBody is [ParseOverflow] on a response body read by
// [ParseErrorBody], with llama.cpp's n_ctx and n_prompt_tokens filling
// what the message does not state. A body that is not a known error shape
// is matched as plain text.
func ParseOverflowBody(status int, body []byte) (limit, tokens int, ok bool) {
	e, found := ParseErrorBody(body)
	if !found {
		return ParseOverflow(status, "", string(body))
	}
	limit, tokens, ok = ParseOverflow(status, e.Code, e.Message)
	if ok {
		if limit == 0 {
			limit = e.Limit
		}
		if tokens == 0 {
			tokens = e.PromptTokens
		}
	}
	return limit, tokens, ok
}

// ParseTooLargeBody reports whether an error answer says the request was
// too large in bytes, not in tokens: status 413 (Anthropic's
// request_too_large, "Request exceeds the maximum size", for bodies over
// its 32 MB limit, https://docs.anthropic.com/en/api/errors; any server's
// 413 Request Entity Too Large), or a request_too_large code whose message
// speaks of size or bytes, unless the message is one of a token overflow
// (then [ParseOverflowBody] says so with its numbers). Compacting the
// history's tokens is not the cure: its largest media are.
func ParseTooLargeBody(status int, body []byte) bool {
	e, found := ParseErrorBody(body)
	msg := strings.ToLower(e.Message)
	if !found {
		msg = strings.ToLower(string(body))
	}
	for _, p := range overflowPhrases {
		if strings.Contains(msg, p) {
			return false
		}
	}
	if reRequested.MatchString(msg) || reGemini.MatchString(msg) {
		return false
	}
	if status == http.StatusRequestEntityTooLarge {
		return true
	}
	return strings.EqualFold(e.Code, "request_too_large") && (strings.Contains(msg, "size") || strings.Contains(msg, "bytes"))
}
