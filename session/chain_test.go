package session_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/google/go-cmp/cmp"
)

// our returns an agentctx line: a user (even n) or assistant (odd n)
// message entry with the given uuid and parent ("" for null).
func our(t testing.TB, n int, uuid, parent string) string {
	t.Helper()
	m := user(fmt.Sprintf("message %d", n))
	if n%2 == 1 {
		m = asst(fmt.Sprintf("reply %d", n))
	}
	e := mustEntry(t, m)
	e.UUID, e.ParentUUID, e.SessionID = uuid, parent, "s1"
	l, err := session.MarshalLine(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(l)
}

// chainCase is a damaged transcript, what resolving it must give, and
// what checking it must report.
type chainCase struct {
	name     string
	data     []byte
	resolved []string      // uuids Resolve returns, in order
	check    []wantProblem // what Check reports
}

func damagedChains(t testing.TB) []chainCase {
	a, b, c, d, e := our(t, 0, "a", ""), our(t, 1, "b", "a"), our(t, 2, "c", "b"), our(t, 3, "d", "c"), our(t, 4, "e", "d")
	at := func(ls ...string) int64 { // byte offset after ls
		n := 0
		for _, l := range ls {
			n += len(l) + 1
		}
		return int64(n)
	}
	torn := c[:25]
	a2, c2, c3 := our(t, 0, "a", "nowhere"), our(t, 2, "c", ""), our(t, 3, "c", "e")
	return []chainCase{
		{
			name: "sound", data: lines(a, b, c, d), resolved: []string{"a", "b", "c", "d"}, check: []wantProblem{},
		},
		{
			name:     "dangling parent in the middle",
			data:     lines(a, b, our(t, 2, "c", "gone"), d),
			resolved: []string{"a", "b", "c", "d"},
			check:    []wantProblem{{session.ProblemDanglingParent, 3, at(a, b), "c", true}},
		},
		{
			name:     "cycle",
			data:     lines(a, b, our(t, 2, "c", "d"), d),
			resolved: []string{"a", "b", "c", "d"},
			check:    []wantProblem{{session.ProblemCycle, 3, at(a, b), "c", true}},
		},
		{
			name:     "duplicate uuid",
			data:     lines(a, b, our(t, 2, "b", "b"), our(t, 3, "d", "b")),
			resolved: []string{"a", "b", "b", "d"},
			check:    []wantProblem{{session.ProblemDuplicateUUID, 3, at(a, b), "b", true}},
		},
		{
			name:     "null parent mid-file",
			data:     lines(a, b, our(t, 2, "c", ""), d),
			resolved: []string{"a", "b", "c", "d"},
			check:    []wantProblem{{session.ProblemDanglingParent, 3, at(a, b), "c", true}},
		},
		{
			name:     "torn last line",
			data:     []byte(string(lines(a, b)) + torn),
			resolved: []string{"a", "b"},
			check:    []wantProblem{{session.ProblemTornLine, 3, at(a, b), "", false}},
		},
		{
			name:     "glued torn line",
			data:     []byte(string(lines(a, b)) + torn + string(lines(d, e))),
			resolved: []string{"a", "b", "d", "e"},
			check: []wantProblem{
				{session.ProblemTornLine, 3, at(a, b), "", false},
				{session.ProblemAfterTorn, 3, at(a, b) + int64(len(torn)), "d", true},
				{session.ProblemDanglingParent, 3, at(a, b) + int64(len(torn)), "d", true},
			},
		},
		{
			name:     "everything at once",
			data:     lines(a2, b, c2, c3, our(t, 4, "e", "c")),
			resolved: []string{"a", "b", "c", "c", "e"},
			check: []wantProblem{
				// a's parent is not in the file: it links out (a
				// continued session), which loses nothing.
				{session.ProblemDanglingParent, 3, at(a2, b), "c", true},
				{session.ProblemCycle, 4, at(a2, b, c2), "c", true},
				{session.ProblemDuplicateUUID, 4, at(a2, b, c2), "c", true},
			},
		},
	}
}

func TestDamagedChains(t *testing.T) {
	t.Parallel()
	for _, tt := range damagedChains(t) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			es, rps := read(t, "s.jsonl", tt.data)
			res, _ := session.Resolve(es)
			if diff := cmp.Diff(tt.resolved, uuids(res)); diff != "" {
				t.Errorf("Resolve uuids (-want +got):\n%s", diff)
			}
			rep := session.Check(es, rps)
			rep.SetFile("s.jsonl")
			if diff := cmp.Diff(tt.check, problemsOf(rep.Problems)); diff != "" {
				t.Errorf("Check problems (-want +got):\n%s", diff)
			}
			for _, p := range rep.Problems {
				if p.File != "s.jsonl" || p.Line == 0 || p.Detail == "" {
					t.Errorf("problem %+v: want file, line and detail", p)
				}
			}
			// Torn lines (and the entries after them) are warnings: a
			// transcript with nothing else is OK.
			wantOK := true
			for _, p := range tt.check {
				wantOK = wantOK && (p.Kind == session.ProblemTornLine || p.Kind == session.ProblemAfterTorn)
			}
			if rep.OK() != wantOK {
				t.Errorf("OK() = %v with problems %v", rep.OK(), problemsOf(rep.Problems))
			}
			if rep.Messages != len(tt.resolved) || rep.Abandoned != 0 || rep.Entries != len(es) {
				t.Errorf("report %+v: want %d messages, none abandoned", rep, len(tt.resolved))
			}

			// Repair: every readable entry kept in file order, the chain
			// sound, the same conversation.
			fixed, fixes := session.Repair(es)
			if len(fixed) != len(es) {
				t.Fatalf("Repair returned %d entries, want %d", len(fixed), len(es))
			}
			for _, f := range fixes {
				if !f.Repaired || f.Line == 0 {
					t.Errorf("fix %+v: want Repaired and a line", f)
				}
			}
			again, aps := read(t, "fixed.jsonl", marshalAll(t, fixed))
			if len(aps) > 0 {
				t.Errorf("repaired file read problems: %v", aps)
			}
			r2 := session.Check(again, aps)
			if !r2.OK() {
				t.Errorf("repaired file: Check = %+v, want OK", r2.Problems)
			}
			res2, _ := session.Resolve(again)
			if len(res2) != len(res) {
				t.Errorf("repaired file resolves to %d entries, want %d", len(res2), len(res))
			}
			m1, _ := session.Messages(res)
			m2, _ := session.Messages(res2)
			if diff := cmp.Diff(m1, m2); diff != "" {
				t.Errorf("repaired conversation differs (-before +after):\n%s", diff)
			}
		})
	}
}

