package compact_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// atRatio sets w's budget so that its usage ratio is about r.
func atRatio(w *window.Window, r float64) {
	w.SetBudget(int(float64(w.Size())/r) + 1)
}

func run(t *testing.T, s compact.Strategy, w *window.Window) []compact.Record {
	t.Helper()
	before := w.Size()
	recs, err := s.Compact(t.Context(), w)
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	checkWindow(t, w)
	checkRecords(t, recs, s.Name(), before, w)
	return recs
}

func jsonResult(n int) string {
	type match struct {
		File string `json:"file"`
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	v := struct {
		Query   string  `json:"query"`
		Matches []match `json:"matches"`
	}{Query: "handle"}
	// Each match is about 70 bytes; add them until the document is n long.
	for i := 0; ; i++ {
		v.Matches = append(v.Matches, match{fmt.Sprintf("pkg/f%d.go", i), i * 7, "func handle() { return 中文 }"})
		if 70*len(v.Matches) < n {
			continue
		}
		if b, _ := json.Marshal(v); len(b) >= n {
			return string(b)
		}
	}
}

func TestL1(t *testing.T) {
	t.Parallel()
	msgs := withIDs(concat(
		one(sys("system prompt")),
		one(user("fix the bug")),
		round("r1", "read", "a.go", lines(3000)),  // 2,3: cut
		round("r2", "read", "b.go", lines(1500)),  // 4,5: short, kept
		round("r3", "grep", "", jsonResult(5000)), // 6,7: JSON, cut
		round("r4", "read", "c.go", lines(2000)),  // 8,9: exactly 2,000 runes, kept
		round("r5", "read", "d.go", lines(2001)),  // 10,11: cut
		one(user("continue")),
		round("r6", "read", "e.go", lines(10000)), // 13,14: latest round, kept
	))
	// L1 cuts the results older than the rounds L2 keeps: with one kept
	// round, as seed 003 cuts them, every result before the last round.
	seed := &compact.Tiered{L2KeepRounds: 1}
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.7)
	recs := run(t, seed, w)
	if d := cmp.Diff([]compact.Level{compact.LevelL1}, levels(recs)); d != "" {
		t.Fatalf("levels (-want +got):\n%s", d)
	}
	if recs[0].ResultsCut != 3 || recs[0].MessagesRemoved != 0 {
		t.Errorf("record %+v, want 3 results cut, nothing removed", recs[0])
	}
	got := w.Messages()
	for i, m := range msgs {
		switch i {
		case 3, 11:
			orig, _ := m.ToolResult()
			r, _ := got[i].ToolResult()
			n := utf8.RuneCountInString(orig.Content)
			if !strings.HasPrefix(r.Content, orig.Content[:300]) || !strings.Contains(r.Content, "…[agentctx:") || !strings.Contains(r.Content, fmt.Sprint(n)) {
				t.Errorf("message %d: cut result does not keep the head and note the original %d runes:\n%s", i, n, r.Content)
			}
			if k := utf8.RuneCountInString(r.Content); k > compact.DefaultL1KeepRunes+100 {
				t.Errorf("message %d: cut to %d runes, want about %d", i, k, compact.DefaultL1KeepRunes)
			}
			if r.ToolCallID != orig.ToolCallID || r.ToolName != orig.ToolName || got[i].ID != m.ID {
				t.Errorf("message %d: identity changed: %+v", i, r)
			}
		case 7:
			r, _ := got[i].ToolResult()
			if !json.Valid([]byte(r.Content)) || len(r.Content) > 2*compact.DefaultL1KeepRunes {
				t.Errorf("message 7: cut JSON result is not valid JSON of about %d bytes (%d bytes):\n%s", compact.DefaultL1KeepRunes, len(r.Content), r.Content)
			}
			if !strings.HasPrefix(r.Content, `{"query":"handle","matches":[{"file":"pkg/f0.go"`) {
				t.Errorf("message 7: cut JSON lost its head: %.80s", r.Content)
			}
		default:
			if d := cmp.Diff(m, got[i]); d != "" {
				t.Errorf("message %d changed (-want +got):\n%s", i, d)
			}
		}
	}
	// Running again cuts nothing more.
	atRatio(w, 0.7)
	if recs := run(t, seed, w); len(recs) != 0 {
		t.Errorf("second L1 = %+v, want no record", recs)
	}
}

