package workmem

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
)

// Rendering limits of BuildContext, in runes.
const (
	// TaskRunes caps the task line.
	TaskRunes = 1000
	// ThoughtRunes caps a round's thought and reflection.
	ThoughtRunes = 400
	// RawRunes caps one raw observation of a recent round.
	RawRunes = 1500
)

// minCutTokens is the least room, in tokens, worth cutting a piece into.
const minCutTokens = 24

// maxMisses is how many earlier-round lines in a row may fail to fit
// before BuildContext stops looking at older ones.
const maxMisses = 16

type section int

const (
	secTask section = iota
	secFindings
	secPlan
	secRecent
	secEarlier
	nSections
)

var headings = [nSections]string{
	secTask:     "## Task\n",
	secFindings: "## Key findings\n",
	secPlan:     "## Plan\n",
	secRecent:   "## Recent rounds\n",
	secEarlier:  "## Earlier rounds\n",
}

// piece is one unit of BuildContext output.
type piece struct {
	sec   section
	order int    // position within its section
	text  string // ends with "\n"
	cut   bool   // may be cut to fit
	// tokens is the text's size in tokens, 0 until counted.
	tokens int
}

// BuildContext renders the working memory as Markdown that is at most
// tokenBudget tokens long, counted exactly by Options.Counter over the
// returned string (seed 002 buildContext with its token budget). The most
// important parts are chosen first: the task, findings of importance >=
// [HighImportance], the plan, the recent rounds newest first (with raw
// observations), the other findings, then one line per earlier round. Parts
// are rendered in reading order (task, findings by importance, plan,
// rounds oldest first); a part too big for the room left is cut, or left
// out when less than a few tokens remain. It returns "" when there is
// nothing to say or tokenBudget is too small for any part. Never panics.
func (a *ActiveContext) BuildContext(tokenBudget int) string {
	s, _ := a.BuildContextTokens(tokenBudget)
	return s
}

// BuildContextTokens is [ActiveContext.BuildContext] with the returned
// text's size in tokens, as Options.Counter counts it (0 for ""): the
// count BuildContext makes to check the whole, for a caller that would
// otherwise count the text again.
func (a *ActiveContext) BuildContextTokens(tokenBudget int) (string, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if tokenBudget <= 0 {
		return "", 0
	}
	pieces, earlier := a.pieces()
	if len(pieces) == 0 && earlier == 0 {
		return "", 0
	}
	defer a.counts.Turn()
	used := a.count(title)
	var headCost [nSections]int
	for s := range headings {
		headCost[s] = a.count(sepHeadings[s])
	}
	// chosen and render's sorted copy are buffers kept from call to
	// call (a.mu is held), emptied when done.
	chosen := a.chosen[:0]
	defer func() { clear(chosen[:cap(chosen)]); a.chosen = chosen[:0] }()
	var open [nSections]bool
	misses := 0
	for i := 0; ; i++ {
		var p piece
		if i < len(pieces) {
			p = pieces[i]
		} else {
			// One line per earlier round, newest first, rendered only
			// as long as they may fit: after maxMisses lines in a row
			// that did not, the rest are not looked at, so a memory of
			// thousands of rounds costs what fits, not what it holds.
			j := earlier - 1 - (i - len(pieces))
			if j < 0 || misses >= maxMisses {
				break
			}
			p = piece{sec: secEarlier, order: j}
			p.text, p.tokens = a.roundLine(j)
		}
		if p.tokens == 0 {
			p.tokens = a.count(p.text)
		}
		need := p.tokens
		if !open[p.sec] {
			need += headCost[p.sec]
		}
		room := tokenBudget - used
		if need > room {
			if !p.cut {
				if p.sec == secEarlier {
					misses++
				}
				continue
			}
			avail := room - (need - p.tokens)
			if avail < minCutTokens {
				continue
			}
			p.text = a.fit(p.text, avail)
			p.tokens = a.count(p.text)
			need = p.tokens
			if !open[p.sec] {
				need += headCost[p.sec]
			}
		}
		used += need
		open[p.sec] = true
		chosen = append(chosen, p)
	}
	// Token counts of joined text can differ from the sum of the parts'
	// counts by a token at the seams; check the whole and drop the least
	// important parts until it fits.
	for len(chosen) > 0 {
		out, n := a.render(title, chosen)
		if n <= tokenBudget {
			return out, n
		}
		chosen = chosen[:len(chosen)-1]
	}
	return "", 0
}

