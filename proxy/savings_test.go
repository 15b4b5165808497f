package proxy

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
)

// savingsBudget is the budget of the savings test, in tokens: a window
// most real sessions outgrow. AGENTCTX_PROXY_BUDGET sets another.
func savingsBudget() int {
	if n, err := strconv.Atoi(os.Getenv("AGENTCTX_PROXY_BUDGET")); err == nil && n > 0 {
		return n
	}
	return 16000
}

// savings is what the proxy did over one transcript replayed as an
// agent's successive requests.
type savings struct {
	name               string
	wire               providertest.Wire
	calls, managed     int
	without, with      int     // tokens sent upstream without and with the proxy
	prefixShare        float64 // with the proxy
	prefixWithout      float64 // the agent's own requests
	retention          float64
	facts, factsKept   int
	rejected           int
	compactions, fails int
}

// TestRealTranscriptsThroughProxy replays every transcript of
// ../shared/data through the proxy as the agent's successive requests
// (each request is the history up to that model call, as the agent sent
// it; OpenAI's wire for even files, Anthropic's for odd ones) against a
// loopback upstream that validates and records what it receives. No
// request may exceed the budget or be refused by the upstream's ordering
// rules. It logs, per transcript, the tokens sent with and without the
// proxy, the share of each request that repeats the previous request's
// prefix (what a prompt cache can reuse) and the retention of the key
// facts (compact.ExtractFacts of the whole history, found in the last
// request). AGENTCTX_PROXY_SAVINGS=FILE also writes the table to FILE.
func TestRealTranscriptsThroughProxy(t *testing.T) {
	dataDir := sharedtest.Dir(t)
	files := sharedtest.Files(t)
	counter, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var rows []savings
	for fi, f := range files {
		trs, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		wire := providertest.WireOpenAI
		if fi%2 == 1 {
			wire = providertest.WireAnthropic
		}
		for _, tr := range trs {
			name, _ := filepath.Rel(dataDir, f)
			if len(trs) > 1 {
				name = fmt.Sprintf("%s#%d", name, tr.Index)
			}
			rows = append(rows, replayThroughProxy(t, name, wire, tr, counter))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| transcript | wire | calls | managed | tokens without | tokens with | saved | prefix reuse without → with | facts kept |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	var tw, tg int
	for _, r := range rows {
		tw += r.without
		tg += r.with
		saved := 0.0
		if r.without > 0 {
			saved = 1 - float64(r.with)/float64(r.without)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %s | %s → %s | %d/%d |\n",
			shortName(r.name), r.wire, r.calls, r.managed, r.without, r.with, percent(saved), percent(r.prefixWithout), percent(r.prefixShare), r.factsKept, r.facts)
	}
	fmt.Fprintf(&b, "| all | | | | %d | %d | %s | | |\n", tw, tg, percent(1-float64(tg)/float64(max(tw, 1))))
	t.Logf("budget %d tokens\n%s", savingsBudget(), b.String())
	if out := os.Getenv("AGENTCTX_PROXY_SAVINGS"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shortName shortens a transcript's path for the table: each long path
// component (uuids, rollout stamps) keeps its first 8 and last 4 bytes.
func shortName(name string) string {
	parts := strings.Split(filepath.ToSlash(name), "/")
	for i, p := range parts {
		ext := ""
		if i == len(parts)-1 {
			if k := strings.Index(p, "."); k > 0 {
				p, ext = p[:k], p[k:]
			}
		}
		if len(p) > 16 {
			p = p[:8] + "…" + p[len(p)-4:]
		}
		parts[i] = p + ext
	}
	return strings.Join(parts, "/")
}

// percent formats a ratio as a whole percentage.
func percent(x float64) string { return fmt.Sprintf("%.0f %%", math.Abs(math.Round(100*x))*sign(x)) }

func sign(x float64) float64 {
	if math.Round(100*x) < 0 {
		return -1
	}
	return 1
}

// replayThroughProxy sends tr's model calls through a fresh proxy.
func replayThroughProxy(t *testing.T, name string, wire providertest.Wire, tr *transcript.Trajectory, counter token.Counter) savings {
	t.Helper()
	r := newRig(t, wire, providertest.Options{}, Options{Budget: savingsBudget()})
	system := "You are a coding agent."
	msgs := tr.Messages
	if len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
		system = msgs[0].Text()
		msgs = msgs[1:]
	}
	// The agent's history as it would send it: system messages inside the
	// conversation (an environment's notes) become user text.
	hist := make([]chat.Message, len(msgs))
	for i, m := range msgs {
		if m.Role == chat.RoleSystem {
			m = chat.NewText(chat.RoleUser, m.Text())
		}
		hist[i] = m
	}
	s := savings{name: name, wire: wire}
	var prevFps []fingerprint
	var prefixTokens, requestTokens int
	var agentPrefix, agentTotal, prevAgent int
	var last providertest.Request
	lastCall := 0
	var calls []int
	for i := 1; i < len(hist); i++ {
		if hist[i].Role == chat.RoleAssistant && hist[i-1].Role != chat.RoleAssistant {
			calls = append(calls, i)
		}
	}
	if raceEnabled && len(calls) > 30 {
		// Every k-th call: each request still extends the one before.
		k := (len(calls) + 29) / 30
		var thin []int
		for j := 0; j < len(calls); j += k {
			thin = append(thin, calls[j])
		}
		calls = thin
	}
	for _, i := range calls {
		body := agentBody(t, wire, system, tr.Tools, hist[:i], false)
		status, answer := r.post(t, wire, body, nil)
		if status != 200 {
			s.rejected++
			t.Errorf("%s: call at message %d: status %d: %.300s", name, i, status, answer)
			continue
		}
		reqs := r.up.Requests()
		last = reqs[len(reqs)-1]
		lastCall = i
		s.calls++
		// The prefix this request shares with the previous one.
		fps := make([]fingerprint, len(last.Messages))
		total := 0
		common := 0
		same := true
		for j, m := range last.Messages {
			fps[j] = fingerprintOf(m)
			n := token.Message(counter, token.Overhead{}, m)
			total += n
			if same && j < len(prevFps) && prevFps[j] == fps[j] {
				common += n
			} else {
				same = false
			}
		}
		// The agent's own request repeats the whole previous one.
		agent := token.Messages(counter, token.Overhead{}, hist[:i])
		if prevFps != nil {
			prefixTokens += common
			requestTokens += total
			agentPrefix += prevAgent
			agentTotal += agent
		}
		prevFps, prevAgent = fps, agent
	}
	for _, ex := range r.exchanges() {
		s.without += ex.AgentTokens
		s.with += ex.SentTokens
		if ex.Managed {
			s.managed++
		}
		s.compactions += len(ex.Compactions)
		if ex.SentTokens > ex.Budget {
			t.Errorf("%s: a request of %d tokens went upstream, budget %d", name, ex.SentTokens, ex.Budget)
		}
		if ex.Err != "" {
			s.fails++
			t.Errorf("%s: the proxy could not manage a request: %s", name, ex.Err)
		}
	}
	if requestTokens > 0 {
		s.prefixShare = float64(prefixTokens) / float64(requestTokens)
		s.prefixWithout = float64(agentPrefix) / float64(agentTotal)
	}
	if last.Messages != nil {
		facts := compact.ExtractFacts(hist[:lastCall])
		ret := compact.MeasureRetention(facts, last.Messages)
		s.retention = ret.Overall
		s.facts, s.factsKept = ret.Total, ret.Kept
	}
	return s
}
