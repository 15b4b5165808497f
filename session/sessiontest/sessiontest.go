// Package sessiontest is the conformance suite of [session.Store], in the
// manner of testing/slogtest: every store backend's tests call [Run] with
// a constructor, and the suite checks the contract documented on
// session.Store and its sentinel errors, never a backend's internals.
//
//	func TestConformance(t *testing.T) {
//		sessiontest.Run(t, func(t *testing.T) session.Store {
//			s, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

// Run runs the conformance suite: one parallel subtest per rule, each on
// a fresh store from newStore. newStore must return an empty, open store
// and arrange (t.Cleanup) for it to be closed; the suite may close it
// itself, so a second Close must not fail the test. The suite only uses
// the session.Store interface.
func Run(t *testing.T, newStore func(t *testing.T) session.Store) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.fn(t, newStore(t))
		})
	}
}

// cases are the suite's subtests, by contract rule.
var cases = []struct {
	name string
	fn   func(t *testing.T, s session.Store)
}{
	{"Create/GeneratedID", testCreateGeneratedID},
	{"Create/ExplicitID", testCreateExplicitID},
	{"Create/Exists", testCreateExists},
	{"Create/InvalidID", testCreateInvalidID},
	{"Create/ProjectRequired", testCreateProjectRequired},
	{"Get/NotFound", testNotFound},
	{"List/OrderFilterLimit", testList},
	{"Append/Fills", testAppendFills},
	{"Append/Boundary", testAppendBoundary},
	{"Append/InvalidEntry", testAppendInvalidEntry},
	{"Append/Concurrent", testAppendConcurrent},
	{"Metadata/Observe", testMetadata},
	{"Load/Live", testLoadLive},
	{"Load/Resume", testResume},
	{"Load/Foreign", testForeign},
	{"Load/Rewind", testRewind},
	{"Update", testUpdate},
	{"Update/FnError", testUpdateFnError},
	{"Delete", testDelete},
	{"Sync", testSync},
	{"Close", testClosed},
	{"CanceledContext", testCanceled},
}

// project returns an absolute project path for a test. The folder exists
// (a temporary one) but is not a git repository.
func project(t *testing.T) string {
	t.Helper()
	return t.TempDir()
}

// create creates a session in project p, failing the test on error.
func create(t *testing.T, s session.Store, p string) session.Session {
	t.Helper()
	sess, err := s.Create(t.Context(), session.Session{Project: p})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return sess
}

// appendOK appends entries, failing the test on error.
func appendOK(t *testing.T, s session.Store, id string, es ...session.Entry) []session.Entry {
	t.Helper()
	out, err := s.Append(t.Context(), id, es...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	if len(out) != len(es) {
		t.Fatalf("Append returned %d entries, want %d", len(out), len(es))
	}
	return out
}

// load loads session id, failing the test on error.
func load(t *testing.T, s session.Store, id string, all bool) *session.Transcript {
	t.Helper()
	tr, err := s.Load(t.Context(), id, session.LoadOptions{All: all})
	if err != nil {
		t.Fatalf("Load(all=%v): %v", all, err)
	}
	return tr
}

// get returns session id's metadata, failing the test on error.
func get(t *testing.T, s session.Store, id string) session.Session {
	t.Helper()
	sess, err := s.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return sess
}

// msg returns a message entry holding m (session.NewMessageEntry).
func msg(t *testing.T, m chat.Message) session.Entry {
	t.Helper()
	e, err := session.NewMessageEntry(m)
	if err != nil {
		t.Fatalf("NewMessageEntry: %v", err)
	}
	return e
}

func user(t *testing.T, text string) session.Entry {
	return msg(t, chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: text}}})
}

func assistant(t *testing.T, text string) session.Entry {
	return msg(t, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}}})
}

// boundary returns a compact boundary announcing n message entries.
func boundary(n int) session.Entry {
	return session.Entry{
		Type:    session.TypeSystem,
		Subtype: session.SubtypeCompactBoundary,
		CompactMetadata: &session.CompactMetadata{
			Trigger:   "auto",
			PreTokens: 1000,
			Messages:  n,
		},
	}
}

// summary returns the compaction summary entry.
func summary(t *testing.T, text string) session.Entry {
	e := user(t, text)
	e.IsCompactSummary = true
	return e
}

// uuids returns the entries' uuids.
func uuids(es []session.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.UUID
	}
	return out
}

// stored compares entries as stored, ignoring where they were read from.
var stored = cmp.Options{
	cmpopts.IgnoreFields(session.Entry{}, "Raw", "Offset", "Line"),
	jsonEqual,
}

// jsonEqual compares JSON values by meaning, not bytes (a store may
// re-encode a message compactly).
var jsonEqual = cmp.FilterValues(func(a, b json.RawMessage) bool { return true },
	cmp.Comparer(func(a, b json.RawMessage) bool {
		if len(a) == 0 || len(b) == 0 {
			return len(a) == len(b)
		}
		var va, vb any
		if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
			return string(a) == string(b)
		}
		return cmp.Equal(va, vb)
	}))

// isErr fails the test unless errors.Is(err, want).
func isErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want %v", what, err, want)
	}
}

// sessionIDs returns the ids of sessions, in order.
func sessionIDs(ss []session.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

// at returns a fixed UTC time offset by d, with millisecond precision.
func at(d time.Duration) time.Time {
	return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(d)
}

// mustAbs returns filepath.Abs of p.
func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// chainLinear fails the test unless es form one parentUuid chain in order:
// the first entry's parent is want0, each other's the previous entry.
func chainLinear(t *testing.T, es []session.Entry, want0 string) {
	t.Helper()
	prev := want0
	for i, e := range es {
		if e.ParentUUID != prev {
			t.Fatalf("entry %d (%s): parentUuid %q, want %q", i, e.UUID, e.ParentUUID, prev)
		}
		prev = e.UUID
	}
}

// canceled returns a canceled context.
func canceled(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	return ctx
}

var errFn = fmt.Errorf("sessiontest: fn refuses")
