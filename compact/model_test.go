package compact_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/provider"
)

// fakeProviderModel answers with reply (or err), or blocks until ctx is done when
// block is set, and remembers the requests.
type fakeProviderModel struct {
	reply provider.Response
	err   error
	block bool
	mu    sync.Mutex
	reqs  []provider.Request
}

func (f *fakeProviderModel) Name() string { return "fake/model-1" }

func (f *fakeProviderModel) Send(ctx context.Context, req provider.Request) (*provider.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.err != nil {
		return nil, f.err
	}
	r := f.reply
	return &r, nil
}

func TestSummarizer(t *testing.T) {
	t.Parallel()
	req := compact.SummaryRequest{
		Messages:     []chat.Message{chat.NewText(chat.RoleUser, "fix the parser")},
		Instructions: "focus on the parser",
		MaxTokens:    1000,
	}
	usage := chat.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 5}
	tests := []struct {
		name      string
		model     *fakeProviderModel
		s         compact.ModelSummarizer
		want      compact.SummaryResult
		wantErr   error
		maxTokens int
	}{
		{"ok", &fakeProviderModel{reply: provider.Response{Message: chat.NewText(chat.RoleAssistant, "  ## Summary\nparser  "), Usage: usage}},
			compact.ModelSummarizer{}, compact.SummaryResult{Text: "## Summary\nparser", Usage: &usage}, nil, 1000 + 250 + 256},
		{"own max tokens", &fakeProviderModel{reply: provider.Response{Message: chat.NewText(chat.RoleAssistant, "s")}},
			compact.ModelSummarizer{MaxTokens: 77}, compact.SummaryResult{Text: "s"}, nil, 77},
		{"empty reply", &fakeProviderModel{reply: provider.Response{Message: chat.NewText(chat.RoleAssistant, " "), StopReason: "max_tokens", Usage: usage}},
			compact.ModelSummarizer{}, compact.SummaryResult{Usage: &usage}, compact.ErrEmptySummary, 1506},
		{"provider error", &fakeProviderModel{err: provider.ErrRateLimited},
			compact.ModelSummarizer{}, compact.SummaryResult{}, provider.ErrRateLimited, 1506},
		{"timeout", &fakeProviderModel{block: true},
			compact.ModelSummarizer{Timeout: 20 * time.Millisecond}, compact.SummaryResult{}, context.DeadlineExceeded, 1506},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := tc.s
			s.Model = tc.model
			if got := s.Name(); got != "llm:fake/model-1" {
				t.Fatalf("Name = %q", got)
			}
			got, err := s.Summarize(t.Context(), req)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("result (-want +got):\n%s", diff)
			}
			if len(tc.model.reqs) != 1 {
				t.Fatalf("%d calls", len(tc.model.reqs))
			}
			sent := tc.model.reqs[0]
			if sent.MaxTokens != tc.maxTokens {
				t.Errorf("MaxTokens = %d, want %d", sent.MaxTokens, tc.maxTokens)
			}
			if diff := cmp.Diff(compact.SummaryPrompt(req), sent.Messages); diff != "" {
				t.Errorf("messages are not SummaryPrompt's (-want +got):\n%s", diff)
			}
			if !strings.Contains(sent.Messages[1].Text(), "focus on the parser") {
				t.Errorf("instructions not sent")
			}
		})
	}
}

// The LLM summarizer drives a summarizing compaction; a failing model makes
// it fall back to the extractive summarizer.
func TestSummarizerInCompaction(t *testing.T) {
	t.Parallel()
	for _, fail := range []bool{false, true} {
		m := &fakeProviderModel{reply: provider.Response{Message: chat.NewText(chat.RoleAssistant, "the user wants the parser fixed")}}
		if fail {
			m.err = provider.ErrUnavailable
		}
		w := modelTestWindow(t)
		recs, err := (&compact.Summarize{Summarizer: &compact.ModelSummarizer{Model: m}, Force: true}).Compact(t.Context(), w)
		if err != nil {
			t.Fatal(err)
		}
		want := "llm:fake/model-1"
		if fail {
			want = "extractive" // the fallback writes the summary
		}
		if len(recs) == 0 || recs[0].Fallback != fail || recs[0].Summarizer != want {
			t.Fatalf("fail=%v: records %+v", fail, recs)
		}
		if vs := w.Check(); len(vs) > 0 {
			t.Fatal(vs)
		}
	}
}
