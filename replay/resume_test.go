package replay_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
)

// testSeed returns the seed of the random cut points: AGENTCTX_SEED when
// set (to replay a failure), else the clock. It is logged.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("AGENTCTX_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("AGENTCTX_SEED=%q: %v", s, err)
		}
		seed = n
	}
	t.Logf("cut points seeded with %d (rerun with AGENTCTX_SEED=%d)", seed, seed)
	return seed
}

// cutPoints returns 3 distinct stopping points in [1, n], sorted: one in
// each third of the trajectory, so that a short prefix, the middle and
// the late part (after most compactions) are all resumed.
func cutPoints(rng *rand.Rand, n int) []int {
	if n <= 3 {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	var out []int
	for k := range 3 {
		lo, hi := 1+k*n/3, (k+1)*n/3
		p := lo + rng.IntN(max(hi-lo+1, 1))
		if len(out) == 0 || p > out[len(out)-1] {
			out = append(out, p)
		}
	}
	return out
}

// TestResumeEqualsLive is the acceptance test of resume: every real
// trajectory, replayed under budgets that force compaction (8,000 and
// 16,000 tokens) with the tiered and the masking strategy, saved into a
// JSONL store and stopped at random points, loads and restores into
// exactly the window that was live: message by message, note flags,
// per-message and total tokens, usage anchor, tally of what compaction
// dropped, and no invariant violation.
func TestResumeEqualsLive(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	root := sharedtest.Root()
	seed := testSeed(t)
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	var compactions atomic.Int64 // saved sessions holding a compaction
	t.Cleanup(func() {
		if !t.Failed() && compactions.Load() == 0 {
			t.Errorf("no saved session held a compaction: the test proves nothing")
		}
	})
	// One subtest per resume, the costliest first (a trajectory's size in
	// bytes times the share of it replayed), so that the parallel
	// subtests keep both cores of a CI machine busy to the end.
	type job struct {
		name         string
		tr           *transcript.Trajectory
		budget, stop int
		strat        string
		cost         int64
	}
	var jobs []job
	for fi, file := range files {
		rel, _ := filepath.Rel(root, file)
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatalf("read %s: %v", rel, err)
		}
		// OpenHands output.jsonl holds many runs of the same agent: two
		// of them cover the format.
		trs = trs[:min(len(trs), 2)]
		for _, tr := range trs {
			size := st.Size() / int64(len(trs))
			for bi, budget := range []int{8000, 16000} {
				for si, strat := range []string{"tiered", "mask"} {
					rng := rand.New(rand.NewPCG(seed, uint64(fi<<8|tr.Index<<4|bi<<2|si)))
					for _, stop := range cutPoints(rng, len(tr.Messages)) {
						jobs = append(jobs, job{
							name: fmt.Sprintf("%s#%d/%d/%s/stop=%d", rel, tr.Index, budget, strat, stop),
							tr:   tr, budget: budget, strat: strat, stop: stop,
							cost: size * int64(stop) / int64(max(len(tr.Messages), 1)),
						})
					}
				}
			}
		}
	}
	slices.SortStableFunc(jobs, func(a, b job) int { return cmp.Compare(b.cost, a.cost) })
	for _, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			t.Parallel()
			if resumeAt(t, store, j.tr, j.budget, j.strat, j.stop) > 0 {
				compactions.Add(1)
			}
		})
	}
}