// TestResolveBranches covers trees that are not damaged: a rewind leaves
// an abandoned branch, Claude Code's parallel tool calls fork the tree
// without leaving the conversation.
func TestResolveBranches(t *testing.T) {
	t.Parallel()
	asstLine := func(uuid, parent, id, block string) string {
		return ccLine(uuid, parent, "assistant", fmt.Sprintf(`{"role":"assistant","model":"m","id":%q,"content":[%s]}`, id, block))
	}
	result := func(uuid, parent, id string) string {
		return ccLine(uuid, parent, "user", fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"out"}]}`, id))
	}
	use := func(id string) string { return fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Bash","input":{}}`, id) }
	progress := func(uuid, parent string) string {
		return fmt.Sprintf(`{"parentUuid":%q,"type":"progress","uuid":%q,"data":{"type":"hook_progress"}}`, parent, uuid)
	}
	tests := []struct {
		name      string
		data      []byte
		resolved  []string
		abandoned int
		messages  int
	}{
		{
			name: "rewind",
			data: lines(
				ccLine("u1", "", "user", `{"role":"user","content":"first"}`),
				asstLine("a1", "u1", "m1", `{"type":"text","text":"ok"}`),
				ccLine("u2", "a1", "user", `{"role":"user","content":"do X"}`),
				asstLine("a2", "u2", "m2", `{"type":"text","text":"did X"}`),
				progress("p1", "a2"),
				ccLine("u2b", "a1", "user", `{"role":"user","content":"do Y instead"}`),
				asstLine("a2b", "u2b", "m3", `{"type":"text","text":"did Y"}`),
			),
			resolved: []string{"u1", "a1", "u2b", "a2b"}, abandoned: 2, messages: 4,
		},
		{
			name: "regenerated response",
			data: lines(
				ccLine("u1", "", "user", `{"role":"user","content":"first"}`),
				asstLine("a1", "u1", "m1", `{"type":"text","text":"bad answer"}`),
				asstLine("a1b", "u1", "m2", `{"type":"text","text":"better answer"}`),
			),
			resolved: []string{"u1", "a1b"}, abandoned: 1, messages: 2,
		},
		{
			name: "parallel tool calls",
			data: lines(
				ccLine("u1", "", "user", `{"role":"user","content":"look"}`),
				asstLine("a1", "u1", "m1", use("t1")),
				progress("p1", "a1"),
				asstLine("a2", "p1", "m1", use("t2")),
				asstLine("a3", "a2", "m1", use("t3")),
				progress("p2", "a3"),
				result("r1", "a1", "t1"),
				result("r3", "a3", "t3"),
				progress("p3", "r3"),
				result("r2", "a2", "t2"),
				asstLine("a4", "r2", "m2", `{"type":"text","text":"done"}`),
			),
			resolved: []string{"u1", "a1", "p1", "a2", "a3", "p2", "r1", "r3", "p3", "r2", "a4"}, messages: 6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			es, rps := read(t, "b.jsonl", tt.data)
			res, ps := session.Resolve(es)
			if diff := cmp.Diff(tt.resolved, uuids(res)); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
			if len(ps) > 0 {
				t.Errorf("Resolve problems: %v", ps)
			}
			rep := session.Check(es, rps)
			if rep.Abandoned != tt.abandoned || rep.Messages != tt.messages || !rep.OK() {
				t.Errorf("Check = %+v; want %d abandoned, %d messages, OK", rep, tt.abandoned, tt.messages)
			}
			msgs, _ := session.Messages(res)
			if p := chat.Pair(msgs); len(p.Orphans) > 0 || p.Dangling > 0 {
				t.Errorf("conversation has orphan results %v or %d calls without result", p.Orphans, p.Dangling)
			}
		})
	}
}