func TestL1OriginalSizeOfJSON(t *testing.T) {
	t.Parallel()
	msgs := concat(one(user("u")), round("r1", "grep", "", jsonResult(5000)), round("r2", "read", "a.go", "x"))
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.7)
	run(t, &compact.Tiered{L2KeepRounds: 1}, w)
	r, _ := w.At(2).ToolResult()
	orig, _ := msgs[2].ToolResult()
	if !strings.Contains(r.Content, fmt.Sprint(utf8.RuneCountInString(orig.Content))) && !strings.Contains(r.Content, fmt.Sprint(len(orig.Content))) {
		t.Errorf("cut JSON does not say how long the result was (%d bytes):\n%s", len(orig.Content), r.Content)
	}
}

// TestL1SparesKeptRounds: by default L1 leaves whole the results of the
// three rounds L2 would keep, and an older read of a file those rounds
// edit; it cuts the rest.
func TestL1SparesKeptRounds(t *testing.T) {
	t.Parallel()
	msgs := withIDs(concat(
		one(sys("system prompt")),
		one(user("fix the bug")),
		round("r1", "Read", "a.go", lines(3000)), // 2,3: a read of the file edited in r5: kept
		round("r2", "Read", "b.go", lines(3000)), // 4,5: cut
		round("r3", "Read", "c.go", lines(3000)), // 6,7: a kept round
		round("r4", "Bash", "", lines(3000)),     // 8,9: a kept round
		round("r5", "Edit", "a.go", "ok"),        // 10,11: the last round
	))
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.7)
	recs := run(t, &compact.Tiered{}, w)
	if len(recs) != 1 || recs[0].Level != compact.LevelL1 || recs[0].ResultsCut != 1 {
		t.Fatalf("records %+v, want L1 cutting one result", recs)
	}
	got := w.Messages()
	for i, m := range msgs {
		r, ok := got[i].ToolResult()
		orig, _ := m.ToolResult()
		switch {
		case i == 5:
			if utf8.RuneCountInString(r.Content) > compact.DefaultL1KeepRunes+100 {
				t.Errorf("b.go's read kept %d runes, want it cut", utf8.RuneCountInString(r.Content))
			}
		case ok && r.Content != orig.Content:
			t.Errorf("message %d (%s) cut, want it whole", i, r.ToolCallID)
		}
	}
}

// TestL2KeepsWorkingReads: L2 keeps, with the rounds it keeps, the newest
// earlier read of a file those rounds edit (the text the next edit
// quotes), within MaxWorkingReadsRatio of the budget; an older read of
// the same file and reads of other files go, and the names section does
// not list what was kept.
func TestL2KeepsWorkingReads(t *testing.T) {
	t.Parallel()
	msgs := withIDs(concat(
		one(sys("system prompt")),
		one(user("fix the bug")),
		round("r1", "Read", "a.go", "func OldAlphaServer() {}\n"+lines(2000)), // 2,3: an older read of a.go: removed
		round("r2", "Read", "a.go", "func NewAlphaServer() {}\n"+lines(2000)), // 4,5: the newest read of a.go: kept
		round("r3", "Read", "b.go", "func NewBetaServer() {}\n"+lines(2000)),  // 6,7: removed
		round("r4", "Bash", "", lines(200)),
		round("r5", "Bash", "", lines(200)),
		round("r6", "Edit", "a.go", "ok"),
	))
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.85)
	recs := run(t, &compact.Tiered{}, w)
	if len(recs) == 0 || recs[0].Level != compact.LevelL2 {
		t.Fatalf("records %+v, want L2", recs)
	}
	var ids []string
	for _, m := range w.Messages() {
		if r, ok := m.ToolResult(); ok {
			ids = append(ids, r.ToolCallID)
		}
	}
	if d := cmp.Diff([]string{"r2", "r4", "r5", "r6"}, ids); d != "" {
		t.Errorf("results kept (-want +got):\n%s", d)
	}
	names := strings.Join(noteNames(t, w), "\n")
	if !strings.Contains(names, "NewBetaServer") || strings.Contains(names, "NewAlphaServer") {
		t.Errorf("names section: want b.go's names and not the kept read's:\n%s", names)
	}

	// A read larger than MaxWorkingReadsRatio of the budget is not kept.
	big := withIDs(concat(
		one(sys("system prompt")),
		one(user("fix the bug")),
		round("r1", "Read", "a.go", lines(40000)),
		round("r2", "Bash", "", lines(200)),
		round("r3", "Bash", "", lines(200)),
		round("r4", "Edit", "a.go", "ok"),
	))
	w = newWindow(t, window.Options{}, big...)
	atRatio(w, 0.85)
	run(t, &compact.Tiered{}, w)
	for _, m := range w.Messages() {
		if r, ok := m.ToolResult(); ok && r.ToolCallID == "r1" {
			t.Errorf("a read of %d tokens kept at a budget of %d", w.Count(m), w.Budget())
		}
	}
}

