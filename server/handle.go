package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/session"
)

// TenantKey is the session metadata key that holds the tenant a session
// belongs to. Clients cannot set it; a session without it belongs to the
// anonymous tenant of a server without tokens (the sessions the command
// line made).
const TenantKey = "agentctx.tenant"

// handle is one session's Engine in this server, and what it knows of
// the store. A handle lives in Server.handles while cached; mu serializes
// the requests on the session.
type handle struct {
	// id is the session's store id, name its id in the API (see
	// storeID).
	id, name string
	mu       sync.Mutex
	// refs counts the requests holding or waiting for the handle (under
	// Server.mu); an evicted handle with refs is kept.
	refs int
	// dead is set when the handle was evicted and closed: a request that
	// waited for it starts over with a new one.
	dead bool
	eng  *agentctx.Engine
	// entries is the store's entry count of the session after this
	// server's last write: a different count means that someone else
	// wrote it (another server after our lease expired), and the Engine
	// is resumed again before use.
	entries int
	// pending is the last request built and not yet answered (for
	// usage events); lastTokens its size.
	pending    *agentctx.Request
	lastTokens int
	lastBudget int
	// encoded holds the JSON of each message of the last request handed
	// out in the chat format, for the next one to reuse the leading
	// messages it shares (prompt.Request.Kept); nil when the last request
	// was in another format or failed.
	encoded [][]byte
}

// drop forgets the handle's Engine, closing it (saving its state) when
// save is set; mu is held.
func (h *handle) drop(save bool) error {
	eng := h.eng
	h.eng, h.pending, h.encoded = nil, nil, nil
	if eng == nil || !save {
		return nil
	}
	if err := eng.Close(); err != nil && !errors.Is(err, agentctx.ErrClosed) {
		return fmt.Errorf("server: close %s: %w", h.id, err)
	}
	return nil
}

// TenantSep separates the tenant's name from the client's id in a
// session's store id: tenant "acme"'s session "x" is stored as "acme~x",
// so that ids are per tenant (two tenants may both have a session "x",
// and neither can take an id from the other). The anonymous tenant of a
// server without tokens stores its sessions under their own ids, as the
// command line does.
const TenantSep = "~"

// invalidID is the problem of a session id the server cannot use (400
// CodeInvalidID), on every route: in the path, or in a create request's
// body. The detail names the rule broken, never the store.
func invalidID(err error) *apiError {
	why := strings.TrimPrefix(err.Error(), session.ErrInvalidID.Error())
	why = strings.TrimSpace(strings.TrimPrefix(why, ":"))
	return &apiError{status: http.StatusBadRequest, code: CodeInvalidID, detail: "id: " + why, err: err}
}

// storeID returns the store id of session id of tenant: id for the
// anonymous tenant, tenant + [TenantSep] + id otherwise. Both id and the
// store id must pass [session.ValidateID]: a tenant's ids are at most
// [session.MaxIDLength] less the tenant's name and one byte long.
// Errors: [invalidID]'s.
func storeID(tenant, id string) (string, error) {
	if err := session.ValidateID(id); err != nil {
		return "", invalidID(err)
	}
	if tenant == "" {
		return id, nil
	}
	key := tenant + TenantSep + id
	if len(key) > session.MaxIDLength {
		return "", invalidID(fmt.Errorf("%w: %d bytes, more than %d for tenant %q (%d less its name and one byte)",
			session.ErrInvalidID, len(id), session.MaxIDLength-len(tenant)-len(TenantSep), tenant, session.MaxIDLength))
	}
	if err := session.ValidateID(key); err != nil {
		return "", invalidID(err)
	}
	return key, nil
}

// apiID is the id the API shows for the session stored as key by tenant:
// key without the tenant's prefix.
func apiID(tenant, key string) string {
	if tenant == "" {
		return key
	}
	return strings.TrimPrefix(key, tenant+TenantSep)
}

// lookup returns the store id and the metadata of session id of the
// request's tenant. A session a tenant made before ids were per tenant
// is stored under its bare id with the tenant in its metadata: it is
// found there when the tenant's store id names none. Errors:
// [invalidID]'s, session.ErrNotFound when the tenant has no such session
// (another tenant's session is none of its), the store's.
func (s *Server) lookup(ctx context.Context, id string) (string, session.Session, error) {
	tenant := tenantOf(ctx)
	key, err := storeID(tenant, id)
	if err != nil {
		return "", session.Session{}, err
	}
	sess, err := s.owned(ctx, key)
	if err == nil || tenant == "" || !errors.Is(err, session.ErrNotFound) {
		return key, sess, err
	}
	if legacy, lerr := s.owned(ctx, id); lerr == nil {
		return id, legacy, nil
	}
	return key, sess, err
}