func TestResolveSidechain(t *testing.T) {
	t.Parallel()
	side := func(l string) string { return strings.Replace(l, `"isSidechain":false`, `"isSidechain":true`, 1) }
	main := lines(
		ccLine("u1", "", "user", `{"role":"user","content":"main"}`),
		side(ccLine("s1", "u1", "user", `{"role":"user","content":"task"}`)),
		`{"type":"file-history-snapshot","messageId":"x"}`,
		ccLine("a1", "u1", "assistant", `{"role":"assistant","id":"m","content":"ok"}`),
	)
	es, _ := read(t, "main.jsonl", main)
	res, ps := session.Resolve(es)
	if diff := cmp.Diff([]string{"u1", "a1"}, uuids(res)); diff != "" || len(ps) > 0 {
		t.Errorf("main file: Resolve (-want +got):\n%s\nproblems %v", diff, ps)
	}
	// A sub-agent's file: its first line names a parent in the main file.
	sub := lines(
		side(ccLine("s1", "u1", "user", `{"role":"user","content":"task"}`)),
		side(ccLine("s2", "s1", "assistant", `{"role":"assistant","id":"m","content":"report"}`)),
	)
	es, rps := read(t, "agent.jsonl", sub)
	res, ps = session.Resolve(es)
	if diff := cmp.Diff([]string{"s1", "s2"}, uuids(res)); diff != "" || len(ps) > 0 {
		t.Errorf("sub-agent file: Resolve (-want +got):\n%s\nproblems %v", diff, ps)
	}
	fixed, fixes := session.Repair(es)
	if len(fixes) > 0 || fixed[0].ParentUUID != "u1" {
		t.Errorf("Repair changed a sub-agent file: %v", fixes)
	}
	if rep := session.Check(es, rps); !rep.OK() || rep.Sidechain != 2 || rep.Messages != 2 {
		t.Errorf("Check = %+v, want OK with 2 side-chain entries", rep)
	}
}

