package transcript

import (
	"fmt"

	"github.com/agentctx/agentctx/chat"
)

// dropImplausible removes the usage records of t that no model call can
// have reported ([chat.Usage.Validate]: a negative count, or one above
// [chat.MaxCallTokens]) and the compactions' PreTokens outside the same
// range, and says what it dropped: each one is a [Problem] and is counted
// in [Trajectory].DroppedUsage. The problem names the message (its index
// and id) rather than a line, because a message's usage may merge several
// lines.
func dropImplausible(t *Trajectory) {
	drop := func(what string, err error) {
		t.DroppedUsage++
		t.Problems = append(t.Problems, Problem{Err: &ParseError{
			File: t.File, Reason: what + ": implausible usage dropped", Err: err,
		}})
	}
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Usage == nil {
			continue
		}
		if err := m.Usage.Validate(); err != nil {
			what := fmt.Sprintf("message %d", i)
			if m.ID != "" {
				what += fmt.Sprintf(" (id %q)", m.ID)
			}
			drop(what, err)
			m.Usage = nil
		}
	}
	for i := range t.Compactions {
		c := &t.Compactions[i]
		if c.PreTokens < 0 || c.PreTokens > chat.MaxCallTokens {
			drop(fmt.Sprintf("compaction %d", i), fmt.Errorf("%w: preTokens %d is outside [0, %d] tokens", chat.ErrImplausibleUsage, c.PreTokens, chat.MaxCallTokens))
			c.PreTokens = 0
		}
		for k := range c.Replacement {
			if u := c.Replacement[k].Usage; u != nil && u.Validate() != nil {
				drop(fmt.Sprintf("compaction %d, replacement message %d", i, k), u.Validate())
				c.Replacement[k].Usage = nil
			}
		}
	}
}
