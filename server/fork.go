package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/session"
)

// forkBody is the body of POST .../fork.
type forkBody struct {
	// At is the number of the session's window messages the fork keeps
	// (agentctx.Engine.Fork). Optional. Defaults to all of them.
	At *int `json:"at,omitempty"`
	// ID is the new session's id. Optional. Defaults to a new one.
	ID string `json:"id,omitempty"`
}

// rewindBody is the body of POST .../rewind.
type rewindBody struct {
	// To is the number of the session's window messages kept
	// (agentctx.Engine.Rewind). Required.
	To *int `json:"to"`
}

// forkSession starts a new session from session {id}'s first At
// messages (agentctx.Engine.ForkWith): 201 with the new session, as
// create answers it; 400 when at is out of the window; 409 when the id
// is taken.
func (s *Server) forkSession(w http.ResponseWriter, r *http.Request) error {
	var b forkBody
	if err := readJSON(r, &b, true); err != nil {
		return err
	}
	tenant := tenantOf(r.Context())
	if b.ID == "" {
		b.ID = session.NewID()
	}
	key, err := storeID(tenant, b.ID)
	if err != nil {
		return err
	}
	var child *agentctx.Engine
	err = s.withSession(r, func(ctx context.Context, _ *handle, eng *agentctx.Engine, _ session.Session) error {
		if _, err := s.store.Get(ctx, key); err == nil {
			return session.ErrExists
		} else if !errors.Is(err, session.ErrNotFound) {
			return err
		}
		n := len(eng.Messages())
		at := n
		if b.At != nil {
			at = *b.At
		}
		if at < 0 || at > n {
			return errorf(http.StatusBadRequest, CodeBadRequest, "at: %d, want 0 to %d (the messages in the window)", at, n)
		}
		c, err := eng.ForkWith(ctx, at, agentctx.ForkOptions{SessionID: key})
		child = c
		return err
	})
	if err != nil {
		return err
	}
	ctx := context.WithoutCancel(r.Context())
	h := &handle{id: child.ID(), name: b.ID, eng: child}
	if err := s.synced(ctx, h); err != nil {
		_ = h.drop(false)
		return err
	}
	sess, err := s.store.Get(ctx, h.id)
	if err != nil {
		_ = h.drop(false)
		return err
	}
	s.adopt(h)
	s.unlock(ctx, h.id)
	v := viewOf(tenant, sess)
	v.Budget, v.Warnings = child.Budget(), child.Warnings()
	w.Header().Set("Location", "/v1/sessions/"+url.PathEscape(v.ID))
	return writeJSON(w, http.StatusCreated, v)
}

// rewindSession returns session {id} to its first To messages
// (agentctx.Engine.Rewind; the later ones stay in the store): 200 with
// the session; 400 when to is missing or out of the window.
func (s *Server) rewindSession(w http.ResponseWriter, r *http.Request) error {
	var b rewindBody
	if err := readJSON(r, &b, false); err != nil {
		return err
	}
	if b.To == nil {
		return errorf(http.StatusBadRequest, CodeBadRequest, "to: missing; give the number of messages to keep")
	}
	var key string
	err := s.withSession(r, func(ctx context.Context, h *handle, eng *agentctx.Engine, _ session.Session) error {
		key = h.id
		if n := len(eng.Messages()); *b.To < 0 || *b.To > n {
			return errorf(http.StatusBadRequest, CodeBadRequest, "to: %d, want 0 to %d (the messages in the window)", *b.To, n)
		}
		return eng.Rewind(ctx, *b.To)
	})
	if err != nil {
		return err
	}
	sess, err := s.store.Get(context.WithoutCancel(r.Context()), key)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, viewOf(tenantOf(r.Context()), sess))
}