func TestResolveLong(t *testing.T) {
	t.Parallel()
	// 100,000 entries whose every link is broken: each fallback must find
	// the previous entry in O(1) amortized (BenchmarkResolve times it).
	n := 100_000
	if raceEnabled {
		n = 20_000
	}
	es := make([]session.Entry, n)
	for i := range es {
		es[i] = session.Entry{UUID: fmt.Sprint("e", i), ParentUUID: fmt.Sprint("x", i), Type: "progress", Line: i + 1}
	}
	res, ps := session.Resolve(es)
	// The first entry's link points out of the file, which is no damage.
	if len(res) != n || len(ps) != n-1 {
		t.Errorf("Resolve = %d entries, %d problems; want %d and %d", len(res), len(ps), n, n-1)
	}
	// The same entries soundly linked, in one chain.
	for i := 1; i < n; i++ {
		es[i].ParentUUID = es[i-1].UUID
	}
	es[0].ParentUUID = ""
	res, ps = session.Resolve(es)
	if len(res) != n || len(ps) != 0 {
		t.Errorf("sound chain: Resolve = %d entries, %d problems; want %d and none", len(res), len(ps), n)
	}
}

func TestLive(t *testing.T) {
	t.Parallel()
	msg := func(u string) session.Entry {
		e := mustEntry(t, user(u))
		e.UUID = u
		return e
	}
	bnd := func(u string, n int) session.Entry {
		return session.Entry{UUID: u, Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary, CompactMetadata: &session.CompactMetadata{Messages: n}, Line: 7, Offset: 99}
	}
	progress := session.Entry{Type: "progress"}
	tests := []struct {
		name  string
		es    []session.Entry
		want  int
		probs int
	}{
		{"empty", nil, 0, 0},
		{"no boundary", []session.Entry{msg("a"), msg("b")}, 0, 0},
		{"claude code boundary", []session.Entry{msg("a"), bnd("B", 0)}, 1, 0},
		{"complete", []session.Entry{msg("a"), bnd("B", 2), msg("c"), progress, msg("d"), msg("e")}, 1, 0},
		{"incomplete after complete", []session.Entry{msg("a"), bnd("B", 1), msg("c"), bnd("C", 3), msg("d"), progress, msg("e")}, 1, 1},
		{"only boundary incomplete", []session.Entry{msg("a"), bnd("B", 3), msg("c")}, 0, 1},
		{"two incomplete", []session.Entry{bnd("A", 2), msg("a"), bnd("B", 3), msg("c")}, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ps := session.Live(tt.es)
			if got != tt.want || len(ps) != tt.probs {
				t.Errorf("Live = %d, %v; want %d and %d problems", got, ps, tt.want, tt.probs)
			}
			for _, p := range ps {
				if p.Kind != session.ProblemIncompleteBoundary || p.Line != 7 || p.Offset != 99 {
					t.Errorf("problem %+v: want an incomplete boundary at line 7, byte 99", p)
				}
			}
		})
	}
}