func TestL1CountsRunes(t *testing.T) {
	t.Parallel()
	cjk := repeatRunes("编译错误：未定义的变量。", 1000)
	msgs := concat(one(user("u")), round("r1", "read", "a.go", cjk), round("r2", "read", "b.go", "x"))
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.7)
	run(t, &compact.Tiered{}, w)
	if r, _ := w.At(2).ToolResult(); r.Content != cjk {
		t.Errorf("a 1,000-rune result was cut by L1 to %d runes", utf8.RuneCountInString(r.Content))
	}
}

func TestL1Nothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		msgs []chat.Message
	}{
		{"no round", []chat.Message{sys("s"), user("u"), user(lines(5000)), asst("a")}},
		{"only the latest round", concat(one(user("u")), round("r1", "read", "a.go", lines(5000)))},
		{"latest round with a late result", concat(
			one(user("u")),
			[]chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{
				chat.ToolCall{ID: "a", Name: "read", Arguments: json.RawMessage(`{}`)},
				chat.ToolCall{ID: "b", Name: "read", Arguments: json.RawMessage(`{}`)},
			}}},
			one(chat.NewToolResult("a", "read", lines(5000), false)),
			one(user("hurry up")),
			one(chat.NewToolResult("b", "read", lines(5000), false)),
		)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{}, tc.msgs...)
			atRatio(w, 0.7)
			if recs := run(t, &compact.Tiered{}, w); len(recs) != 0 {
				t.Errorf("records %+v, want none", recs)
			}
			if d := cmp.Diff(tc.msgs, w.Messages()); d != "" {
				t.Errorf("window changed (-want +got):\n%s", d)
			}
		})
	}
}

