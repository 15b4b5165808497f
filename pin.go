package agentctx

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/secret"
)

// ErrNoPin reports an [Engine.Unpin] of an id no pin has. Nothing was
// changed; list the pins with [Engine.Pins].
var ErrNoPin = errors.New("agentctx: no such pin")

// ErrEmptyPin reports an [Engine.Pin] of empty text. Nothing was pinned.
var ErrEmptyPin = errors.New("agentctx: empty pin")

// PinnedHeader is the first line of the block that carries the pinned
// instructions in every request ([Engine.Pin]).
const PinnedHeader = "[agentctx pinned instructions] The user pinned these instructions; they apply for the rest of the session, whatever was summarized:"

// Pin is a user instruction kept verbatim in every request
// ([Engine.Pin]).
type Pin struct {
	// ID names the pin for [Engine.Unpin]: "p1", "p2"… in the order
	// pinned, never reused within a session.
	ID string `json:"id"`
	// Text is the instruction, trimmed, secrets redacted.
	Text string `json:"text"`
}

// Pin keeps text, a user instruction, verbatim in every later request,
// whatever compaction does: the pins travel in a system message after the
// static prompt (with the rehydration block, before the history: cached
// with the prefix, never summarized, never dropped to fit the budget, so
// a request whose pins alone exceed it is over budget and says so). Pins
// are recorded in the session's state, so a [Resume] keeps them. Pinning
// a text already pinned returns its pin. Users of Claude Code, Codex and
// Gemini CLI name instructions lost at compaction as their most frequent
// complaint (see compact.Instruction); without pins, summaries carry the
// user's instruction sentences (compact.CarriedInstructions). Errors:
// [ErrClosed], [ErrEmptyPin], the store's (the pin is kept in memory
// then).
func (e *Engine) Pin(ctx context.Context, text string) (Pin, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return Pin{}, ErrClosed
	}
	text = secret.Redact(strings.TrimSpace(text))
	if text == "" {
		return Pin{}, ErrEmptyPin
	}
	for _, p := range e.pins {
		if p.Text == text {
			return p, nil
		}
	}
	e.nextPin++
	p := Pin{ID: "p" + strconv.Itoa(e.nextPin), Text: text}
	e.pins = append(e.pins, p)
	e.w.SetReserved(e.baseReserve())
	if err := e.saveState(ctx); err != nil {
		return p, fmt.Errorf("agentctx: pin: %w", err)
	}
	return p, nil
}

// Unpin removes the pin id ("p1"…; see [Engine.Pins]) from later
// requests, and records it. Errors: [ErrClosed], [ErrNoPin], the store's.
func (e *Engine) Unpin(ctx context.Context, id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	i := slices.IndexFunc(e.pins, func(p Pin) bool { return p.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: %q", ErrNoPin, id)
	}
	e.pins = slices.Delete(e.pins, i, i+1)
	e.w.SetReserved(e.baseReserve())
	if err := e.saveState(ctx); err != nil {
		return fmt.Errorf("agentctx: unpin: %w", err)
	}
	return nil
}

// Pins returns the pinned instructions, oldest first (a copy). Safe for
// concurrent use.
func (e *Engine) Pins() []Pin {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.pins)
}

// pinnedText is the block that carries the pins ("" without pins).
func (e *Engine) pinnedText() string {
	if len(e.pins) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(PinnedHeader)
	for _, p := range e.pins {
		b.WriteString("\n- ")
		b.WriteString(strings.ReplaceAll(p.Text, "\n", "\n  "))
	}
	return b.String()
}

// systemTail is the second system message of a request: the pins, then
// the rehydration block ("" when neither).
func (e *Engine) systemTail() string {
	pins := e.pinnedText()
	switch {
	case pins == "":
		return e.rehydration
	case e.rehydration == "":
		return pins
	}
	return pins + "\n\n" + e.rehydration
}
