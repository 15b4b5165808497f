package secret

import (
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
)

// TestFindRealTrajectories runs the detector over every tool
// result and message of the public trajectories in ../shared/data. They
// hold no credentials (their authors redacted them), so every finding is
// a false positive; the test lists them.
func TestFindRealTrajectories(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	var texts, total int
	for _, path := range files {
		trajs, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		for _, tr := range trajs {
			for i, m := range tr.Messages {
				for _, p := range m.Parts {
					var text string
					switch p := p.(type) {
					case chat.Text:
						text = p.Text
					case chat.ToolResult:
						text = p.Content
					case chat.ToolCall:
						text = string(p.Arguments)
					default:
						continue
					}
					texts++
					total += len(text)
					for _, s := range Find(text) {
						ctx := text[max(0, s.Offset-40):min(len(text), s.Offset+s.Length+20)]
						t.Errorf("%s message %d: false positive %s: %q", filepath.Base(path), i, s.Kind, ctx)
					}
				}
			}
		}
	}
	if texts == 0 {
		t.Fatal("no texts read from the shared data")
	}
	t.Logf("scanned %d texts, %d bytes", texts, total)
}
