package proxy

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

// Proxies as a fleet. With [Options].Fleet, several proxy instances share
// one store (PostgreSQL: package pgstore) and any of them manages any
// request of a session:
//
//   - the agent session's current generation is the store's: the highest
//     of key, key-2, key-3, … that exists (never an instance's memory);
//   - a managed request holds the generation's writer lease from before
//     it reads the session until its answer is relayed and the proxy's
//     state saved, the same lease (and fencing: the lease is checked in
//     each write's transaction) as `agentctx serve`; a second request of
//     the session on another instance waits for it up to
//     [Options].LeaseWait and is then forwarded unchanged, counted
//     unmanaged with reason "busy";
//   - what the proxy knows of the session beyond its entries (how many of
//     the agent's messages it holds and a hash of them, the answer not yet
//     in the Engine, the upstream's last usage, the byte budget) is saved
//     in the session's metadata under [StateKey] after each request, with
//     the session's entry count; an instance whose memory is older than
//     the store's state resumes the Engine from the store;
//   - an instance killed mid-request leaves entries its state does not
//     count: the next instance finds the counts differ and starts a new
//     generation from the agent's whole history (which every request
//     carries), so nothing the agent sent is lost.

// StateKey is the session metadata key under which a proxy of a fleet
// keeps what it knows of a session besides its entries (a JSON object;
// see fleetState).
const StateKey = "agentctx.proxy.state"

// DefaultLeaseWait is how long a request of a fleet's proxy waits for a
// session another instance is managing before it forwards the request
// unchanged (see [Options].LeaseWait).
const DefaultLeaseWait = 30 * time.Second

// ReasonBusy is the unmanaged reason of a request whose session another
// proxy instance of the fleet held for longer than [Options].LeaseWait.
const ReasonBusy = "busy"

// leaseRetry is how often a request waiting for a session's lease tries
// again.
const leaseRetry = 50 * time.Millisecond

// errBusy reports a session another instance holds past LeaseWait.
var errBusy = errors.New("session busy: another proxy instance is managing a request of it")

// fleetState is what a fleet's proxy saves of a session in its metadata
// ([StateKey]) after each request.
type fleetState struct {
	// Rev counts the saves; Entries is the session's entry count when
	// saved: a different count means a writer died before saving.
	Rev     int64 `json:"rev"`
	Entries int   `json:"entries"`
	// Seen is how many of the agent's messages the Engine holds, SeenHash
	// a SHA-256 of them (stableHash); Sys and Tools hashes of the system
	// prompt and tools the Engine was opened with (hex).
	Seen     int    `json:"seen"`
	SeenHash string `json:"seen_hash"`
	Sys      string `json:"sys"`
	Tools    string `json:"tools"`
	// AgentTokens is the size of the seen messages in tokens.
	AgentTokens int `json:"agent_tokens"`
	// Usage and UsageAt: the upstream's usage for the request sent when
	// the history was Seen[:UsageAt] messages long.
	Usage   *chat.Usage `json:"usage,omitempty"`
	UsageAt int         `json:"usage_at,omitempty"`
	// ByteBudget is the request size limit in bytes.
	ByteBudget int `json:"byte_budget,omitempty"`
	// Answer is the upstream's last answer, not yet in the Engine (chat
	// JSON).
	Answer json.RawMessage `json:"answer,omitempty"`
	// AgentCompacted: the agent's own compaction was seen.
	AgentCompacted bool `json:"agent_compacted,omitempty"`
}

// leaser is a store whose writer lock is a lease that can be given back
// (pgstore.Store).
type leaser interface {
	Lock(ctx context.Context, id string) error
	Unlock(ctx context.Context, id string) error
}

// genID is the id of generation gen of key.
func genID(key string, gen int) string {
	if gen <= 1 {
		return key
	}
	return fmt.Sprintf("%s-%d", key, gen)
}

// current returns the store's current generation of key, counting from
// from (≥ 1): the highest that exists, 0 when none does. A generation
// this instance knew that is gone (deleted) starts the count over.
func (p *Proxy) current(ctx context.Context, key string, from int) (int, error) {
	g := 0
	for n := max(from, 1); ; n++ {
		_, err := p.opts.Store.Get(ctx, genID(key, n))
		if errors.Is(err, session.ErrNotFound) {
			if n == from && from > 1 {
				// The generation this instance knew is gone (deleted):
				// start over from the first.
				return p.current(ctx, key, 1)
			}
			return g, nil
		}
		if err != nil {
			return 0, err
		}
		g = n
		if n-from > 1000 {
			return 0, fmt.Errorf("proxy: session %s: no last generation", key)
		}
	}
}

