// Package anthropic is the [provider.Model] adapter for the Anthropic
// Messages API (https://docs.anthropic.com/en/api/messages), built on the
// official SDK, github.com/anthropics/anthropic-sdk-go, which does the
// HTTP, the retries with backoff and the server-sent events; this package
// converts messages with the chat package and maps errors to the provider
// sentinels.
//
// # Wire format
//
// A request is POST {BaseURL}/v1/messages with "x-api-key: {APIKey}" and
// "anthropic-version: 2023-06-01", and the body {"model", "max_tokens",
// "system", "messages", "temperature", "tools", "stream"}. The leading
// system messages become "system" text blocks and the rest become
// "messages" by [chat.ToAnthropic] (tool_use, tool_result, thinking and
// redacted_thinking blocks included), in [chat.AnthropicMessage.ForRequest]
// form. max_tokens is required by the API: it defaults to 4,096. The reply
// goes through [chat.FromAnthropic] (thinking blocks and their signatures
// are kept) and its usage through [chat.UsageFromAnthropic] (cache read
// and cache write).
package anthropic
