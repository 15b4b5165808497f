package compact_test

import (
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
)

// realTrajectories reads every trajectory of the shared data folder.
func realTrajectories(t testing.TB) []*transcript.Trajectory {
	t.Helper()
	files, err := transcript.Collect([]string{sharedtest.Dir(t)})
	if err != nil {
		t.Fatal(err)
	}
	var out []*transcript.Trajectory
	for _, f := range files {
		trs, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, trs...)
	}
	return out
}

// TestExtractiveRealRetention summarizes the first 80 % of every real
// trajectory at 3,000 tokens and measures what the summary plus the last
// 20 % keeps of the first 80 %'s facts.
func TestExtractiveRealRetention(t *testing.T) {
	t.Parallel()
	trs := realTrajectories(t)
	counter, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var total compact.Retention
	for _, tr := range trs {
		name := filepath.Base(tr.File)
		if tr.Index > 0 {
			name += "#" + string(rune('0'+tr.Index%10))
		}
		all := compact.ExtractFacts(tr.Messages)
		if len(all.UserMessages) == 0 {
			t.Errorf("%s: no user messages extracted from %d messages", name, len(tr.Messages))
			continue
		}
		cut := len(tr.Messages) * 8 / 10
		head, rest := tr.Messages[:cut], tr.Messages[cut:]
		res, err := compact.Extractive{Counter: counter}.Summarize(t.Context(), compact.SummaryRequest{Messages: head, Kept: rest, MaxTokens: 3000})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := counter.Count(res.Text); n > 3000 {
			t.Errorf("%s: summary has %d tokens, budget 3000", name, n)
		}
		after := append([]chat.Message{chat.NewText(chat.RoleUser, res.Text)}, rest...)
		facts := compact.ExtractFacts(head)
		r := compact.MeasureRetention(facts, after)
		total.Add(r)
		t.Logf("%-70s user %d/%d modified %d/%d read %d/%d errors %d/%d tests %d/%d commands %d/%d overall %.3f",
			name,
			r.Counts["user_messages"][0], r.Counts["user_messages"][1],
			r.Counts["files_modified"][0], r.Counts["files_modified"][1],
			r.Counts["files_read"][0], r.Counts["files_read"][1],
			r.Counts["errors"][0], r.Counts["errors"][1],
			r.Counts["failing_tests"][0], r.Counts["failing_tests"][1],
			r.Counts["failed_commands"][0], r.Counts["failed_commands"][1], r.Overall)
		if r.UserMessages < 0.95 || r.FilesModified < 0.95 || r.Overall < 0.90 {
			t.Errorf("%s: retention user %.3f modified %.3f overall %.3f; missing %q", name, r.UserMessages, r.FilesModified, r.Overall, r.Missing)
		}
	}
	t.Logf("all: user %.3f modified %.3f read %.3f errors %.3f tests %.3f commands %.3f overall %.3f (%d/%d)",
		total.UserMessages, total.FilesModified, total.FilesRead, total.Errors, total.FailingTests, total.FailedCommands, total.Overall, total.Kept, total.Total)
}
