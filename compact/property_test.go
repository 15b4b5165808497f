package compact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
)

// The property test of issue 2's acceptance: random message sequences,
// tool-call patterns and budgets, replayed as an agent loop that compacts
// before every assistant message, never break an invariant and never leave
// a call over budget when the pinned parts fit.
//
// "The pinned parts cannot fit" is defined as: after Compact the window is
// over budget only if (1) the last record is a LevelCut that reports
// OverBudget, (2) every unit before the last assistant turn is pinned (L3
// ran: nothing whole can go), and (3) every message is at its floor: no
// larger than MinCutTokens or than what cutting it as far as LevelCut cuts
// (ShrinkMessage with factor 0) leaves, plus a few tokens for the marker's
// digits.

// floorSlack is how many tokens a message at its floor may exceed a
// re-cut of itself by: the marker's numbers shrink when cut again.
const floorSlack = 8

// text is a corpus that substrings of n runes can be taken from in O(1).
type text struct {
	s   string
	off []int // byte offset of each rune, and len(s)
}

func newText(s string) text {
	t := text{s: s}
	for i := range s {
		t.off = append(t.off, i)
	}
	t.off = append(t.off, len(s))
	return t
}

func (t text) take(rng *rand.Rand, n int) string {
	runes := len(t.off) - 1
	n = min(n, runes)
	i := rng.IntN(runes - n + 1)
	return t.s[t.off[i]:t.off[i+n]]
}

var corpora = sync.OnceValue(func() []text {
	var ascii, cjk, mixed strings.Builder
	for i := 0; ascii.Len() < 120000; i++ {
		fmt.Fprintf(&ascii, "%4d\tif err := s.handle(ctx, req%d); err != nil { return fmt.Errorf(\"handle: %%w\", err) }\n", i, i%17)
	}
	cjkLines := []string{"编译错误：未定义的变量 x。", "测试失败，期望值为 3，实际为 4。", "日本語のテキストも混ざる。", "한국어 문장도 있습니다.", "函数返回了空指针。"}
	for i, n := 0, 0; n < 60000; i++ {
		cjk.WriteString(cjkLines[i%len(cjkLines)])
		n += utf8.RuneCountInString(cjkLines[i%len(cjkLines)])
		if i%3 == 2 {
			cjk.WriteByte('\n')
		}
	}
	mixedParts := []string{"ok ✅ ", "fail ❌\n", "👨‍👩‍👧 family ", "naïve café ", "🐛 bug in ", "Ω≈ç√∫ ", "中文 ", "\t→ ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 "}
	for i, n := 0, 0; n < 60000; i++ {
		mixed.WriteString(mixedParts[(i*7)%len(mixedParts)])
		n += utf8.RuneCountInString(mixedParts[(i*7)%len(mixedParts)])
	}
	return []text{newText(ascii.String()), newText(cjk.String()), newText(mixed.String())}
})

// agent replays one random session through a window and a strategy.
type agent struct {
	t        *testing.T
	rng      *rand.Rand
	w        *window.Window
	s        compact.Strategy
	maxRunes int  // largest tool result, in runes
	recount  bool // recount the whole window after every compaction

	n          int    // messages added
	calls      int    // tool calls made
	system     string // ID of the system prompt, if any
	firstUser  string // ID of the first user message
	firstText  string
	jsonResult map[string]bool // IDs of tool results that were JSON
	pending    []string        // ids of calls whose results come later
	usage      bool            // assistant messages report usage
	seen       map[string][]string
}

func (a *agent) runes(limit int) int {
	switch r := a.rng.IntN(100); {
	case r < 45:
		return a.rng.IntN(min(300, limit) + 1)
	case r < 80:
		return a.rng.IntN(min(3000, limit) + 1)
	case r < 95:
		return a.rng.IntN(min(12000, limit) + 1)
	}
	return a.rng.IntN(limit + 1)
}

func (a *agent) text(n int) string {
	cs := corpora()
	switch r := a.rng.IntN(10); {
	case r < 6:
		return cs[0].take(a.rng, n)
	case r < 8:
		return cs[1].take(a.rng, n)
	}
	return cs[2].take(a.rng, n)
}