// lock takes session id's lease, waiting up to LeaseWait while another
// instance holds it. Errors: errBusy, the store's.
func (p *Proxy) lock(ctx context.Context, id string) error {
	l := p.opts.Store.(leaser)
	deadline := time.Now().Add(p.opts.LeaseWait)
	for {
		err := l.Lock(ctx, id)
		if !errors.Is(err, session.ErrSessionBusy) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("proxy: %s: %w", id, errBusy)
		}
		if p.onBusy != nil {
			p.onBusy(id)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(leaseRetry):
		}
	}
}

// claim makes s the store's current view of its session for one request
// (s.mu held): it takes the lease of the current generation (waiting up
// to LeaseWait), and when another instance has written the session
// since this one did, resumes its Engine and state from the store; when
// the store's state does not count the session's entries (a writer died
// mid-request), s is left without an Engine, and the request starts the
// next generation. Call s.release after the request.
func (p *Proxy) claim(ctx context.Context, s *state, b *body, c *conversation) error {
	for {
		g, err := p.current(ctx, s.key, s.gen)
		if err != nil {
			return err
		}
		if g == 0 {
			// No generation yet: open creates the first (its first write
			// takes the lease).
			s.drop()
			s.gen = 0
			return nil
		}
		id := genID(s.key, g)
		if err := p.lock(ctx, id); err != nil {
			return err
		}
		s.locked = append(s.locked, id)
		// Another instance may have started a newer generation while we
		// waited: follow it.
		if _, err := p.opts.Store.Get(ctx, genID(s.key, g+1)); err == nil {
			p.release(ctx, s)
			s.gen = g + 1
			continue
		} else if !errors.Is(err, session.ErrNotFound) {
			return err
		}
		sess, err := p.opts.Store.Get(ctx, id)
		if err != nil {
			return err
		}
		return p.sync(ctx, s, g, sess, b, c)
	}
}

// sync brings s up to generation g as the store has it (sess: its
// metadata read under the lease).
func (p *Proxy) sync(ctx context.Context, s *state, g int, sess session.Session, b *body, c *conversation) error {
	raw, ok := sess.Metadata[StateKey]
	st, err := parseState(raw)
	if ok && err != nil {
		p.log.Warn("proxy state unreadable: new generation", "session", sess.ID, "err", err.Error())
		ok = false
	}
	if !ok || st.Entries != sess.Entries {
		// A writer died between its writes and its state's save: which
		// of the agent's messages the session holds is unknown. The
		// request starts the next generation from the agent's history.
		if s.eng != nil || ok {
			p.log.Info("session written without its proxy state: new generation", "session", sess.ID, "entries", sess.Entries, "state_entries", st.Entries)
		}
		s.drop()
		s.gen, s.prev = g, sess.ID
		return nil
	}
	if s.eng != nil && s.gen == g && s.rev == st.Rev {
		return nil // this instance wrote it last
	}
	s.drop()
	eng, err := agentctx.Resume(ctx, sess.ID, p.engineOptions(b, c, sess.ID, nil))
	if err != nil {
		return err
	}
	s.eng, s.gen, s.rev = eng, g, st.Rev
	s.seenN, s.seenHash = st.Seen, st.SeenHash
	s.sys, s.tools = unhex(st.Sys), unhex(st.Tools)
	s.agentTokens, s.usage, s.usageAt = st.AgentTokens, st.Usage, st.UsageAt
	if st.ByteBudget > 0 {
		s.byteBudget = st.ByteBudget
	}
	s.answer = nil
	if len(st.Answer) > 0 {
		var a chat.Message
		if err := json.Unmarshal(st.Answer, &a); err == nil {
			s.answer = &a
		}
	}
	s.agentCompacted = st.AgentCompacted
	return nil
}

