package cli

import (
	"strings"
	"testing"

	"github.com/agentctx/agentctx/model"
)

func TestModels(t *testing.T) {
	t.Parallel()
	out := mustRun(t, ExitOK, "models")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if got, want := len(lines), len(model.Catalog())+1; got != want {
		t.Fatalf("%d lines, want a header and %d rows:\n%s", got, want-1, out)
	}
	var opus string
	for _, l := range lines {
		if strings.HasPrefix(l, "claude-opus-5-5 ") {
			opus = strings.Join(strings.Fields(l), " ")
		}
	}
	// Claude Code 2.1.328's default: 1M window, $4 / $20, cache read
	// $0.20, writes $5 (5 minutes) and $8 (1 hour).
	if want := "claude-opus-5-5 1,000,000 128,000 o200k_base (est.) $4 $20 $0.2 $5 $8 - 2026-11-27"; opus != want {
		t.Errorf("claude-opus-5-5 row:\n got %s\nwant %s", opus, want)
	}

	rows := jsonLines[map[string]any](t, mustRun(t, ExitOK, "models", "--json", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "my-local-model"))
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	s := rows[0]
	if s["name"] != "claude-sonnet-4-5" || s["input"] != 3.0 || s["cache_write_1h"] != 6.0 || s["source"] == "" || s["as_of"] == "" {
		t.Errorf("sonnet 4.5 row: %v", s)
	}
	if lc, _ := s["long_context"].(map[string]any); lc["above"] != 200000.0 || lc["output"] != 22.5 {
		t.Errorf("sonnet 4.5 long-context tier: %v", s["long_context"])
	}
	// A name no row matches: the fallback window, and every price null
	// (unknown), not 0.
	u := rows[1]
	if u["fallback"] != true || u["context_window"] != float64(model.FallbackContextWindow) {
		t.Errorf("unknown model row: %v", u)
	}
	for _, k := range []string{"input", "output", "cache_read", "cache_write_5m", "cache_write_1h"} {
		if v, ok := u[k]; !ok || v != nil {
			t.Errorf("unknown model's %s = %v (present %v), want null", k, v, ok)
		}
	}

	if code, _, errOut := run(t, "models", ""); code != ExitUsage || !strings.Contains(errOut, "empty model name") {
		t.Errorf("models \"\": exit %d, %q; want a usage error", code, errOut)
	}
}
