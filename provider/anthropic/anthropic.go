package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/internal/splice"
)

// DefaultModel is the model used when neither [Options.Model] nor
// [provider.Request.Model] names one: Anthropic's small, fast model, well
// suited to summaries.
const DefaultModel = "claude-haiku-4-5"

// DefaultBaseURL is Anthropic's public API (the SDK appends "/v1/messages").
const DefaultBaseURL = "https://api.anthropic.com"

// Options configures [New]. The zero value of every field but APIKey means
// its default.
type Options struct {
	// APIKey is sent as "x-api-key". Required: [New] returns
	// [provider.ErrNoAPIKey] without it.
	APIKey string
	// BaseURL is the API root, without "/v1". Optional. Defaults to
	// [DefaultBaseURL].
	BaseURL string
	// Model is the model name. Optional. Defaults to [DefaultModel].
	Model string
	// Timeout bounds one Send or Stream call, retries and backoff
	// included. Optional. Defaults to 10 minutes.
	Timeout time.Duration
	// MaxRetries is how many times a 408, 409, 429, 5xx (529 "overloaded"
	// among them) or network error is retried with exponential backoff
	// (0.5 s doubling up to 8 s, with jitter, or the server's
	// retry-after). Optional. Defaults to 2; negative means no retries.
	MaxRetries int
	// MaxRetryDelay caps one wait between retries, the server's
	// retry-after included. Optional. Defaults to no cap beyond the SDK's.
	MaxRetryDelay time.Duration
	// HTTPClient sends the requests. Optional. Defaults to the SDK's
	// client.
	HTTPClient *http.Client
	// DefaultMaxTokens is max_tokens when the request does not set it.
	// Optional. Defaults to 4,096.
	DefaultMaxTokens int
}

// Model is a [provider.Model] and [provider.Streamer] for the Anthropic
// Messages API. Safe for concurrent use.
type Model struct {
	svc       anthropic.MessageService
	model     string
	timeout   time.Duration
	maxTokens int
}

var (
	_ provider.Model    = (*Model)(nil)
	_ provider.Streamer = (*Model)(nil)
)

// New returns a Model for opts. It returns an error wrapping
// [provider.ErrNoAPIKey] (naming ANTHROPIC_API_KEY) when opts.APIKey is
// empty, and one wrapping [provider.ErrBadRequest] when BaseURL is not an
// absolute http(s) URL. The SDK's own environment lookup
// (ANTHROPIC_AUTH_TOKEN, profiles) is turned off: only opts count. It
// sends nothing.
func New(opts Options) (*Model, error) {
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, fmt.Errorf("anthropic: new: %w: set %s or pass the key", provider.ErrNoAPIKey, provider.EnvAnthropicKey)
	}
	base := cmp.Or(strings.TrimSpace(opts.BaseURL), DefaultBaseURL)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("anthropic: new: base URL %q is not an absolute http(s) URL: %w", base, provider.ErrBadRequest)
	}
	retries := opts.MaxRetries
	switch {
	case retries == 0:
		retries = provider.DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	ro := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		option.WithAPIKey(opts.APIKey),
		option.WithMaxRetries(retries),
	}
	if opts.HTTPClient != nil {
		ro = append(ro, option.WithHTTPClient(opts.HTTPClient))
	}
	if opts.MaxRetryDelay > 0 {
		ro = append(ro, option.WithMiddleware(capRetryDelay(opts.MaxRetryDelay)))
	}
	ro = append(ro, option.WithMiddleware(noOverflowRetry))
	client := anthropic.NewClient(ro...)
	return &Model{
		svc:       client.Messages,
		model:     cmp.Or(strings.TrimSpace(opts.Model), DefaultModel),
		timeout:   cmp.Or(opts.Timeout, provider.DefaultTimeout),
		maxTokens: cmp.Or(opts.DefaultMaxTokens, provider.DefaultMaxTokens),
	}, nil
}

