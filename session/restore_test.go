package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// recording drives messages through a window and a compaction strategy as
// an agent loop does (compact before each model call, as package replay
// does), records everything with a Recorder, and checks at chosen points
// that the window restored from the store equals the live one.
type recording struct {
	t      testing.TB
	st     *memStore
	id     string
	rec    *session.Recorder
	w      *window.Window
	opts   window.Options
	strat  compact.Strategy
	levels map[compact.Level]int
	checks int
}

func newRecording(t testing.TB, opts window.Options, strat compact.Strategy) *recording {
	t.Helper()
	st := newMemStore()
	id := newSession(t, st)
	w, err := window.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &recording{t: t, st: st, id: id, rec: session.NewRecorder(st, id), w: w, opts: opts, strat: strat, levels: map[compact.Level]int{}}
}

// add handles m; it reports whether a compaction happened before it.
func (r *recording) add(m chat.Message) bool {
	r.t.Helper()
	ctx := context.Background()
	if m.Role == chat.RoleUser || m.Role == chat.RoleAssistant {
		// As the Engine does: calls left without a result are answered
		// before a later message (window invariant 5).
		for _, c := range r.w.Unanswered() {
			r.add(chat.NewToolResult(c.ID, c.Name, "[interrupted]", true))
		}
	}
	compacted := false
	if m.Role == chat.RoleAssistant {
		recs, err := r.strat.Compact(ctx, r.w)
		if err != nil {
			r.t.Fatalf("Compact: %v", err)
		}
		if len(recs) > 0 {
			top := recs[0].Level
			for _, rc := range recs {
				r.levels[rc.Level]++
				top = max(top, rc.Level)
			}
			meta := session.CompactMetadata{PreTokens: recs[0].TokensBefore, Strategy: recs[0].Strategy, Level: top.String()}
			if err := r.rec.Compacted(ctx, r.w, meta); err != nil {
				r.t.Fatalf("Compacted: %v", err)
			}
			compacted = true
		}
	}
	err := r.w.Add(m)
	if errors.Is(err, window.ErrOrphanToolResult) {
		m = orphanAsUser(m)
		err = r.w.Add(m)
	}
	if err != nil {
		r.t.Fatalf("Add: %v", err)
	}
	if err := r.rec.Add(ctx, m); err != nil {
		r.t.Fatalf("Recorder.Add: %v", err)
	}
	return compacted
}

// verify restores the window from the stored transcript as a store's Load
// does (Read, Resolve, Live) and compares it with the live one; with
// check, it also checks the stored transcript.
func (r *recording) verify(where string, check bool) {
	r.t.Helper()
	r.checks++
	es, rps := read(r.t, r.id, r.st.data(r.id))
	if rep := session.Check(es, rps); check && !rep.OK() {
		r.t.Fatalf("%s: Check of the stored transcript: %v", where, rep.Problems)
	}
	resolved, _ := session.Resolve(es)
	start, _ := session.Live(resolved)
	got, ps, err := session.Restore(resolved[start:], r.opts)
	if err != nil || len(ps) > 0 {
		r.t.Fatalf("%s: Restore: %v, problems %v", where, err, ps)
	}
	if d := diffWindows(got, r.w); d != "" {
		r.t.Fatalf("%s: restored window differs from the live one:\n%s", where, d)
	}
}

// orphanAsUser turns a tool result that answers no call into user text,
// as package replay does.
func orphanAsUser(m chat.Message) chat.Message {
	r, _ := m.ToolResult()
	return chat.NewText(chat.RoleUser, fmt.Sprintf("[tool result for call %s (%s), whose call is not in the context]\n%s", r.ToolCallID, r.ToolName, r.Content))
}

// generator makes random agent sessions: system prompts, user prompts
// (some huge, some with images), assistant turns with thinking, text,
// parallel tool calls and usage, tool results (large, JSON, errors,
// unnamed, out of order, missing), and orphan results.
type generator struct {
	rng   *rand.Rand
	huge  bool // the first user message is larger than the budget
	calls int
}

