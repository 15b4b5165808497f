package replay_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden replay tables in testdata/golden (TestGolden)")

// goldenDir holds one folder per trajectory of ../shared/data and, in it,
// one table per budget and strategy.
const goldenDir = "testdata/golden"

var (
	goldenBudgets    = []int{4000, 16000}
	goldenStrategies = []string{"tiered", "mask", "summarize"}
)

// TestGolden replays every trajectory of the shared data folder at two
// budgets with each strategy, as `agentctx replay` does by default (the
// tool-result limiter, working memory and reminders on; summarize with the
// extractive summarizer), and compares a table of what happened with the
// golden file under testdata/golden: per model call, the prompt's size and
// the compaction levels taken; per compaction, what each level removed and
// what the window kept. A change in what compaction keeps shows up in
// review as a diff of these files. Regenerate them with
//
//	go test ./replay -run TestGolden -update
//
// and explain the difference in the commit message.
func TestGolden(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	if len(files) == 0 {
		t.Fatal("no trajectory files found in the shared data folder")
	}
	root := sharedtest.Root()
	// The golden files of this run, relative to goldenDir: complete before
	// the parallel subtests start, read by the cleanup after they end.
	want := map[string]bool{}
	t.Cleanup(func() {
		// Once every subtest is done: golden files no trajectory produced.
		stale := staleGoldens(t, want)
		if len(stale) == 0 {
			return
		}
		if *update {
			for _, p := range stale {
				if err := os.Remove(filepath.Join(goldenDir, p)); err != nil {
					t.Error(err)
				}
			}
			return
		}
		t.Errorf("golden files without a trajectory in the shared data folder: %s; run `go test ./replay -run TestGolden -update` to remove them", strings.Join(stale, ", "))
	})
	for _, file := range files {
		rel, err := filepath.Rel(root, file)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatalf("read %s: %v", rel, err)
		}
		for _, tr := range trs {
			dir := goldenName(rel, tr.Index)
			for _, budget := range goldenBudgets {
				for _, strat := range goldenStrategies {
					name := dir + "/" + strconv.Itoa(budget) + "-" + strat + ".txt"
					want[name] = true
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						got := goldenTable(t, rel, tr, budget, strat)
						checkGolden(t, filepath.Join(goldenDir, filepath.FromSlash(name)), got)
					})
				}
			}
		}
	}
}

// goldenName derives a trajectory's folder name from its path relative to
// the shared data folder and its index in the file: path separators become
// "--", anything but letters, digits, '.', '_' and '-' becomes '_'.
func goldenName(rel string, index int) string {
	var b strings.Builder
	for _, r := range strings.ReplaceAll(rel, "/", "--") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	fmt.Fprintf(&b, ".%d", index)
	return b.String()
}