func TestL2(t *testing.T) {
	t.Parallel()
	msgs := withIDs(concat(
		one(sys("system prompt")),                   // m0
		one(user("fix the bug")),                    // m1
		round("r1", "read", "a.go", lines(800)),     // m2 m3
		one(user("also check b.go")),                // m4
		round("r2", "grep", "pkg/b.go", lines(800)), // m5 m6
		round("r3", "read", "a.go", lines(800)),     // m7 m8
		round("r4", "edit", "c.go", lines(800)),     // m9 m10: kept
		round("r5", "bash", "", lines(800)),         // m11 m12: kept
	))
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.85)
	recs := run(t, &compact.Tiered{L2KeepRounds: 2}, w)
	if d := cmp.Diff([]compact.Level{compact.LevelL2}, levels(recs)); d != "" {
		t.Fatalf("levels (-want +got):\n%s", d)
	}
	if r := recs[0]; r.MessagesRemoved != 7 || r.RoundsRemoved != 3 {
		t.Errorf("record %+v, want 7 messages and 3 rounds removed", r)
	}
	if d := cmp.Diff([]string{"m0", "m1", "", "m9", "m10", "m11", "m12"}, ids(w)); d != "" {
		t.Fatalf("kept (-want +got):\n%s", d)
	}
	for i := 3; i < 7; i++ {
		if d := cmp.Diff(msgs[i+6], w.At(i)); d != "" {
			t.Errorf("kept round message %d changed (-want +got):\n%s", i, d)
		}
	}
	if w.Note() != 2 {
		t.Fatalf("Note() = %d, want 2", w.Note())
	}
	note := w.At(2).Text()
	for _, s := range []string{"7 messages", "3 rounds", "3 tool calls", "3 tool results", "read ×2", "grep ×1", "a.go", "pkg/b.go", "also check b.go"} {
		if !strings.Contains(note, s) {
			t.Errorf("note does not mention %q:\n%s", s, note)
		}
	}
	// A second L2 updates the one note with the cumulative tally.
	w2msgs := withIDs(concat(round("r6", "read", "d.go", lines(800)), round("r7", "read", "e.go", lines(800))))
	for i := range w2msgs {
		w2msgs[i].ID = fmt.Sprintf("n%d", i)
		if err := w.Add(w2msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	atRatio(w, 0.85)
	run(t, &compact.Tiered{L2KeepRounds: 2}, w)
	if d := cmp.Diff([]string{"m0", "m1", "", "n0", "n1", "n2", "n3"}, ids(w)); d != "" {
		t.Fatalf("second L2 kept (-want +got):\n%s", d)
	}
	if note := w.At(2).Text(); !strings.Contains(note, "11 messages") || !strings.Contains(note, "5 rounds") {
		t.Errorf("second note is not cumulative:\n%s", note)
	}
}

func TestL2KeepsLastRounds(t *testing.T) {
	t.Parallel()
	msgs := withIDs(concat(
		one(user("u")),
		round("r0", "read", "z.go", lines(800)), // m1 m2
		round("r1", "read", "a.go", lines(800)), // m3 m4
		round("r2", "read", "b.go", lines(800)), // m5 m6
		round("r3", "read", "c.go", lines(800)), // m7 m8
		one(asst("done, anything else?")),       // m9
		one(user("yes: run the tests")),         // m10
	))
	for _, tc := range []struct {
		tiered compact.Tiered
		want   []string
	}{
		{compact.Tiered{}, []string{"m0", "", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10"}},    // 3 rounds by default
		{compact.Tiered{L2KeepRounds: 2}, []string{"m0", "", "m5", "m6", "m7", "m8", "m9", "m10"}}, // seed 003's 2
	} {
		w := newWindow(t, window.Options{}, msgs...)
		atRatio(w, 0.85)
		run(t, &tc.tiered, w)
		if d := cmp.Diff(tc.want, ids(w)); d != "" {
			t.Errorf("L2 (keep %d) kept (-want +got):\n%s", tc.tiered.L2KeepRounds, d)
		}
	}
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.97)
	run(t, &compact.Tiered{}, w)
	if d := cmp.Diff([]string{"m0", "", "m7", "m8", "m9", "m10"}, ids(w)); d != "" {
		t.Errorf("L3 kept (-want +got):\n%s", d)
	}
}

func TestL3(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		msgs  []chat.Message
		ratio float64
		want  []string
	}{
		{
			name: "system, first user, note, last round",
			msgs: concat(one(sys("s")), one(user("u")), round("r1", "read", "a.go", lines(800)), one(user("u2")),
				round("r2", "read", "b.go", lines(800)), round("r3", "read", "c.go", lines(800))),
			ratio: 0.97,
			want:  []string{"m0", "m1", "", "m7", "m8"},
		},
		{
			name:  "no system prompt",
			msgs:  concat(one(user("u")), round("r1", "read", "a.go", lines(800)), round("r2", "read", "b.go", lines(800))),
			ratio: 0.97,
			want:  []string{"m0", "", "m3", "m4"},
		},
		{
			name: "over budget, user messages after the last round",
			msgs: concat(one(sys("s")), one(user("u")), round("r1", "read", "a.go", lines(4000)), round("r2", "read", "b.go", lines(800)),
				round("r3", "read", "c.go", lines(800)), one(user("and?"))),
			ratio: 1.3,
			want:  []string{"m0", "m1", "", "m6", "m7", "m8"},
		},
		{
			name: "first user message inside the first round",
			msgs: concat(one(sys("s")),
				[]chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "a", Name: "ls", Arguments: json.RawMessage(`{}`)}}}},
				one(user("first")), one(chat.NewToolResult("a", "ls", lines(800), false)),
				round("r2", "read", "b.go", lines(800)), round("r3", "read", "c.go", lines(800))),
			ratio: 0.97,
			want:  []string{"m0", "m1", "m2", "", "m3", "m6", "m7"},
		},
		{
			name:  "no assistant turn: keep the last message",
			msgs:  []chat.Message{user("u"), user(lines(800)), user(lines(800)), user("last")},
			ratio: 0.97,
			want:  []string{"m0", "", "m3"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{}, withIDs(tc.msgs)...)
			atRatio(w, tc.ratio)
			recs := run(t, &compact.Tiered{}, w)
			if len(recs) == 0 || recs[0].Level != compact.LevelL3 {
				t.Fatalf("levels %v, want L3 first", levels(recs))
			}
			if d := cmp.Diff(tc.want, ids(w)); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			if !w.Fits() {
				t.Errorf("over budget after L3: %d of %d", w.Size(), w.Budget())
			}
		})
	}
}

