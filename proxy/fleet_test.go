package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
)

// fleetStore opens a store on schema, as one proxy process does.
func fleetStore(t *testing.T, schema string) *pgstore.Store {
	t.Helper()
	st, err := pgstore.Open(t.Context(), pgstore.Options{DSN: pgtest.DSN(), Schema: schema, LeaseTTL: time.Minute, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// fleetRig is a proxy of a fleet on schema, with its own store (its own
// lease owner, as a process has) and upstream.
func fleetRig(t *testing.T, schema string, script providertest.Script, opts Options) (*rig, *pgstore.Store) {
	t.Helper()
	st := fleetStore(t, schema)
	opts.Store, opts.Fleet = st, true
	return newRig(t, providertest.WireOpenAI, providertest.Options{Script: script}, opts), st
}

// toolTurns is a script answering each request with one read_file call
// of a new id ("call_fleet_N"), and the calls it made.
type toolTurns struct {
	n     atomic.Int64
	mu    sync.Mutex
	calls []chat.ToolCall
}

func (s *toolTurns) script(providertest.Request) providertest.Reply {
	c := chat.ToolCall{ID: fmt.Sprintf("call_fleet_%d", s.n.Add(1)), Name: "read_file", Arguments: json.RawMessage(`{"path":"main.go"}`)}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	return providertest.Reply{ToolCalls: []chat.ToolCall{c}}
}

// last is the last call made.
func (s *toolTurns) last() chat.ToolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[len(s.calls)-1]
}

// stored returns the conversation messages of session id as the store
// has them (no system prompt: the Engine keeps it in its configuration).
func stored(t *testing.T, st session.Store, id string) []chat.Message {
	t.Helper()
	tr, err := st.Load(t.Context(), id, session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []chat.Message
	for _, e := range tr.Entries {
		msgs, err := e.Messages()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msgs...)
	}
	return out
}

// fleetTurn sends the agent's history through r as session key and adds
// the upstream's tool call and its result to it, as the agent does.
func fleetTurn(t *testing.T, r *rig, turns *toolTurns, key string, history []chat.Message, i int) []chat.Message {
	t.Helper()
	status, answer := r.post(t, providertest.WireOpenAI, agentBody(t, providertest.WireOpenAI, systemPrompt, testTools(), history, false), http.Header{SessionHeader: {key}})
	if status != 200 {
		t.Fatalf("turn %d: status %d: %s", i, status, answer)
	}
	c := turns.last()
	return append(history, chat.NewAssistant("", c), chat.NewToolResult(c.ID, "read_file", fmt.Sprintf("package main // turn %d\n", i), false))
}

// TestProxyFleet: two proxy instances, each with its own store, on one
// PostgreSQL schema, take the requests of one agent session in turn. Each
// manages the requests of the other's session (no instance starts a
// generation of its own), and the store's session holds every message
// the agent sent, once, in order.
func TestProxyFleet(t *testing.T) {
	schema := pgtest.Schema(t, "proxy_")
	var turns toolTurns
	a, sa := fleetRig(t, schema, turns.script, Options{Always: true})
	b, _ := fleetRig(t, schema, turns.script, Options{Always: true})
	history := []chat.Message{chat.NewText(chat.RoleUser, "Fix the failing test in pkg/parse.")}
	for i := range 8 {
		history = fleetTurn(t, []*rig{a, b}[i%2], &turns, "fleet-1", history, i)
	}
	for name, r := range map[string]*rig{"A": a, "B": b} {
		exs := r.exchanges()
		if len(exs) != 4 {
			t.Fatalf("%s made %d exchanges, want 4", name, len(exs))
		}
		for i, ex := range exs {
			if !ex.Managed || ex.Err != "" || ex.Session != "fleet-1" {
				t.Errorf("%s's exchange %d: managed %t, err %q, session %q; want managed in session fleet-1", name, i, ex.Managed, ex.Err, ex.Session)
			}
		}
	}
	if _, err := sa.Get(t.Context(), "fleet-1-2"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("a second generation: %v", err)
	}
	// The last request's history less its answer's round, which the
	// agent has not sent yet (the answer is in the proxy's state).
	want := history[:len(history)-2]
	got := stored(t, sa, "fleet-1")
	if g, w := stableHash(got), stableHash(want); g != w {
		t.Errorf("the session holds %d messages (hash %s…), the agent sent %d (hash %s…)", len(got), g[:8], len(want), w[:8])
	}
	// The state names the answer not yet in the session.
	sess, err := sa.Get(t.Context(), "fleet-1")
	if err != nil {
		t.Fatal(err)
	}
	var st fleetState
	if err := json.Unmarshal([]byte(sess.Metadata[StateKey]), &st); err != nil {
		t.Fatalf("state %q: %v", sess.Metadata[StateKey], err)
	}
	if st.Rev != 8 || st.Seen != len(want) || st.Entries != sess.Entries || !strings.Contains(string(st.Answer), turns.last().ID) {
		t.Errorf("state %+v; want rev 8, %d seen, %d entries, the answer %s", st, len(want), sess.Entries, turns.last().ID)
	}
}

// TestProxyFleetDeadWriter: an instance that died after writing a
// session's entries and before saving its state leaves counts that
// differ; the next instance starts a new generation from the agent's
// whole history, which then holds every message the agent sent.
func TestProxyFleetDeadWriter(t *testing.T) {
	schema := pgtest.Schema(t, "proxy_")
	var turns toolTurns
	a, sa := fleetRig(t, schema, turns.script, Options{Always: true})
	b, _ := fleetRig(t, schema, turns.script, Options{Always: true})
	history := []chat.Message{chat.NewText(chat.RoleUser, "Fix the failing test in pkg/parse.")}
	for i := range 3 {
		history = fleetTurn(t, a, &turns, "fleet-2", history, i)
	}
	// A's last request wrote an entry its state does not count.
	if _, err := sa.Append(t.Context(), "fleet-2", msgEntry(t, chat.NewText(chat.RoleUser, "written by a dying instance"))); err != nil {
		t.Fatal(err)
	}
	if err := sa.Unlock(t.Context(), "fleet-2"); err != nil {
		t.Fatal(err)
	}
	history = fleetTurn(t, b, &turns, "fleet-2", history, 3)
	exs := b.exchanges()
	if ex := exs[len(exs)-1]; !ex.Managed || ex.Err != "" || ex.Session != "fleet-2-2" {
		t.Fatalf("B's exchange: managed %t, err %q, session %q; want managed in fleet-2-2", ex.Managed, ex.Err, ex.Session)
	}
	want := history[:len(history)-2]
	if got := stored(t, sa, "fleet-2-2"); stableHash(got) != stableHash(want) {
		t.Errorf("the new generation holds %d messages, the agent sent %d", len(got), len(want))
	}
	sess, err := sa.Get(t.Context(), "fleet-2-2")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Metadata["agentctx.proxy.previous"] != "fleet-2" {
		t.Errorf("the new generation follows %q, want fleet-2", sess.Metadata["agentctx.proxy.previous"])
	}
	// A follows B to the new generation.
	fleetTurn(t, a, &turns, "fleet-2", history, 4)
	exs = a.exchanges()
	if ex := exs[len(exs)-1]; ex.Session != "fleet-2-2" || !ex.Managed {
		t.Errorf("A's next exchange: session %q managed %t, want fleet-2-2 managed", ex.Session, ex.Managed)
	}
}

func msgEntry(t *testing.T, m chat.Message) session.Entry {
	t.Helper()
	e, err := session.NewMessageEntry(m)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestProxyFleetOneAtATime: while instance A manages a request of a
// session (its upstream holds the answer), a request of the same session
// on instance B waits for the lease: B's LeaseWait over, it is forwarded
// unchanged, counted unmanaged with reason busy; with a longer wait it
// is managed after A's, never beside it.
func TestProxyFleetOneAtATime(t *testing.T) {
	schema := pgtest.Schema(t, "proxy_")
	var turns toolTurns
	var (
		gate    = make(chan struct{})
		entered = make(chan struct{}, 4)
		block   atomic.Bool
		inA     atomic.Int64
		overlap atomic.Bool
	)
	scriptA := func(r providertest.Request) providertest.Reply {
		inA.Add(1)
		defer inA.Add(-1)
		if block.Load() {
			entered <- struct{}{}
			<-gate
		}
		return turns.script(r)
	}
	scriptB := func(r providertest.Request) providertest.Reply {
		if inA.Load() > 0 {
			overlap.Store(true)
		}
		return turns.script(r)
	}
	a, _ := fleetRig(t, schema, scriptA, Options{Always: true})
	quick, _ := fleetRig(t, schema, scriptB, Options{Always: true, LeaseWait: 100 * time.Millisecond})
	patient, _ := fleetRig(t, schema, scriptB, Options{Always: true})
	waiting := make(chan struct{}, 1)
	patient.p.onBusy = func(string) {
		select {
		case waiting <- struct{}{}:
		default:
		}
	}
	history := []chat.Message{chat.NewText(chat.RoleUser, "Fix the failing test in pkg/parse.")}
	history = fleetTurn(t, a, &turns, "fleet-3", history, 0)
	body := agentBody(t, providertest.WireOpenAI, systemPrompt, testTools(), history, false)
	header := http.Header{SessionHeader: {"fleet-3"}}

	block.Store(true)
	done := make(chan int, 1)
	go func() {
		status, _ := a.post(t, providertest.WireOpenAI, body, header)
		done <- status
	}()
	<-entered
	// B gives up after its LeaseWait: the request goes upstream as the
	// agent wrote it.
	if status, answer := quick.post(t, providertest.WireOpenAI, body, header); status != 200 {
		t.Fatalf("B: status %d: %s", status, answer)
	}
	if ex := quick.exchanges()[0]; ex.Managed || ex.reason != ReasonBusy || !strings.Contains(ex.Err, "busy") {
		t.Errorf("B's exchange: managed %t, reason %q, err %q; want forwarded unchanged, busy", ex.Managed, ex.reason, ex.Err)
	}
	overlap.Store(false) // B's forwarded request ran beside A's, as it should
	if st := quick.p.Status(); len(st.Sessions) != 1 || st.Sessions[0].UnmanagedReasons[reasonOf(quick.exchanges()[0].Err)] != 1 {
		t.Errorf("B's status: %+v", st)
	}
	// A patient instance waits for A's request to end.
	pdone := make(chan int, 1)
	go func() {
		status, _ := patient.post(t, providertest.WireOpenAI, body, header)
		pdone <- status
	}()
	select {
	case <-waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the patient instance did not wait for the lease")
	}
	block.Store(false)
	close(gate)
	if status := <-done; status != 200 {
		t.Fatalf("A: status %d", status)
	}
	if status := <-pdone; status != 200 {
		t.Fatalf("patient: status %d", status)
	}
	if overlap.Load() {
		t.Error("the patient instance's request went upstream while A's was in flight")
	}
	if ex := patient.exchanges()[0]; !ex.Managed || ex.Err != "" {
		t.Errorf("patient's exchange: managed %t, err %q; want managed", ex.Managed, ex.Err)
	}
}

// FuzzFleetState: any metadata value under StateKey reads as a state or
// an error, never a panic, and a state read writes back to one that
// reads the same.
func FuzzFleetState(f *testing.F) {
	for _, seed := range []string{
		`{"rev":3,"entries":12,"seen":7,"seen_hash":"ab","sys":"00","tools":"00","agent_tokens":900,"usage":{"input_tokens":10},"usage_at":5,"byte_budget":1000,"answer":{"role":"assistant","content":"ok"},"agent_compacted":true}`,
		`{}`, `null`, `{"rev":-1}`, `{"answer":"x"}`, `[`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		st, err := parseState(raw)
		if err != nil {
			return
		}
		data, err := json.Marshal(st)
		if err != nil {
			return // an answer that is JSON but not a message
		}
		again, err := parseState(string(data))
		if err != nil {
			t.Fatalf("a written state does not read: %v (%s)", err, data)
		}
		if again.Rev != st.Rev || again.Entries != st.Entries || again.Seen != st.Seen || again.SeenHash != st.SeenHash {
			t.Fatalf("state %+v reads back as %+v", st, again)
		}
	})
}