// staleGoldens lists the golden files under goldenDir that are not in
// want, sorted.
func staleGoldens(t *testing.T, want map[string]bool) []string {
	var stale []string
	err := filepath.WalkDir(goldenDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(goldenDir, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !want[rel] {
			stale = append(stale, rel)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	// Empty folders left by removed files go too.
	if *update {
		entries, _ := os.ReadDir(goldenDir)
		for _, e := range entries {
			if e.IsDir() {
				_ = os.Remove(filepath.Join(goldenDir, e.Name())) // fails unless empty
			}
		}
	}
	return stale
}

// checkGolden compares got with the golden file at path, or writes it
// with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v\nGenerate the golden file with `go test ./replay -run TestGolden -update` and commit it.", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	t.Errorf("replay table differs from %s:\n%s\nIf the change is intended, regenerate with `go test ./replay -run TestGolden -update`; the commit message must explain the difference (which fix or drift causes it).", path, firstDiff(want, got))
}

// firstDiff shows the first differing lines of want and got (up to five,
// "-" the golden's, "+" the new), numbered, after two lines of context.
func firstDiff(want, got []byte) string {
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	line := func(l []string, j int) string {
		if j < len(l) {
			return l[j]
		}
		return "(end of file)"
	}
	var b strings.Builder
	shown, diff, n := 0, 0, max(len(wl), len(gl))
	for j := range n {
		if line(wl, j) == line(gl, j) {
			continue
		}
		diff++
		if shown == 0 {
			for c := max(j-2, 0); c < j; c++ {
				fmt.Fprintf(&b, "  %5d   %s\n", c+1, wl[c])
			}
		}
		if shown < 5 {
			fmt.Fprintf(&b, "  %5d - %s\n  %5d + %s\n", j+1, line(wl, j), j+1, line(gl, j))
			shown++
		}
	}
	fmt.Fprintf(&b, "  (%d of %d lines differ; the golden file has %d lines, the replay %d)", diff, n, len(wl), len(gl))
	return b.String()
}

// goldenTable replays tr at budget with the strategy named strat and
// renders the table. Everything in it is a function of the trajectory and
// the code: no times, no absolute paths, no map order.
func goldenTable(t *testing.T, rel string, tr *transcript.Trajectory, budget int, strat string) []byte {
	s, err := compact.ParseStrategy(strat, nil) // summarize: the extractive summarizer
	if err != nil {
		t.Fatal(err)
	}
	var (
		b     bytes.Buffer
		lab   labeler
		calls int
	)
	observe := func(i int, req *agentctx.Request, eng *agentctx.Engine) {
		w := newView(eng)
		labels := lab.observe(i, req != nil, w)
		if req == nil {
			return
		}
		calls++
		writeCall(&b, calls, i, req, w, labels)
	}
	res, err := replay.Run(t.Context(), tr, replay.Options{
		Budget: budget, Strategy: s,
		// `agentctx replay`'s defaults (internal/cli/replay.go).
		LimitToolResults: true, WorkingMemory: true, Reminders: true,
		Observe: observe,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var h bytes.Buffer
	fmt.Fprintf(&h, "# agentctx golden replay table; regenerate: go test ./replay -run TestGolden -update\n")
	fmt.Fprintf(&h, "# %s #%d format %s id %q model %s (%s) encoding %s\n", rel, tr.Index, res.Format, res.ID, res.Model, res.ModelSource, res.Encoding)
	fmt.Fprintf(&h, "# budget %d strategy %s limiter+workmem+reminders; tools %d tok, %d messages, %d recorded compactions, %d problems\n",
		res.Budget, res.Strategy, res.ToolTokens, res.Messages, res.RecordedCompactions, len(res.Problems))
	fmt.Fprintf(&h, "# call N msg I: prompt tokens/budget, levels before>after; kept: window labels (trajectory message indexes, ~ changed by compaction, N note, x synthetic), #hash of the kept messages\n")
	h.Write(b.Bytes())
	fmt.Fprintf(&h, "end calls %d peak %d final %d over %d (pinned %d) violations %d removed %d",
		res.ModelCalls, res.PeakPromptTokens, res.FinalPromptTokens, res.CallsOverBudget, res.CallsOverBudgetPinned, res.InvariantViolations, res.TokensRemoved)
	for _, l := range compact.Levels() {
		if n := res.Compactions[l.String()]; n > 0 {
			fmt.Fprintf(&h, " %s×%d", l, n)
		}
	}
	fmt.Fprintf(&h, "\nend limited %d results %d chars, orphans %d, interrupted %d, reminders %d, escalations %d, cache %d/%d\n",
		res.LimitedResults, res.LimitedChars, res.OrphanResults, res.InterruptedCalls, len(res.Reminders), res.SummaryEscalations, res.CacheReadTokens, res.PromptTokens)
	if c := res.Cost; c != nil {
		fmt.Fprintf(&h, "end cost $%.6f uncompacted $%.6f (price of %s); cache read %d write %d (after compaction %d), uncompacted read %d write %d, output %d\n",
			c.USD, c.UncompactedUSD, c.PriceAsOf, c.CacheReadTokens, c.CacheWriteTokens, c.CompactionCacheWriteTokens,
			c.UncompactedCacheReadTokens, c.UncompactedCacheWriteTokens, c.OutputTokens)
	}
	if res.Retention != nil {
		fmt.Fprintf(&h, "end retention %s\n", retention(res.Retention))
	}
	return h.Bytes()
}

// writeCall writes one model call's line and, when it compacted, one line
// per level and the kept line.
func writeCall(b *bytes.Buffer, call, i int, req *agentctx.Request, w view, labels []string) {
	fmt.Fprintf(b, "call %d msg %d: %d/%d", call, i, req.Tokens, req.Budget)
	for _, r := range req.Compactions {
		fmt.Fprintf(b, " %s %d>%d", r.Level, r.TokensBefore, r.TokensAfter)
	}
	if req.Over > 0 {
		fmt.Fprintf(b, " OVER %d", req.Over)
	}
	if len(req.Dropped) > 0 {
		fmt.Fprintf(b, " dropped %s", strings.Join(req.Dropped, ","))
	}
	if len(req.Interrupted) > 0 {
		fmt.Fprintf(b, " interrupted %d", len(req.Interrupted))
	}
	var tail []string
	for _, r := range req.Tail {
		tail = append(tail, r.Kind)
	}
	if len(tail) > 0 {
		fmt.Fprintf(b, " tail %s", strings.Join(tail, ","))
	}
	b.WriteByte('\n')
	if len(req.Compactions) == 0 {
		return
	}
	summary := ""
	for _, r := range req.Compactions {
		fmt.Fprintf(b, "  %s -%d msgs -%d rounds, cut %d results %d msgs", r.Level, r.MessagesRemoved, r.RoundsRemoved, r.ResultsCut, r.MessagesCut)
		if r.OverBudget {
			b.WriteString(", still over")
		}
		if r.Escalated {
			fmt.Fprintf(b, ", escalated: %s", r.EscalationReason)
		}
		if r.Level == compact.LevelSummary {
			fmt.Fprintf(b, ", %s %d tok", r.Summarizer, r.SummaryTokens)
			if r.Fallback {
				fmt.Fprintf(b, " FALLBACK: %s", r.FallbackReason)
			}
			if len(r.FilesIncluded) > 0 {
				// Base names: the paths are the recording machine's.
				names := make([]string, len(r.FilesIncluded))
				for k, f := range r.FilesIncluded {
					names[k] = path.Base(f)
				}
				fmt.Fprintf(b, ", files %s", strings.Join(names, ","))
			}
			summary = r.Summary
			fmt.Fprintf(b, ", summary %s %q", hash(r.Summary), firstLine(r.Summary))
			if r.Retention != nil {
				fmt.Fprintf(b, ", retention %s", retention(r.Retention))
			}
		}
		b.WriteByte('\n')
	}
	h := sha256.New()
	note := ""
	for j := range w.Len() {
		m := w.At(j)
		data, err := json.Marshal(m)
		if err != nil {
			data = []byte(err.Error())
		}
		h.Write(data)
		h.Write([]byte{'\n'})
		if w.IsNote(j) {
			note = m.Text()
		}
	}
	fmt.Fprintf(b, "  kept %d msgs %d tok: %s #%s", w.Len(), w.Tokens(), compress(labels), hex.EncodeToString(h.Sum(nil))[:8])
	if note != "" && note != summary {
		fmt.Fprintf(b, " note %s %q", hash(note), firstLine(note))
	}
	b.WriteByte('\n')
}

// retention renders a retention: kept/total overall and per category, in
// name order.
func retention(r *compact.Retention) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d", r.Kept, r.Total)
	for _, k := range slices.Sorted(maps.Keys(r.Counts)) {
		c := r.Counts[k]
		if c[1] == 0 {
			continue
		}
		fmt.Fprintf(&b, " %s %d/%d", k, c[0], c[1])
	}
	return b.String()
}

// hash is a short fingerprint of s: 8 hex digits of its SHA-256.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// firstLine returns the first line of s that says something (not empty,
// not the summary's or the compaction note's fixed header), at most 72
// runes.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line == "" || line == compact.SummaryHeader || strings.HasPrefix(line, "[agentctx compaction note]") {
			continue
		}
		if utf8.RuneCountInString(line) > 72 {
			line = string([]rune(line)[:72]) + "…"
		}
		return line
	}
	return ""
}