var words = []string{"the", "build", "fails", "in", "package", "window", "fix", "编译错误", "テスト", "✅", "naïve", "func", "err", "return", "{", "}", "\"quoted\"", "<tag>", "&amp;", "\t", "\n", "🐛"}

func (g *generator) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[g.rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

func (g *generator) size() int {
	switch r := g.rng.IntN(100); {
	case r < 50:
		return g.rng.IntN(200) + 1
	case r < 85:
		return g.rng.IntN(2000) + 1
	}
	return g.rng.IntN(9000) + 1
}

func (g *generator) session(length int) []chat.Message {
	var out []chat.Message
	if g.rng.IntN(3) > 0 {
		out = append(out, system("You are a coding agent. "+g.text(g.rng.IntN(400))))
	}
	first := user(g.text(g.size()))
	if g.huge {
		first = user(g.text(4000 + g.rng.IntN(8000))) // pinned and huge: forces the cut
	}
	out = append(out, first)
	for len(out) < length {
		a := chat.Message{Role: chat.RoleAssistant}
		if g.rng.IntN(3) == 0 {
			a.Parts = append(a.Parts, chat.Thinking{Text: g.text(g.rng.IntN(300)), Signature: "sig"})
		}
		if g.rng.IntN(2) == 0 {
			a.Parts = append(a.Parts, chat.Text{Text: g.text(g.size() / 4)})
		}
		var ids []string
		for range g.rng.IntN(4) {
			g.calls++
			id := fmt.Sprintf("call_%d", g.calls)
			if g.rng.IntN(20) == 0 && g.calls > 1 {
				id = fmt.Sprintf("call_%d", g.calls-1) // a reused id
			}
			args, _ := json.Marshal(map[string]string{"file_path": fmt.Sprintf("/src/f%d.go", g.rng.IntN(30)), "command": g.text(g.rng.IntN(80))})
			if g.rng.IntN(10) == 0 {
				args = []byte("{\n  \"indented\": true\n}")
			}
			a.Parts = append(a.Parts, chat.ToolCall{ID: id, Name: []string{"Read", "Bash", "Edit", "Grep"}[g.rng.IntN(4)], Arguments: args})
			ids = append(ids, id)
		}
		if g.rng.IntN(2) == 0 {
			u := chat.Usage{InputTokens: g.rng.IntN(5000), OutputTokens: g.rng.IntN(500), CacheReadTokens: g.rng.IntN(20000)}
			a.Usage = &u
			a.Model, a.ID = "claude-opus-4-6", fmt.Sprintf("msg_%d", len(out))
		}
		out = append(out, a)
		if g.rng.IntN(4) == 0 {
			g.rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		}
		for _, id := range ids {
			if g.rng.IntN(12) == 0 {
				continue // a call without a result
			}
			content := g.text(g.size())
			if g.rng.IntN(6) == 0 {
				b, _ := json.Marshal(map[string]any{"files": strings.Fields(g.text(g.size()))})
				content = string(b)
			}
			name := "Bash"
			if g.rng.IntN(8) == 0 {
				name = ""
			}
			m := chat.NewToolResult(id, name, content, g.rng.IntN(8) == 0)
			if g.rng.IntN(4) == 0 {
				m.ID = fmt.Sprintf("uuid-%d", len(out))
			}
			out = append(out, m)
		}
		switch g.rng.IntN(12) {
		case 0:
			out = append(out, chat.NewToolResult("ghost", "Bash", "late output", false))
		case 1, 2:
			m := user(g.text(g.size() / 2))
			if g.rng.IntN(3) == 0 {
				m.Parts = append(m.Parts, chat.Image{Source: "image/png", Width: 64, Height: 64, Bytes: 900})
			}
			out = append(out, m)
		}
	}
	return out
}

// TestRestoreEqualsLive is the key property of issue 3: for random
// sessions compacted by the tiered strategy at small budgets (so that L1,
// L2, L3 and the cut all happen), the window restored from the store at
// any point equals the live window: the same messages (cmp.Equal), note
// flags, per-message and total token counts, usage anchor and tally of
// dropped messages, and the stored transcript checks clean.
func TestRestoreEqualsLive(t *testing.T) {
	t.Parallel()
	sessions, length := 30, 100
	if testing.Short() || raceEnabled {
		sessions, length = 8, 50
	}
	total := map[compact.Level]int{}
	checks := 0
	for s := range sessions {
		seed := uint64(s) + 1
		rng := rand.New(rand.NewPCG(seed, 0x5e55))
		g := &generator{rng: rng, huge: s%6 == 1}
		msgs := g.session(20 + rng.IntN(length))
		strat := &compact.Tiered{}
		if rng.IntN(2) == 0 {
			strat.L1MinRunes, strat.L1KeepRunes = 300, 80
		}
		if s%2 == 0 {
			strat.L2 = 0.80 // seed 003's ratio: a wider band for L1 alone
		}
		opts := window.Options{Budget: 200 + rng.IntN(6000), Counter: quarterCounter{}, Reserved: rng.IntN(50), Anchored: rng.IntN(2) == 0}
		ok := t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			r := newRecording(t, opts, strat)
			stops := map[int]bool{len(msgs) - 1: true}
			for range 3 {
				stops[rng.IntN(len(msgs))] = true
			}
			for i, m := range msgs {
				if r.add(m) && rng.IntN(3) == 0 || stops[i] {
					r.verify(fmt.Sprintf("after message %d of %d", i, len(msgs)), i == len(msgs)-1)
				}
			}
			for l, n := range r.levels {
				total[l] += n
			}
			checks += r.checks
		})
		if !ok {
			break
		}
	}
	t.Logf("%d sessions, %d restores compared; compaction levels applied: %v", sessions, checks, total)
	for _, l := range []compact.Level{compact.LevelL1, compact.LevelL2, compact.LevelL3, compact.LevelCut} {
		if total[l] == 0 {
			t.Errorf("level %s never happened: the property test does not cover it", l)
		}
	}
}