// jsonText returns a JSON tool result of about n runes.
func (a *agent) jsonText(n int) string {
	type match struct {
		File string `json:"file"`
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	if a.rng.IntN(3) == 0 {
		var ms []match
		for size := 0; size < n; size += 60 {
			ms = append(ms, match{fmt.Sprintf("pkg/f%d.go", a.rng.IntN(50)), a.rng.IntN(900), a.text(a.rng.IntN(40))})
		}
		b, _ := json.Marshal(ms)
		return string(b)
	}
	v := struct {
		Tool     string         `json:"tool"`
		ExitCode int            `json:"exit_code"`
		Stdout   string         `json:"stdout"`
		Matches  []match        `json:"matches"`
		Meta     map[string]any `json:"meta"`
	}{Tool: "grep", ExitCode: a.rng.IntN(3), Stdout: a.text(n * 2 / 3), Meta: map[string]any{"n": 12345678901234567, "ok": true, "none": nil}}
	for size := 0; size < n/3; size += 60 {
		v.Matches = append(v.Matches, match{fmt.Sprintf("pkg/f%d.go", a.rng.IntN(50)), a.rng.IntN(900), a.text(a.rng.IntN(40))})
	}
	b, _ := json.Marshal(v)
	if a.rng.IntN(4) == 0 {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, b, "", "  "); err != nil {
			a.t.Fatal(err)
		}
		return pretty.String()
	}
	return string(b)
}

func (a *agent) toolCall() chat.ToolCall {
	a.calls++
	id := fmt.Sprint("call_", a.calls)
	if a.rng.IntN(5) == 0 {
		id = fmt.Sprint("dup_", a.rng.IntN(3)) // ids repeat in real transcripts
	}
	var name string
	var args any
	switch a.rng.IntN(6) {
	case 0:
		name, args = "read", map[string]any{"file_path": fmt.Sprintf("/repo/pkg/f%d.go", a.rng.IntN(40)), "offset": a.rng.IntN(100)}
	case 1:
		name, args = "grep", map[string]any{"pattern": a.text(a.rng.IntN(20)), "path": "pkg/"}
	case 2:
		name, args = "bash", map[string]any{"command": "go test ./... 2>&1 | tail -n 50"}
	case 3:
		name, args = "apply_patch", map[string]any{"input": fmt.Sprintf("*** Begin Patch\n*** Update File: pkg/f%d.go\n@@\n-%s\n+%s\n*** End Patch", a.rng.IntN(40), a.text(30), a.text(30))}
	case 4:
		name, args = "Write", map[string]any{"file_path": fmt.Sprintf("docs/说明%d.md", a.rng.IntN(9)), "content": a.text(a.runes(5000))}
	default:
		name, args = "edit", map[string]any{"path": "pkg/x.go", "old": "中文", "new": a.text(a.rng.IntN(200))}
	}
	b, err := json.Marshal(args)
	if err != nil {
		a.t.Fatal(err)
	}
	return chat.ToolCall{ID: id, Name: name, Arguments: b}
}

func (a *agent) add(m chat.Message) {
	t := a.t
	t.Helper()
	if m.Role == chat.RoleUser || m.Role == chat.RoleAssistant {
		// As the Engine does: calls left without a result are answered
		// before a later message (window invariant 5).
		for _, c := range a.w.Unanswered() {
			a.add(chat.NewToolResult(c.ID, c.Name, "[interrupted]", true))
		}
	}
	m.ID = fmt.Sprintf("m%06d", a.n)
	a.n++
	err := a.w.Add(m)
	if r, ok := m.ToolResult(); ok && errors.Is(err, window.ErrOrphanToolResult) {
		// Compaction removed the call. The window must not have refused a
		// result while a call of that id is still open.
		if open := openCalls(a.w.Messages(), r.ToolCallID); open > 0 {
			t.Fatalf("Add(result %s) = %v with %d open calls of that id", r.ToolCallID, err, open)
		}
		a.add(user("[tool output for a removed call] " + r.Content))
		return
	}
	if err != nil {
		t.Fatalf("Add(%s): %v", m.Role, err)
	}
	if r, ok := m.ToolResult(); ok && json.Valid([]byte(strings.TrimSpace(r.Content))) && strings.ContainsAny(strings.TrimSpace(r.Content)[:1], "{[") {
		a.jsonResult[m.ID] = true
	}
}