// capRetryDelay returns a middleware that makes the SDK wait at most d
// before retrying a retryable response: it sets "retry-after-ms", which
// the SDK prefers to its own backoff, to d or the server's shorter wish.
func capRetryDelay(d time.Duration) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if res == nil || !(res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 ||
			res.StatusCode == http.StatusRequestTimeout || res.StatusCode == http.StatusConflict) {
			return res, err
		}
		wait := d
		if ms, ok := serverDelay(res.Header); ok && ms < wait {
			wait = ms
		}
		res.Header.Set("retry-after-ms", strconv.FormatFloat(float64(wait)/float64(time.Millisecond), 'f', -1, 64))
		return res, err
	}
}

// serverDelay reads a response's retry-after-ms or retry-after (seconds).
func serverDelay(h http.Header) (time.Duration, bool) {
	var v float64
	if _, err := fmt.Sscan(h.Get("retry-after-ms"), &v); err == nil {
		return time.Duration(v * float64(time.Millisecond)), true
	}
	if _, err := fmt.Sscan(h.Get("retry-after"), &v); err == nil {
		return time.Duration(v * float64(time.Second)), true
	}
	return 0, false
}

// Name returns "anthropic/<model>".
func (m *Model) Name() string { return "anthropic/" + m.model }

// Send makes one Messages call. See [provider.Model] for retries and
// errors: HTTP failures are *[provider.APIError]s (a prompt over the context window is
// [provider.ErrContextOverflow], with Limit and PromptTokens when the
// server stated them, and is never retried); a canceled or expired
// ctx returns ctx.Err() wrapped; a deadline (the caller's or
// [Options.Timeout]) also wraps [provider.ErrUnavailable].
func (m *Model) Send(ctx context.Context, req provider.Request) (*provider.Response, error) {
	model := cmp.Or(req.Model, m.model)
	params, err := m.params(req, model)
	if err != nil {
		return nil, fmt.Errorf("anthropic: send %s: %w", model, err)
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var httpRes *http.Response
	msg, err := m.svc.New(ctx, params, option.WithResponseInto(&httpRes))
	if err != nil {
		return nil, m.mapErr(ctx, "send", model, err, httpRes)
	}
	var wire chat.AnthropicMessage
	if err := json.Unmarshal([]byte(msg.RawJSON()), &wire); err != nil {
		return nil, fmt.Errorf("anthropic: send %s: decode message: %w", model, err)
	}
	return response(wire, string(msg.StopReason))
}

// Stream is Send with "stream": true: fn receives each text delta as it
// arrives (thinking and tool-input deltas are not passed to fn), and the
// returned Response is the reassembled reply, the same as Send's. An
// error from fn stops the stream and is returned wrapped; an "error"
// event mid-stream (such as overloaded_error) is returned as a
// *[provider.APIError]. Retries happen only before the first event.
func (m *Model) Stream(ctx context.Context, req provider.Request, fn func(delta string) error) (*provider.Response, error) {
	model := cmp.Or(req.Model, m.model)
	params, err := m.params(req, model)
	if err != nil {
		return nil, fmt.Errorf("anthropic: stream %s: %w", model, err)
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	var httpRes *http.Response
	s := m.svc.NewStreaming(ctx, params, option.WithResponseInto(&httpRes))
	defer s.Close()
	var acc accumulator
	for s.Next() {
		var ev wireEvent
		if err := json.Unmarshal([]byte(s.Current().RawJSON()), &ev); err != nil {
			return nil, fmt.Errorf("anthropic: stream %s: decode event: %w", model, err)
		}
		delta, err := acc.add(ev)
		if err != nil {
			return nil, fmt.Errorf("anthropic: stream %s: %w", model, err)
		}
		if delta != "" && fn != nil {
			if err := fn(delta); err != nil {
				return nil, fmt.Errorf("anthropic: stream %s: %w", model, err)
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, m.mapErr(ctx, "stream", model, err, httpRes)
	}
	if !acc.started {
		return nil, fmt.Errorf("anthropic: stream %s: the stream has no message_start: %w", model, provider.ErrUnavailable)
	}
	return response(acc.message(), acc.stop)
}

// Body returns the JSON body [Model.Send] posts to Anthropic's Messages
// endpoint for req, without sending it: for a caller that sends the
// request itself (agentctx serve hands it to agents in any language). The
// system prompt and the cache breakpoints (req.CacheAfter, as
// cache_control blocks) are placed as Send places them; req.Model
// defaults to [DefaultModel] and req.MaxTokens to 4,096. Errors: those of
// Send's request building (no messages besides the system prompt, a
// message chat.ToAnthropic rejects, a breakpoint out of range), wrapping
// [provider.ErrBadRequest] or chat.ErrInvalid.
func Body(req provider.Request) ([]byte, error) {
	m := &Model{model: DefaultModel, maxTokens: provider.DefaultMaxTokens}
	p, err := m.params(req, cmp.Or(req.Model, m.model))
	if err != nil {
		return nil, fmt.Errorf("anthropic: body: %w", err)
	}
	b, err := splice.Marshal(&p, &p.Messages, param.Override[anthropic.MessageParam](splice.Placeholder))
	if err != nil {
		return nil, fmt.Errorf("anthropic: body: %w", err)
	}
	return b, nil
}

// params builds the request body.
func (m *Model) params(req provider.Request, model string) (anthropic.MessageNewParams, error) {
	system, wire, err := chat.ToAnthropic(req.Messages)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	if len(wire) == 0 {
		return anthropic.MessageNewParams{}, fmt.Errorf("no messages besides the system prompt: %w", provider.ErrBadRequest)
	}
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: int64(cmp.Or(req.MaxTokens, m.maxTokens)),
		Messages:  make([]anthropic.MessageParam, len(wire)),
	}
	marks, err := cachePoints(req.Messages, req.CacheAfter)
	if err != nil {
		return p, err
	}
	for i, b := range system {
		if b.Type != "text" {
			return p, fmt.Errorf("system[%d]: the system prompt takes text, not %s: %w", i, b.Type, provider.ErrBadRequest)
		}
		tb := anthropic.TextBlockParam{Text: b.Text}
		if marks.system[i] {
			tb.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		p.System = append(p.System, tb)
	}
	for i, w := range wire {
		b, err := json.Marshal(w.ForRequest())
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
		if blocks := marks.blocks[i]; len(blocks) > 0 {
			if b, err = withCacheControl(b, blocks); err != nil {
				return p, fmt.Errorf("message %d: %w", i, err)
			}
		}
		p.Messages[i] = param.Override[anthropic.MessageParam](json.RawMessage(b))
	}
	if req.Temperature != nil {
		p.Temperature = anthropic.Float(*req.Temperature)
	}
	for i, t := range req.Tools {
		b, err := json.Marshal(wireTool{Name: t.Name, Description: t.Description, InputSchema: schema(t.Parameters)})
		if err != nil {
			return p, fmt.Errorf("tool %d (%s): %w", i, t.Name, err)
		}
		p.Tools = append(p.Tools, param.Override[anthropic.ToolUnionParam](json.RawMessage(b)))
	}
	return p, nil
}

// wireTool is a client tool definition
// (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use).
type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// schema returns a tool's parameters, or the empty object schema when it
// has none (input_schema is required).
func schema(p json.RawMessage) json.RawMessage {
	if len(strings.TrimSpace(string(p))) == 0 || string(p) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return p
}

// DecodeResponse converts a Messages API response body (a "message"
// object) into the Response [Model.Send] returns for it: the message with
// its usage, stop reason and model. For a caller that sends the request
// itself and hands the reply back (agentctx serve). Errors: a body that is
// not a message object and content chat.FromAnthropic rejects, naming the
// block; wrapping [provider.ErrBadRequest] or chat.ErrInvalid.
func DecodeResponse(body []byte) (*provider.Response, error) {
	var m struct {
		chat.AnthropicMessage
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("anthropic: decode response: %w: %w", provider.ErrBadRequest, err)
	}
	if m.Type != "" && m.Type != "message" {
		return nil, fmt.Errorf("anthropic: decode response: type is %q, want \"message\": %w", m.Type, provider.ErrBadRequest)
	}
	return response(m.AnthropicMessage, m.StopReason)
}

// response converts the reply.
func response(w chat.AnthropicMessage, stop string) (*provider.Response, error) {
	w.Role = "assistant"
	msgs, err := chat.FromAnthropic(nil, []chat.AnthropicMessage{w})
	if err != nil {
		return nil, fmt.Errorf("anthropic: response %s: %w", w.ID, err)
	}
	msg := msgs[0]
	r := &provider.Response{Message: msg, StopReason: stop, Model: w.Model}
	if msg.Usage != nil {
		r.Usage = *msg.Usage
	}
	return r, nil
}

// mapErr turns an SDK error into a provider error: the caller's ctx error,
// a deadline, or a *provider.APIError.
func (m *Model) mapErr(ctx context.Context, op, model string, err error, res *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return fmt.Errorf("anthropic: %s %s: %w (timeout %s): %w", op, model, ctxErr, m.timeout, provider.ErrUnavailable)
		}
		return fmt.Errorf("anthropic: %s %s: %w", op, model, ctxErr)
	}
	e := &provider.APIError{Provider: "anthropic", Message: err.Error(), Cause: err}
	var apiErr *anthropic.Error
	switch {
	case errors.As(err, &apiErr):
		e.Status = apiErr.StatusCode
		e.Code, e.Message = errorBody(apiErr.RawJSON())
		if e.Message == "" {
			e.Message = apiErr.RawJSON()
		}
	case res != nil && res.StatusCode >= 400:
		e.Status = res.StatusCode
	}
	if e.Status < 400 {
		// A mid-stream "error" event after a 200: the SDK reports its body.
		code, msg := e.Code, e.Message
		if code == "" {
			code, msg = errorBody(streamErrorJSON(err))
		}
		if code != "" {
			e.Code, e.Message, e.Status = code, msg, streamStatus(code)
		} else {
			e.Status = 0
		}
	}
	e.Kind = provider.Classify(e.Status, e.Code, e.Message)
	if errors.Is(e.Kind, provider.ErrContextOverflow) {
		e.Limit, e.PromptTokens, _ = provider.ParseOverflow(e.Status, e.Code, e.Message)
	}
	return fmt.Errorf("anthropic: %s %s: %w", op, model, e)
}

// noOverflowRetry is a middleware that sets "x-should-retry: false" on an
// error response that reports a context overflow
// ([provider.PeekErrorBody]), so the SDK never retries one.
func noOverflowRetry(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err == nil {
		provider.PeekErrorBody(res)
	}
	return res, err
}

// errorBody reads an error response
// (https://docs.anthropic.com/en/api/errors): {"type": "error", "error":
// {"type": "not_found_error", "message": "model: …"}}.
func errorBody(raw string) (code, message string) {
	var v struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &v) != nil {
		return "", ""
	}
	return v.Error.Type, v.Error.Message
}

// streamErrorJSON returns the JSON object in the text of a mid-stream
// error, or "".
func streamErrorJSON(err error) string {
	s := err.Error()
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return ""
	}
	return s[i:]
}

// streamStatus returns the HTTP status that an error type stands for, for
// errors that arrive as events after a 200
// (https://docs.anthropic.com/en/api/errors#http-errors).
func streamStatus(code string) int {
	switch code {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "overloaded_error":
		return 529
	}
	return http.StatusInternalServerError
}
