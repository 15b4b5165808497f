package agentconf

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequest sends any body to every model route: the server answers
// with a status (never a panic), 200 or a wire error, and records it.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		`{"model":"m","stream":true,` + anthropicTools + `,"messages":[{"role":"user","content":"fix"}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"x"}]},{"role":"user","content":[{"type":"tool_result"}]}]}`,
		`{"input":[{"type":"additional_tools","tools":[{"type":"namespace","tools":[{"type":"custom","name":"exec"}]}]},{"type":"function_call_output","call_id":"c"}]}`,
		`{"input":"hi","tools":[{"type":"function","name":"exec_command"}],"reasoning":{}}`,
		`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{}},"thoughtSignature":"ac1.x.y"}]}]}`,
		`{"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"a":{"type":"array"}}}},"contents":[{"role":"user","parts":[{"text":"x"}]}]}`,
		`[]`, `null`, `{"messages":"x"}`,
	} {
		f.Add(seed)
	}
	task := &Task{Dir: "/nonexistent/agentconf"}
	s := &Server{opts: Options{Task: task, MaxRequests: 1 << 30}, key: []byte("fuzz")}
	s.opts.Logger = nil
	f.Fuzz(func(t *testing.T, body string) {
		s.mu.Lock()
		s.recs = nil // keep memory flat over a long fuzzing run
		s.mu.Unlock()
		for _, path := range []string{"/v1/messages", "/v1/messages/count_tokens", "/v1/responses", "/v1beta/models/g:streamGenerateContent", "/v1beta/models/g:generateContent"} {
			w := httptest.NewRecorder()
			s.serve(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
			if w.Code != 200 && w.Code != 400 {
				t.Errorf("%s: status %d for %q", path, w.Code, body)
			}
		}
	})
}