// parseState reads a state save wrote. Errors: JSON that is not a
// fleetState, or one with negative counts (then the session's next
// request starts a new generation).
func parseState(raw string) (fleetState, error) {
	var st fleetState
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return fleetState{}, fmt.Errorf("proxy: %s: %w", StateKey, err)
	}
	if st.Rev < 0 || st.Entries < 0 || st.Seen < 0 || st.UsageAt < 0 || st.AgentTokens < 0 || st.ByteBudget < 0 {
		return fleetState{}, fmt.Errorf("proxy: %s: a negative count", StateKey)
	}
	return st, nil
}

// restoreSeen gives a state resumed from the store its seen
// fingerprints: the agent's first seenN messages when they hash as the
// saved ones (else none: the history was rewritten, and prepare starts a
// new generation).
func (s *state) restoreSeen(c *conversation) {
	if s.seenHash == "" {
		return
	}
	n, h := s.seenN, s.seenHash
	s.seenN, s.seenHash = 0, ""
	if n <= len(c.msgs) && stableHash(c.msgs[:n]) == h {
		s.seen = c.fingerprints()[:n]
		return
	}
	s.seen = []fingerprint{{^uint64(0), ^uint64(0)}} // no prefix of any history
}

// save writes s's state into its current generation's metadata (lease
// held) with the session's entry count. A failure is logged: the next
// request then finds the counts differ and starts a new generation.
func (p *Proxy) save(ctx context.Context, s *state, c *conversation) {
	if s.eng == nil {
		return
	}
	id := s.eng.ID()
	sess, err := p.opts.Store.Get(ctx, id)
	if err != nil {
		p.log.Warn("proxy state not saved", "session", id, "err", err.Error())
		return
	}
	st := fleetState{
		Rev: s.rev + 1, Entries: sess.Entries,
		Seen: len(s.seen), SeenHash: stableHash(c.msgs[:min(len(s.seen), len(c.msgs))]),
		Sys: hex.EncodeToString(s.sys[:]), Tools: hex.EncodeToString(s.tools[:]),
		AgentTokens: s.agentTokens, Usage: s.usage, UsageAt: s.usageAt, ByteBudget: s.byteBudget,
		AgentCompacted: s.agentCompacted,
	}
	if s.answer != nil {
		if a, err := s.answer.MarshalJSON(); err == nil {
			st.Answer = a
		}
	}
	data, err := json.Marshal(st)
	if err != nil {
		p.log.Warn("proxy state not saved", "session", id, "err", err.Error())
		return
	}
	if _, err := p.opts.Store.Update(ctx, id, func(m *session.Session) error {
		if m.Metadata == nil {
			m.Metadata = map[string]string{}
		}
		m.Metadata[StateKey] = string(data)
		return nil
	}); err != nil {
		p.log.Warn("proxy state not saved", "session", id, "err", err.Error())
		return
	}
	s.rev = st.Rev
}

// release gives back the leases s holds (those of the generations it
// locked or opened during the request).
func (p *Proxy) release(ctx context.Context, s *state) {
	if s.eng != nil && !slices.Contains(s.locked, s.eng.ID()) {
		s.locked = append(s.locked, s.eng.ID())
	}
	l := p.opts.Store.(leaser)
	for _, id := range s.locked {
		if err := l.Unlock(ctx, id); err != nil && !errors.Is(err, session.ErrNotFound) {
			p.log.Warn("release session lease", "session", id, "err", err.Error())
		}
	}
	s.locked = s.locked[:0]
}

// drop forgets s's Engine without closing it: in a fleet, everything it
// wrote is in the store, and closing would write after another
// instance's entries.
func (s *state) drop() {
	s.eng = nil
	s.seen, s.usage, s.answer = nil, nil, nil
	s.seenN, s.seenHash = 0, ""
}

// stableHash is a SHA-256 of msgs' model-visible content (what
// fingerprintOf reads), the same in every process, in hex.
func stableHash(msgs []chat.Message) string {
	h := sha256.New()
	for _, m := range msgs {
		writeMessage(func(s string) {
			var n [8]byte
			binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
			_, _ = h.Write(n[:])
			_, _ = h.Write([]byte(s))
		}, m)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// unhex reads a hash saved by save ([32]byte{} when unreadable: it then
// matches no system prompt, and a new generation starts).
func unhex(s string) [32]byte {
	var out [32]byte
	b, err := hex.DecodeString(s)
	if err == nil && len(b) == len(out) {
		copy(out[:], b)
	}
	return out
}
