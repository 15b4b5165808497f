package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

// ProxyModel is the model of the proxied sessions' requests: the proxy
// counts its tokens with o200k_base, as the scripted upstream does, so
// that the budget compares.
const ProxyModel = "gpt-4o"

// proxyRoute names the proxied model requests in the report.
const proxyRoute = "proxy POST /v1/chat/completions"

// proxied is one session driven through the proxies: the agent's history
// as it grew, the id the agent names it by (the X-Agentctx-Session
// header) and its requests answered.
type proxied struct {
	key      string
	script   *Script
	history  []chat.Message
	requests int
	err      error
}

// driveProxied sends each script's model requests through base (the
// proxies' balancer) as an agent does: its whole history each time, in
// the OpenAI chat-completions wire, the recorded replies and tool results
// added between requests (the upstream's answer is not used). A request
// that fails (a proxy killed: 502 from the balancer, a cut connection)
// is sent again, to any proxy, for at most retryFor. It stops at stop.
func driveProxied(ctx context.Context, base string, scripts []Script, seed uint64, stop time.Time, retryFor time.Duration, stats *Stats, onStep func()) []*proxied {
	tr := &http.Transport{MaxIdleConnsPerHost: len(scripts) + 1, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	out := make([]*proxied, len(scripts))
	var wg sync.WaitGroup
	for i := range scripts {
		p := &proxied{key: "fleet-proxy-" + session.NewID(), script: &scripts[i]}
		out[i] = p
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(1000000+i)))
			p.err = p.run(ctx, hc, base, rng, stop, retryFor, stats, onStep)
		})
	}
	wg.Wait()
	return out
}

func (p *proxied) run(ctx context.Context, hc *http.Client, base string, rng *rand.Rand, stop time.Time, retryFor time.Duration, stats *Stats, onStep func()) error {
	for i, op := range p.script.Ops {
		switch op.Kind {
		case OpMessages, OpReply:
			p.history = append(p.history, op.Messages...)
			continue
		case OpRequest:
		default:
			continue
		}
		if time.Now().After(stop) {
			return nil
		}
		body, err := openAIBody(p.history)
		if err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
		if err := p.send(ctx, hc, base, body, rng, retryFor, stats); err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
		p.requests++
		onStep()
	}
	return nil
}

// send posts body until a proxy answers it 200.
func (p *proxied) send(ctx context.Context, hc *http.Client, base string, body []byte, rng *rand.Rand, retryFor time.Duration, stats *Stats) error {
	deadline := time.Now().Add(retryFor)
	for n := 0; ; n++ {
		if n > 0 {
			stats.retry(proxyRoute)
			if err := sleep(ctx, backoff(rng, n)); err != nil {
				return err
			}
		}
		req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/chat/completions", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sk-loadgen-not-a-key")
		req.Header.Set("X-Agentctx-Session", p.key)
		start := time.Now()
		resp, err := hc.Do(req)
		var answer []byte
		if err == nil {
			answer, err = io.ReadAll(resp.Body)
			_ = resp.Body.Close()
		}
		switch {
		case err != nil:
			stats.failed(proxyRoute, "conn")
		case resp.StatusCode == http.StatusOK:
			stats.ok(proxyRoute, time.Since(start))
			return nil
		case resp.StatusCode >= 500:
			stats.failed(proxyRoute, fmt.Sprint(resp.StatusCode))
			err = fmt.Errorf("%d %.200s", resp.StatusCode, answer)
		default:
			stats.failed(proxyRoute, fmt.Sprint(resp.StatusCode))
			return fmt.Errorf("proxy answered %d: %.300s", resp.StatusCode, answer)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: proxied request after %v: %w", ErrGaveUp, retryFor, err)
		}
	}
}

// openAIBody is a chat-completions request of msgs, as an agent sends
// it.
func openAIBody(msgs []chat.Message) ([]byte, error) {
	wire, err := chat.ToOpenAI(msgs)
	if err != nil {
		return nil, err
	}
	elems := make([]json.RawMessage, len(wire))
	for i, m := range wire {
		if elems[i], err = json.Marshal(m.ForRequest()); err != nil {
			return nil, err
		}
	}
	return json.Marshal(map[string]any{"model": ProxyModel, "messages": elems, "max_completion_tokens": 1024})
}