func (a *agent) result(id string) {
	content := a.text(a.runes(a.maxRunes))
	if a.rng.IntN(4) == 0 {
		content = a.jsonText(a.runes(a.maxRunes))
	}
	a.add(chat.NewToolResult(id, "", content, a.rng.IntN(10) == 0))
}

func (a *agent) assistant() {
	a.compact()
	m := chat.Message{Role: chat.RoleAssistant}
	if a.usage {
		prompt := float64(a.w.Tokens()) * (0.85 + 0.3*a.rng.Float64())
		m.Usage = &chat.Usage{InputTokens: int(prompt) + 1, OutputTokens: 50}
	}
	if a.rng.IntN(8) == 0 {
		th := chat.Thinking{Text: a.text(a.rng.IntN(800))}
		if a.rng.IntN(2) == 0 {
			th.Encrypted = strings.Repeat("QkFTRTY0", a.rng.IntN(500))
		}
		m.Parts = append(m.Parts, th)
	}
	if a.rng.IntN(10) < 3 {
		m.Parts = append(m.Parts, chat.Text{Text: a.text(a.runes(2000))})
		a.add(m)
		return
	}
	if a.rng.IntN(2) == 0 {
		m.Parts = append(m.Parts, chat.Text{Text: a.text(a.rng.IntN(200))})
	}
	var ids []string
	for range 1 + a.rng.IntN(4) {
		c := a.toolCall()
		m.Parts = append(m.Parts, c)
		ids = append(ids, c.ID)
	}
	a.add(m)
	for _, id := range ids {
		switch r := a.rng.IntN(100); {
		case r < 80:
			if a.rng.IntN(10) == 0 {
				a.add(user(a.text(a.runes(500)))) // the user interrupts
			}
			a.result(id)
		case r < 92:
			a.pending = append(a.pending, id) // arrives later
		default: // never answered
		}
	}
}

func (a *agent) run(steps int) {
	if a.rng.IntN(3) > 0 {
		a.system = fmt.Sprintf("m%06d", a.n)
		a.add(chat.NewText(chat.RoleSystem, a.text(a.runes(3000))))
	}
	n := a.runes(2000)
	if a.rng.IntN(30) == 0 {
		n = 100000 // a pasted log
	}
	a.firstUser, a.firstText = fmt.Sprintf("m%06d", a.n), a.text(n)
	if a.rng.IntN(10) == 0 {
		a.add(chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: a.firstText}, chat.Image{Source: "image/png", Width: 800, Height: 600}}})
	} else {
		a.add(user(a.firstText))
	}
	for range steps {
		switch r := a.rng.IntN(100); {
		case r < 12:
			a.add(user(a.text(a.runes(1500))))
		case r < 25 && len(a.pending) > 0:
			i := a.rng.IntN(len(a.pending))
			id := a.pending[i]
			a.pending = append(a.pending[:i], a.pending[i+1:]...)
			a.result(id)
		default:
			a.assistant()
		}
	}
	a.compact() // the next model call
}

// compact runs the strategy as the engine does before a model call and
// checks everything the issue promises.
func (a *agent) compact() {
	t, w := a.t, a.w
	t.Helper()
	before, lenBefore, noteBefore := w.Size(), w.Len(), w.Note() >= 0
	recs, err := a.s.Compact(t.Context(), w)
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if vs := w.Check(); len(vs) > 0 {
		t.Fatalf("Check after %v: %v", levels(recs), vs)
	}
	if a.recount {
		if got, want := w.Tokens(), token.Messages(w.Counter(), w.Overhead(), w.Messages())+w.Reserved(); got != want {
			t.Fatalf("Tokens() = %d, recount %d", got, want)
		}
	}
	checkRecords(t, recs, a.s.Name(), before, w)
	removed := 0
	for _, r := range recs {
		removed += r.MessagesRemoved
	}
	added := 0
	if !noteBefore && w.Note() >= 0 {
		added = 1
	}
	if w.Len() != lenBefore-removed+added {
		t.Fatalf("records say %d messages removed, window went from %d to %d messages", removed, lenBefore, w.Len())
	}
	if _, none := a.s.(compact.None); none {
		if len(recs) != 0 || w.Size() != before {
			t.Fatalf("None compacted: %v", recs)
		}
	} else if !w.Fits() {
		a.checkFloor(recs)
	}
	a.checkContent()
}

