package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/guard"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/session"
)

// Problem is an error response: an RFC 9457 problem object, sent as
// application/problem+json. Code is stable across releases (clients
// switch on it); Title goes with Code; Detail says what happened this
// time, naming the field or the offset at fault.
type Problem struct {
	// Type is a URI naming the problem type: "urn:agentctx:problem:" and
	// Code.
	Type string `json:"type"`
	// Title is a short summary of the problem type.
	Title string `json:"title"`
	// Status is the HTTP status code.
	Status int `json:"status"`
	// Detail explains this occurrence. Optional.
	Detail string `json:"detail,omitempty"`
	// Instance is the request's path.
	Instance string `json:"instance,omitempty"`
	// Code is the stable machine-readable code (see the Code… constants).
	Code string `json:"code"`
}

// Problem codes: the stable values of [Problem].Code.
const (
	// CodeUnauthorized: no bearer token, or one not in the tokens file
	// (401). Send "Authorization: Bearer <token>".
	CodeUnauthorized = "unauthorized"
	// CodeNotFound: no such session for this tenant, no such route, or no
	// output kept for the tool call (404).
	CodeNotFound = "not-found"
	// CodeMethodNotAllowed: the route exists with other methods (405).
	CodeMethodNotAllowed = "method-not-allowed"
	// CodeBadRequest: the body is not what the route takes (400): bad
	// JSON, an unknown field, a message the chosen format rejects. Detail
	// names the field or the byte offset.
	CodeBadRequest = "bad-request"
	// CodeTooLarge: the body exceeds the server's limit (413).
	CodeTooLarge = "request-too-large"
	// CodeTimeout: the body did not arrive within the server's read
	// deadline (408). Send it again, at once.
	CodeTimeout = "request-timeout"
	// CodeMediaType: a body sent with a Content-Type other than
	// application/json (415). Send Content-Type: application/json.
	CodeMediaType = "unsupported-media-type"
	// CodeMisdirected: the Host header names neither the address the
	// server listens on (loopback names and addresses, any port) nor
	// an allowed host (421); what a page reaching the server by DNS
	// rebinding sends. Reach it by 127.0.0.1 or localhost, or start it
	// with --allowed-host.
	CodeMisdirected = "misdirected-request"
	// CodeForbiddenOrigin: the request comes from a web page (an Origin
	// header) of another origin than the server's and not allowed (403).
	// Start the server with --allowed-origin for a page that must call it.
	CodeForbiddenOrigin = "forbidden-origin"
	// CodeInvalidID: a session id (in the path, or in a create request's
	// body) the server cannot use (400), on every route: empty, longer
	// than 128 bytes (a tenant's: 128 less its name and one byte),
	// invalid UTF-8, holding '/', '\\', "..", a control character, or
	// starting with '.' or '-'. Detail names the rule. Use another id.
	CodeInvalidID = "invalid-id"
	// CodeExists: a session with this id already exists (409). Create one
	// without an id, or use the existing one.
	CodeExists = "session-exists"
	// CodeBusy: another server (or process) holds the session's writer
	// lock or lease (409). Retry after the Retry-After delay; the lock of
	// a crashed server expires.
	CodeBusy = "session-busy"
	// CodeStaleRequest: the request being confirmed was replaced by a
	// newer one (409). Get the next request again.
	CodeStaleRequest = "stale-request"
	// CodeUnavailable: the server is shutting down or the store does not
	// answer (503). Retry on another server or later.
	CodeUnavailable = "unavailable"
	// CodeInternal: an unexpected failure (500); the server log has the
	// details.
	CodeInternal = "internal"
)

// problemBase is the prefix of every [Problem].Type.
const problemBase = "urn:agentctx:problem:"

var titles = map[string]string{
	CodeUnauthorized:     "Missing or unknown bearer token",
	CodeNotFound:         "Not found",
	CodeMethodNotAllowed: "Method not allowed",
	CodeBadRequest:       "Bad request",
	CodeTooLarge:         "Request body too large",
	CodeTimeout:          "Request body not received in time",
	CodeMediaType:        "Unsupported media type",
	CodeMisdirected:      "Misdirected request",
	CodeForbiddenOrigin:  "Origin not allowed",
	CodeInvalidID:        "Invalid session id",
	CodeExists:           "Session already exists",
	CodeBusy:             "Session busy",
	CodeStaleRequest:     "Request replaced by a newer one",
	CodeUnavailable:      "Service unavailable",
	CodeInternal:         "Internal server error",
}

