package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/server"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// Verify checks every session of rep in the fleet's store st against a
// reference: a single in-process Engine (on a JSONL store in refDir)
// given the same steps, those that took effect, in the same order. For
// each session it checks that
//
//   - after every step the fleet's entry count (the session's last
//     sequence number, as the client saw it) equals the reference's: no
//     step was lost, doubled or interleaved with another writer's;
//   - the fleet's entries are numbered 1..n without a gap (Entry.Line);
//   - the entries are equal one by one (see [Same]), up to the last
//     step's; after them the fleet may have the state an Engine saves on
//     Close (the servers' graceful shutdown), equal to the reference's,
//     or nothing (the session's last server was killed).
//
// It returns one error per session that differs (nil when all agree).
// Inspect and recall steps write nothing and are not replayed.
func Verify(ctx context.Context, st session.Store, rep *Report, refDir string) []error {
	ref, err := jsonlstore.Open(jsonlstore.Options{Root: refDir, Sync: jsonlstore.SyncNever})
	if err != nil {
		return []error{err}
	}
	defer ref.Close()
	var errs []error
	for _, l := range rep.Logs {
		if err := verifySession(ctx, st, ref, l, refDir); err != nil {
			errs = append(errs, fmt.Errorf("session %s (%s #%d): %w\n steps (kind@server:entries, * = found in the store): %s", l.ID, l.Script.File, l.Script.Index, err, l.Steps()))
		}
	}
	return errs
}

// Steps sums up the steps done: kind@server:entries each, the kind's
// first letter (i for inspect, x for recall), "*" for a step found in
// the store after its answer was lost.
func (l *SessionLog) Steps() string {
	var b strings.Builder
	fmt.Fprintf(&b, "c:%d", l.Created)
	for _, d := range l.Done {
		k := string(l.Script.Ops[d.Op].Kind[0])
		switch l.Script.Ops[d.Op].Kind {
		case OpRecall:
			k = "x"
		case OpRequest:
			k = "q"
		}
		srv := fmt.Sprint(d.Server)
		if d.Landed {
			srv = "*"
		}
		fmt.Fprintf(&b, " %s@%s:%d", k, srv, d.Entries)
	}
	return b.String()
}

// ReferenceOptions are the Engine options of a session the server
// creates with budget and metadata (server.Server's createSession: no
// model, no tools, project "/", no disk reads).
func ReferenceOptions(st session.Store, id string, budget int, meta map[string]string) agentctx.Options {
	return agentctx.Options{
		Store: st, SessionID: id, Dir: "/", Origin: server.Origin, Metadata: meta,
		NoDiskReads: true, Budget: budget,
	}
}

func verifySession(ctx context.Context, st, ref session.Store, l *SessionLog, refDir string) error {
	if l.Created == 0 && len(l.Done) == 0 {
		if l.Err != nil {
			return fmt.Errorf("not created: %w", l.Err)
		}
		return nil
	}
	s := l.Script
	eng, err := agentctx.Open(ctx, ReferenceOptions(ref, l.ID, s.Budget, map[string]string{"file": s.File}))
	if err != nil {
		return err
	}
	count := func() int {
		got, err := ref.Get(ctx, l.ID)
		if err != nil {
			return -1
		}
		return got.Entries
	}
	if n := count(); n != l.Created {
		return fmt.Errorf("after create: the fleet had %d entries, the reference %d", l.Created, n)
	}
	for k, d := range l.Done {
		if d.Op != k {
			return fmt.Errorf("step %d done as step %d: steps skipped", d.Op, k)
		}
		op := s.Ops[d.Op]
		if err := apply(ctx, eng, op); err != nil {
			return fmt.Errorf("reference step %d (%s): %w", d.Op, op.Kind, err)
		}
		if n := count(); d.Entries >= 0 && n != d.Entries {
			return dump(ctx, st, ref, l.ID, refDir, fmt.Errorf("after step %d (%s, server %d, landed %v): the fleet had %d entries, the reference %d", d.Op, op.Kind, d.Server, d.Landed, d.Entries, n))
		}
	}
	if err := eng.Close(); err != nil {
		return err
	}
	want, err := ref.Load(ctx, l.ID, session.LoadOptions{All: true})
	if err != nil {
		return err
	}
	got, err := st.Load(ctx, l.ID, session.LoadOptions{All: true})
	if err != nil {
		return err
	}
	for i, e := range got.Entries {
		if e.Line != i+1 {
			return fmt.Errorf("entry %d has sequence number %d: a gap or a branch", i+1, e.Line)
		}
	}
	if got.Session.Entries != len(got.Entries) {
		return fmt.Errorf("the store counts %d entries and loads %d", got.Session.Entries, len(got.Entries))
	}
	// The steps' entries, then what the servers' shutdown wrote: at most
	// the state an Engine saves on Close, which the fleet lacks when the
	// session's last server was killed.
	n := l.Created
	for _, d := range slices.Backward(l.Done) {
		if d.Entries >= 0 { // not a step whose count was not observed
			n = d.Entries
			break
		}
	}
	gotTail, wantTail := got.Entries[min(n, len(got.Entries)):], want.Entries[min(n, len(want.Entries)):]
	err = Same(got.Entries[:min(n, len(got.Entries))], want.Entries[:min(n, len(want.Entries))])
	switch {
	case err != nil:
	case len(gotTail) > 1 || len(gotTail) == 1 && gotTail[0].Type != session.TypeState:
		err = fmt.Errorf("%w: %d entries after the last step, want at most the state saved on close", ErrDiffer, len(gotTail))
	case len(gotTail) == 1:
		err = Same(gotTail, wantTail)
	}
	if err != nil {
		return dump(ctx, st, ref, l.ID, refDir, err)
	}
	return nil
}

