package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

// nullUpstream answers every model request at once with a short streamed
// Anthropic answer, so that a benchmark measures the proxy's own work.
type nullUpstream struct{}

const nullAnswer = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-opus-5-5\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

func (nullUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(nullAnswer)), Request: r}, nil
}

// agentRequests returns the successive requests of a Claude Code-shaped
// session (claudeCodeBody) whose last request is about size bytes: each
// request adds one round to the one before, as an agent's do.
func agentRequests(b *testing.B, size int) [][]byte {
	b.Helper()
	const roundBytes = 3000
	n := max(size/roundBytes-2, 2)
	t := &testing.T{}
	img := noisePNG(t, 32, 32)
	out := make([][]byte, 0, n)
	for i := 2; i <= n; i++ {
		out = append(out, claudeCodeBody(t, img, i, roundBytes-200))
	}
	return out
}

// BenchmarkProxyLatency measures the time the proxy adds to one model
// request of an agent whose request body is about 90 KB or 380 KB, at a
// budget the body exceeds (every request managed) and at one it fits
// (forwarded as it is): the upstream answers at once, in process. It
// reports the p50 and p99 of the requests' times, in ms.
func BenchmarkProxyLatency(b *testing.B) {
	for _, size := range []int{90 << 10, 380 << 10} {
		reqs := agentRequests(b, size)
		for _, budget := range []int{20000, 400000} {
			name := fmt.Sprintf("%dKB/budget=%d", len(reqs[len(reqs)-1])>>10, budget)
			b.Run(name, func(b *testing.B) {
				u, _ := url.Parse("http://upstream.invalid")
				var times []time.Duration
				// One agent session replayed from the start, the last
				// requests timed: the proxy has seen the history before,
				// as it has in a live session.
				b.StopTimer()
				b.ResetTimer()
				for range b.N {
					p, err := New(Options{Upstream: u, Budget: budget, Client: &http.Client{Transport: nullUpstream{}}})
					if err != nil {
						b.Fatal(err)
					}
					for i, body := range reqs {
						timed := i >= len(reqs)-4
						r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8787/v1/messages", bytes.NewReader(body))
						r.Header.Set("Content-Type", "application/json")
						r.Header.Set("X-Claude-Code-Session-Id", "bench")
						w := httptest.NewRecorder()
						if timed {
							b.StartTimer()
						}
						start := time.Now()
						p.ServeHTTP(w, r)
						if timed {
							times = append(times, time.Since(start))
							b.StopTimer()
						}
						if w.Code != 200 {
							b.Fatalf("status %d: %s", w.Code, w.Body)
						}
					}
					_ = p.Close()
				}
				slices.Sort(times)
				if len(times) > 0 {
					b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
				}
			})
		}
	}
}

// BenchmarkReadCold reads a request of about 380 KB as the proxy reads a
// request it has not seen any part of (a session it picks up mid-way,
// after a restart): the body parsed and every message decoded, nothing
// cached. One request per wire an agent speaks by default: Claude Code's
// (Anthropic Messages), Codex CLI's (the Responses API) and an OpenAI
// Chat Completions agent's (opencode, the Agents SDK's chat model).
func BenchmarkReadCold(b *testing.B) {
	t := &testing.T{}
	const size = 380 << 10
	reqs := agentRequests(b, size)
	bodies := []struct {
		wire Wire
		raw  []byte
	}{
		{WireAnthropic, reqs[len(reqs)-1]},
		{WireResponses, responsesBody(t, size/3000, 2800, true)},
		{WireOpenAI, openAIBody(size/3000, 2800)},
	}
	for _, c := range bodies {
		b.Run(string(c.wire), func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			b.ReportAllocs()
			for b.Loop() {
				body, err := parseBody(c.raw, c.wire)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := body.read(nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// openAIBody returns a Chat Completions request of an agent with n rounds
// of codingSession (a tool call and its result of about size bytes each).
func openAIBody(n, size int) []byte {
	tools := []chat.ToolDef{{Name: "read_file", Description: "Reads a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	return agentBody(&testing.T{}, providertest.WireOpenAI, "You are opencode, a coding agent.", tools, codingSession(n, size), true)
}
