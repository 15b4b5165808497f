package telemetry

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/trace"

	"github.com/agentctx/agentctx/session"
)

// storeOps are the operations of a session.Store, the values of the op
// label of agentctx_store_errors_total.
var storeOps = []string{"create", "append", "sync", "load", "get", "list", "update", "delete", "lock", "unlock", "close"}

// Store returns s counting its failures in m, and tracing each operation
// as a child span "store.<op>" of its context's span when t is set: session.ErrSessionBusy as a
// lease conflict, any other error as a store error by operation, except
// the answers a caller expects (session.ErrNotFound, session.ErrExists,
// session.ErrInvalidID, session.ErrInvalidEntry) and a cancelled
// context. The returned store implements session.Locker and Unlock(ctx,
// id) (pgstore's lease release) by calling s's when it has them and doing
// nothing otherwise, which is what their callers do without them. A nil m
// returns s itself.
func (m *Metrics) Store(s session.Store, t trace.Tracer) session.Store {
	if m == nil || s == nil {
		return s
	}
	return &store{Store: s, m: m, t: t}
}

// store is [Metrics.Store]'s wrapper.
type store struct {
	session.Store
	m *Metrics
	t trace.Tracer
}

// count records err of operation op.
func (s *store) count(op string, err error) {
	switch {
	case err == nil:
	case errors.Is(err, session.ErrSessionBusy):
		s.m.leaseConflicts.Inc()
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrExists),
		errors.Is(err, session.ErrInvalidID), errors.Is(err, session.ErrInvalidEntry),
		errors.Is(err, context.Canceled):
	default:
		s.m.storeErrors.WithLabelValues(op).Inc()
	}
}

func (s *store) Create(ctx context.Context, in session.Session) (session.Session, error) {
	ctx, span := storeSpan(ctx, s.t, "create", in.ID)
	out, err := s.Store.Create(ctx, in)
	s.count("create", err)
	endStoreSpan(s.t, span, err)
	return out, err
}

func (s *store) Append(ctx context.Context, id string, entries ...session.Entry) ([]session.Entry, error) {
	ctx, span := storeSpan(ctx, s.t, "append", id)
	out, err := s.Store.Append(ctx, id, entries...)
	s.count("append", err)
	endStoreSpan(s.t, span, err)
	return out, err
}

func (s *store) Sync(ctx context.Context, id string) error {
	ctx, span := storeSpan(ctx, s.t, "sync", id)
	err := s.Store.Sync(ctx, id)
	s.count("sync", err)
	endStoreSpan(s.t, span, err)
	return err
}

func (s *store) Load(ctx context.Context, id string, opts session.LoadOptions) (*session.Transcript, error) {
	ctx, span := storeSpan(ctx, s.t, "load", id)
	out, err := s.Store.Load(ctx, id, opts)
	s.count("load", err)
	endStoreSpan(s.t, span, err)
	return out, err
}

func (s *store) Get(ctx context.Context, id string) (session.Session, error) {
	ctx, span := storeSpan(ctx, s.t, "get", id)
	out, err := s.Store.Get(ctx, id)
	s.count("get", err)
	endStoreSpan(s.t, span, err)
	return out, err
}

func (s *store) List(ctx context.Context, opts session.ListOptions) ([]session.Session, error) {
	ctx, span := storeSpan(ctx, s.t, "list", "")
	out, err := s.Store.List(ctx, opts)
	s.count("list", err)
	endStoreSpan(s.t, span, err)
	return out, err
}

func (s *store) Update(ctx context.Context, id string, fn func(*session.Session) error) (session.Session, error) {
	ctx, span := storeSpan(ctx, s.t, "update", id)
	var fnErr error
	out, err := s.Store.Update(ctx, id, func(ss *session.Session) error {
		fnErr = fn(ss)
		return fnErr
	})
	if err != nil && (fnErr == nil || !errors.Is(err, fnErr)) {
		// fn's own refusal is the caller's, not the store's.
		s.count("update", err)
	}
	endStoreSpan(s.t, span, err)
	return out, err
}

func (s *store) Delete(ctx context.Context, id string) error {
	ctx, span := storeSpan(ctx, s.t, "delete", id)
	err := s.Store.Delete(ctx, id)
	s.count("delete", err)
	endStoreSpan(s.t, span, err)
	return err
}

func (s *store) Close() error {
	err := s.Store.Close()
	s.count("close", err)
	return err
}

// Lock takes the session's lock when the store has one (session.Locker).
func (s *store) Lock(ctx context.Context, id string) error {
	l, ok := s.Store.(session.Locker)
	if !ok {
		return nil
	}
	ctx, span := storeSpan(ctx, s.t, "lock", id)
	err := l.Lock(ctx, id)
	s.count("lock", err)
	endStoreSpan(s.t, span, err)
	return err
}

// Unlock gives back the session's lease when the store can.
func (s *store) Unlock(ctx context.Context, id string) error {
	u, ok := s.Store.(interface {
		Unlock(ctx context.Context, id string) error
	})
	if !ok {
		return nil
	}
	ctx, span := storeSpan(ctx, s.t, "unlock", id)
	err := u.Unlock(ctx, id)
	s.count("unlock", err)
	endStoreSpan(s.t, span, err)
	return err
}
