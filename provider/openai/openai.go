package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/internal/splice"
)

// DefaultModel is the model used when neither [Options.Model] nor
// [provider.Request.Model] names one: a small, inexpensive model with a
// 1M-token context window, well suited to summaries.
const DefaultModel = "gpt-4.1-mini"

// DefaultBaseURL is OpenAI's public API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configures [New]. The zero value of every field but APIKey means
// its default.
type Options struct {
	// APIKey is sent as "Authorization: Bearer …". Required: [New] returns
	// [provider.ErrNoAPIKey] without it. Local servers (Ollama, vLLM)
	// accept any non-empty key.
	APIKey string
	// BaseURL is the API root, ending in "/v1" for most servers. Optional.
	// Defaults to [DefaultBaseURL].
	BaseURL string
	// Model is the model name. Optional. Defaults to [DefaultModel].
	Model string
	// Timeout bounds one Send or Stream call, retries and backoff
	// included. Optional. Defaults to 10 minutes.
	Timeout time.Duration
	// MaxRetries is how many times a 408, 409, 429, 5xx or network error
	// is retried with exponential backoff (0.5 s doubling, with jitter, or
	// the server's Retry-After). Optional. Defaults to 2; negative means
	// no retries.
	MaxRetries int
	// MaxRetryDelay caps one wait between retries. Optional. Defaults to
	// the SDK's cap (8 s for backoff, 2 min for a server's Retry-After); a
	// server asking for more than the cap ends the retries.
	MaxRetryDelay time.Duration
	// HTTPClient sends the requests. Optional. Defaults to the SDK's
	// client.
	HTTPClient *http.Client
	// DefaultMaxTokens caps a reply in tokens when the request does not.
	// Optional. Defaults to 4,096.
	DefaultMaxTokens int
}

// Model is a [provider.Model] and [provider.Streamer] for one
// OpenAI-compatible endpoint. Safe for concurrent use.
type Model struct {
	svc       openai.ChatCompletionService
	model     string
	timeout   time.Duration
	maxTokens int
	// official is true for api.openai.com, which takes
	// max_completion_tokens (and rejects max_tokens for reasoning models)
	// and has no reasoning_content; other servers get max_tokens, which
	// all of them know.
	official bool
}

var (
	_ provider.Model    = (*Model)(nil)
	_ provider.Streamer = (*Model)(nil)
)

// New returns a Model for opts. It returns an error wrapping
// [provider.ErrNoAPIKey] (naming OPENAI_API_KEY) when opts.APIKey is
// empty, and one wrapping [provider.ErrBadRequest] when BaseURL is not an
// absolute http(s) URL. It sends nothing.
func New(opts Options) (*Model, error) {
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, fmt.Errorf("openai: new: %w: set %s or pass the key", provider.ErrNoAPIKey, provider.EnvOpenAIKey)
	}
	base := cmp.Or(strings.TrimSpace(opts.BaseURL), DefaultBaseURL)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: new: base URL %q is not an absolute http(s) URL: %w", base, provider.ErrBadRequest)
	}
	retries := opts.MaxRetries
	switch {
	case retries == 0:
		retries = provider.DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	ro := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithAPIKey(opts.APIKey),
		option.WithMaxRetries(retries),
	}
	if opts.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(opts.HTTPClient))
	}
	if opts.MaxRetryDelay > 0 {
		ro = append(ro, option.WithMaxRetryDelay(opts.MaxRetryDelay))
	}
	ro = append(ro, option.WithMiddleware(errorBodies))
	// NewClient also reads OPENAI_ORG_ID, OPENAI_PROJECT_ID and
	// OPENAI_CUSTOM_HEADERS; the options above override its key and URL.
	client := openai.NewClient(ro...)
	return &Model{
		svc:       client.Chat.Completions,
		model:     cmp.Or(strings.TrimSpace(opts.Model), DefaultModel),
		timeout:   cmp.Or(opts.Timeout, provider.DefaultTimeout),
		maxTokens: cmp.Or(opts.DefaultMaxTokens, provider.DefaultMaxTokens),
		official:  strings.EqualFold(u.Hostname(), "api.openai.com"),
	}, nil
}