func TestCheckOrphans(t *testing.T) {
	t.Parallel()
	c1 := mustEntry(t, call("c1", "Read", `{}`))
	r1 := mustEntry(t, chat.NewToolResult("c1", "Read", "x", false))
	bnd := session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary, CompactMetadata: &session.CompactMetadata{}}
	cc := func(id string) session.Entry {
		e, err := session.DecodeLine([]byte(ccLine("", "", "user", fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"y"}]}`, id))))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	es := []session.Entry{mustEntry(t, user("go")), c1, r1, r1, cc("c1"), bnd, cc("c1"), mustEntry(t, user("more"))}
	for i := range es {
		es[i].UUID = fmt.Sprintf("e%d", i)
		if i > 0 && i != 5 {
			es[i].ParentUUID = fmt.Sprintf("e%d", i-1)
		}
		es[i].Line = i + 1
	}
	rep := session.Check(es, nil)
	var got []int
	for _, p := range rep.Problems {
		if p.Kind != session.ProblemOrphanResult {
			t.Errorf("unexpected problem %+v", p)
		}
		got = append(got, p.Line)
	}
	if diff := cmp.Diff([]int{4, 5, 7}, got); diff != "" {
		t.Errorf("orphan lines (-want +got):\n%s", diff)
	}
}

func TestRepairKeepsForeignBytes(t *testing.T) {
	t.Parallel()
	prog := `{"parentUuid":"gone","isSidechain":false,"type":"progress","data":{"parentUuid":"inner","x":[1, 2]},"uuid":"p1","toolUseID":"t"}`
	userCC := `{"parentUuid":null,"type":"user","uuid":"u2","message":{"role":"user","content":"hi"},"requestId":"req_1","toolUseResult":{"stdout":"x"}}`
	dup := `{"parentUuid":"p1","type":"user","uuid":"p1","message":{"role":"user","content":"again"},"isMeta":false}`
	data := lines(ccLine("u1", "", "user", `{"role":"user","content":"start"}`), prog, userCC, dup)
	es, _ := read(t, "f.jsonl", data)
	fixed, fixes := session.Repair(es)
	if diff := cmp.Diff([]session.ProblemKind{session.ProblemDanglingParent, session.ProblemDanglingParent, session.ProblemDuplicateUUID}, kinds(fixes)); diff != "" {
		t.Errorf("fixes (-want +got):\n%s", diff)
	}
	out := strings.Split(strings.TrimSuffix(string(marshalAll(t, fixed)), "\n"), "\n")
	if want := strings.Replace(prog, `"parentUuid":"gone"`, `"parentUuid":"u1"`, 1); out[1] != want {
		t.Errorf("progress line:\n got %s\nwant %s", out[1], want)
	}
	if want := strings.Replace(userCC, `"parentUuid":null`, `"parentUuid":"p1"`, 1); out[2] != want {
		t.Errorf("Claude Code user line:\n got %s\nwant %s", out[2], want)
	}
	fresh := fixed[3].UUID
	// Its parent, p1, is the progress line written before it: kept.
	if want := strings.Replace(dup, `"uuid":"p1"`, fmt.Sprintf("%q:%q", "uuid", fresh), 1); out[3] != want || fresh == "p1" {
		t.Errorf("duplicate line:\n got %s\nwant %s", out[3], want)
	}
	if es[1].ParentUUID != "gone" {
		t.Errorf("Repair modified its input")
	}
}

func TestMarshalLineKeepsRaw(t *testing.T) {
	t.Parallel()
	line := ccLine("u1", "", "user", `{"role":"user","content":"hi"}`, `"requestId":"r","toolUseResult":{"a":1}`)
	e, err := session.DecodeLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	got, err := session.MarshalLine(e)
	if err != nil || string(got) != line {
		t.Errorf("unchanged entry: MarshalLine = %s, %v; want the line as read", got, err)
	}
	e.SessionID = "other"
	got, err = session.MarshalLine(e)
	if err != nil || strings.Contains(string(got), "requestId") || !strings.Contains(string(got), `"sessionId":"other"`) {
		t.Errorf("changed entry: MarshalLine = %s, %v; want it encoded from its fields", got, err)
	}
	f, err := session.DecodeLine([]byte("{\"type\":\"progress\",\r\"uuid\":\"p\"}\r"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = session.MarshalLine(f)
	if err != nil || string(got) != `{"type":"progress","uuid":"p"}` {
		t.Errorf("foreign line with a CR: MarshalLine = %q, %v; want it compacted", got, err)
	}
}

// TestLiveTornSnapshotThenAppends is the crash case: a compaction's write
// (boundary + snapshot) is torn after its first snapshot line, the writer
// restarts and appends more entries. Those later entries must not be
// counted as the torn snapshot's, however many there are.
func TestLiveTornSnapshotThenAppends(t *testing.T) {
	t.Parallel()
	bnd := session.Entry{UUID: "B", SessionID: "s1", Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary,
		LogicalParentUUID: "u1", CompactMetadata: &session.CompactMetadata{Trigger: "auto", Messages: 3}}
	bl, err := session.MarshalLine(bnd)
	if err != nil {
		t.Fatal(err)
	}
	data := lines(our(t, 0, "u0", ""), our(t, 1, "u1", "u0"), string(bl), our(t, 2, "s0", "B"),
		`{"uuid":"s1","parentUuid":"s0","type":"assi`, // torn by the crash
		our(t, 3, "u3", "s0"), our(t, 4, "u4", "u3"), our(t, 5, "u5", "u4"))
	es, _ := read(t, "torn.jsonl", data)
	start, ps := session.Live(es)
	if start != 0 {
		t.Errorf("Live start = %d (%s), want 0: the boundary's snapshot was torn", start, es[start].UUID)
	}
	if k := kinds(ps); len(k) != 1 || k[0] != session.ProblemIncompleteBoundary {
		t.Errorf("Live problems = %v, want one incomplete boundary", ps)
	}
	// Without the tear the same lines make a complete boundary.
	data = lines(our(t, 0, "u0", ""), our(t, 1, "u1", "u0"), string(bl), our(t, 2, "s0", "B"),
		our(t, 3, "u3", "s0"), our(t, 4, "u4", "u3"), our(t, 5, "u5", "u4"))
	es, _ = read(t, "whole.jsonl", data)
	if start, ps := session.Live(es); start != 2 || len(ps) != 0 {
		t.Errorf("Live = %d, %v; want 2 and no problems", start, ps)
	}
}