// compress writes labels with runs of consecutive message indexes as
// ranges: "0-3 N 7~ 9-12".
func compress(labels []string) string {
	var out []string
	for k := 0; k < len(labels); {
		a, err := strconv.Atoi(labels[k])
		if err != nil {
			out = append(out, labels[k])
			k++
			continue
		}
		e := k + 1
		for e < len(labels) {
			n, err := strconv.Atoi(labels[e])
			if err != nil || n != a+(e-k) {
				break
			}
			e++
		}
		if e-k == 1 {
			out = append(out, labels[k])
		} else {
			out = append(out, fmt.Sprintf("%d-%d", a, a+e-k-1))
		}
		k = e
	}
	return strings.Join(out, " ")
}

// labeler names the window's messages after the trajectory's: a message is
// labeled with the index of the trajectory message whose Add put it in the
// window, "~" appended once compaction changed it (a cut or masked
// result), "N" for the compaction note, "x" for a message the engine made
// up (an interrupted call's synthetic result). A message is recognised as
// unchanged by its parts (the window hands out the same parts until it
// replaces them) and a changed one by its place, role and tool call among
// the previous window's messages: compaction keeps the order.
type labeler struct {
	prev []labeled
}

type labeled struct {
	part  *chat.Part // first part; nil for a message without parts
	label string
	role  chat.Role
	call  string // the tool call id a result answers, or an assistant's first call's id
}

