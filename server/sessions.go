package server

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

// Origin is the origin the server records on the sessions it creates.
const Origin = "agentctx-serve"

// MaxModelBytes is the longest model name a create request may give, in
// bytes (256): model names are short identifiers ("claude-sonnet-4-5",
// "gpt-4o-2024-08-06"), and the name is stored with the session and listed.
const MaxModelBytes = 256

// createBody is the body of POST /v1/sessions.
type createBody struct {
	// ID is the session's id. Optional. Defaults to a new one.
	ID string `json:"id,omitempty"`
	// Model picks the tokenizer, the context window and the default
	// budget. Optional.
	Model string `json:"model,omitempty"`
	// Budget is the prompt budget in tokens. Optional.
	Budget int `json:"budget,omitempty"`
	// MaxTokens caps each reply, in tokens (copied to the requests).
	MaxTokens int `json:"max_tokens,omitempty"`
	// SystemPrompt is the agent's system prompt.
	SystemPrompt string `json:"system_prompt,omitempty"`
	// Tools are the agent's tool schemas, sent with every request.
	Tools []chat.ToolDef `json:"tools,omitempty"`
	// RecallTool adds the recall_output tool (agentctx.RecallTool): the
	// limiter's notes then tell the model how to read a cut output back,
	// and the agent answers its calls from GET .../outputs/{call_id}.
	RecallTool bool `json:"recall_tool,omitempty"`
	// Project is the project's absolute path on the agent's machine
	// (informational: the server reads nothing there). Optional.
	Project string `json:"project,omitempty"`
	// Metadata are the caller's own fields.
	Metadata map[string]string `json:"metadata,omitempty"`
}

// sessionView is a session as the API shows it: the stored metadata
// without the tenant key.
type sessionView struct {
	session.Session
	// Budget and Warnings are set on create: the prompt budget in tokens
	// and what the Engine noticed (an unknown model…).
	Budget   int      `json:"budget,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// viewOf is session s of tenant as the API shows it: its id without the
// tenant's prefix (storeID), its metadata without TenantKey.
func viewOf(tenant string, s session.Session) sessionView {
	s.ID = apiID(tenant, s.ID)
	if p, ok := s.Metadata[session.MetaParent]; ok && tenant != "" {
		s.Metadata = maps.Clone(s.Metadata)
		s.Metadata[session.MetaParent] = apiID(tenant, p)
	}
	if _, ok := s.Metadata[TenantKey]; ok {
		s.Metadata = maps.Clone(s.Metadata)
		delete(s.Metadata, TenantKey)
		if len(s.Metadata) == 0 {
			s.Metadata = nil
		}
	}
	return sessionView{Session: s}
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) error {
	var b createBody
	if err := readJSON(r, &b, true); err != nil {
		return err
	}
	if _, ok := b.Metadata[TenantKey]; ok {
		return errorf(http.StatusBadRequest, CodeBadRequest, "metadata: %q is reserved for the server", TenantKey)
	}
	if len(b.Model) > MaxModelBytes {
		return errorf(http.StatusBadRequest, CodeBadRequest, "model: %d bytes, more than %d", len(b.Model), MaxModelBytes)
	}
	if b.Budget < 0 || b.MaxTokens < 0 {
		return errorf(http.StatusBadRequest, CodeBadRequest, "budget and max_tokens: want positive token counts")
	}
	dir := "/"
	if b.Project != "" {
		if !filepath.IsAbs(b.Project) {
			return errorf(http.StatusBadRequest, CodeBadRequest, "project %q: want an absolute path", b.Project)
		}
		dir = filepath.Clean(b.Project)
	}
	tenant := tenantOf(r.Context())
	ctx := context.WithoutCancel(r.Context())
	if b.ID == "" {
		b.ID = session.NewID()
	}
	key, err := storeID(tenant, b.ID)
	if err != nil {
		return err
	}
	if _, _, err := s.lookup(ctx, b.ID); err == nil {
		return session.ErrExists
	} else if !errors.Is(err, session.ErrNotFound) {
		return err
	}
	if _, err := s.store.Get(ctx, key); err == nil {
		// The store id is taken by a session that is not this tenant's:
		// one the anonymous tenant named so in a store shared with a
		// server with tokens. Open would resume it: refuse, as for the
		// tenant's own (the detail names no one).
		return session.ErrExists
	} else if !errors.Is(err, session.ErrNotFound) {
		return err
	}
	meta := maps.Clone(b.Metadata)
	if tenant != "" {
		if meta == nil {
			meta = map[string]string{}
		}
		meta[TenantKey] = tenant
	}
	h := &handle{name: b.ID}
	o := s.engineOptions(h)
	o.Dir, o.SessionID, o.Origin, o.Metadata = dir, key, Origin, meta
	o.Model, o.Budget, o.MaxTokens, o.SystemPrompt = b.Model, b.Budget, b.MaxTokens, b.SystemPrompt
	o.Tools = b.Tools
	if b.RecallTool {
		o.Tools = append(o.Tools, agentctx.RecallTool())
	}
	eng, err := agentctx.Open(ctx, o)
	if err != nil {
		return err
	}
	h.id, h.eng = eng.ID(), eng
	sess, err := s.store.Get(ctx, h.id)
	if err != nil {
		return err
	}
	h.entries = sess.Entries
	s.adopt(h)
	// Any server of a fleet may take the session's first turn.
	s.unlock(ctx, h.id)
	v := viewOf(tenant, sess)
	v.Budget, v.Warnings = eng.Budget(), eng.Warnings()
	w.Header().Set("Location", "/v1/sessions/"+url.PathEscape(v.ID))
	return writeJSON(w, http.StatusCreated, v)
}

// adopt caches a new session's handle.
func (s *Server) adopt(h *handle) {
	s.mu.Lock()
	if s.closed || s.handles[h.id] != nil {
		s.mu.Unlock()
		_ = h.drop(true)
		return
	}
	s.handles[h.id] = h
	s.idle.Add(h.id, h)
	victims := s.victims
	s.victims = nil
	s.mu.Unlock()
	for _, v := range victims {
		s.evict(v)
	}
}

// listBody is the response of GET /v1/sessions.
type listBody struct {
	Sessions []sessionView `json:"sessions"`
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errorf(http.StatusBadRequest, CodeBadRequest, "limit %q: want a count ≥ 0", v)
		}
		limit = n
	}
	all, err := s.store.List(r.Context(), session.ListOptions{Project: q.Get("project")})
	if err != nil {
		return err
	}
	tenant := tenantOf(r.Context())
	out := listBody{Sessions: []sessionView{}}
	for _, ss := range all {
		if ss.Metadata[TenantKey] != tenant {
			continue
		}
		out.Sessions = append(out.Sessions, viewOf(tenant, ss))
		if limit > 0 && len(out.Sessions) == limit {
			break
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	_, sess, err := s.lookup(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, viewOf(tenantOf(r.Context()), sess))
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	ctx := context.WithoutCancel(r.Context())
	h, _, err := s.acquire(ctx, r.PathValue("id"))
	if err != nil {
		return err
	}
	defer s.release(h)
	s.forget(h)
	if err := s.store.Delete(ctx, h.id); err != nil {
		return err
	}
	s.events.drop(h.id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