func TestEscalation(t *testing.T) {
	t.Parallel()
	var mid []chat.Message
	for i := range 10 {
		mid = append(mid, round(fmt.Sprint("m", i), "read", fmt.Sprintf("f%d.go", i), lines(1500))...)
	}
	cases := []struct {
		name     string
		tiered   compact.Tiered
		msgs     []chat.Message
		ratio    float64
		want     []compact.Level
		lastSays string // text the last message must hold afterwards
	}{
		{
			name:   "L1 is not enough, L2 is",
			tiered: compact.Tiered{L1: 0.5, L2: 2, L3: 3},
			msgs: concat(one(user("u")), round("big", "read", "big.go", lines(3000)), mid,
				round("x", "read", "x.go", "x"), round("y", "read", "y.go", "y")),
			ratio: 1.3,
			want:  []compact.Level{compact.LevelL1, compact.LevelL2},
		},
		{
			name:   "L2 is not enough, L3 is",
			tiered: compact.Tiered{L1: 0.5, L2: 0.6, L3: 5},
			msgs: concat(one(user("u")), mid, round("x", "read", "x.go", lines(20000)),
				round("y", "read", "y.go", "y")),
			ratio: 2,
			want:  []compact.Level{compact.LevelL2, compact.LevelL3},
		},
		{
			name:     "L3 is not enough: cut",
			msgs:     concat(one(sys("s")), one(user("u")), mid, round("x", "read", "x.go", lines(100000))),
			ratio:    4,
			want:     []compact.Level{compact.LevelL3, compact.LevelCut},
			lastSays: "cut to fit the token budget",
		},
		{
			name:     "huge JSON in the last round",
			msgs:     concat(one(user("u")), mid, round("x", "grep", "", jsonResult(400000))),
			ratio:    3,
			want:     []compact.Level{compact.LevelL3, compact.LevelCut},
			lastSays: `{"query":"handle","matches":[`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{}, tc.msgs...)
			atRatio(w, tc.ratio)
			recs := run(t, &tc.tiered, w)
			if d := cmp.Diff(tc.want, levels(recs)); d != "" {
				t.Errorf("levels (-want +got):\n%s", d)
			}
			if !w.Fits() {
				t.Errorf("over budget: %d of %d", w.Size(), w.Budget())
			}
			for i, r := range recs {
				if r.OverBudget != (i < len(recs)-1) {
					t.Errorf("record %d (%s): OverBudget %v", i, r.Level, r.OverBudget)
				}
			}
			last, _ := w.At(w.Len() - 1).ToolResult()
			if !strings.Contains(last.Content, tc.lastSays) {
				t.Errorf("last result does not hold %q: %.200s", tc.lastSays, last.Content)
			}
			if strings.HasPrefix(last.Content, "{") && !json.Valid([]byte(last.Content)) {
				t.Errorf("cut JSON result is not valid JSON: %.200s…", last.Content)
			}
		})
	}
}