// TestRestoreRealTrajectories replays every trajectory of the shared data
// through a window compacted at an 8,000-token budget, records it, and
// compares the restored window with the live one at three random points
// and at the end.
func TestRestoreRealTrajectories(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	files, err := transcript.Collect([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no trajectories under %s", root)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			trs, err := transcript.ReadFile(f, transcript.Options{})
			if err != nil {
				t.Fatalf("transcript.ReadFile: %v", err)
			}
			for _, tr := range trs {
				opts := window.Options{Budget: 8000, Counter: quarterCounter{}, Reserved: token.Tools(quarterCounter{}, tr.Tools)}
				r := newRecording(t, opts, &compact.Tiered{})
				rng := rand.New(rand.NewPCG(uint64(len(tr.Messages)), uint64(tr.Index)))
				stops := map[int]bool{len(tr.Messages) - 1: true}
				for range 3 {
					stops[rng.IntN(len(tr.Messages))] = true
				}
				for i, m := range tr.Messages {
					r.add(m)
					if stops[i] {
						r.verify(fmt.Sprintf("trajectory %d, after message %d of %d", tr.Index, i, len(tr.Messages)), i == len(tr.Messages)-1)
					}
				}
				t.Logf("trajectory %d: %d messages, compaction levels %v, %d restores compared", tr.Index, len(tr.Messages), r.levels, r.checks)
			}
		})
	}
}