// checkFloor asserts that an over-budget window could not be made to fit.
func (a *agent) checkFloor(recs []compact.Record) {
	t, w := a.t, a.w
	t.Helper()
	if n := len(recs); n == 0 || recs[n-1].Level != compact.LevelCut || !recs[n-1].OverBudget {
		t.Fatalf("over budget (%d of %d) and the last record is not an over-budget cut: %+v", w.Size(), w.Budget(), recs)
	}
	units := w.Units()
	keep := units[len(units)-1].Start
	for _, u := range units {
		if w.At(u.Start).Role == chat.RoleAssistant {
			keep = u.Start
		}
	}
	for _, u := range units {
		if u.End <= keep && !u.Pinned {
			t.Fatalf("over budget (%d of %d) with a removable unit %+v before the last turn at %d", w.Size(), w.Budget(), u, keep)
		}
	}
	for i := range w.Len() {
		floor := max(compact.MinCutTokens, w.Count(compact.ShrinkMessage(w.At(i), 0)))
		if got := w.TokensAt(i); got > floor+floorSlack {
			t.Fatalf("over budget (%d of %d) and message %d (%s) holds %d tokens, cut further it would hold %d",
				w.Size(), w.Budget(), i, w.At(i).Role, got, floor)
		}
	}
}

// unchanged reports whether m's content is what checkContent last
// validated for m.ID (comparing strings that share memory is O(1)), and
// records it otherwise.
func (a *agent) unchanged(m chat.Message) bool {
	if m.ID == "" || m.ID == a.firstUser {
		return false
	}
	var cur []string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.Text:
			cur = append(cur, p.Text)
		case chat.Thinking:
			cur = append(cur, p.Text)
		case chat.ToolCall:
			cur = append(cur, string(p.Arguments))
		case chat.ToolResult:
			cur = append(cur, p.Content)
		}
	}
	if prev, ok := a.seen[m.ID]; ok && slices.Equal(prev, cur) {
		return true
	}
	a.seen[m.ID] = cur
	return false
}

// checkContent asserts what cuts must leave: valid UTF-8, valid JSON
// arguments, JSON results valid or plainly marked, the first user message
// present and marked if cut, the system prompt first, order kept.
func (a *agent) checkContent() {
	t, w := a.t, a.w
	t.Helper()
	foundFirst := false
	last := ""
	for i, m := range w.Messages() {
		if m.ID != "" {
			if m.ID <= last {
				t.Fatalf("message %d (%s) after %s: order broken", i, m.ID, last)
			}
			last = m.ID
		} else if !w.IsNote(i) {
			t.Fatalf("message %d has no ID and is not the note", i)
		}
		if a.system != "" && m.ID == a.system && i != 0 {
			t.Fatalf("system prompt at %d", i)
		}
		if a.unchanged(m) {
			continue
		}
		for _, p := range m.Parts {
			var s string
			switch p := p.(type) {
			case chat.Text:
				s = p.Text
			case chat.Thinking:
				s = p.Text
			case chat.ToolCall:
				s = p.Name
				if !json.Valid(p.Arguments) {
					t.Fatalf("message %d: call %s arguments are not valid JSON: %.200s", i, p.ID, p.Arguments)
				}
			case chat.ToolResult:
				s = p.Content
				if a.jsonResult[m.ID] && !json.Valid([]byte(strings.TrimSpace(s))) && !strings.Contains(s, "…[agentctx:") && !strings.HasPrefix(s, "[agentctx: tool output elided") && s != openCodeCleared {
					t.Fatalf("message %d: JSON result cut to neither JSON nor marked text: %.300q", i, s)
				}
			}
			if !utf8.ValidString(s) {
				t.Fatalf("message %d: invalid UTF-8 after compaction: %.200q", i, s)
			}
		}
		if m.ID == a.firstUser {
			foundFirst = true
			if got := m.Text(); got != a.firstText && !strings.Contains(got, "…[agentctx:") {
				t.Fatalf("first user message changed without saying so: %.200q", got)
			}
		}
	}
	if !foundFirst {
		t.Fatalf("first user message %s removed", a.firstUser)
	}
}