// resumeAt replays tr up to stop messages with saving on, restores the
// saved session and compares. It returns the number of compact
// boundaries the session holds.
func resumeAt(t *testing.T, store session.Store, tr *transcript.Trajectory, budget int, strat string, stop int) int {
	t.Helper()
	ctx := t.Context()
	s, err := compact.ParseStrategy(strat, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The mask runs also pass tool results through the limiter and save
	// the working memory, as `agentctx replay --save` does: the full
	// outputs and state entries the session then holds must not change
	// the resumed window.
	extras := strat == "mask"
	res, err := replay.Run(ctx, tr, replay.Options{Budget: budget, Strategy: s, Store: store, Project: "/replay/" + strat, StopAfter: stop,
		LimitToolResults: extras, WorkingMemory: extras})
	if err != nil {
		t.Fatalf("stop %d: Run: %v", stop, err)
	}
	if res.SessionID == "" || res.Window == nil {
		t.Fatalf("stop %d: SessionID %q, Window %v", stop, res.SessionID, res.Window)
	}
	live := res.Window
	if live.Len() == 0 {
		t.Fatalf("stop %d: empty live window", stop)
	}
	loaded, err := store.Load(ctx, res.SessionID, session.LoadOptions{})
	if err != nil {
		t.Fatalf("stop %d: Load: %v", stop, err)
	}
	if len(loaded.Problems) > 0 {
		t.Errorf("stop %d: load problems: %v", stop, loaded.Problems)
	}
	counter, err := model.Counter(model.Lookup(res.Model))
	if err != nil {
		t.Fatal(err)
	}
	got, probs, err := session.Restore(loaded.Entries, window.Options{Budget: res.Budget, Counter: counter, Reserved: res.ToolTokens})
	if err != nil {
		t.Fatalf("stop %d: Restore: %v", stop, err)
	}
	if len(probs) > 0 {
		t.Errorf("stop %d: restore problems: %v", stop, probs)
	}
	where := fmt.Sprintf("stop %d of %d (session %s)", stop, len(tr.Messages), res.SessionID)
	assertSameWindow(t, where, live, got)

	sess := loaded.Session
	if sess.Origin == "" || !strings.HasPrefix(sess.Origin, "replay:"+string(tr.Format)+":") {
		t.Errorf("%s: origin %q", where, sess.Origin)
	}
	// The engine recorded the replay's configuration: a resume comes back
	// with its model, budget and strategy, and the same window.
	eng, err := agentctx.Resume(ctx, res.SessionID, agentctx.Options{Store: store, ReadOnly: true})
	if err != nil {
		t.Fatalf("%s: Resume: %v", where, err)
	}
	if eng.Budget() != res.Budget || eng.BudgetSource() != agentctx.BudgetFromOption || eng.Model().Name != model.Lookup(res.Model).Name {
		t.Errorf("%s: resumed at %d tokens (%s) for %s; replayed %s at %d", where, eng.Budget(), eng.BudgetSource(), eng.Model().Name, res.Model, res.Budget)
	}
	for _, w := range eng.Warnings() {
		if strings.HasPrefix(w, "resume:") { // an override, a strategy not rebuilt
			t.Errorf("%s: %s", where, w)
		}
	}
	resumed, err := eng.CloseWindow()
	if err != nil {
		t.Fatal(err)
	}
	assertSameWindow(t, where+", resumed", live, resumed)
	if !titleOK(sess.Title, tr.Messages[:stop]) {
		t.Errorf("%s: title %q is not the first typed user prompt", where, sess.Title)
	}
	if sess.Messages != live.Len() {
		t.Errorf("%s: session says %d live messages, window has %d", where, sess.Messages, live.Len())
	}
	return sess.Compactions
}

// assertSameWindow fails t unless got is the same window as want.
func assertSameWindow(t *testing.T, where string, want, got *window.Window) {
	t.Helper()
	if vs := got.Check(); len(vs) > 0 {
		t.Errorf("%s: restored window violates invariants: %v", where, vs)
	}
	if want.Len() != got.Len() {
		t.Errorf("%s: restored %d messages, live %d", where, got.Len(), want.Len())
	}
	for i := range min(want.Len(), got.Len()) {
		// reflect.DeepEqual first: cmp is slow under -race, and needed
		// only to tell a nil slice from an empty one apart and to explain
		// a difference.
		if a, b := want.At(i), got.At(i); !reflect.DeepEqual(a, b) && !gocmp.Equal(a, b, cmpopts.EquateEmpty()) {
			t.Fatalf("%s: message %d differs (-live +restored):\n%s", where, i, gocmp.Diff(a, b, cmpopts.EquateEmpty()))
		}
		if want.IsNote(i) != got.IsNote(i) {
			t.Errorf("%s: message %d: note %v, live %v", where, i, got.IsNote(i), want.IsNote(i))
		}
		if want.TokensAt(i) != got.TokensAt(i) {
			t.Errorf("%s: message %d: %d tokens, live %d", where, i, got.TokensAt(i), want.TokensAt(i))
		}
	}
	if want.Tokens() != got.Tokens() {
		t.Errorf("%s: restored %d tokens, live %d", where, got.Tokens(), want.Tokens())
	}
	if want.Anchor() != got.Anchor() {
		t.Errorf("%s: anchor %+v, live %+v", where, got.Anchor(), want.Anchor())
	}
	if d := gocmp.Diff(want.Dropped(), got.Dropped(), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("%s: dropped tally differs (-live +restored):\n%s", where, d)
	}
	if want.Budget() != got.Budget() || want.Reserved() != got.Reserved() {
		t.Errorf("%s: budget %d reserved %d, live %d %d", where, got.Budget(), got.Reserved(), want.Budget(), want.Reserved())
	}
}

// titleOK reports whether title is the title of the first user prompt of
// msgs that a person could have typed (Claude Code's command echoes and
// notices, which start with "<", "Caveat:" or "[", are not).
func titleOK(title string, msgs []chat.Message) bool {
	// The first user message that makes a request (session.RequestText:
	// the task block, else what a person typed, lead-ins and harness
	// demonstrations left out) is the title, written independently of
	// the store's observer: by hand here, and never the compaction note.
	for _, m := range msgs {
		if m.Role != chat.RoleUser {
			continue
		}
		t := session.RequestText(strings.TrimSpace(m.Text()))
		if t == "" || strings.HasPrefix(t, "[Request interrupted") {
			continue
		}
		return title == session.Title(t)
	}
	return title == ""
}
