// Package openai is the [provider.Model] adapter for the OpenAI
// chat-completions API (https://platform.openai.com/docs/api-reference/chat/create)
// and every server that speaks it through a base URL: OpenAI, DeepSeek,
// Qwen/DashScope, Ollama (http://localhost:11434/v1), vLLM, llama.cpp. It
// is built on the official SDK, github.com/openai/openai-go, which does the
// HTTP, the retries with backoff and the server-sent events; this package
// converts messages with the chat package and maps errors to the
// provider sentinels.
//
// # Wire format
//
// A request is POST {BaseURL}/chat/completions with "Authorization: Bearer
// {APIKey}" and the body {"model", "messages", "max_completion_tokens" (or
// "max_tokens"), "temperature", "tools", "stream", "stream_options"}. The
// messages are [chat.ToOpenAI]'s, in [chat.OpenAIMessage.ForRequest] form;
// tools are "function" tools whose parameters are sent byte-for-byte.
// The reply's message goes through [chat.FromOpenAI] (so DeepSeek's and
// Qwen's "reasoning_content" becomes a [chat.Thinking] part) and its usage
// through [chat.UsageFromOpenAI] (cached and reasoning tokens).
package openai