func TestSnapshot(t *testing.T) {
	t.Parallel()
	w, err := window.New(window.Options{Budget: 200, Counter: quarterCounter{}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{system("sys"), user("first prompt")}
	for i := range 6 {
		id := fmt.Sprint("c", i)
		msgs = append(msgs, call(id, "Read", `{"path":"/a.go"}`), chat.NewToolResult(id, "Read", strings.Repeat("x", 200), false))
	}
	for _, m := range msgs {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Add(chat.Message{Role: chat.RoleAssistant, Usage: &chat.Usage{InputTokens: 700}, Parts: []chat.Part{chat.Text{Text: "so"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := (&compact.Tiered{}).Compact(t.Context(), w); err != nil || w.Note() < 0 {
		t.Fatalf("compaction left no note (err %v)", err)
	}
	es, err := session.Snapshot(w, session.CompactMetadata{PreTokens: 900, Strategy: "tiered", Level: "L2", FilesIncluded: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != w.Len()+1 {
		t.Fatalf("Snapshot gave %d entries for %d messages", len(es), w.Len())
	}
	b := es[0]
	a := w.Anchor()
	want := &session.CompactMetadata{
		Trigger: "auto", PreTokens: 900, PostTokens: w.Tokens(), FilesIncluded: []string{"a"}, Strategy: "tiered", Level: "L2",
		Messages: w.Len(), Anchor: &session.Anchor{Reported: a.Reported, Counted: a.Counted},
		Dropped: &session.Dropped{Messages: w.Dropped().Messages, Rounds: w.Dropped().Rounds, ToolCalls: w.Dropped().ToolCalls,
			ToolResults: w.Dropped().ToolResults, Tools: w.Dropped().Tools, Files: w.Dropped().Files},
	}
	if !b.IsBoundary() || b.UUID != "" || b.ParentUUID != "" {
		t.Errorf("first entry %+v is not a fresh boundary", b)
	}
	if diff := cmp.Diff(want, b.CompactMetadata); diff != "" {
		t.Errorf("boundary metadata (-want +got):\n%s", diff)
	}
	for i, e := range es[1:] {
		if e.IsCompactSummary != w.IsNote(i) {
			t.Errorf("entry %d: IsCompactSummary %v, note %v", i+1, e.IsCompactSummary, w.IsNote(i))
		}
	}
	// Restored from the entries alone, as a store returns them.
	got, ps, err := session.Restore(es, window.Options{Budget: 200, Counter: quarterCounter{}})
	if err != nil || len(ps) > 0 {
		t.Fatalf("Restore: %v, %v", err, ps)
	}
	if d := diffWindows(got, w); d != "" {
		t.Errorf("restored window differs:\n%s", d)
	}
}

func TestRestoreClaudeCode(t *testing.T) {
	t.Parallel()
	data := lines(
		ccLine("u1", "", "user", `{"role":"user","content":"old prompt"}`),
		ccLine("a1", "u1", "assistant", `{"role":"assistant","id":"m0","content":"old answer"}`),
		`{"parentUuid":null,"logicalParentUuid":"a1","type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":167000},"uuid":"b1"}`,
		ccLine("s1", "b1", "user", `{"role":"user","content":"This session is being continued. Summary: ..."}`, `"isCompactSummary":true`),
		ccLine("a2", "s1", "assistant", `{"role":"assistant","model":"m","id":"m1","content":[{"type":"text","text":"continuing"}],"usage":{"input_tokens":5,"cache_read_input_tokens":2000,"output_tokens":1}}`),
		ccLine("a3", "a2", "assistant", `{"role":"assistant","model":"m","id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}],"usage":{"input_tokens":5,"cache_read_input_tokens":2000,"output_tokens":9}}`),
		ccLine("r1", "a3", "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}`),
		ccLine("r0", "r1", "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t0","content":"late"}]}`),
	)
	es, rps := read(t, "cc.jsonl", data)
	start, lps := session.Live(es)
	res, cps := session.Resolve(es[start:])
	if start != 2 || len(rps)+len(lps)+len(cps) > 0 {
		t.Fatalf("Live = %d, problems %v %v %v; want 2 and none", start, rps, lps, cps)
	}
	w, ps, err := session.Restore(res, window.Options{Counter: quarterCounter{}})
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.Message{
		{Role: chat.RoleUser, ID: "s1", Parts: []chat.Part{chat.Text{Text: "This session is being continued. Summary: ..."}}},
		{Role: chat.RoleAssistant, ID: "m1", Model: "m", Usage: &chat.Usage{InputTokens: 5, CacheReadTokens: 2000, OutputTokens: 9}, Parts: []chat.Part{
			chat.Text{Text: "continuing"}, chat.ToolCall{ID: "t1", Name: "Bash", Arguments: rawJSON(`{"command":"make"}`)}}},
		{Role: chat.RoleTool, ID: "r1", Parts: []chat.Part{chat.ToolResult{ToolCallID: "t1", ToolName: "Bash", Content: "ok"}}},
	}
	if diff := cmp.Diff(want, w.Messages()); diff != "" {
		t.Errorf("restored messages (-want +got):\n%s", diff)
	}
	if w.Note() != -1 || !w.Pinned(0) {
		t.Errorf("the summary should be the pinned first user message, not a note")
	}
	if a := w.Anchor(); !a.Set || a.Reported != 2005 {
		t.Errorf("anchor = %+v, want the last usage (2005 tokens)", a)
	}
	if len(ps) != 1 || ps[0].Kind != session.ProblemOrphanResult || ps[0].UUID != "r0" || ps[0].Line != 8 {
		t.Errorf("problems = %+v, want the orphan result r0 at line 8", ps)
	}
	// The whole file restores the same window: Restore starts at Live's
	// boundary itself.
	w2, _, _ := session.Restore(es, window.Options{Counter: quarterCounter{}})
	if d := diffWindows(w2, w); d != "" {
		t.Errorf("restoring the whole file differs:\n%s", d)
	}
}

func TestRestoreIncompleteBoundary(t *testing.T) {
	t.Parallel()
	opts := window.Options{Budget: 120, Counter: quarterCounter{}}
	r := newRecording(t, opts, &compact.Tiered{})
	msgs := []chat.Message{user("start the work please")}
	for i := range 8 {
		id := fmt.Sprint("c", i)
		msgs = append(msgs, call(id, "Read", `{"path":"/x"}`), chat.NewToolResult(id, "Read", strings.Repeat("y", 90), false))
	}
	for _, m := range msgs {
		r.add(m)
	}
	if r.levels[compact.LevelL2]+r.levels[compact.LevelL3] == 0 {
		t.Fatalf("no compaction happened: %v", r.levels)
	}
	before := r.st.data(r.id)
	// A compaction whose write is cut short: the boundary and part of its
	// snapshot reach the file.
	es, err := session.Snapshot(r.w, session.CompactMetadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.st.Append(t.Context(), r.id, es[:2]...); err != nil {
		t.Fatal(err)
	}
	tr, err := r.st.Load(t.Context(), r.id, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(tr.Problems); len(k) != 1 || k[0] != session.ProblemIncompleteBoundary {
		t.Errorf("Load problems = %v, want one incomplete boundary", tr.Problems)
	}
	got, ps, err := session.Restore(tr.Entries, opts)
	if err != nil || len(ps) > 0 {
		t.Fatalf("Restore: %v %v", err, ps)
	}
	if d := diffWindows(got, r.w); d != "" {
		t.Errorf("window restored past an incomplete boundary differs:\n%s", d)
	}
	// The whole file gives the same window.
	all, _, _ := session.Read(bytes.NewReader(r.st.data(r.id)), session.ReadOptions{})
	res, _ := session.Resolve(all)
	got2, _, _ := session.Restore(res, opts)
	if d := diffWindows(got2, r.w); d != "" {
		t.Errorf("whole file: restored window differs:\n%s", d)
	}
	// Recording the restored window supersedes the torn compaction.
	if err := r.rec.Compacted(t.Context(), got, session.CompactMetadata{}); err != nil {
		t.Fatal(err)
	}
	r.verify("after recording the restored window", true)
	if len(r.st.data(r.id)) <= len(before) {
		t.Errorf("nothing was appended")
	}
}

func TestRestoreProblems(t *testing.T) {
	t.Parallel()
	es := []session.Entry{
		mustEntry(t, user("hi")),
		mustEntry(t, chat.NewToolResult("nope", "Bash", "x", false)),
		{Type: session.TypeAssistant, Message: rawJSON(`{"role":"assistant","parts":[{"type":"bogus"}]}`), UUID: "bad", Line: 3},
		{Type: session.TypeUser, Message: rawJSON(`{"role":"tool","parts":[]}`), UUID: "empty-tool", Line: 4},
		mustEntry(t, asst("fine")),
	}
	w, ps, err := session.Restore(es, window.Options{Counter: quarterCounter{}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]chat.Message{user("hi"), asst("fine")}, w.Messages()); diff != "" {
		t.Errorf("restored (-want +got):\n%s", diff)
	}
	want := []session.ProblemKind{session.ProblemOrphanResult, session.ProblemUnreadable, session.ProblemUnreadable}
	if diff := cmp.Diff(want, kinds(ps)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if _, _, err := session.Restore(es, window.Options{Budget: -1}); err == nil {
		t.Errorf("Restore with a negative budget: no error")
	}
}

func TestRecorder(t *testing.T) {
	t.Parallel()
	st := newMemStore()
	id := newSession(t, st)
	rec := session.NewRecorder(st, id)
	ctx := t.Context()
	if err := rec.Add(ctx); err != nil || st.appends != 0 {
		t.Errorf("Add() with no message: err %v, %d appends", err, st.appends)
	}
	if err := rec.Add(ctx, user("a"), asst("b"), chat.NewToolResult("x", "y", "z", false)); err != nil || st.appends != 1 {
		t.Errorf("Add of 3 messages: err %v, %d appends, want 1", err, st.appends)
	}
	if err := rec.Add(ctx, user("ok"), chat.Message{Role: "robot"}); !errors.Is(err, session.ErrInvalidEntry) || st.appends != 1 {
		t.Errorf("Add with an invalid message: err %v, %d appends; want ErrInvalidEntry and nothing written", err, st.appends)
	}
	w, _ := window.New(window.Options{Counter: quarterCounter{}})
	if err := w.Add(user("a")); err != nil {
		t.Fatal(err)
	}
	if err := rec.Compacted(ctx, w, session.CompactMetadata{}); err != nil || st.appends != 2 {
		t.Errorf("Compacted: err %v, %d appends, want 2", err, st.appends)
	}
	missing := session.NewRecorder(st, "no-such-session")
	if err := missing.Add(ctx, user("x")); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Add to a missing session: %v, want ErrNotFound", err)
	}
	sess, _ := st.Get(ctx, id)
	if sess.Title != "a" || sess.Compactions != 1 || sess.Messages != 1 || sess.Entries != 5 {
		t.Errorf("session metadata %+v: want title a, 1 compaction, 1 live message, 5 entries", sess)
	}
}

// TestRestoreAfterTornCompaction: a compaction's write is torn by a crash;
// the agent resumes (getting the window from before the compaction) and
// appends more messages. Those messages were acknowledged and must be in
// the next resume; the torn snapshot lines must not.
func TestRestoreAfterTornCompaction(t *testing.T) {
	t.Parallel()
	bnd := session.Entry{UUID: "B", SessionID: "s1", Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary,
		LogicalParentUUID: "u1", CompactMetadata: &session.CompactMetadata{Trigger: "auto", Messages: 3}}
	bl, err := session.MarshalLine(bnd)
	if err != nil {
		t.Fatal(err)
	}
	data := lines(our(t, 0, "u0", ""), our(t, 1, "u1", "u0"), string(bl), our(t, 2, "s0", "B"),
		`{"uuid":"s1","parentUuid":"s0","type":"us`, // torn by the crash
		our(t, 3, "m1", "s0"), our(t, 4, "m2", "m1"))
	es, _ := read(t, "torn.jsonl", data)
	res, _ := session.Resolve(es)
	w, _, err := session.Restore(res, window.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range w.Messages() {
		got = append(got, m.Text())
	}
	want := []string{"message 0", "reply 1", "reply 3", "message 4"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("restored window (-want +got):\n%s", d)
	}
}