func TestCutHugeFirstUserMessage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		text string
		sys  bool
		more []chat.Message
	}{
		{"ascii", lines(200000), false, nil},
		{"cjk with system prompt", repeatRunes("请修复这个函数中的错误。", 200000), true, nil},
		{"emoji and later rounds", repeatRunes("fix 🐛 in 👨‍👩‍👧 handler; ", 200000), true,
			concat(round("r1", "read", "a.go", lines(3000)), round("r2", "read", "b.go", lines(3000)), one(user("well?")))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var msgs []chat.Message
			if tc.sys {
				msgs = append(msgs, sys("You are a coding agent."))
			}
			first := len(msgs)
			msgs = append(msgs, user(tc.text))
			msgs = withIDs(append(msgs, tc.more...))
			w := newWindow(t, window.Options{Budget: 2000}, msgs...)
			recs := run(t, &compact.Tiered{}, w)
			if n := len(recs); n == 0 || recs[n-1].Level != compact.LevelCut || recs[n-1].MessagesCut == 0 {
				t.Fatalf("records %+v, want a cut last", recs)
			}
			if !w.Fits() {
				t.Fatalf("over budget: %d of %d", w.Size(), w.Budget())
			}
			m := w.At(first)
			if m.ID != msgs[first].ID {
				t.Fatalf("first user message moved or removed: %v", ids(w))
			}
			got := m.Text()
			if !utf8.ValidString(got) || !strings.Contains(got, "…[agentctx:") || !strings.Contains(got, "cut to fit") {
				t.Errorf("cut first user message does not say so (valid UTF-8 %v): %.300q", utf8.ValidString(got), got)
			}
			if !strings.HasPrefix(tc.text, got[:strings.Index(got, "\n…[agentctx:")]) {
				t.Errorf("cut first user message does not keep its head: %.100q", got)
			}
		})
	}
}

func TestPinnedPartsDoNotFit(t *testing.T) {
	t.Parallel()
	for _, s := range []compact.Strategy{&compact.Tiered{}, &compact.Mask{}} {
		w := newWindow(t, window.Options{Budget: 60}, sys(lines(5000)), user(lines(5000)), asst("ok"))
		recs := run(t, s, w)
		n := len(recs)
		if n == 0 || recs[n-1].Level != compact.LevelCut || !recs[n-1].OverBudget {
			t.Fatalf("%s: records %+v, want a cut that stays over budget", s.Name(), recs)
		}
		if w.Len() != 3 {
			t.Errorf("%s: %d messages left, want 3", s.Name(), w.Len())
		}
		for i := range w.Len() {
			if w.TokensAt(i) > 2*compact.MinCutTokens {
				t.Errorf("%s: message %d still holds %d tokens", s.Name(), i, w.TokensAt(i))
			}
		}
	}
}

func TestFirstUserMessageNeverRemoved(t *testing.T) {
	t.Parallel()
	var mid []chat.Message
	for i := range 8 {
		mid = append(mid, round(fmt.Sprint("m", i), "read", "f.go", lines(1200))...)
		mid = append(mid, user(fmt.Sprint("user ", i)))
	}
	strategies := []compact.Strategy{&compact.Tiered{}, &compact.Tiered{L1: 0.1, L2: 0.2, L3: 0.3}, &compact.Mask{KeepRounds: 1}}
	for _, s := range strategies {
		for _, ratio := range []float64{0.65, 0.85, 0.97, 1.5, 20, 1000} {
			for _, hasSys := range []bool{false, true} {
				var msgs []chat.Message
				if hasSys {
					msgs = append(msgs, sys("s"))
				}
				msgs = withIDs(append(append(msgs, user("the task")), mid...))
				w := newWindow(t, window.Options{}, msgs...)
				atRatio(w, ratio)
				run(t, s, w)
				firstUser := msgs[len(msgs)-len(mid)-1].ID
				got := ids(w)
				if hasSys && got[0] != "m0" {
					t.Errorf("%s at %v: system prompt not first: %v", s.Name(), ratio, got)
				}
				if !slices.Contains(got, firstUser) {
					t.Errorf("%s at %v: first user message %s removed: %v", s.Name(), ratio, firstUser, got)
				}
			}
		}
	}
}