// title heads BuildContext's output.
const title = "# Working memory\n"

// sepHeadings are the headings as BuildContext joins them: after a
// blank line.
var sepHeadings = func() (h [nSections]string) {
	for s := range headings {
		h[s] = "\n" + headings[s]
	}
	return h
}()

// rendered is a closed round's rendering, cached by BuildContext: a
// closed round does not change (slide only drops the raw text of rounds
// past the recent ones, and clears full).
type rendered struct {
	line, full             string
	lineTokens, fullTokens int
}

// cached returns the cache entry of round i when it is closed, else nil.
// Called with a.mu held.
func (a *ActiveContext) cached(i int) *rendered {
	if a.st.Rounds[i].Open() {
		return nil
	}
	for len(a.done) <= i {
		a.done = append(a.done, rendered{})
	}
	return &a.done[i]
}

// roundLine returns round i's one-line form with its newline, and its
// size in tokens (0: not counted yet). Called with a.mu held.
func (a *ActiveContext) roundLine(i int) (string, int) {
	c := a.cached(i)
	if c == nil {
		return roundLine(a.st.Rounds[i]) + "\n", 0
	}
	if c.line == "" {
		c.line = roundLine(a.st.Rounds[i]) + "\n"
		c.lineTokens = a.count(c.line)
	}
	return c.line, c.lineTokens
}

// openRendering is the open round's full rendering and its size in
// tokens, with what identifies the round's content: an open round only
// grows (actions and observations are appended; its thought and
// reflection may be replaced), and the sliding window never reaches it.
type openRendering struct {
	round, actions, observations int
	// acts and obs are the rendered lines of the round's actions and
	// observations ([actionLine], [observationBlock]).
	acts, obs           []string
	thought, reflection string
	text                string
	tokens              int
}

// matches reports whether o is the rendering of round i, r, as it is.
func (o *openRendering) matches(i int, r *Round) bool {
	return o.text != "" && o.round == i && o.actions == len(r.Actions) && o.observations == len(r.Observations) &&
		o.thought == r.Thought && o.reflection == r.Reflection
}

// roundFull returns round i rendered in full (its heading, thought,
// [actionLine]s, [observationBlock]s and reflection: [joinRound]) and its
// size in tokens. The open round is rendered again only when it changed,
// and then only its new actions and observations ([renderOpen]); a round
// closed since takes its last rendering, finished the same way. Called
// with a.mu held.
func (a *ActiveContext) roundFull(i int) (string, int) {
	r := &a.st.Rounds[i]
	c := a.cached(i)
	if c == nil {
		if !a.opened.matches(i, r) {
			a.renderOpen(i, r)
		}
		return a.opened.text, a.opened.tokens
	}
	if c.full == "" {
		if !a.opened.matches(i, r) {
			// Closed since its last rendering: its new actions and
			// observations are rendered as the open round's were.
			a.renderOpen(i, r)
		}
		c.full, c.fullTokens = a.opened.text, a.opened.tokens
	}
	return c.full, c.fullTokens
}

// renderOpen renders round i, r, the open round or the one that just
// closed, into a.opened: the lines of the actions and observations it
// rendered before, while it was round i too, are kept (an open round
// only grows; slide, which changes a round's observations, clears
// a.opened).
func (a *ActiveContext) renderOpen(i int, r *Round) {
	o := &a.opened
	if o.round != i || len(o.acts) > len(r.Actions) || len(o.obs) > len(r.Observations) {
		*o = openRendering{round: i}
	}
	for _, act := range r.Actions[len(o.acts):] {
		o.acts = append(o.acts, actionLine(act))
	}
	for _, ob := range r.Observations[len(o.obs):] {
		o.obs = append(o.obs, observationBlock(ob))
	}
	o.actions, o.observations = len(r.Actions), len(r.Observations)
	o.thought, o.reflection = r.Thought, r.Reflection
	o.text = joinRound(*r, o.acts, o.obs)
	o.tokens = a.count(o.text)
}

// count counts text with Options.Counter, line by line through the memo
// of the texts the last BuildContext counted (token.Memo.CountLines): a
// round that grew since is counted only in its new lines. Called with
// a.mu held.
func (a *ActiveContext) count(text string) int {
	return a.counts.CountLines(a.counter, text)
}

// memoCounter counts through the memo of an ActiveContext whose lock is
// held.
type memoCounter struct{ a *ActiveContext }

func (m memoCounter) Count(text string) int { return m.a.count(text) }
func (m memoCounter) Name() string          { return m.a.counter.Name() }

