package compact

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// minCutTokens is the size in tokens below which [LevelCut] leaves a message
// alone: what is left is overhead and the cut marker.
const minCutTokens = 48

const fitReason = "cut to fit the token budget"

// cutToFit is the last resort: while w is over budget, the largest message
// that can still shrink is cut to what the budget leaves for it. It returns
// how many messages it cut.
func cutToFit(w *window.Window) int {
	stuck := map[int]bool{}
	cut := map[int]bool{}
	for iter := 0; iter < 4*w.Len()+16 && !w.Fits(); iter++ {
		best, bestTokens := -1, minCutTokens
		for i := 0; i < w.Len(); i++ {
			if n := w.TokensAt(i); n > bestTokens && !stuck[i] {
				best, bestTokens = i, n
			}
		}
		if best < 0 {
			break
		}
		excess := w.Size() - w.Budget()
		target := max(bestTokens-excess-8, minCutTokens)
		orig := w.At(best)
		factor := float64(target) / float64(bestTokens)
		var (
			m      chat.Message
			tokens int
			ok     bool
		)
		for k := 0; k < 10; k++ {
			m = shrinkMessage(orig, factor)
			tokens = w.Count(m)
			if tokens <= target {
				ok = true
				break
			}
			factor *= float64(target) / float64(tokens) * 0.9
			if factor < 1e-6 {
				break
			}
		}
		if !ok && tokens >= bestTokens {
			stuck[best] = true
			continue
		}
		if err := w.Replace(best, m); err != nil {
			stuck[best] = true
			continue
		}
		// A cut that made progress but missed its target is tried again
		// (or another message is) on the next pass.
		cut[best] = true
	}
	return len(cut)
}

// shrinkMessage returns a copy of m whose every content part is cut to about
// factor of its length, keeping the message's identity (role, tool-call ids
// and names, tool-result id).
func shrinkMessage(m chat.Message, factor float64) chat.Message {
	out := m
	out.Parts = make([]chat.Part, 0, len(m.Parts))
	keepOf := func(s string) int {
		return max(int(float64(utf8.RuneCountInString(s))*factor), 16)
	}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.Text:
			// Message text, not tool output: its tagged blocks (system
			// reminders, environment context, slash-command tags) are
			// kept or left out whole, never cut open.
			if c := CutBlocks(p.Text, keepOf(p.Text), fitReason); len(c) < len(p.Text) {
				p.Text = c
			}
			out.Parts = append(out.Parts, p)
		case chat.ToolResult:
			keep := keepOf(p.Content)
			if c, cut := cutContent(p.Content, keep, fitReason); cut {
				p.Content = c
			}
			out.Parts = append(out.Parts, p)
		case chat.ToolCall:
			limit := max(int(float64(len(p.Arguments))*factor), 64)
			if len(p.Arguments) > limit {
				if b, _ := shrinkJSON(p.Arguments, limit, ""); b != nil {
					// Valid JSON: the smallest rendering, fitting or not.
					if len(b) < len(p.Arguments) {
						p.Arguments = b
					}
				} else if b, _ := json.Marshal(map[string]string{"agentctx_cut": CutText(string(p.Arguments), limit/2, 0, fitReason)}); len(b) < len(p.Arguments) {
					p.Arguments = b
				}
			}
			out.Parts = append(out.Parts, p)
		case chat.Thinking:
			if p.Encrypted != "" && factor < 1 {
				p.Encrypted = ""
				p.Signature = ""
				p.Text += "\n…[agentctx: encrypted reasoning dropped to fit the token budget]"
			}
			if c := CutText(p.Text, keepOf(p.Text), 0, fitReason); len(c) < len(p.Text) {
				p.Text = c
			}
			out.Parts = append(out.Parts, p)
		case chat.Image:
			if factor < 0.5 {
				out.Parts = append(out.Parts, chat.Text{Text: "…[agentctx: image removed to fit the token budget]"})
			} else {
				out.Parts = append(out.Parts, p)
			}
		case chat.Opaque:
			if p.Boundary || factor >= 0.5 {
				out.Parts = append(out.Parts, p)
				continue
			}
			// Kept whole or dropped whole, never rewritten: in its place
			// a note names what was there.
			note := "…[agentctx: " + p.Kind + " removed to fit the token budget]"
			if out.Role == chat.RoleTool && len(out.Parts) > 0 {
				if r, ok := out.Parts[0].(chat.ToolResult); ok {
					r.Content += "\n" + note
					out.Parts[0] = r
				}
				continue
			}
			out.Parts = append(out.Parts, chat.Text{Text: note})
		default:
			out.Parts = append(out.Parts, p)
		}
	}
	return out
}