func TestTieredNoop(t *testing.T) {
	t.Parallel()
	msgs := concat(one(user("u")), round("a", "read", "a.go", lines(5000)), round("b", "read", "b.go", lines(5000)))
	for _, budget := range []int{0, 1 << 30} {
		w := newWindow(t, window.Options{Budget: budget}, msgs...)
		if recs := run(t, &compact.Tiered{}, w); len(recs) != 0 {
			t.Errorf("budget %d: records %+v, want none", budget, recs)
		}
		if d := cmp.Diff(msgs, w.Messages()); d != "" {
			t.Errorf("budget %d: window changed (-want +got):\n%s", budget, d)
		}
	}
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.59)
	if recs := run(t, &compact.Tiered{}, w); len(recs) != 0 {
		t.Errorf("below L1: records %+v, want none", recs)
	}
}

func TestTieredOverBudgetBelowL1(t *testing.T) {
	t.Parallel()
	msgs := concat(one(user("u")), round("a", "read", "a.go", lines(5000)), round("b", "read", "b.go", lines(5000)))
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 1.1)
	run(t, &compact.Tiered{L1: 1.2, L2: 1.5, L3: 2}, w)
	if !w.Fits() {
		t.Errorf("over budget after compaction: %d of %d", w.Size(), w.Budget())
	}
}

func TestLevelFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tiered compact.Tiered
		ratio  float64
		want   compact.Level
	}{
		{compact.Tiered{}, 0, compact.LevelNone},
		{compact.Tiered{}, 0.5999, compact.LevelNone},
		{compact.Tiered{}, 0.60, compact.LevelL1},
		{compact.Tiered{}, 0.6999, compact.LevelL1},
		{compact.Tiered{}, 0.70, compact.LevelL2},
		{compact.Tiered{}, 0.9499, compact.LevelL2},
		{compact.Tiered{}, 0.95, compact.LevelL3},
		{compact.Tiered{}, 7, compact.LevelL3},
		{compact.Tiered{L1: 0.3, L2: 0.5, L3: 0.7}, 0.3, compact.LevelL1},
		{compact.Tiered{L1: 0.3, L2: 0.5, L3: 0.7}, 0.6, compact.LevelL2},
		{compact.Tiered{L1: 0.3, L2: 0.5, L3: 0.7}, 0.75, compact.LevelL3},
		{compact.Tiered{L1: 0.9, L2: 1.2, L3: 1.5}, 1.1, compact.LevelL1},
		{compact.Tiered{L2: 0.9}, 0.85, compact.LevelL1}, // other ratios keep their defaults
	}
	for _, tc := range cases {
		if got := tc.tiered.LevelFor(tc.ratio); got != tc.want {
			t.Errorf("%+v.LevelFor(%v) = %s, want %s", tc.tiered, tc.ratio, got, tc.want)
		}
	}
}

func TestParseStrategy(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"tiered": "tiered", "": "tiered", "TIERED": "tiered", "mask": "mask", "Mask": "mask", "none": "none"} {
		s, err := compact.ParseStrategy(name, nil)
		if err != nil || s.Name() != want {
			t.Errorf("ParseStrategy(%q) = %v, %v; want %s", name, s, err, want)
		}
	}
	if _, err := compact.ParseStrategy("summarise", nil); err == nil || !strings.Contains(err.Error(), "tiered, mask, summarize, none") {
		t.Errorf("ParseStrategy(unknown) error = %v, want one naming the known strategies", err)
	}
}

func TestNone(t *testing.T) {
	t.Parallel()
	msgs := concat(one(user(lines(9000))), round("a", "read", "a.go", lines(9000)))
	w := newWindow(t, window.Options{Budget: 10}, msgs...)
	recs, err := compact.None{}.Compact(context.Background(), w)
	if err != nil || recs != nil {
		t.Errorf("None.Compact = %v, %v", recs, err)
	}
	if d := cmp.Diff(msgs, w.Messages()); d != "" {
		t.Errorf("None changed the window (-want +got):\n%s", d)
	}
}