// Name returns "openai/<model>".
func (m *Model) Name() string { return "openai/" + m.model }

// Send makes one chat-completions call and returns the first choice. See
// [provider.Model] for retries and errors: HTTP failures are
// *[provider.APIError]s (a prompt over the context window is
// [provider.ErrContextOverflow], with Limit and PromptTokens when the
// server stated them, and is never retried); a canceled or expired ctx returns ctx.Err()
// wrapped; a timeout of [Options.Timeout] wraps both
// context.DeadlineExceeded and [provider.ErrUnavailable].
func (m *Model) Send(ctx context.Context, req provider.Request) (*provider.Response, error) {
	model := cmp.Or(req.Model, m.model)
	params, err := m.params(req, model)
	if err != nil {
		return nil, fmt.Errorf("openai: send %s: %w", model, err)
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var httpRes *http.Response
	c, err := m.svc.New(ctx, params, option.WithResponseInto(&httpRes))
	if err != nil {
		return nil, m.mapErr(ctx, "send", model, err, httpRes)
	}
	if len(c.Choices) == 0 {
		return nil, fmt.Errorf("openai: send %s: the response has no choices: %w", model, provider.ErrUnavailable)
	}
	ch := c.Choices[0]
	var wire wireMessage
	if err := json.Unmarshal([]byte(ch.Message.RawJSON()), &wire); err != nil {
		return nil, fmt.Errorf("openai: send %s: decode message: %w", model, err)
	}
	var usage *chat.OpenAIUsage
	if raw := c.Usage.RawJSON(); raw != "" {
		usage = new(chat.OpenAIUsage)
		if err := json.Unmarshal([]byte(raw), usage); err != nil {
			return nil, fmt.Errorf("openai: send %s: decode usage: %w", model, err)
		}
	}
	return response(wire, c.ID, c.Model, ch.FinishReason, usage)
}

// Stream is Send with "stream": true and "stream_options":
// {"include_usage": true}: fn receives each content delta as it arrives
// (reasoning and tool-call deltas are not passed to fn), and the returned
// Response is the reassembled reply, the same as Send's. An error from fn
// stops the stream and is returned wrapped. Retries happen only before
// the first event.
func (m *Model) Stream(ctx context.Context, req provider.Request, fn func(delta string) error) (*provider.Response, error) {
	model := cmp.Or(req.Model, m.model)
	params, err := m.params(req, model)
	if err != nil {
		return nil, fmt.Errorf("openai: stream %s: %w", model, err)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var httpRes *http.Response
	s := m.svc.NewStreaming(ctx, params, option.WithResponseInto(&httpRes))
	defer s.Close()
	var acc accumulator
	for s.Next() {
		var c wireChunk
		if err := json.Unmarshal([]byte(s.Current().RawJSON()), &c); err != nil {
			return nil, fmt.Errorf("openai: stream %s: decode chunk: %w", model, err)
		}
		delta := acc.add(c)
		if delta != "" && fn != nil {
			if err := fn(delta); err != nil {
				return nil, fmt.Errorf("openai: stream %s: %w", model, err)
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, m.mapErr(ctx, "stream", model, err, httpRes)
	}
	if !acc.seen {
		return nil, fmt.Errorf("openai: stream %s: the stream has no choices: %w", model, provider.ErrUnavailable)
	}
	return response(acc.message(), acc.id, acc.model, acc.finish, acc.usage)
}

// Body returns the JSON body [Model.Send] posts to OpenAI's
// chat-completions endpoint for req, without sending it: for a caller that
// sends the request itself (agentctx serve hands it to agents in any
// language). It is the body for api.openai.com (max_completion_tokens,
// prompt_cache_key); req.Model defaults to [DefaultModel] and
// req.MaxTokens to 4,096. Errors: those of Send's request building (no
// messages, a message chat.ToOpenAI rejects), wrapping
// [provider.ErrBadRequest] or chat.ErrInvalid.
func Body(req provider.Request) ([]byte, error) {
	m := &Model{model: DefaultModel, maxTokens: provider.DefaultMaxTokens, official: true}
	p, err := m.params(req, cmp.Or(req.Model, m.model))
	if err != nil {
		return nil, fmt.Errorf("openai: body: %w", err)
	}
	b, err := splice.Marshal(&p, &p.Messages, param.Override[openai.ChatCompletionMessageParamUnion](splice.Placeholder))
	if err != nil {
		return nil, fmt.Errorf("openai: body: %w", err)
	}
	return b, nil
}

// params builds the request body.
func (m *Model) params(req provider.Request, model string) (openai.ChatCompletionNewParams, error) {
	if len(req.Messages) == 0 {
		return openai.ChatCompletionNewParams{}, fmt.Errorf("no messages: %w", provider.ErrBadRequest)
	}
	wire, err := chat.ToOpenAI(req.Messages)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	p := openai.ChatCompletionNewParams{
		Model:    model,
		Messages: make([]openai.ChatCompletionMessageParamUnion, len(wire)),
	}
	for i, w := range wire {
		w = w.ForRequest()
		if m.official {
			w.ReasoningContent = ""
		}
		b, err := json.Marshal(w)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		p.Messages[i] = param.Override[openai.ChatCompletionMessageParamUnion](json.RawMessage(b))
	}
	maxTokens := int64(cmp.Or(req.MaxTokens, m.maxTokens))
	if m.official {
		p.MaxCompletionTokens = openai.Int(maxTokens)
	} else {
		p.MaxTokens = openai.Int(maxTokens)
	}
	if req.Temperature != nil {
		p.Temperature = openai.Float(*req.Temperature)
	}
	if req.CacheKey != "" && m.official {
		// Other OpenAI-compatible servers may reject unknown fields.
		p.PromptCacheKey = openai.String(req.CacheKey)
	}
	for i, t := range req.Tools {
		b, err := json.Marshal(wireTool{Type: "function", Function: wireFunction{
			Name:        t.Name,
			Description: t.Description,
			Parameters:  schema(t.Parameters),
		}})
		if err != nil {
			return p, fmt.Errorf("tool %d (%s): %w", i, t.Name, err)
		}
		p.Tools = append(p.Tools, param.Override[openai.ChatCompletionToolUnionParam](json.RawMessage(b)))
	}
	return p, nil
}

// schema returns a tool's parameters, or the empty object schema when it
// has none (the API wants an object schema).
func schema(p json.RawMessage) json.RawMessage {
	if len(strings.TrimSpace(string(p))) == 0 || string(p) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return p
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// wireMessage is the chat completion's message: chat's shape plus
// "refusal", which chat does not keep.
type wireMessage struct {
	chat.OpenAIMessage
	Refusal string `json:"refusal,omitempty"`
}

// DecodeResponse converts a chat completion, the JSON body the
// chat-completions endpoint answers with, into the Response [Model.Send]
// returns for it: the first choice's message with the usage, the
// completion's id and model. For a caller that sends the request itself
// and hands the reply back (agentctx serve). Errors: a body that is not a
// chat completion or has no choices, and a message chat.FromOpenAI
// rejects, naming the field; wrapping [provider.ErrBadRequest] or
// chat.ErrInvalid.
func DecodeResponse(body []byte) (*provider.Response, error) {
	var c struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Choices []struct {
			Message      *wireMessage `json:"message"`
			FinishReason string       `json:"finish_reason"`
		} `json:"choices"`
		Usage *chat.OpenAIUsage `json:"usage"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("openai: decode response: %w: %w", provider.ErrBadRequest, err)
	}
	if len(c.Choices) == 0 || c.Choices[0].Message == nil {
		return nil, fmt.Errorf("openai: decode response: choices[0].message is missing: %w", provider.ErrBadRequest)
	}
	return response(*c.Choices[0].Message, c.ID, c.Model, c.Choices[0].FinishReason, c.Usage)
}

// response converts the reply's message and usage.
func response(w wireMessage, id, model, finish string, usage *chat.OpenAIUsage) (*provider.Response, error) {
	om := w.OpenAIMessage
	om.Role = "assistant"
	om.ID, om.Model, om.Usage = "", "", nil
	if om.Content.IsNull() && w.Refusal != "" {
		om.Content = chat.OpenAIText(w.Refusal)
	}
	msgs, err := chat.FromOpenAI([]chat.OpenAIMessage{om})
	if err != nil {
		return nil, fmt.Errorf("openai: response %s: %w", id, err)
	}
	msg := msgs[0]
	msg.ID, msg.Model = id, model
	r := &provider.Response{Message: msg, StopReason: finish, Model: model}
	if usage != nil {
		u := chat.UsageFromOpenAI(*usage)
		r.Usage = u
		r.Message.Usage = &u
	}
	return r, nil
}

// mapErr turns an SDK error into a provider error: the caller's ctx error,
// a timeout, or a *provider.APIError.
func (m *Model) mapErr(ctx context.Context, op, model string, err error, res *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			// The caller's deadline or Options.Timeout.
			return fmt.Errorf("openai: %s %s: %w (timeout %s): %w", op, model, ctxErr, m.timeout, provider.ErrUnavailable)
		}
		return fmt.Errorf("openai: %s %s: %w", op, model, ctxErr)
	}
	e := &provider.APIError{Provider: "openai", Message: err.Error(), Cause: err}
	var apiErr *openai.Error
	switch {
	case errors.As(err, &apiErr):
		e.Status = apiErr.StatusCode
		e.Code = cmp.Or(apiErr.Code, apiErr.Type)
		e.Message = apiErr.Message
		if e.Message == "" {
			e.Message = apiErr.RawJSON()
		}
	case res != nil && res.StatusCode >= 400:
		e.Status = res.StatusCode
	}
	var body provider.ErrorBody
	var streamErr *ssestream.StreamError
	switch {
	case errors.As(err, &streamErr):
		// An error object sent as an event after a 200 (vLLM, llama.cpp,
		// OpenAI itself): {"error": {"message", "type", "code"}}.
		if b, ok := provider.ParseErrorBody(streamErr.Event.Data); ok {
			body = b
			e.Code, e.Message, e.Status = b.Code, b.Message, b.Status
		}
	case apiErr != nil:
		// The SDK keeps a numeric "code" (llama.cpp, vLLM) as text; the
		// body's string code or type says more.
		var ok bool
		if body, ok = provider.ParseErrorBody([]byte(`{"error":` + apiErr.RawJSON() + `}`)); ok && body.Code != "" {
			e.Code = body.Code
		}
	}
	e.Kind = provider.Classify(e.Status, e.Code, e.Message)
	if errors.Is(e.Kind, provider.ErrContextOverflow) {
		e.Limit, e.PromptTokens, _ = provider.ParseOverflow(e.Status, e.Code, e.Message)
		e.Limit = cmp.Or(e.Limit, body.Limit)
		e.PromptTokens = cmp.Or(e.PromptTokens, body.PromptTokens)
	}
	return fmt.Errorf("openai: %s %s: %w", op, model, e)
}

// errorBodies is a middleware for error responses (status 400 and up). It
// sets "x-should-retry: false" on a context overflow
// ([provider.PeekErrorBody]), so that the SDK never retries one, even when
// a server answers it with 500 (older llama.cpp) or asks for retries; and
// it moves vLLM's top-level error object ({"object": "error", "message":
// …}) under "error", where the SDK reads it. Bodies over 1 MiB are left
// alone.
func errorBodies(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil {
		return res, err
	}
	body, ok := provider.PeekErrorBody(res)
	if !ok {
		return res, err
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) == nil && top["error"] == nil && top["message"] != nil {
		wrapped, _ := json.Marshal(map[string]json.RawMessage{"error": json.RawMessage(body)})
		res.Body = io.NopCloser(bytes.NewReader(wrapped))
		res.ContentLength = int64(len(wrapped))
	}
	return res, err
}
