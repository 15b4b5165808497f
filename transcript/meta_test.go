package transcript_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

type runMeta struct {
	CWD, GitBranch string
	Started        time.Time
	Times          []time.Time
}

func metaOf(tr *transcript.Trajectory) runMeta {
	return runMeta{CWD: tr.CWD, GitBranch: tr.GitBranch, Started: tr.Started, Times: tr.Times}
}

func TestRunMeta(t *testing.T) {
	t.Parallel()
	t1, t2, t3 := "2026-02-10T21:11:56.846Z", "2026-02-10T21:12:00Z", "2026-02-10T23:12:01.5+02:00"
	tests := []struct {
		name   string
		format transcript.Format
		input  string
		want   runMeta
	}{
		{
			name:   "claude code: first cwd and branch, per-message times, merged response keeps its first line's",
			format: transcript.FormatClaudeCode,
			input: lines(
				`{"type":"file-history-snapshot","messageId":"x","snapshot":{}}`,
				`{"type":"user","cwd":"/home/u/p","gitBranch":"main","sessionId":"s","uuid":"u1","timestamp":"`+t1+`","message":{"role":"user","content":"hi"}}`,
				`{"type":"assistant","cwd":"/elsewhere","gitBranch":"dev","uuid":"a1","timestamp":"`+t2+`","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
				`{"type":"assistant","uuid":"a2","timestamp":"`+t3+`","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{}}]}}`,
				`{"type":"user","uuid":"u2","timestamp":"`+t3+`","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"x"}]}}`,
				`{"type":"user","uuid":"u3","timestamp":42,"message":{"role":"user","content":"no time"}}`,
			),
			want: runMeta{CWD: "/home/u/p", GitBranch: "main", Started: ts(t1), Times: []time.Time{ts(t1), ts(t2), ts(t3), {}}},
		},
		{
			name:   "claude code without timestamps",
			format: transcript.FormatClaudeCode,
			input:  lines(`{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}`),
			want:   runMeta{},
		},
		{
			name:   "codex: session_meta gives cwd, branch and start; each item its line's time",
			format: transcript.FormatCodex,
			input: lines(
				`{"timestamp":"`+t2+`","type":"session_meta","payload":{"id":"s","timestamp":"`+t1+`","cwd":"/w","git":{"branch":"feat"}}}`,
				`{"timestamp":"`+t2+`","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}`,
				`not json`,
				`{"timestamp":"bad","type":"response_item","payload":{"type":"function_call","name":"sh","arguments":"{}","call_id":"c"}}`,
				`{"timestamp":"`+t3+`","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"o"}}`,
			),
			want: runMeta{CWD: "/w", GitBranch: "feat", Started: ts(t1), Times: []time.Time{ts(t2), {}, ts(t3)}},
		},
		{
			name:   "codex without session_meta: the first line's time",
			format: transcript.FormatCodex,
			input: lines(
				`{"timestamp":"` + t2 + `","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}`,
			),
			want: runMeta{Started: ts(t2), Times: []time.Time{ts(t2)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			trs, err := transcript.Read(strings.NewReader(tt.input), "test", transcript.Options{Format: tt.format})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, metaOf(trs[0])); d != "" {
				t.Errorf("meta (-want +got):\n%s", d)
			}
		})
	}
}

// TestRunMetaRealData checks the Claude Code and Codex files of the shared
// data: each records a working directory, a start, and a time for every
// message.
func TestRunMetaRealData(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	files, err := transcript.Collect([]string{filepath.Join(root, "claude-code"), filepath.Join(root, "codex")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			trs, err := transcript.ReadFile(f, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tr := trs[0]
			if tr.CWD == "" || !filepath.IsAbs(tr.CWD) {
				t.Errorf("CWD = %q, want an absolute path", tr.CWD)
			}
			if tr.Started.IsZero() || tr.Started.Year() < 2025 {
				t.Errorf("Started = %v", tr.Started)
			}
			if len(tr.Times) != len(tr.Messages) {
				t.Fatalf("%d times for %d messages", len(tr.Times), len(tr.Messages))
			}
			for i, at := range tr.Times {
				if at.IsZero() {
					t.Errorf("message %d has no time", i)
					break
				}
				if at.Before(tr.Started.Add(-time.Minute)) {
					t.Errorf("message %d at %v, before the start %v", i, at, tr.Started)
					break
				}
			}
		})
	}
}

// FuzzRunMeta reads arbitrary input as Claude Code and as Codex and checks
// the run metadata's promises: no panic, Times nil or one per message,
// times and the start in UTC.
func FuzzRunMeta(f *testing.F) {
	f.Add([]byte(lines(
		`{"type":"user","cwd":"/p","gitBranch":"b","timestamp":"2026-02-10T21:11:56.846Z","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","timestamp":"2026-02-10T21:11:57Z","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"ok"}]}}`,
	)))
	f.Add([]byte(lines(
		`{"timestamp":"2026-02-10T21:11:56Z","type":"session_meta","payload":{"id":"s","timestamp":"2026-02-10T21:11:55Z","cwd":"/w","git":{"branch":"x"}}}`,
		`{"timestamp":"2026-02-10T21:11:57+01:00","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}`,
		`{"timestamp":7,"type":"response_item","payload":{"type":"function_call","name":"sh","arguments":"{}","call_id":"c"}}`,
	)))
	addRealSeeds(f, "claude-code")
	addRealSeeds(f, "codex")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []transcript.Format{transcript.FormatClaudeCode, transcript.FormatCodex} {
			trs, err := transcript.Read(bytes.NewReader(data), "fuzz", transcript.Options{Format: format})
			if err != nil {
				continue
			}
			for _, tr := range trs {
				if tr.Times != nil && len(tr.Times) != len(tr.Messages) {
					t.Fatalf("%s: %d times for %d messages", format, len(tr.Times), len(tr.Messages))
				}
				for _, at := range append(tr.Times, tr.Started) {
					if !at.IsZero() && at.Location() != time.UTC {
						t.Fatalf("%s: time %v not in UTC", format, at)
					}
				}
			}
		}
	})
}
