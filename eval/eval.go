package eval

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/transcript"
)

// Options configures [Run].
type Options struct {
	// Replay says how the trajectory is replayed: budget, strategy,
	// limiter, reminders, working memory. Run sets Steps, and calls
	// Replay.Observe (when set) before its own observer. Optional: the
	// zero value replays as [replay.Run] does.
	Replay replay.Options
	// Spans, when set, returns the texts of the summarized spans the
	// model could open again from the request req (a summary naming the
	// span ids it covers, which a recall tool returns): references absent
	// from req and found in one of them count as recoverable. Optional.
	// Defaults to what the Engine can restore at that call
	// ([agentctx.Engine.Recoverable]: the tool outputs it cut and the
	// spans its summaries cover, which recall_output returns by id).
	Spans func(req *agentctx.Request) []string
}

// Call is what one measured model call's request held of the agent's
// next action. Counts are of references ([tooluse.Ref]).
type Call struct {
	// Message is the index of the assistant message the call produced,
	// in the trajectory's messages; Tokens the request's size in tokens.
	Message int `json:"message"`
	Tokens  int `json:"tokens"`
	// Refs counts the references of the action found in the history
	// before the call; Present those the request held; Recoverable those
	// absent from it that a recall could bring back.
	Refs        int `json:"refs"`
	Present     int `json:"present"`
	Recoverable int `json:"recoverable"`
	// Latest counts the references whose newest evidence is in the
	// latest round (after the previous assistant message), and
	// LatestPresent those of them present.
	Latest        int `json:"latest"`
	LatestPresent int `json:"latest_present"`
	// Kinds counts references and present ones by kind, [2]int{refs,
	// present}, indexed by [tooluse.RefKind].
	Kinds [6][2]int `json:"kinds"`
	// Instructions counts the instruction sentences of the history
	// before the call, InstructionsPresent those in the request.
	Instructions        int `json:"instructions"`
	InstructionsPresent int `json:"instructions_present"`
	// Missing lists the absent references, as "kind: text" (at most
	// [MaxMissing], each cut to 120 runes): what to look at first.
	Missing []string `json:"missing,omitempty"`
}

// MaxMissing is the most absent references a [Call] lists.
const MaxMissing = 8

// Trajectory is one replayed trajectory's measure.
type Trajectory struct {
	// Result is the replay's result, without its steps and window.
	Result *replay.Result
	// Calls are the measured calls: every model call where the
	// uncompacted history before it exceeded the budget.
	Calls []Call
}

// Share is a per-call ratio: num and den of one call. A call with den 0
// has no share.
type Share func(c Call) (num, den int)

// The per-call shares [Summarize] reports.
var (
	// Support is present references over references.
	Support Share = func(c Call) (int, int) { return c.Present, c.Refs }
	// EditSupport is present edits over edits.
	EditSupport Share = func(c Call) (int, int) { return c.Kinds[tooluse.RefEdit][1], c.Kinds[tooluse.RefEdit][0] }
	// Recoverable is recoverable references over references.
	Recoverable Share = func(c Call) (int, int) { return c.Recoverable, c.Refs }
	// LatestSupport is support over the latest round's references.
	LatestSupport Share = func(c Call) (int, int) { return c.LatestPresent, c.Latest }
	// OlderSupport is support over older history's references.
	OlderSupport Share = func(c Call) (int, int) { return c.Present - c.LatestPresent, c.Refs - c.Latest }
	// InstructionSurvival is present instructions over instructions.
	InstructionSurvival Share = func(c Call) (int, int) { return c.InstructionsPresent, c.Instructions }
)

// KindSupport is the share of one kind's references present.
func KindSupport(k tooluse.RefKind) Share {
	return func(c Call) (int, int) { return c.Kinds[k][1], c.Kinds[k][0] }
}

