package compact_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/window"
)

// Every shipped strategy's recorded parameters build the same strategy
// again.
func TestConfigRoundTrip(t *testing.T) {
	t.Parallel()
	tiered := compact.Tiered{L1: 0.5, L2: 0.7, L3: 0.9, L1MinRunes: 100, L1KeepRunes: 50, L2KeepRounds: 3}
	tests := []struct {
		name string
		s    compact.Strategy
		json string
	}{
		{"tiered", &tiered, `{"l1":0.5,"l2":0.7,"l3":0.9,"l1_min_runes":100,"l1_keep_runes":50,"l2_keep_rounds":3}`},
		{"mask", &compact.Mask{KeepRounds: 4, Batch: 2, Escalation: tiered}, `{"l1":0.5,"l2":0.7,"l3":0.9,"l1_min_runes":100,"l1_keep_runes":50,"l2_keep_rounds":3,"keep_rounds":4,"batch":2}`},
		{"summarize", &compact.Summarize{Threshold: 0.7, KeepRatio: 0.1, FallbackKeepRatio: 0.2, SummaryRatio: 0.05, MinFreedRatio: 0.3, MinCallsBetween: 4, MaxFailures: 2}, `{"summarizer":"extractive","threshold":0.7,"keep_ratio":0.1,"fallback_keep_ratio":0.2,"summary_ratio":0.05,"min_freed_ratio":0.3,"min_calls_between":4,"max_failures":2}`},
		{"summarize defaults", &compact.Summarize{}, `{"summarizer":"extractive"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, err := tc.s.(compact.Configurable).Config()
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != tc.json {
				t.Errorf("Config = %s, want %s", raw, tc.json)
			}
			back, err := compact.Build(tc.s.Name(), raw, compact.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.s, back, cmpopts.IgnoreUnexported(compact.Summarize{})); diff != "" {
				t.Errorf("Build(Config()) (-want +got):\n%s", diff)
			}
		})
	}
}

type ownStrategy struct{ compact.None }

func (ownStrategy) Name() string { return "own-test" }

func TestRegisterAndUnknown(t *testing.T) {
	t.Parallel()
	if _, err := compact.Build("own-unregistered", nil, compact.BuildOptions{}); !errors.Is(err, compact.ErrUnknownStrategy) {
		t.Fatalf("Build(unknown) = %v, want ErrUnknownStrategy", err)
	}
	var got json.RawMessage
	compact.Register("own-test", func(c json.RawMessage, _ compact.BuildOptions) (compact.Strategy, error) {
		got = c
		return ownStrategy{}, nil
	})
	s, err := compact.Build("own-test", json.RawMessage(`{"x":1}`), compact.BuildOptions{})
	if err != nil || s.Name() != "own-test" || string(got) != `{"x":1}` {
		t.Fatalf("Build(registered) = %v, %v (config %s)", s, err, got)
	}
	if _, err := compact.Build("tiered", json.RawMessage(`[1]`), compact.BuildOptions{}); err == nil {
		t.Error("Build with an unreadable config: no error")
	}
}

func TestThresholdRatio(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    compact.Thresholder
		want float64
	}{
		{&compact.Summarize{}, compact.DefaultSummaryThreshold},
		{&compact.Summarize{Threshold: 0.6}, 0.6},
		{&compact.Tiered{}, compact.DefaultL2Ratio},
		{&compact.Tiered{L2: 0.7}, 0.7},
	} {
		if got := tc.s.ThresholdRatio(); got != tc.want {
			t.Errorf("%T%+v: ThresholdRatio = %v, want %v", tc.s, tc.s, got, tc.want)
		}
	}
}

// The guard's state survives MarshalState/UnmarshalState, a fresh copy
// starts from zero, and a manual compaction is no model call.
func TestSummarizeStateful(t *testing.T) {
	t.Parallel()
	s := &compact.Summarize{State: compact.SummarizeState{Calls: 5, LastSummary: 2, Summaries: 1}}
	raw, err := s.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	f := s.Fresh().(*compact.Summarize)
	if f.State != (compact.SummarizeState{}) || f == s {
		t.Fatalf("Fresh = %+v", f.State)
	}
	if err := f.UnmarshalState(raw); err != nil || f.State != s.State {
		t.Fatalf("UnmarshalState = %v, state %+v, want %+v", err, f.State, s.State)
	}
	if err := f.UnmarshalState(json.RawMessage(`"x"`)); err == nil || f.State != s.State {
		t.Fatalf("UnmarshalState(bad) = %v, state %+v", err, f.State)
	}
	w := modelTestWindow(t)
	recs, err := f.CompactNow(t.Context(), w, "keep the parser")
	if err != nil || len(recs) == 0 || recs[0].Level != compact.LevelSummary {
		t.Fatalf("CompactNow = %+v, %v", recs, err)
	}
	if f.Calls() != 5 || f.State.Summaries != 2 || f.Force || f.Instructions != "" {
		t.Errorf("after CompactNow: calls %d, state %+v, force %v, instructions %q", f.Calls(), f.State, f.Force, f.Instructions)
	}
}

// A manual compaction of a short history, which the recent share would
// keep whole, still summarizes all of it but its last unit; an automatic
// one does nothing there.
func TestCompactNowShortHistory(t *testing.T) {
	t.Parallel()
	build := func() *window.Window {
		w, err := window.New(window.Options{Budget: 100_000, Counter: quarterCounter{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []chat.Message{
			chat.NewText(chat.RoleSystem, "you are a coding agent"),
			chat.NewText(chat.RoleUser, "fix the parser"),
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"file_path":"p.go"}`)}}},
			chat.NewToolResult("c1", "Read", "package p\n"+strings.Repeat("// a long comment line\n", 200), false),
			chat.NewText(chat.RoleAssistant, "Fixed."),
			chat.NewText(chat.RoleUser, "thanks"),
		} {
			if err := w.Add(m); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	w := build()
	if recs, err := (&compact.Summarize{}).Compact(t.Context(), w); err != nil || len(recs) != 0 {
		t.Fatalf("automatic Compact of a short history = %+v, %v", recs, err)
	}
	recs, err := (&compact.Summarize{}).CompactNow(t.Context(), w, "")
	if err != nil || len(recs) != 1 || recs[0].Level != compact.LevelSummary {
		t.Fatalf("CompactNow = %+v, %v", recs, err)
	}
	last := w.At(w.Len() - 1)
	if last.Text() != "thanks" || w.Note() < 0 || w.Len() > 4 {
		t.Fatalf("after CompactNow: %d messages, note %d, last %q", w.Len(), w.Note(), last.Text())
	}
}