func TestLevel(t *testing.T) {
	t.Parallel()
	want := []string{"L1", "L2", "L3", "cut", "mask", "summary", "truncate"}
	var got []string
	for _, l := range compact.Levels() {
		got = append(got, l.String())
		b, err := l.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back compact.Level
		if err := back.UnmarshalText(b); err != nil || back != l {
			t.Errorf("UnmarshalText(%s) = %s, %v", b, back, err)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Levels() names (-want +got):\n%s", d)
	}
	if s := compact.LevelNone.String(); s != "none" {
		t.Errorf("LevelNone = %q", s)
	}
	if s := compact.Level(42).String(); s != "Level(42)" {
		t.Errorf("Level(42) = %q", s)
	}
	var l compact.Level
	if err := l.UnmarshalText([]byte("L9")); err == nil {
		t.Errorf("UnmarshalText(L9) = nil error")
	}
	rec := compact.Record{Level: compact.LevelL2, TokensBefore: 10, TokensAfter: 4}
	b, err := json.Marshal(rec)
	if err != nil || !strings.Contains(string(b), `"level":"L2"`) {
		t.Errorf("json.Marshal(Record) = %s, %v", b, err)
	}
	if rec.TokensRemoved() != 6 {
		t.Errorf("TokensRemoved() = %d", rec.TokensRemoved())
	}
}

func TestCutIsFinal(t *testing.T) {
	t.Parallel()
	// An assistant turn whose four calls have arguments ShrinkJSON cannot
	// bring under 64 bytes.
	m := chat.Message{Role: chat.RoleAssistant}
	for i := range 4 {
		args, _ := json.Marshal(map[string]string{"new": lines(150), "old": "中文", "path": "pkg/x.go"})
		m.Parts = append(m.Parts, chat.ToolCall{ID: fmt.Sprint("e", i), Name: "edit", Arguments: args})
	}
	fixable := 0
	for budget := 60; budget <= 400; budget += 5 {
		w := newWindow(t, window.Options{Budget: budget}, user("u"), m)
		run(t, &compact.Tiered{}, w)
		if w.Fits() {
			continue
		}
		run(t, &compact.Tiered{}, w)
		if w.Fits() {
			fixable++
			t.Logf("budget %d: over budget after Compact, fits after a second one", budget)
		}
	}
	if fixable > 0 {
		t.Errorf("%d budgets left over budget by a Compact that a second Compact fixes", fixable)
	}
}

// Reclaimable counts what L3 may remove for the round in progress: the
// units before the last assistant turn that are not pinned. The system
// prompt, the first user message and the round itself are not counted.
func TestTieredReclaimable(t *testing.T) {
	t.Parallel()
	msgs := withIDs(concat(
		one(sys("system prompt")),
		one(user("fix the bug")),
		round("r1", "read", "a.go", lines(3000)),
		round("r2", "read", "b.go", lines(1500)),
		round("r3", "read", "c.go", lines(800)),
	))
	w := newWindow(t, window.Options{}, msgs...)
	w.SetBudget(w.Size() * 2)
	want := 0
	for i := 2; i < 6; i++ { // r1 and r2; r3 is the round in progress
		want += w.TokensAt(i)
	}
	tiered := &compact.Tiered{}
	if got := tiered.Reclaimable(w); got != want {
		t.Errorf("Reclaimable = %d, want %d (rounds r1 and r2)", got, want)
	}
	// L3 frees at least that much: the window over budget keeps the last
	// round only.
	before := w.Size()
	w.SetBudget(w.Size() - want/2)
	run(t, tiered, w)
	if freed := before - w.Size(); freed < want/2 {
		t.Errorf("compaction freed %d tokens, want at least %d", freed, want/2)
	}
	// A window of pinned messages and one round has nothing to reclaim.
	w = newWindow(t, window.Options{}, withIDs(concat(one(sys("s")), one(user("u")), round("r1", "read", "a.go", lines(3000))))...)
	w.SetBudget(w.Size() * 2)
	if got := tiered.Reclaimable(w); got != 0 {
		t.Errorf("Reclaimable of the first round = %d, want 0", got)
	}
}