// dump writes session id's entries as [Same] compares them, the fleet's
// and the reference's, to refDir/ID.fleet.jsonl and ID.reference.jsonl
// for a look with diff, and returns err naming them.
func dump(ctx context.Context, st, ref session.Store, id, refDir string, err error) error {
	for _, f := range []struct {
		st   session.Store
		name string
	}{{st, "fleet"}, {ref, "reference"}} {
		tr, lerr := f.st.Load(ctx, id, session.LoadOptions{All: true})
		if lerr != nil {
			return errors.Join(err, lerr)
		}
		var b bytes.Buffer
		for _, e := range tr.Entries {
			b.Write(normal(e))
			b.WriteByte('\n')
		}
		if werr := os.WriteFile(filepath.Join(refDir, id+"."+f.name+".jsonl"), b.Bytes(), 0o600); werr != nil {
			return errors.Join(err, werr)
		}
	}
	return fmt.Errorf("%w (entries in %s)", err, filepath.Join(refDir, id+".{fleet,reference}.jsonl"))
}

// apply does op on the reference Engine, as the server does it (a
// request is reported sent as soon as it is built).
func apply(ctx context.Context, eng *agentctx.Engine, op Op) error {
	switch op.Kind {
	case OpMessages, OpReply:
		msgs, err := roundTrip(op.Messages)
		if err != nil {
			return err
		}
		return eng.Add(ctx, msgs...)
	case OpRequest:
		req, err := eng.Request(ctx)
		if err != nil {
			return err
		}
		return req.Sent(ctx)
	case OpCompact:
		_, err := eng.Compact(ctx, op.Instructions)
		return err
	}
	return nil
}

// ErrDiffer reports two sessions whose entries differ.
var ErrDiffer = errors.New("loadgen: entries differ")

// Same reports whether two sessions' entries are equal: the same number
// of entries, and entry by entry the same type, subtype, message (as
// JSON), tool call and result, compaction summary flag and metadata,
// working-memory state and reminders. What a store or a clock fills is
// not compared: uuid, parentUuid, logicalParentUuid, sessionId,
// timestamp, version, cwd, gitBranch, a compaction's durationMs and the
// times in a working-memory state (RFC 3339 strings), nor the
// summarizing strategy's count of declined summaries (engine.summarize
// escalations: a statistic, kept in memory until the next state is
// saved, so a server that declined one and wrote nothing takes it with
// it). Everything else of a state entry is compared: tracker, working
// memory, reminders sent, todos, the compaction strategy's state (its
// call count and last summary included).
// Errors: [ErrDiffer] naming the first entry that differs.
func Same(got, want []session.Entry) error {
	for i := range max(len(got), len(want)) {
		var g, w []byte
		if i < len(got) {
			g = normal(got[i])
		}
		if i < len(want) {
			w = normal(want[i])
		}
		if !bytes.Equal(g, w) {
			at := 0
			for at < min(len(g), len(w)) && g[at] == w[at] {
				at++
			}
			from := max(at-120, 0)
			return fmt.Errorf("%w: entry %d of %d/%d, from byte %d:\n fleet:     %.400s\n reference: %.400s", ErrDiffer, i+1, len(got), len(want), from, g[min(from, len(g)):], w[min(from, len(w)):])
		}
	}
	return nil
}

// noTimes blanks the RFC 3339 times in a JSON value (the working
// memory's round start and end: the clock's).
func noTimes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = noTimes(e)
		}
	case []any:
		for i, e := range x {
			x[i] = noTimes(e)
		}
	case string:
		if _, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return "<time>"
		}
	}
	return v
}

// normal is e as JSON without the fields Same does not compare.
func normal(e session.Entry) []byte {
	e.UUID, e.ParentUUID, e.LogicalParentUUID, e.SessionID, e.Version = "", "", "", "", ""
	e.CWD, e.GitBranch = "", ""
	e.Timestamp = time.Time{}
	if e.CompactMetadata != nil {
		m := *e.CompactMetadata
		m.DurationMS = 0
		e.CompactMetadata = &m
	}
	e.Raw = nil
	if e.State != nil {
		var v any
		if json.Unmarshal(e.State, &v) == nil {
			if m, ok := v.(map[string]any); ok {
				if eng, ok := m["engine"].(map[string]any); ok {
					if sum, ok := eng["summarize"].(map[string]any); ok {
						delete(sum, "escalations")
					}
				}
			}
			if b, err := json.Marshal(noTimes(v)); err == nil {
				e.State = b
			}
		}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return []byte(fmt.Sprintf("unmarshalable entry: %v", err))
	}
	var c bytes.Buffer
	if json.Compact(&c, b) != nil {
		return b
	}
	return c.Bytes()
}