// openCodeCleared is opencode's placeholder for an erased tool output,
// which [compact.OpenCode] writes as opencode does.
const openCodeCleared = "[Old tool result content cleared]"

type strategyCase struct {
	name string
	new  func() compact.Strategy
	// anchor marks the anchors' strategies, which run half the seeds
	// under -race or -short (their summaries are the slow part).
	anchor bool
}

var strategies = []strategyCase{
	{name: "tiered", new: func() compact.Strategy { return &compact.Tiered{} }},
	{name: "tiered-custom", new: func() compact.Strategy {
		return &compact.Tiered{L1: 0.5, L2: 0.7, L3: 0.9, L1MinRunes: 800, L1KeepRunes: 200, L2KeepRounds: 3}
	}},
	{name: "tiered-escalating", new: func() compact.Strategy { return &compact.Tiered{L1: 0.9, L2: 1.4, L3: 2.5} }},
	{name: "mask", new: func() compact.Strategy { return &compact.Mask{} }},
	{name: "mask-3", new: func() compact.Strategy { return &compact.Mask{KeepRounds: 3} }},
	{name: "none", new: func() compact.Strategy { return compact.None{} }},
	// The anchors' strategies (anchors.go) and the truncation floor.
	{"claude-code", func() compact.Strategy { return &compact.ClaudeCode{} }, true},
	{"codex", func() compact.Strategy { return &compact.Codex{} }, true},
	{"opencode", func() compact.Strategy { return &compact.OpenCode{} }, true},
	{"openhands", func() compact.Strategy { return &compact.OpenHands{MaxSize: 30} }, true},
	{"gemini-cli", func() compact.Strategy { return &compact.GeminiCLI{} }, true},
	{"truncate", func() compact.Strategy { return &compact.Truncate{} }, true},
}

func runAgents(t *testing.T, counter token.Counter, seeds uint64, maxRunes, maxSteps int, recount bool) {
	for _, sc := range strategies {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			n := seeds
			if sc.anchor && (testing.Short() || raceEnabled) {
				n = max(seeds/2, 1)
			}
			for seed := range n {
				rng := rand.New(rand.NewPCG(seed, uint64(len(sc.name))))
				// Budgets from tiny to large, log-uniform in [150, 300,000].
				opts := window.Options{Counter: counter, Budget: int(150 * math.Pow(2000, rng.Float64()))}
				if rng.IntN(6) == 0 {
					opts.Reserved = rng.IntN(opts.Budget/10 + 1)
				}
				a := &agent{t: t, rng: rng, s: sc.new(), maxRunes: maxRunes, recount: recount, jsonResult: map[string]bool{}, seen: map[string][]string{}}
				if rng.IntN(4) == 0 {
					a.usage = true
					opts.Anchored = rng.IntN(2) == 0
				}
				w, err := window.New(opts)
				if err != nil {
					t.Fatal(err)
				}
				a.w = w
				a.run(5 + rng.IntN(maxSteps))
				if !recount {
					checkWindow(t, w)
				}
				if t.Failed() {
					t.Fatalf("seed %d", seed)
				}
			}
		})
	}
}

func TestPropertyRandomSessions(t *testing.T) {
	t.Parallel()
	// 12 strategies × 60 seeds: 720 sessions (180 under -race or -short,
	// the anchors' strategies running half of them).
	seeds := uint64(60)
	if testing.Short() || raceEnabled {
		seeds = 20
	}
	runAgents(t, quarterCounter{}, seeds, 50000, 70, true)
}

func TestPropertyRandomSessionsExact(t *testing.T) {
	t.Parallel()
	bpe, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	runAgents(t, bpe, 6, 6000, 30, false)
}
