package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/session"
)

// pinBody is the body of POST .../pins.
type pinBody struct {
	// Text is the instruction to keep verbatim in every later request.
	Text string `json:"text"`
}

// pinsView is the response of GET .../pins.
type pinsView struct {
	Pins []agentctx.Pin `json:"pins"`
}

// listPins answers the session's pinned instructions, oldest first.
func (s *Server) listPins(w http.ResponseWriter, r *http.Request) error {
	out := pinsView{Pins: []agentctx.Pin{}}
	err := s.withSession(r, func(_ context.Context, _ *handle, eng *agentctx.Engine, _ session.Session) error {
		if p := eng.Pins(); len(p) > 0 {
			out.Pins = p
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// addPin pins an instruction (agentctx.Engine.Pin): 201 with the pin, or
// the existing pin of the same text.
func (s *Server) addPin(w http.ResponseWriter, r *http.Request) error {
	var b pinBody
	if err := readJSON(r, &b, false); err != nil {
		return err
	}
	if strings.TrimSpace(b.Text) == "" {
		return errorf(http.StatusBadRequest, CodeBadRequest, "text: empty; give the instruction to pin")
	}
	var out agentctx.Pin
	err := s.withSession(r, func(ctx context.Context, _ *handle, eng *agentctx.Engine, _ session.Session) error {
		p, err := eng.Pin(ctx, b.Text)
		out = p
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, out)
}

// deletePin unpins an instruction by its id: 204, or 404 when the
// session has no such pin.
func (s *Server) deletePin(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("pin")
	err := s.withSession(r, func(ctx context.Context, _ *handle, eng *agentctx.Engine, _ session.Session) error {
		if err := eng.Unpin(ctx, id); errors.Is(err, agentctx.ErrNoPin) {
			return errorf(http.StatusNotFound, CodeNotFound, "no pin %q in this session", id)
		} else if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