// fit cuts text on a rune boundary so that it plus a cut marker counts at
// most n tokens.
// The cuts are counted from the text's lines, counted once
// (token.Prefixes).
func (a *ActiveContext) fit(text string, n int) string {
	const marker = " …[cut]\n"
	body := strings.TrimSuffix(text, "\n")
	if !utf8.ValidString(body) {
		body = string([]rune(body)) // a U+FFFD for each bad byte
	}
	// offs[i] is the offset of rune i in body.
	offs := slices.Grow(a.offs[:0], len(body)+1)
	if cap(offs) <= 1<<16 { // a rare long piece's buffer is not kept
		defer func() { a.offs = offs[:0] }()
	}
	for i := range body {
		offs = append(offs, int32(i))
	}
	runes := len(offs)
	offs = append(offs, int32(len(body)))
	cuts := token.NewPrefixes(memoCounter{a}, body)
	lo, hi := 0, runes
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if cuts.Count(int(offs[mid]), marker) <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return marker[1:]
	}
	return body[:offs[lo]] + marker
}

// render joins the chosen pieces in reading order under their headings
// and returns the text with its exact size in tokens: for a tiktoken
// counter, joined from the pieces' counts (token.JoinCount: only the
// seams at the headings are counted again), else counted whole.
func (a *ActiveContext) render(title string, chosen []piece) (string, int) {
	sorted := readingOrder(a.sorted[:0], chosen)
	defer func() { clear(sorted); a.sorted = sorted[:0] }()
	join := token.Joinable(a.counter)
	var b strings.Builder
	size := len(title)
	for _, p := range sorted {
		size += len(sepHeadings[p.sec]) + len(p.text)
	}
	b.Grow(size)
	b.WriteString(title)
	n := 0
	if join {
		n = a.count(title)
	}
	last := section(-1)
	for _, p := range sorted {
		if p.sec != last {
			h := sepHeadings[p.sec]
			if join {
				n = token.JoinCount(memoCounter{a}, b.String(), n, h, a.count(h))
			}
			b.WriteString(h)
			last = p.sec
		}
		if join {
			n = token.JoinCount(memoCounter{a}, b.String(), n, p.text, p.tokens)
		}
		b.WriteString(p.text)
	}
	if !join {
		n = a.counter.Count(b.String())
	}
	return b.String(), n
}

// readingOrder appends chosen to dst in reading order: by section, then
// by order within a section (a piece's section and order are unique to
// it, so this is the order a stable sort by both gives). BuildContext
// chooses each section's pieces in ascending order or, for the rounds,
// descending, so a section is distributed in one pass and reversed, and
// sorted only when it is neither.
func readingOrder(dst, chosen []piece) []piece {
	var n, at [nSections]int
	for _, p := range chosen {
		n[p.sec]++
	}
	k := len(dst)
	for s := range n {
		at[s] = k
		k += n[s]
	}
	dst = slices.Grow(dst, len(chosen))[:k]
	for _, p := range chosen {
		dst[at[p.sec]] = p
		at[p.sec]++
	}
	for s := range n {
		part := dst[at[s]-n[s] : at[s]]
		if slices.IsSortedFunc(part, byOrder) {
			continue
		}
		slices.Reverse(part)
		if !slices.IsSortedFunc(part, byOrder) {
			slices.SortFunc(part, byOrder)
		}
	}
	return dst
}

// byOrder compares pieces of one section by their order.
func byOrder(x, y piece) int { return cmp.Compare(x.order, y.order) }

