package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session/storeurl"
)

// TestImplausibleUsageDropped: a transcript whose usage says 2^40 tokens
// (as once reached `sessions list`) is imported with the usage dropped
// and a note saying so, the stored session's prompt size is the last
// plausible one, and replay reports the dropped record.
func TestImplausibleUsageDropped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "bogus.jsonl")
	const id = "6b1f3c55-0000-4000-8000-000000000001"
	line := func(uuid, parent, typ, msg string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"` + typ + `","sessionId":"` + id + `","uuid":"` + uuid + `","parentUuid":` + p + `,"cwd":"/tmp/x","timestamp":"2026-02-10T21:11:56.846Z","message":` + msg + "}\n"
	}
	data := line("u1", "", "user", `{"role":"user","content":"hello"}`) +
		line("a1", "u1", "assistant", `{"id":"m1","model":"claude-x","role":"assistant","content":"hi","usage":{"input_tokens":7,"cache_read_input_tokens":1000,"output_tokens":2}}`) +
		line("u2", "a1", "user", `{"role":"user","content":"more"}`) +
		line("a2", "u2", "assistant", `{"id":"m2","model":"claude-x","role":"assistant","content":"ok","usage":{"input_tokens":1099511627776,"output_tokens":2}}`)
	if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	rs := jsonLines[importResult](t, mustRun(t, ExitOK, "sessions", "import", "--home", home, file, "--json"))
	if len(rs) != 1 || rs[0].Status != statusImported {
		t.Fatalf("import: %+v", rs)
	}
	if n := strings.Join(rs[0].Notes, "\n"); !strings.Contains(n, "dropped usage") || !strings.Contains(n, `"m2"`) || !strings.Contains(n, "1099511627776") {
		t.Errorf("import notes %q do not say that m2's usage was dropped", rs[0].Notes)
	}
	st, err := storeurl.Open("", storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Get(t.Context(), id)
	if cerr := st.Close(); cerr != nil {
		t.Error(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if s.PromptTokens != 1007 {
		t.Errorf("stored session's prompt tokens = %d, want 1007 (the last plausible usage)", s.PromptTokens)
	}
	res := jsonLines[replay.Result](t, mustRun(t, ExitOK, "replay", "--json", "--budget", "8000", file))
	if len(res) != 1 || len(res[0].DroppedUsage) != 1 || !strings.Contains(res[0].DroppedUsage[0], `"m2"`) || len(res[0].Problems) != 0 {
		t.Errorf("replay: dropped %q, problems %q; want m2's usage dropped and no malformed line", res[0].DroppedUsage, res[0].Problems)
	}
	if out := mustRun(t, ExitOK, "replay", "--budget", "8000", file); !strings.Contains(out, "dropped      1 implausible usage records") {
		t.Errorf("replay output does not report the dropped usage:\n%s", out)
	}
}