// Mean returns the mean over t's calls of the share s, among the calls
// where it is defined; ok is false when it is defined for none.
func (t *Trajectory) Mean(s Share) (mean float64, ok bool) {
	sum, n := 0.0, 0
	for _, c := range t.Calls {
		num, den := s(c)
		if den > 0 {
			sum += float64(num) / float64(den)
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// Run replays tr with opts and measures each call where the uncompacted
// history exceeds the budget (see the package documentation). Errors:
// [replay.Run]'s, wrapped.
func Run(ctx context.Context, tr *transcript.Trajectory, opts Options) (*Trajectory, error) {
	m := newMeter(tr.Messages)
	ro := opts.Replay
	ro.Steps = true
	prev := ro.Observe
	ro.Observe = func(i int, req *agentctx.Request, eng *agentctx.Engine) {
		if prev != nil {
			prev(i, req, eng)
		}
		if req == nil || i >= len(tr.Messages) {
			return
		}
		var spans []string
		if opts.Spans != nil {
			spans = opts.Spans(req)
		} else if eng != nil {
			spans, _ = eng.Recoverable(ctx) // in memory: a replay has no store
		}
		m.call(i, req, spans)
	}
	res, err := replay.Run(ctx, tr, ro)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	out := &Trajectory{Result: res}
	for _, s := range res.Steps {
		i := s.Step - 1
		if s.Role != string(chat.RoleAssistant) || s.UncompactedTokens <= res.Budget {
			continue
		}
		if c, ok := m.calls[i]; ok {
			out.Calls = append(out.Calls, c)
		}
	}
	res.Steps, res.Window = nil, nil
	return out, nil
}

// meter measures the calls of one trajectory.
type meter struct {
	msgs []chat.Message
	// evidence is, per message, the text the agent read in it: tool
	// results, and the text of user messages after the first; "" for
	// its own messages and the excluded ones.
	evidence []text
	// excluded is the system prompt and the first user message.
	excluded text
	// lastAsst is, per message, the index of the latest assistant
	// message before it (-1: none).
	lastAsst []int
	// results maps a call id to its original result, as the history has
	// it so far (up to the message done).
	results map[string]string
	done    int
	// instr are the instruction sentences of the user messages so far.
	instr []string
	seen  map[string]bool
	calls map[int]Call
}

// text is a haystack: its raw text and, computed when first needed, the
// text with line-number prefixes stripped.
type text struct {
	raw      string
	stripped *string
}

func (t *text) strip() string {
	if t.stripped == nil {
		s := tooluse.StripLineNumbers(t.raw)
		t.stripped = &s
	}
	return *t.stripped
}

func newMeter(msgs []chat.Message) *meter {
	m := &meter{msgs: msgs, evidence: make([]text, len(msgs)), lastAsst: make([]int, len(msgs)),
		results: map[string]string{}, seen: map[string]bool{}, calls: map[int]Call{}}
	var ex strings.Builder
	firstUser, last := true, -1
	for i, msg := range msgs {
		m.lastAsst[i] = last
		switch msg.Role {
		case chat.RoleAssistant:
			last = i
			continue
		case chat.RoleSystem:
			ex.WriteString(msg.Text())
			ex.WriteByte('\n')
			continue
		}
		var b strings.Builder
		for _, p := range msg.Parts {
			switch p := p.(type) {
			case chat.ToolResult:
				b.WriteString(p.Content)
				b.WriteByte('\n')
			case chat.Text:
				if msg.Role == chat.RoleUser && firstUser {
					ex.WriteString(p.Text)
					ex.WriteByte('\n')
					continue
				}
				b.WriteString(p.Text)
				b.WriteByte('\n')
			}
		}
		if msg.Role == chat.RoleUser && hasText(msg) {
			firstUser = false
		}
		m.evidence[i] = text{raw: b.String()}
	}
	m.excluded = text{raw: ex.String()}
	return m
}

func hasText(m chat.Message) bool {
	for _, p := range m.Parts {
		if t, ok := p.(chat.Text); ok && strings.TrimSpace(t.Text) != "" {
			return true
		}
	}
	return false
}

// advance takes in the messages before i: their tool results and
// instructions.
func (m *meter) advance(i int) {
	for ; m.done < i; m.done++ {
		msg := m.msgs[m.done]
		for _, p := range msg.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				m.results[r.ToolCallID] = r.Content
			}
		}
		if msg.Role != chat.RoleUser {
			continue
		}
		for _, in := range compact.Instructions([]chat.Message{msg}) {
			if !m.seen[in.Text] {
				m.seen[in.Text] = true
				m.instr = append(m.instr, in.Text)
			}
		}
	}
}

// call measures the request req built before message i.
func (m *meter) call(i int, req *agentctx.Request, spans []string) {
	m.advance(i)
	c := Call{Message: i, Tokens: req.Tokens}
	hay := requestText(req)
	var cut *text
	for _, r := range tooluse.ActionRefs(m.msgs[i]) {
		found, latest := m.inHistory(r, i)
		if !found {
			continue
		}
		c.Refs++
		c.Kinds[r.Kind][0]++
		if latest {
			c.Latest++
		}
		if match(r, &hay) {
			c.Present++
			c.Kinds[r.Kind][1]++
			if latest {
				c.LatestPresent++
			}
			continue
		}
		if cut == nil {
			cut = m.cutText(req, spans)
		}
		if match(r, cut) {
			c.Recoverable++
		}
		if len(c.Missing) < MaxMissing {
			c.Missing = append(c.Missing, r.Kind.String()+": "+tooluse.HeadRunes(r.Text, 120))
		}
	}
	for _, s := range m.instr {
		c.Instructions++
		if strings.Contains(hay.raw, s) {
			c.InstructionsPresent++
		}
	}
	m.calls[i] = c
}

// inHistory reports whether r occurs in the evidence before message i,
// outside the excluded texts, and whether its newest occurrence is in
// the latest round. A line number was seen where a line printed with
// that number was: a file's name is rarely in its own listing (Claude
// Code's Read prints lines only), so the history needs the line alone;
// the request needs the file too.
func (m *meter) inHistory(r tooluse.Ref, i int) (found, latest bool) {
	if match(r, &m.excluded) {
		return false, false
	}
	for j := i - 1; j >= 0; j-- {
		if m.evidence[j].raw == "" {
			continue
		}
		if r.Kind == tooluse.RefLine && lineMarked(m.evidence[j].raw, r.Line) || match(r, &m.evidence[j]) {
			return true, j > m.lastAsst[i]
		}
	}
	return false, false
}

// cutText returns the original outputs of the tool results the request
// shows changed (cut by the limiter or masked: recall_output brings them
// back) and the summarized spans the model could open.
func (m *meter) cutText(req *agentctx.Request, spans []string) *text {
	var b strings.Builder
	for _, msg := range req.Provider().Messages {
		for _, p := range msg.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				if orig, ok := m.results[r.ToolCallID]; ok && orig != r.Content {
					b.WriteString(orig)
					b.WriteByte('\n')
				}
			}
		}
	}
	for _, s := range spans {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return &text{raw: b.String()}
}