func identify(m chat.Message) labeled {
	l := labeled{role: m.Role}
	if len(m.Parts) > 0 {
		l.part = &m.Parts[0]
	}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.ToolResult:
			l.call = p.ToolCallID
		case chat.ToolCall:
			l.call = p.ID
		}
		if l.call != "" {
			break
		}
	}
	return l
}

// observe labels the window after message i was added (request false) or
// after the request before message i was built, and returns the labels in
// window order.
func (lb *labeler) observe(i int, request bool, w view) []string {
	byPart := make(map[*chat.Part]int, len(lb.prev))
	for k, p := range lb.prev {
		if p.part != nil {
			byPart[p.part] = k
		}
	}
	cur := make([]labeled, w.Len())
	same := make([]bool, len(lb.prev)) // prev messages still in the window, unchanged
	for j := range cur {
		cur[j] = identify(w.At(j))
		if k, ok := byPart[cur[j].part]; ok && cur[j].part != nil {
			cur[j].label = lb.prev[k].label
			same[k] = true
		}
	}
	added := w.Len() - len(lb.prev) // after an Add: the new messages, at the end
	next := 0                       // the prev message after the last one matched
	for j := range cur {
		c := &cur[j]
		if c.part != nil {
			if k, ok := byPart[c.part]; ok {
				next = k + 1
				continue
			}
		}
		switch {
		case w.IsNote(j):
			c.label = "N"
			continue
		case !request && added > 0 && j >= w.Len()-added:
			c.label = "x"
			if j == w.Len()-1 {
				c.label = strconv.Itoa(i)
			}
			continue
		}
		c.label = "x"
		for k := next; k < len(lb.prev); k++ {
			p := lb.prev[k]
			if same[k] || p.role != c.role || p.call != c.call || p.label == "N" {
				continue
			}
			c.label = p.label
			if c.part != nil && !strings.HasSuffix(c.label, "~") {
				c.label += "~"
			}
			same[k] = true
			next = k + 1
			break
		}
	}
	lb.prev = cur
	labels := make([]string, len(cur))
	for j, c := range cur {
		labels[j] = c.label
	}
	return labels
}

// view is what the golden tables read of the engine's window.
type view struct {
	msgs   []chat.Message
	note   int
	tokens int
}

func newView(eng *agentctx.Engine) view {
	ws := eng.WindowStats()
	return view{msgs: eng.Messages(), note: ws.Note, tokens: ws.Tokens}
}

func (v view) Len() int              { return len(v.msgs) }
func (v view) At(i int) chat.Message { return v.msgs[i] }
func (v view) IsNote(i int) bool     { return i == v.note }
func (v view) Tokens() int           { return v.tokens }