// pieces lists the output's parts in priority order, and the number of
// earlier rounds (0 to earlier-1), whose one-line pieces come last and
// are rendered lazily by BuildContext. Called with a.mu held.
func (a *ActiveContext) pieces() ([]piece, int) {
	var ps []piece
	if a.task.of != a.st.Task || a.task.line == "" && a.st.Task != "" {
		// The task is set once: render it once (a long first prompt
		// costs its length).
		a.task.of, a.task.line = a.st.Task, ""
		if t := strings.TrimSpace(a.st.Task); t != "" {
			a.task.line = oneLine(t, TaskRunes) + "\n"
		}
	}
	if a.task.line != "" && !a.shown.task {
		ps = append(ps, piece{sec: secTask, text: a.task.line, cut: true})
	}
	findings := slices.Clone(a.st.Scratchpad)
	slices.SortStableFunc(findings, func(x, y Finding) int { return cmp.Compare(y.Importance, x.Importance) })
	var low []piece
	for i, f := range findings {
		line := fmt.Sprintf("- [%d] %s", f.Importance, oneLine(f.Finding, 300))
		if f.Evidence != "" {
			line += " (" + oneLine(f.Evidence, 120) + ")"
		}
		p := piece{sec: secFindings, order: i, text: line + "\n"}
		if f.Importance >= HighImportance {
			ps = append(ps, p)
		} else {
			low = append(low, p)
		}
	}
	if a.st.Plan != nil {
		var b strings.Builder
		for i, s := range a.st.Plan.Steps {
			fmt.Fprintf(&b, "%d. %s %s\n", i+1, statusMark(s.Status), s.Description)
		}
		ps = append(ps, piece{sec: secPlan, text: b.String(), cut: true})
	}
	// While the request's window holds the history
	// ([ActiveContext.SetShown]), the rounds are neither rendered nor
	// listed.
	n := len(a.st.Rounds)
	visible := n
	if a.shown.history {
		visible = 0
	}
	first := max(0, n-a.opts.RecentRounds)
	// Rendered oldest first, so that a round that closed since the last
	// rendering is finished from its open rendering before the new open
	// round takes its place ([ActiveContext.renderOpen]); listed newest
	// first.
	start := len(ps)
	for i := first; i < visible; i++ {
		text, n := a.roundFull(i)
		ps = append(ps, piece{sec: secRecent, order: i, text: text, cut: true, tokens: n})
	}
	slices.Reverse(ps[start:])
	ps = append(ps, low...)
	return ps, min(first, visible)
}

func statusMark(s StepStatus) string {
	switch s {
	case StepDone:
		return "[x]"
	case StepInProgress:
		return "[~]"
	case StepSkipped:
		return "[-]"
	}
	return "[ ]"
}

// joinRound renders round r from its actions' lines and observations'
// blocks, rendered before ([actionLine], [observationBlock]): the open
// round, which grows by actions and observations, renders only its new
// ones.
func joinRound(r Round, acts, obs []string) string {
	size := 64 + 2*ThoughtRunes
	for _, l := range acts {
		size += len(l)
	}
	for _, l := range obs {
		size += len(l)
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString("### Round ")
	b.WriteString(strconv.Itoa(r.Iteration))
	b.WriteString("\n")
	if r.Thought != "" {
		b.WriteString("Thought: ")
		b.WriteString(oneLine(r.Thought, ThoughtRunes))
		b.WriteString("\n")
	}
	for _, l := range acts {
		b.WriteString(l)
	}
	for _, l := range obs {
		b.WriteString(l)
	}
	if r.Reflection != "" {
		b.WriteString("Reflection: ")
		b.WriteString(oneLine(r.Reflection, ThoughtRunes))
		b.WriteString("\n")
	}
	return b.String()
}

// actionLine is an action's line in a round's full rendering.
func actionLine(act Action) string {
	args := oneLineBytes(act.Arguments, 200)
	var b strings.Builder
	b.Grow(len("- call  \n") + len(act.Tool) + len(args))
	b.WriteString("- call ")
	b.WriteString(act.Tool)
	b.WriteString(" ")
	b.WriteString(args)
	b.WriteString("\n")
	return b.String()
}

// observationBlock is an observation's lines in a round's full
// rendering: its description, then its raw text (cut to [RawRunes]) in a
// fence longer than any run of backquotes in it.
func observationBlock(o Observation) string {
	raw := ""
	if o.Raw != "" {
		raw = tooluse.CutRunes(strings.TrimSpace(o.Raw), RawRunes)
	}
	size := 48 + len(o.Tool) + len(raw)
	for _, f := range o.KeyFacts {
		size += 2 + len(f)
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString("- result ")
	b.WriteString(o.Tool)
	b.WriteString(": ")
	b.WriteString(string(o.ResultType))
	b.WriteString(", ")
	b.WriteString(strconv.Itoa(o.Size))
	b.WriteString(" bytes")
	for _, f := range o.KeyFacts {
		b.WriteString("; ")
		b.WriteString(f)
	}
	b.WriteString("\n")
	if o.Raw != "" {
		fence := "```"
		for strings.Contains(raw, fence) {
			fence += "`"
		}
		b.WriteString(fence)
		b.WriteString("\n")
		b.WriteString(raw)
		b.WriteString("\n")
		b.WriteString(fence)
		b.WriteString("\n")
	}
	return b.String()
}

// roundLine is a round's one-line compressed form.
func roundLine(r Round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- Round %d:", r.Iteration)
	if r.Thought != "" {
		fmt.Fprintf(&b, " %s", oneLine(r.Thought, 120))
	}
	var tools []string
	for _, act := range r.Actions {
		tools = append(tools, act.Tool)
	}
	if len(tools) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(tools, ", "))
	}
	newInfo, errs := 0, 0
	var facts []string
	for _, o := range r.Observations {
		if o.GotNewInfo {
			newInfo++
		}
		if o.IsError {
			errs++
		}
		if len(o.KeyFacts) > 0 && len(facts) < 2 {
			facts = append(facts, o.KeyFacts[0])
		}
	}
	if len(r.Observations) > 0 {
		fmt.Fprintf(&b, " → %d results, %d new, %d errors", len(r.Observations), newInfo, errs)
	}
	if len(facts) > 0 {
		fmt.Fprintf(&b, " (%s)", oneLine(strings.Join(facts, "; "), 200))
	}
	return b.String()
}

