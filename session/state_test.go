package session_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

type testState struct {
	Tracker struct {
		Files []string `json:"files"`
	} `json:"tracker"`
	Workmem map[string]int `json:"workmem"`
}

func newTestState(files ...string) testState {
	var s testState
	s.Tracker.Files = files
	s.Workmem = map[string]int{"round": len(files)}
	return s
}

func decodeState(t *testing.T, raw json.RawMessage) testState {
	t.Helper()
	var s testState
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("state %s: %v", raw, err)
	}
	return s
}

func TestNewStateEntry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		state   any
		want    string
		wantErr bool
	}{
		{"struct", newTestState("a.go"), `{"tracker":{"files":["a.go"]},"workmem":{"round":1}}`, false},
		{"raw compacted", json.RawMessage("{\n  \"a\": [1, 2]\n}"), `{"a":[1,2]}`, false},
		{"bytes", []byte(`[1]`), `[1]`, false},
		{"no html escaping", map[string]string{"cmd": "a && b <c>"}, `{"cmd":"a && b <c>"}`, false},
		{"invalid raw", json.RawMessage(`{"a":`), "", true},
		{"null raw", json.RawMessage(`null`), "", true},
		{"nil", nil, "", true},
		{"unencodable", map[string]any{"c": make(chan int)}, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e, err := session.NewStateEntry(c.state)
			if c.wantErr {
				if !errors.Is(err, session.ErrInvalidEntry) {
					t.Fatalf("NewStateEntry error = %v, want ErrInvalidEntry", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Type != session.TypeState || string(e.State) != c.want {
				t.Fatalf("NewStateEntry = %q %s, want %q %s", e.Type, e.State, session.TypeState, c.want)
			}
			if !e.Known() {
				t.Error("a state entry is not Known")
			}
			msgs, err := e.Messages()
			if err != nil || msgs != nil {
				t.Errorf("Messages() = %v, %v; want nil, nil", msgs, err)
			}
			// The line format keeps it.
			line, err := session.MarshalLine(e)
			if err != nil {
				t.Fatal(err)
			}
			d, err := session.DecodeLine(line)
			if err != nil {
				t.Fatal(err)
			}
			if d.Type != session.TypeState || string(d.State) != c.want {
				t.Fatalf("DecodeLine(%s) = %q %s", line, d.Type, d.State)
			}
			// A read entry whose State changed is re-encoded, not written as Raw.
			d.State = json.RawMessage(`{"changed":true}`)
			line2, err := session.MarshalLine(d)
			if err != nil {
				t.Fatal(err)
			}
			if d2, _ := session.DecodeLine(line2); string(d2.State) != `{"changed":true}` {
				t.Errorf("changed state written as %s", line2)
			}
		})
	}
}

func TestLastState(t *testing.T) {
	t.Parallel()
	st := func(s string) session.Entry { return session.Entry{Type: session.TypeState, State: json.RawMessage(s)} }
	side := st(`{"n":9}`)
	side.IsSidechain = true
	for _, c := range []struct {
		name    string
		entries []session.Entry
		want    string
		ok      bool
	}{
		{"none", []session.Entry{mustEntry(t, user("hi"))}, "", false},
		{"empty", nil, "", false},
		{"last of two", []session.Entry{st(`{"n":1}`), mustEntry(t, user("hi")), st(`{"n":2}`), mustEntry(t, asst("ok"))}, `{"n":2}`, true},
		{"side chain skipped", []session.Entry{st(`{"n":1}`), side}, `{"n":1}`, true},
		{"null skipped", []session.Entry{st(`{"n":1}`), st(`null`)}, `{"n":1}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ok := session.LastState(c.entries)
			if ok != c.ok || string(got) != c.want {
				t.Errorf("LastState = %s, %v; want %s, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

// TestStateSurvivesCompaction saves state, compacts, and checks that a
// load from the new boundary finds the state, the window restores as it
// was, and the transcript checks clean.
func TestStateSurvivesCompaction(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	opts := window.Options{Budget: 100_000, Counter: quarterCounter{}}
	for _, c := range []struct {
		name      string
		save      bool // SaveState before the compaction
		keep      bool // KeepState instead, as a resumed process does
		saveAfter bool // SaveState again after the compaction
	}{
		{"saved", true, false, false},
		{"kept after resume", false, true, false},
		{"saved again after", true, false, true},
		{"no state", false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := newMemStore()
			id := newSession(t, st)
			rec := session.NewRecorder(st, id)
			w, err := window.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			res := chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: "c1", ToolName: "Read", Content: "package a"}}}
			for _, msg := range []chat.Message{system("sys"), user("fix the build"), call("c1", "Read", `{"file_path":"a.go"}`), res} {
				if err := w.Add(msg); err != nil {
					t.Fatal(err)
				}
				if err := rec.Add(ctx, msg); err != nil {
					t.Fatal(err)
				}
			}
			want := newTestState("a.go")
			if c.save {
				if err := rec.SaveState(ctx, want); err != nil {
					t.Fatal(err)
				}
			}
			if c.keep {
				raw, _ := json.Marshal(want)
				rec.KeepState(raw)
			}
			if err := rec.Compacted(ctx, w, session.CompactMetadata{PreTokens: 10, Strategy: "test"}); err != nil {
				t.Fatal(err)
			}
			if c.saveAfter {
				want = newTestState("a.go", "b.go")
				if err := rec.SaveState(ctx, want); err != nil {
					t.Fatal(err)
				}
			}

			tr, err := st.Load(ctx, id, session.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !tr.Entries[0].IsBoundary() {
				t.Fatalf("Load did not start at the boundary: %q", tr.Entries[0].Type)
			}
			raw, ok := session.LastState(tr.Entries)
			if ok != (c.save || c.keep) {
				t.Fatalf("LastState ok = %v (%s)", ok, raw)
			}
			if ok {
				if d := cmp.Diff(want, decodeState(t, raw)); d != "" {
					t.Errorf("state after compaction (-want +got):\n%s", d)
				}
			}
			if got := restored(t, st, id, opts); diffWindows(got, w) != "" {
				t.Errorf("restored window differs:\n%s", diffWindows(got, w))
			}
			es, rps := read(t, id, st.data(id))
			rep := session.Check(es, rps)
			if !rep.OK() || rep.Foreign != 0 || rep.Abandoned != 0 {
				t.Errorf("Check = %+v", rep)
			}
			resolved, ps := session.Resolve(es)
			if len(ps) > 0 || len(resolved) != len(es) {
				t.Errorf("Resolve kept %d of %d entries, problems %v", len(resolved), len(es), ps)
			}
		})
	}
}