// msgKey is what a message says to the model, for comparing the agent's
// history with a stored session: role, text, tool calls, tool result. A
// tool result counts by its call id and first 64 bytes: the Engine's
// limiter stores a long output cut (its head kept, the whole in the
// session's outputs for recall), and the chat-completions wire has no
// error flag for a tool result.
func msgKey(m chat.Message) string {
	var b strings.Builder
	if r, ok := m.ToolResult(); ok && m.Role == chat.RoleTool {
		head := r.Content
		if len(head) > 64 {
			head = head[:64]
		}
		fmt.Fprintf(&b, "%s|result %s %q", m.Role, r.ToolCallID, head)
		return b.String()
	}
	fmt.Fprintf(&b, "%s|%q", m.Role, m.Text())
	for _, c := range m.ToolCalls() {
		fmt.Fprintf(&b, "|call %s %s %s", c.ID, c.Name, c.Arguments)
	}
	return b.String()
}

// verifyProxied checks a proxied session in the store: its last
// generation (key, key-2, …) holds the messages of the agent's last
// request, each once, in order (the compactions' snapshots and summaries
// left aside). Sessions that made no request are skipped.
func verifyProxied(ctx context.Context, st session.Store, p *proxied) error {
	if p.requests == 0 {
		return nil
	}
	id := ""
	for g := 1; ; g++ {
		cand := p.key
		if g > 1 {
			cand = fmt.Sprintf("%s-%d", p.key, g)
		}
		if _, err := st.Get(ctx, cand); errors.Is(err, session.ErrNotFound) {
			break
		} else if err != nil {
			return err
		}
		id = cand
	}
	if id == "" {
		return fmt.Errorf("proxied session %s (%s): not in the store", p.key, p.script.File)
	}
	tr, err := st.Load(ctx, id, session.LoadOptions{All: true})
	if err != nil {
		return err
	}
	// The messages the proxy added, in order: a compaction's snapshot
	// (the window as it left it, written right after its boundary: the
	// message entries its metadata announces) repeats messages already
	// there, and its summary is the proxy's own.
	var got []string
	snapshot := 0
	for _, e := range tr.Entries {
		if e.IsBoundary() {
			snapshot = 0
			if m := e.CompactMetadata; m != nil {
				snapshot = max(m.Messages, 0)
			}
			continue
		}
		msgs, err := e.Messages()
		if err != nil {
			return fmt.Errorf("proxied session %s: %w", id, err)
		}
		if len(msgs) == 0 {
			continue
		}
		if snapshot > 0 {
			snapshot--
			continue
		}
		if e.IsCompactSummary {
			continue
		}
		for _, m := range msgs {
			got = append(got, msgKey(m))
		}
	}
	// The agent's history at its last request: what the Engine was given.
	var want []string
	for _, m := range p.history {
		want = append(want, msgKey(m))
	}
	want = want[:lastRequestLen(p)]
	if len(got) != len(want) {
		return fmt.Errorf("proxied session %s (%s): the store holds %d messages, the agent sent %d", id, p.script.File, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("proxied session %s (%s): message %d differs:\n store %.200s\n agent %.200s", id, p.script.File, i, got[i], want[i])
		}
	}
	return nil
}

// lastRequestLen is the length of the history the agent sent last.
func lastRequestLen(p *proxied) int {
	n, reqs, last := 0, 0, 0
	for _, op := range p.script.Ops {
		switch op.Kind {
		case OpMessages, OpReply:
			n += len(op.Messages)
		case OpRequest:
			reqs++
			if reqs == p.requests {
				last = n
			}
		}
	}
	return last
}

// budgetCheck counts the upstream's requests above a budget: the
// scripted upstream's script calls its observe for each request.
type budgetCheck struct {
	budget   int
	requests atomic.Int64
	over     atomic.Int64
	max      atomic.Int64
}

// observe records one upstream request's prompt size in tokens.
func (b *budgetCheck) observe(tokens int) {
	b.requests.Add(1)
	for {
		m := b.max.Load()
		if int64(tokens) <= m || b.max.CompareAndSwap(m, int64(tokens)) {
			break
		}
	}
	// 2 % over the budget: the proxy's count and the upstream's differ
	// by the wire's framing.
	if tokens > b.budget+b.budget/50 {
		b.over.Add(1)
	}
}
