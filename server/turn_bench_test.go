package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/session/sqlitestore"
)

// BenchmarkTurnSQLite measures the service's turn (the tool result's
// messages, the next request, the model's reply: one model call) on an
// SQLite store with 200 sessions served in turn, each growing by one
// round a turn (so a session is at round N/200 after N turns), as the
// load test's paced sessions are; it reports turns/s and the turn's
// p50 and p99 in µs, one request at a time (no queueing: what the
// server itself spends).
func BenchmarkTurnSQLite(b *testing.B) {
	st, err := sqlitestore.Open(sqlitestore.Options{Path: filepath.Join(b.TempDir(), "sessions.db"), Version: "agentctx-test"})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s, err := New(Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	do := func(method, path, body string) (int, string) {
		req := httptest.NewRequestWithContext(b.Context(), method, "http://127.0.0.1:8080"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	const sessions = 200
	bases := make([]string, sessions)
	for k := range bases {
		code, body := do("POST", "/v1/sessions", `{"tools":[{"name":"read_file"}],"budget":16000}`)
		if code != http.StatusCreated {
			b.Fatalf("create: %d %s", code, body)
		}
		id := strings.Split(strings.Split(body, `"id":"`)[1], `"`)[0]
		bases[k] = "/v1/sessions/" + id
		if code, body := do("POST", bases[k]+"/messages", `{"messages":[{"role":"user","content":"read the files one by one"}]}`); code != 200 {
			b.Fatalf("first message: %d %s", code, body)
		}
	}
	output := fmt.Sprintf("%q", strings.Repeat("a line of a tool's output, with main.go:12 in it\n", 40))
	var turns []time.Duration
	b.ResetTimer()
	for i := range b.N {
		base := bases[i%sessions]
		call := fmt.Sprintf("call_%d", i)
		start := time.Now()
		if code, body := do("POST", base+"/request", `{"format":"openai"}`); code != 200 {
			b.Fatalf("request: %d %s", code, body)
		}
		reply := `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"` + call + `","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f` + fmt.Sprint(i) + `.go\"}"}}]}}],"usage":{"prompt_tokens":1000,"completion_tokens":20}}`
		if code, body := do("POST", base+"/reply", reply); code != 200 {
			b.Fatalf("reply: %d %s", code, body)
		}
		if code, body := do("POST", base+"/messages", `{"messages":[{"role":"tool","tool_call_id":"`+call+`","content":`+output+`}]}`); code != 200 {
			b.Fatalf("messages: %d %s", code, body)
		}
		turns = append(turns, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(turns)
	var total time.Duration
	for _, d := range turns {
		total += d
	}
	b.ReportMetric(float64(len(turns))/total.Seconds(), "turns/s")
	b.ReportMetric(float64(turns[len(turns)/2].Microseconds()), "turn-p50-µs")
	b.ReportMetric(float64(turns[len(turns)*99/100].Microseconds()), "turn-p99-µs")
}