// apiError is an error that carries its HTTP status and problem code.
type apiError struct {
	status int
	code   string
	detail string
	err    error
}

func (e *apiError) Error() string { return e.detail }
func (e *apiError) Unwrap() error { return e.err }

// errorf returns an apiError with a formatted detail.
func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, detail: fmt.Sprintf(format, args...)}
}

// classify maps err to a status, a code and a detail. Errors of the store
// and the Engine map by their sentinels; anything unknown is internal,
// with a detail that does not leak the server's internals.
func classify(err error) *apiError {
	var ae *apiError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &mbe):
		return &apiError{status: http.StatusRequestEntityTooLarge, code: CodeTooLarge, detail: fmt.Sprintf("the body exceeds %d bytes", mbe.Limit), err: err}
	case errors.Is(err, guard.ErrHost):
		return &apiError{status: http.StatusMisdirectedRequest, code: CodeMisdirected, detail: err.Error() + "; reach the server by 127.0.0.1 or localhost, or start it with --allowed-host", err: err}
	case errors.Is(err, guard.ErrOrigin):
		return &apiError{status: http.StatusForbidden, code: CodeForbiddenOrigin, detail: err.Error() + "; start the server with --allowed-origin to let a page call it", err: err}
	case errors.Is(err, guard.ErrMediaType):
		return &apiError{status: http.StatusUnsupportedMediaType, code: CodeMediaType, detail: err.Error() + "; send Content-Type: application/json", err: err}
	case errors.Is(err, session.ErrNotFound):
		return &apiError{status: http.StatusNotFound, code: CodeNotFound, detail: "no such session", err: err}
	case errors.Is(err, session.ErrExists):
		return &apiError{status: http.StatusConflict, code: CodeExists, detail: "a session with this id already exists", err: err}
	case errors.Is(err, session.ErrSessionBusy):
		return &apiError{status: http.StatusConflict, code: CodeBusy, detail: "another server holds this session's writer lock; retry later", err: err}
	case errors.Is(err, session.ErrInvalidID):
		// The store's words name the store: say the rule only.
		return &apiError{status: http.StatusBadRequest, code: CodeInvalidID, detail: "id: not a valid session id", err: err}
	case errors.Is(err, session.ErrInvalidEntry), errors.Is(err, chat.ErrInvalid), errors.Is(err, chat.ErrUnsupported):
		return &apiError{status: http.StatusBadRequest, code: CodeBadRequest, detail: err.Error(), err: err}
	case errors.Is(err, provider.ErrBadRequest):
		// The provider body the session makes is not one a provider
		// takes (no messages yet): the client's to fix.
		return &apiError{status: http.StatusBadRequest, code: CodeBadRequest, detail: err.Error(), err: err}
	case errors.Is(err, agentctx.ErrStaleRequest):
		return &apiError{status: http.StatusConflict, code: CodeStaleRequest, detail: err.Error(), err: err}
	case errors.Is(err, agentctx.ErrNoOutput):
		return &apiError{status: http.StatusNotFound, code: CodeNotFound, detail: err.Error(), err: err}
	case errors.Is(err, session.ErrClosed), errors.Is(err, agentctx.ErrClosed), errors.Is(err, errShuttingDown):
		return &apiError{status: http.StatusServiceUnavailable, code: CodeUnavailable, detail: "the server is shutting down; retry on another server or later", err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: http.StatusServiceUnavailable, code: CodeUnavailable, detail: "the store did not answer in time", err: err}
	}
	return &apiError{status: http.StatusInternalServerError, code: CodeInternal, detail: "internal error; see the server log", err: err}
}

// errShuttingDown reports a request that came after [Server.Close].
var errShuttingDown = errors.New("server: shutting down")

// writeProblem writes err as a problem object.
func writeProblem(w http.ResponseWriter, r *http.Request, err error) {
	ae := classify(err)
	p := Problem{
		Type: problemBase + ae.code, Title: titles[ae.code], Status: ae.status,
		Detail: ae.detail, Code: ae.code,
	}
	if r != nil {
		p.Instance = r.URL.Path
	}
	if ae.code == CodeBusy || ae.code == CodeUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	if ae.code == CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentctx"`)
	}
	if rec, ok := w.(*recorder); ok && ae.status >= 500 {
		rec.err = ae.err
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(ae.status)
	_ = json.NewEncoder(w).Encode(p)
}