// oneLine collapses whitespace and cuts to n runes ([collapse]), reading
// only as much of s as the result needs.
func oneLine(s string, n int) string { return collapse(s, n) }

// oneLineBytes is oneLine of a byte slice (tool-call arguments, which
// can be a whole file written), converting only growing prefixes of it
// until one is cut: a prefix ending on a rune start collapses to the
// first words of the whole, so once it is cut, the whole is cut alike.
func oneLineBytes(p []byte, n int) string {
	for k := 8 * (n + 1); n >= 0 && k < len(p); k *= 2 {
		end := k
		for end > 0 && !utf8.RuneStart(p[end]) {
			end--
		}
		if s, cut := collapseCut(string(p[:end]), n); cut {
			return s
		}
	}
	s, _ := collapseCut(string(p), n)
	return s
}

// collapse returns the words of s (split at white space, as
// strings.Fields splits) joined by single spaces, with invalid UTF-8
// replaced (a run of bad bytes by one U+FFFD, as strings.ToValidUTF8
// does), cut to n runes as tooluse.CutRunes cuts (n-1 runes and
// tooluse.Ellipsis when longer; n < 0: no cut), in one pass that stops
// once the cut is known (FuzzOneLine checks it against those functions).
func collapse(s string, n int) string {
	out, _ := collapseCut(s, n)
	return out
}

// collapseCut is collapse, and whether it cut.
func collapseCut(s string, n int) (string, bool) {
	var b strings.Builder
	runes, cut := 0, 0 // runes written; bytes of b after n-1 of them
	space, bad := false, false
	// write writes a pending space and then w, a run of ASCII bytes
	// other than space or one rune of k bytes, reporting false once the
	// text reached n runes and more came: the result is then cut.
	var write func(w string, ascii bool) bool
	write = func(w string, ascii bool) bool {
		if space {
			space = false
			if !write(" ", true) {
				return false
			}
		}
		k := 1
		if ascii {
			k = len(w)
		}
		if n >= 0 && runes+k > n {
			// Only what fits before the cut, then the cut.
			if ascii && n-runes > 0 {
				if runes <= n-1 {
					cut = b.Len() + (n - 1 - runes)
				}
				b.WriteString(w[:n-runes])
				runes = n
			}
			return false
		}
		if n >= 1 && runes <= n-1 && n-1 < runes+k {
			cut = b.Len() + (n - 1 - runes)
		}
		b.WriteString(w)
		runes += k
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				space, bad = runes > 0, false
				i++
				continue
			}
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && !asciiSpace[s[j]] {
				j++
			}
			bad = false
			if !write(s[i:j], true) {
				return cutAt(&b, cut, n), true
			}
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w := s[i : i+size]
		switch {
		case r == utf8.RuneError && size == 1:
			i++
			if bad {
				continue // one U+FFFD per run of bad bytes
			}
			bad, w = true, string(utf8.RuneError)
		case unicode.IsSpace(r):
			space, bad = runes > 0, false
			i += size
			continue
		default:
			bad = false
			i += size
		}
		if !write(w, false) {
			return cutAt(&b, cut, n), true
		}
	}
	return b.String(), false
}

// cutAt is collapseCut's result once cut: the first n-1 runes written,
// which end at byte cut of b, and the ellipsis.
func cutAt(b *strings.Builder, cut, n int) string {
	if n <= 0 {
		return ""
	}
	return b.String()[:cut] + tooluse.Ellipsis
}

// asciiSpace marks the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
