package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkRoutes measures the main routes in process (the handler, no
// network), on sessions of the JSONL store: requests/s and p50/p99
// latency per route. One iteration is one agent step: add a tool result,
// get the next request, add the reply. Run with
//
//	go test ./server -run '^$' -bench Routes -benchtime 2000x
func BenchmarkRoutes(b *testing.B) {
	s, err := New(Options{Store: newStore(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	// An agent's request: a loopback Host and a JSON body.
	newReq := func(method, path, body string) *http.Request {
		req := httptest.NewRequestWithContext(b.Context(), method, "http://127.0.0.1:8080"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	do := func(method, path, body string) (int, time.Duration) {
		req := newReq(method, path, body)
		rec := httptest.NewRecorder()
		start := time.Now()
		s.ServeHTTP(rec, req)
		return rec.Code, time.Since(start)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, newReq("POST", "/v1/sessions", `{"tools":[{"name":"read_file"}]}`))
	if rec.Code != http.StatusCreated {
		b.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	id := strings.Split(strings.Split(rec.Body.String(), `"id":"`)[1], `"`)[0]
	base := "/v1/sessions/" + id
	if code, _ := do("POST", base+"/messages", `{"messages":[{"role":"user","content":"read the files one by one"}]}`); code != 200 {
		b.Fatal(code)
	}
	routes := []string{"messages", "request", "reply"}
	lat := map[string][]time.Duration{}
	output := strings.Repeat("a line of a tool's output\n", 40)
	b.ResetTimer()
	for i := range b.N {
		call := fmt.Sprintf("call_%d", i)
		reply := `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"` + call + `","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f` + fmt.Sprint(i) + `.go\"}"}}]}}],"usage":{"prompt_tokens":` + fmt.Sprint(1000+i*300) + `,"completion_tokens":20}}`
		steps := []struct{ route, body string }{
			{"request", `{"format":"openai"}`},
			{"reply", reply},
			{"messages", `{"messages":[{"role":"tool","tool_call_id":"` + call + `","content":` + fmt.Sprintf("%q", output) + `}]}`},
		}
		for _, st := range steps {
			code, d := do("POST", base+"/"+st.route, st.body)
			if code != 200 {
				b.Fatalf("%s: %d", st.route, code)
			}
			lat[st.route] = append(lat[st.route], d)
		}
	}
	b.StopTimer()
	for _, r := range routes {
		ds := lat[r]
		slices.Sort(ds)
		var total time.Duration
		for _, d := range ds {
			total += d
		}
		b.ReportMetric(float64(len(ds))/total.Seconds(), r+"-req/s")
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), r+"-p50-µs")
		b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), r+"-p99-µs")
	}
}