// acquire returns the handle of session id of the request's tenant with
// its mu held, after checking that the session exists and belongs to the
// tenant (else session.ErrNotFound: a tenant cannot tell another tenant's
// session from none). It returns the session's metadata as the store has
// it; the handle's id is the store id. The caller calls release. The
// store is read once: under the tenant's store id, and under the bare id
// (see lookup) only when that names none.
func (s *Server) acquire(ctx context.Context, id string) (*handle, session.Session, error) {
	tenant := tenantOf(ctx)
	key, err := storeID(tenant, id)
	if err != nil {
		return nil, session.Session{}, err
	}
	h, sess, err := s.acquireKey(ctx, key, id)
	if err == nil || tenant == "" || !errors.Is(err, session.ErrNotFound) {
		return h, sess, err
	}
	if lh, legacy, lerr := s.acquireKey(ctx, id, id); lerr == nil {
		return lh, legacy, nil
	}
	return nil, sess, err
}

// acquireKey is acquire of the session stored as key, named name in the
// API.
func (s *Server) acquireKey(ctx context.Context, key, name string) (*handle, session.Session, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, session.Session{}, errShuttingDown
		}
		h := s.handles[key]
		if h == nil {
			h = &handle{id: key, name: name}
			s.handles[key] = h
		}
		h.refs++
		s.mu.Unlock()
		h.mu.Lock()
		if h.dead {
			s.unref(h)
			h.mu.Unlock()
			continue
		}
		sess, err := s.owned(ctx, key)
		if err != nil {
			s.discard(h)
			return nil, sess, err
		}
		return h, sess, nil
	}
}

// discard releases h (mu held) after its session was not found or not
// read: a handle without an Engine that nobody else waits for leaves the
// cache, so that requests for ids that name no session do not fill it.
func (s *Server) discard(h *handle) {
	if h.eng != nil {
		s.release(h)
		return
	}
	s.mu.Lock()
	h.refs--
	if h.refs == 0 && s.handles[h.id] == h {
		h.dead = true
		delete(s.handles, h.id)
		s.idle.Remove(h.id)
	}
	s.mu.Unlock()
	h.mu.Unlock()
}

// owned reads session key's metadata from the store, checking that it
// belongs to the request's tenant (else session.ErrNotFound).
func (s *Server) owned(ctx context.Context, key string) (session.Session, error) {
	sess, err := s.store.Get(ctx, key)
	if err != nil {
		return sess, err
	}
	if sess.Metadata[TenantKey] != tenantOf(ctx) {
		return session.Session{}, fmt.Errorf("server: %s: %w", key, session.ErrNotFound)
	}
	return sess, nil
}

func (s *Server) unref(h *handle) {
	s.mu.Lock()
	h.refs--
	s.mu.Unlock()
}

// release gives h back: it becomes the most recently used idle handle,
// and the handles the cache evicts for it are closed.
func (s *Server) release(h *handle) {
	h.mu.Unlock()
	s.mu.Lock()
	h.refs--
	if !h.dead && s.handles[h.id] == h {
		s.idle.Add(h.id, h)
	}
	victims := s.victims
	s.victims = nil
	s.mu.Unlock()
	for _, v := range victims {
		s.evict(v)
	}
}

// evict closes an evicted handle unless a request holds it again.
func (s *Server) evict(v *handle) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s.mu.Lock()
	if v.refs > 0 || v.dead {
		s.mu.Unlock()
		return
	}
	v.dead = true
	s.mu.Unlock()
	if err := s.close(v); err != nil {
		s.log.Error("evict session", "session", v.id, "error", err)
	}
	s.mu.Lock()
	if s.handles[v.id] == v {
		delete(s.handles, v.id)
	}
	s.mu.Unlock()
}

// close closes h's Engine (mu held), saving its state only when no
// other server wrote the session since this one did (its lease was given
// back after each request): a stale state must not land after theirs.
func (s *Server) close(h *handle) error {
	if h.eng == nil {
		return nil
	}
	save := true
	if sess, err := s.store.Get(context.Background(), h.id); err != nil || sess.Entries != h.entries {
		save = false
	}
	return h.drop(save)
}

// forget removes h (held) from the cache for good: the session was
// deleted.
func (s *Server) forget(h *handle) {
	_ = h.drop(false)
	s.mu.Lock()
	h.dead = true
	if s.handles[h.id] == h {
		delete(s.handles, h.id)
	}
	s.idle.Remove(h.id)
	s.victims = nil
	s.mu.Unlock()
}