// TestCheckDanglingOffChain: a dangling parent on an entry the walk from
// the last entry never reaches (a Claude Code progress line) is reported
// too, not only those on the live chain.
func TestCheckDanglingOffChain(t *testing.T) {
	t.Parallel()
	data := lines(
		ccLine("a", "", "user", `{"role":"user","content":"go"}`),
		ccLine("b", "a", "assistant", `{"role":"assistant","id":"m1","content":[{"type":"text","text":"ok"}]}`),
		ccLine("p", "nope", "progress", ""),
		ccLine("c", "b", "user", `{"role":"user","content":"more"}`),
	)
	es, ps := read(t, "off.jsonl", data)
	rep := session.Check(es, ps)
	if rep.OK() || len(rep.Problems) != 1 {
		t.Fatalf("Check problems = %+v, want one dangling parent", rep.Problems)
	}
	if p := rep.Problems[0]; p.Kind != session.ProblemDanglingParent || p.Line != 3 || p.UUID != "p" {
		t.Errorf("problem = %+v, want a dangling parent at line 3 (uuid p)", p)
	}
}

// TestCheckFirstEntryLinksOut: a file whose first entry's parent lives in
// another file (a session continued from an earlier one) is not damaged.
func TestCheckFirstEntryLinksOut(t *testing.T) {
	t.Parallel()
	data := lines(
		ccLine("a", "in-the-previous-file", "user", `{"role":"user","content":"go on"}`),
		ccLine("b", "a", "assistant", `{"role":"assistant","id":"m1","content":[{"type":"text","text":"ok"}]}`),
	)
	es, ps := read(t, "continued.jsonl", data)
	if rep := session.Check(es, ps); !rep.OK() || rep.Messages != 2 {
		t.Errorf("Check = %+v, want OK with 2 messages", rep)
	}
}
