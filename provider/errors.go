package provider

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// APIError is a provider's failure after the adapter's retries: an HTTP
// error response, or a network error (Status 0). It unwraps to the
// sentinel that [Classify] chose (test with errors.Is(err, ErrAuth), …)
// and to the SDK's own error (errors.As with *openai.Error or
// *anthropic.Error). Plain data; safe to share once returned.
type APIError struct {
	// Provider is "openai" or "anthropic".
	Provider string
	// Status is the HTTP status of the last attempt; 0 for a network error.
	Status int
	// Code is the provider's error code or type ("invalid_api_key",
	// "model_not_found", "rate_limit_error"); "" when it sent none.
	Code string
	// Message is the provider's own message, or the network error's text.
	Message string
	// Kind is the sentinel: ErrAuth, ErrContextOverflow, ErrUnknownModel,
	// ErrRateLimited, ErrUnavailable or ErrBadRequest.
	Kind error
	// Limit is the context window in tokens (the most prompt tokens the
	// model takes) as the provider stated it in an [ErrContextOverflow]
	// error; 0 when it did not say, and for every other Kind.
	Limit int
	// PromptTokens is the prompt's size in tokens as the provider counted
	// it in an [ErrContextOverflow] error (tool definitions included, the
	// requested completion excluded); 0 when it did not say. It can be
	// below Limit when the provider rejected prompt plus max_tokens
	// (Anthropic's "input length and `max_tokens` exceed context limit"):
	// lower the request's MaxTokens to Limit-PromptTokens, or compact.
	PromptTokens int
	// Cause is the SDK's error. May be nil.
	Cause error
}

// Error gives the status, the provider's code and message, and the
// sentinel's meaning, for example "401 Unauthorized (invalid_api_key):
// Incorrect API key provided: provider rejected the credentials". The
// adapters wrap it as "openai: send <model>: …", which names the provider.
func (e *APIError) Error() string {
	var b strings.Builder
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
	} else {
		b.WriteString("network error")
	}
	if e.Code != "" {
		b.WriteString(" (")
		b.WriteString(e.Code)
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Kind != nil {
		b.WriteString(": ")
		b.WriteString(e.Kind.Error())
	}
	return b.String()
}

// Unwrap returns the sentinel and the SDK's error.
func (e *APIError) Unwrap() []error {
	out := []error{e.Kind}
	if e.Cause != nil {
		out = append(out, e.Cause)
	}
	return out
}

// Classify returns the sentinel for an HTTP status (after retries) and the
// provider's error code and message: 401 and 403 → [ErrAuth]; a prompt
// over the context window ([ParseOverflow]: 413, or a code or message
// saying so, whatever the status, since some servers answer it with 500)
// → [ErrContextOverflow]; 404, or a code or message saying the model does
// not exist (OpenAI's "model_not_found", Ollama's "model … not found") →
// [ErrUnknownModel]; 429 → [ErrRateLimited]; 5xx (Anthropic's 529
// "overloaded" among them), 408, 409 and 0 (a network error) →
// [ErrUnavailable]; any other status → [ErrBadRequest]. Overflow is tested
// before the model-not-found heuristic, whose words ("model") OpenAI's
// overflow message also contains. Sources: the error-code pages of the
// OpenAI API (https://platform.openai.com/docs/guides/error-codes) and the
// Anthropic API (https://docs.anthropic.com/en/api/errors).
func Classify(status int, code, message string) error {
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		return ErrAuth
	}
	if _, _, ok := ParseOverflow(status, code, message); ok {
		return ErrContextOverflow
	}
	switch {
	case status == http.StatusNotFound || isModelNotFound(code, message):
		return ErrUnknownModel
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status == 0 || status >= 500 || status == http.StatusRequestTimeout || status == http.StatusConflict:
		return ErrUnavailable
	}
	return ErrBadRequest
}

// isModelNotFound reports whether a provider's code or message says the
// model does not exist, as OpenAI-compatible servers do with a 400.
func isModelNotFound(code, message string) bool {
	if code == "model_not_found" {
		return true
	}
	m := strings.ToLower(message)
	return strings.Contains(m, "model") && (strings.Contains(m, "not found") || strings.Contains(m, "does not exist"))
}

// IsRetryable reports whether err is a failure that the adapter already
// retried: [ErrRateLimited] or [ErrUnavailable]. Callers that add their own
// retry loop can use it.
func IsRetryable(err error) bool {
	return errors.Is(err, ErrRateLimited) || errors.Is(err, ErrUnavailable)
}

// MaxErrorBody bounds, in bytes, how much of an error response
// [PeekErrorBody] reads.
const MaxErrorBody = 1 << 20

// PeekErrorBody reads the body of an error response (status 400 and up)
// and puts it back, so that the SDK reads it again, for the adapters'
// middlewares; when the body reports a context overflow
// ([ParseOverflowBody]) it also sets "x-should-retry: false", which both
// SDKs obey before the status, so that an overflow is never retried (some
// servers send it with a 500, or ask for retries). It returns the body and
// true, or false for a success, a body over [MaxErrorBody] bytes or a read
// error (the response is then left as it was, its body whole). res may
// be nil.
func PeekErrorBody(res *http.Response) ([]byte, bool) {
	if res == nil || res.StatusCode < 400 || res.Body == nil {
		return nil, false
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxErrorBody+1))
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || len(body) > MaxErrorBody {
		return nil, false
	}
	if _, _, ok := ParseOverflowBody(res.StatusCode, body); ok {
		res.Header.Set("x-should-retry", "false")
	}
	return body, true
}