// requestText returns the text of everything the request sends: every
// message's text, thinking, tool calls (their arguments raw and decoded)
// and tool results, the system prompt and tail included.
func requestText(req *agentctx.Request) text {
	var b strings.Builder
	for _, msg := range req.Provider().Messages {
		for _, p := range msg.Parts {
			switch p := p.(type) {
			case chat.Text:
				b.WriteString(p.Text)
			case chat.Thinking:
				b.WriteString(p.Text)
			case chat.ToolCall:
				b.WriteString(p.Name)
				b.WriteByte('\n')
				b.WriteString(tooluse.ArgumentText(p.Arguments))
			case chat.ToolResult:
				b.WriteString(p.Content)
			}
			b.WriteByte('\n')
		}
	}
	return text{raw: b.String()}
}

// match reports whether the haystack holds r, by r's kind: a path in one
// of its forms ([tooluse.PathForms]), an edit's text verbatim in the
// haystack with line-number prefixes stripped, a line number when its
// file is there and a line printed with that number is (cat -n, Read's
// "→", "N:"), anything else as it is; always on token boundaries
// ([tooluse.ContainsToken]).
func match(r tooluse.Ref, t *text) bool {
	switch r.Kind {
	case tooluse.RefPath:
		return hasPath(t.raw, r.Text)
	case tooluse.RefEdit:
		return tooluse.ContainsToken(t.strip(), r.Text)
	case tooluse.RefLine:
		return hasPath(t.raw, r.Text) && lineMarked(t.raw, r.Line)
	}
	return tooluse.ContainsToken(t.raw, r.Text)
}

func hasPath(hay, p string) bool {
	for _, f := range tooluse.PathForms(p) {
		if tooluse.ContainsToken(hay, f) {
			return true
		}
	}
	return false
}

// lineMarked reports whether hay has a line that starts (after spaces)
// with the number n followed by "→", a tab or ':'.
func lineMarked(hay string, n int) bool {
	num := strconv.Itoa(n)
	for from := 0; ; {
		k := strings.Index(hay[from:], num)
		if k < 0 {
			return false
		}
		at := from + k
		from = at + 1
		j := at
		for j > 0 && hay[j-1] == ' ' {
			j--
		}
		if j > 0 && hay[j-1] != '\n' {
			continue
		}
		rest := hay[at+len(num):]
		if strings.HasPrefix(rest, "→") || strings.HasPrefix(rest, "\t") || strings.HasPrefix(rest, ":") {
			return true
		}
	}
}