// engine returns h's Engine, resuming the session from the store when the
// handle has none or the store has entries this server did not write.
// sess is the session's metadata as acquire read it.
func (s *Server) engine(ctx context.Context, h *handle, sess session.Session) (*agentctx.Engine, error) {
	if h.eng != nil && sess.Entries == h.entries {
		return h.eng, nil
	}
	if h.eng != nil {
		// Someone else wrote the session: our window is stale. Its state
		// is not saved (that would write over theirs).
		s.log.Info("session changed in the store: resuming", "session", h.id, "entries", sess.Entries, "seen", h.entries)
		_ = h.drop(false)
	}
	defer spent(ctx, phaseResume, time.Now())
	eng, err := agentctx.Resume(ctx, h.id, s.engineOptions(h))
	if err != nil {
		return nil, err
	}
	h.eng = eng
	return eng, s.synced(ctx, h)
}

// synced records the store's entry count of h's session after a write.
func (s *Server) synced(ctx context.Context, h *handle) error {
	sess, err := s.store.Get(ctx, h.id)
	if err != nil {
		return err
	}
	h.entries = sess.Entries
	return nil
}

// engineOptions returns the Engine options of h's session: the base
// ones with the store (counting into h.entries what the Engine appends),
// no disk reads and the server's logger.
func (s *Server) engineOptions(h *handle) agentctx.Options {
	o := s.opts.Engine
	o.Store = &countingStore{Store: s.store, h: h}
	o.NoDiskReads = true
	o.Logger = s.log
	o.Dir = ""
	return o
}

// countingStore is the store as one handle's Engine sees it: each entry
// it appends adds one to the handle's entry count, so that the count
// after a request is known without reading the store again (issue 29:
// the read after each request was a third of the server's store reads).
// A write by anyone else still shows as a count the handle did not make.
// The Engine's writes happen under the handle's mu.
type countingStore struct {
	session.Store
	h *handle
}

// Append appends through the store and counts what was written.
func (c *countingStore) Append(ctx context.Context, id string, es ...session.Entry) ([]session.Entry, error) {
	defer spent(ctx, phaseStore, time.Now())
	out, err := c.Store.Append(ctx, id, es...)
	if err == nil && id == c.h.id {
		c.h.entries += len(out)
	}
	return out, err
}

// Lock takes the session's lock when the store has one
// (session.Locker), as the Engine asks of its store.
func (c *countingStore) Lock(ctx context.Context, id string) error {
	if l, ok := c.Store.(session.Locker); ok {
		return l.Lock(ctx, id)
	}
	return nil
}

// withSession runs fn on session {id} of r with its Engine, serialized
// with the other requests on the session.
func (s *Server) withSession(r *http.Request, fn func(ctx context.Context, h *handle, eng *agentctx.Engine, sess session.Session) error) error {
	// A write is finished even when the client goes away: a client that
	// retries finds the session as the store has it. The server's write
	// timeout bounds it.
	ctx := context.WithoutCancel(r.Context())
	start := time.Now()
	h, sess, err := s.acquire(ctx, r.PathValue("id"))
	spent(ctx, phaseLock, start)
	if err != nil {
		return err
	}
	defer s.release(h)
	eng, err := s.engine(ctx, h, sess)
	if err != nil {
		return err
	}
	err = fn(ctx, h, eng, sess)
	if err != nil && r.Method != http.MethodGet {
		// The Engine may hold what the store refused (a message added to
		// the window whose append failed: another server's lease, the
		// database gone): forget it, unsaved, and resume the session from
		// the store next time, so that a retry does not find its own
		// message already there (TestFleetPostgres found it). A read
		// (inspect, recall) changes nothing.
		_ = h.drop(false)
	}
	s.unlock(ctx, h.id)
	return err
}

// unlocker is implemented by a store whose writer lock is a lease that
// can be given back before it expires (pgstore.Store.Unlock).
type unlocker interface {
	Unlock(ctx context.Context, id string) error
}

// unlock gives back session id's writer lease after a request, when the
// store can, so that any server of a fleet can take the session's next
// request: servers are stateless between requests. The Engine stays
// cached; its next write takes the lease again, and a write by another
// server in between makes engine resume it (the entry count differs).
// A failure is logged: the lease then expires by itself.
func (s *Server) unlock(ctx context.Context, id string) {
	u, ok := s.store.(unlocker)
	if !ok {
		return
	}
	if err := u.Unlock(ctx, id); err != nil {
		s.log.Warn("release session lease", "session", id, "error", err)
	}
}
