package server

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/report"
)

// TestReport serves a session's report page: HTML with its data inline,
// one call per model call of the session, confined by its
// Content-Security-Policy.
func TestReport(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, true)
	id := ts.createSession(t, tokenA, map[string]any{"model": "gpt-4o", "system_prompt": "You are terse.", "tools": []any{readFileTool}})
	base := "/v1/sessions/" + id

	// Before any model call the page says so.
	page := ts.call(t, "GET", base+"/report", tokenA, nil).must(t, 200)
	if rep := reportData(t, page.Body); len(rep.Calls) != 0 {
		t.Errorf("%d calls before any reply", len(rep.Calls))
	}

	ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"What is in main.go?"}]}`).must(t, 200)
	ts.call(t, "POST", base+"/reply", tokenA, replyToolCall).must(t, 200)
	ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"tool","tool_call_id":"call_1","content":"package main\n\nfunc main() {}\n"}]}`).must(t, 200)
	ts.call(t, "POST", base+"/reply", tokenA, replyText).must(t, 200)

	page = ts.call(t, "GET", base+"/report", tokenA, nil).must(t, 200)
	if ct := page.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	rep := reportData(t, page.Body)
	if len(rep.Calls) != 2 || rep.Model != "gpt-4o" || rep.Source != id || rep.Calls[1].Provider != 160 {
		t.Errorf("report: model %q, source %q, calls %+v", rep.Model, rep.Source, rep.Calls)
	}
	if sys := rep.Calls[0].Window[0]; sys <= 0 {
		t.Errorf("the recorded system prompt is not in the first call: %v", rep.Calls[0].Window)
	}
}

var reportRE = regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`)

// reportData returns the report a page embeds.
func reportData(t *testing.T, page []byte) report.Report {
	t.Helper()
	m := reportRE.FindSubmatch(page)
	if m == nil {
		t.Fatalf("no report data in %.300s", page)
	}
	var rep report.Report
	if err := json.Unmarshal(m[1], &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}
