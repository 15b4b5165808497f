package sqlitestore

import (
	"maps"
	"sync"
	"time"

	"github.com/agentctx/agentctx/session"
)

// rowCache keeps the rows of the sessions this Store holds the lease of,
// as its own committed writes left them, so that Get answers them without
// a query and an Append neither reads the row nor writes the lease again
// (takeLease): while the lease is held no other Store or process can change
// the row (Append, Update and Delete all take the lease), so the row read
// back would be the one cached. Under the service's load (scripts/load.sh
// 200 paced) Get was 6 % of all CPU, a point query through database/sql
// for every request's session check and every count a client reads.
//
// An entry is answered while the lease it was written under is surely
// still this Store's: for two thirds of the lease's lifetime after the
// write's transaction began, or after the start of the last renewal
// that succeeded (renew runs every third of it), measured on the
// monotonic clock. It is dropped when the lease is lost, on Delete and
// on Close.
type rowCache struct {
	mu      sync.Mutex
	rows    map[string]cachedRow
	renewed time.Time // the start of the last renewal of every held lease that committed
}

// cachedRow is a session's row (as a write transaction reads it) and
// when the lease was last written by a write of this Store: when the
// transaction that took or renewed it began.
type cachedRow struct {
	st     state
	leased time.Time
}

// put records st as session id's row after a write that committed (the
// writer's lock held, so writes are put in commit order); leased is when
// the transaction that last wrote the lease began (this one's start when
// it took or renewed the lease, else the time the row cached before had).
// The times are stored as a read of the row returns them.
func (c *rowCache) put(id string, st state, leased time.Time) {
	ss := &st.sess
	ss.Metadata = maps.Clone(ss.Metadata)
	ss.Created = time.Unix(0, nanos(ss.Created)).UTC()
	ss.LastActivity = time.Unix(0, nanos(ss.LastActivity)).UTC()
	c.mu.Lock()
	if c.rows == nil {
		c.rows = map[string]cachedRow{}
	}
	c.rows[id] = cachedRow{st: st, leased: leased}
	c.mu.Unlock()
}

// get returns session id's cached row (its own Metadata map) when its
// lease, of lifetime ttl, is surely still held.
func (c *rowCache) get(id string, ttl time.Duration) (session.Session, bool) {
	st, _, ok := c.state(id, ttl)
	return st.sess, ok
}

// state returns session id's cached row as a write transaction reads it
// (its own Metadata map) and when its lease was last written, when the
// lease, of lifetime ttl, is surely still held.
func (c *rowCache) state(id string, ttl time.Duration) (state, time.Time, bool) {
	c.mu.Lock()
	r, ok := c.rows[id]
	renewed := c.renewed
	c.mu.Unlock()
	if !ok {
		return state{}, time.Time{}, false
	}
	since := r.leased
	if renewed.After(since) {
		since = renewed
	}
	if time.Since(since) >= ttl*2/3 {
		return state{}, time.Time{}, false
	}
	r.st.sess.Metadata = maps.Clone(r.st.sess.Metadata)
	return r.st, r.leased, true
}

// renewal records that a renewal of every held lease, begun at begun,
// committed.
func (c *rowCache) renewal(begun time.Time) {
	c.mu.Lock()
	c.renewed = begun
	c.mu.Unlock()
}

// drop forgets session id's row (its lease lost, or the session deleted).
func (c *rowCache) drop(id string) {
	c.mu.Lock()
	delete(c.rows, id)
	c.mu.Unlock()
}

// clear forgets every row (Close gives the leases back).
func (c *rowCache) clear() {
	c.mu.Lock()
	c.rows = nil
	c.mu.Unlock()
}
