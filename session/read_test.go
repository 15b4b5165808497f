package session_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/google/go-cmp/cmp"
)

// wantProblem is a problem as a test expects it.
type wantProblem struct {
	Kind     session.ProblemKind
	Line     int
	Offset   int64
	UUID     string
	Repaired bool
}

func problemsOf(ps []session.Problem) []wantProblem {
	out := []wantProblem{}
	for _, p := range ps {
		out = append(out, wantProblem{p.Kind, p.Line, p.Offset, p.UUID, p.Repaired})
	}
	return out
}

func TestRead(t *testing.T) {
	t.Parallel()
	a := `{"uuid":"a","parentUuid":null,"type":"user","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}`
	b := `{"uuid":"b","parentUuid":"a","type":"assistant","message":{"role":"assistant","parts":[]}}`
	c := `{"uuid":"c","parentUuid":"b","type":"user","message":{"role":"user","content":"x"}}`
	off := func(ls ...string) int64 {
		n := 0
		for _, l := range ls {
			n += len(l) + 1
		}
		return int64(n)
	}
	cut := `{"uuid":"q","type":"user","message":{"role":"user","content":"x"}`
	tests := []struct {
		name      string
		data      string
		wantUUIDs []string
		wantLines []int
		wantOffs  []int64
		want      []wantProblem
	}{
		{
			name: "clean", data: a + "\n" + b + "\n",
			wantUUIDs: []string{"a", "b"}, wantLines: []int{1, 2}, wantOffs: []int64{0, off(a)},
			want: []wantProblem{},
		},
		{
			name: "blank lines and CRLF", data: a + "\r\n\n" + b + "\r\n",
			wantUUIDs: []string{"a", "b"}, wantLines: []int{1, 3}, wantOffs: []int64{0, int64(len(a)) + 3},
			want: []wantProblem{},
		},
		{
			name: "torn last line that does not decode", data: a + "\n" + b[:30],
			wantUUIDs: []string{"a"}, wantLines: []int{1}, wantOffs: []int64{0},
			want: []wantProblem{{session.ProblemTornLine, 2, off(a), "", false}},
		},
		{
			name: "torn last line that is complete", data: a + "\n" + b,
			wantUUIDs: []string{"a", "b"}, wantLines: []int{1, 2}, wantOffs: []int64{0, off(a)},
			want: []wantProblem{{session.ProblemTornLine, 2, off(a), "b", true}},
		},
		{
			name: "malformed line mid-file", data: a + "\n" + "garbage {\n" + b + "\n",
			wantUUIDs: []string{"a", "b"}, wantLines: []int{1, 3}, wantOffs: []int64{0, off(a, "garbage {")},
			want: []wantProblem{{session.ProblemMalformed, 2, off(a), "", false}},
		},
		{
			name: "line without a type", data: a + "\n" + `{"uuid":"z"}` + "\n",
			wantUUIDs: []string{"a"}, wantLines: []int{1}, wantOffs: []int64{0},
			want: []wantProblem{{session.ProblemMalformed, 2, off(a), "", false}},
		},
		{
			name: "torn line mid-file then appends", data: a + "\n" + b[:40] + "\n" + c + "\n",
			wantUUIDs: []string{"a", "c"}, wantLines: []int{1, 3}, wantOffs: []int64{0, off(a, b[:40])},
			want: []wantProblem{
				{session.ProblemTornLine, 2, off(a), "", false},
				{session.ProblemAfterTorn, 3, off(a, b[:40]), "c", true},
			},
		},
		{
			name: "torn line with the next append glued to it", data: a + "\n" + b[:33] + c + "\n",
			wantUUIDs: []string{"a", "c"}, wantLines: []int{1, 2}, wantOffs: []int64{0, off(a) + 33},
			want: []wantProblem{
				{session.ProblemTornLine, 2, off(a), "", false},
				{session.ProblemAfterTorn, 2, off(a) + 33, "c", true},
			},
		},
		{
			name: "torn inside a nested object, glued", data: a + "\n" + c[:60] + b + "\n",
			wantUUIDs: []string{"a", "b"}, wantLines: []int{1, 2}, wantOffs: []int64{0, off(a) + 60},
			want: []wantProblem{
				{session.ProblemTornLine, 2, off(a), "", false},
				{session.ProblemAfterTorn, 2, off(a) + 60, "b", true},
			},
		},
		{
			// A nested object that ends the line is not an entry.
			name: "cut after a nested object", data: cut + "\n" + a + "\n",
			wantUUIDs: []string{"a"}, wantLines: []int{2}, wantOffs: []int64{off(cut)},
			want: []wantProblem{{session.ProblemTornLine, 1, 0, "", false}, {session.ProblemAfterTorn, 2, off(cut), "a", true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			es, ps, err := session.Read(strings.NewReader(tt.data), session.ReadOptions{File: "s.jsonl", FirstLine: 1})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			var ls []int
			var offs []int64
			for _, e := range es {
				ls = append(ls, e.Line)
				offs = append(offs, e.Offset)
			}
			if diff := cmp.Diff(tt.wantUUIDs, uuids(es)); diff != "" {
				t.Errorf("uuids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLines, ls); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOffs, offs); diff != "" {
				t.Errorf("offsets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, problemsOf(ps)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, p := range ps {
				if p.File != "s.jsonl" || p.Detail == "" {
					t.Errorf("problem %+v: want File s.jsonl and a detail", p)
				}
			}
			// Each entry's Offset is where its bytes are in the input.
			for _, e := range es {
				if !bytes.HasPrefix([]byte(tt.data[e.Offset:]), e.Raw) {
					t.Errorf("entry %s: Raw is not at byte %d", e.UUID, e.Offset)
				}
			}
		})
	}
}

func TestReadMidFile(t *testing.T) {
	t.Parallel()
	b := `{"uuid":"b","type":"user","message":{"role":"user","content":"y"}}` + "\n"
	es, ps, err := session.Read(strings.NewReader("torn\n"+b), session.ReadOptions{File: "f", Start: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := []wantProblem{{session.ProblemMalformed, 0, 1000, "", false}}
	if diff := cmp.Diff(want, problemsOf(ps)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(es) != 1 || es[0].Offset != 1005 || es[0].Line != 0 {
		t.Errorf("entries = %+v; want b at byte 1005, line unknown (0)", es)
	}
}

// errReader fails after its data.
type errReader struct{ r io.Reader }

var errDisk = errors.New("disk on fire")

func (e errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, errDisk
	}
	return n, err
}

func TestReadError(t *testing.T) {
	t.Parallel()
	a := `{"uuid":"a","type":"user"}` + "\n"
	es, _, err := session.Read(errReader{strings.NewReader(a)}, session.ReadOptions{File: "f.jsonl"})
	if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), "f.jsonl") {
		t.Errorf("error = %v, want errDisk wrapped with the file name", err)
	}
	if len(es) != 1 {
		t.Errorf("got %d entries, want the one read before the error", len(es))
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, _, err := session.ReadFile(filepath.Join(dir, "missing.jsonl"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error = %v, want fs.ErrNotExist", err)
	}
	p := filepath.Join(dir, "s.jsonl")
	data := string(lines(ccLine("a", "", "user", `{"role":"user","content":"hi"}`))) + "{torn"
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	es, ps, err := session.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || len(ps) != 1 || ps[0].File != p || ps[0].Line != 2 || ps[0].Kind != session.ProblemTornLine {
		t.Errorf("ReadFile = %d entries, problems %+v; want 1 entry and a torn line 2 naming the file", len(es), ps)
	}
}

func TestReadHugeLine(t *testing.T) {
	t.Parallel()
	// Longer than ReadLines' 256 KiB buffer; jsonlstore tests 64 MiB.
	big := strings.Repeat("x", 2<<20)
	e := mustEntry(t, user(big))
	e.UUID = "big"
	data := marshalAll(t, []session.Entry{e, {UUID: "next", ParentUUID: "big", Type: "progress"}})
	es, ps := read(t, "big.jsonl", data)
	if len(ps) > 0 || len(es) != 2 {
		t.Fatalf("got %d entries, problems %v; want 2 and none", len(es), ps)
	}
	msgs, err := es[0].Messages()
	if err != nil || len(msgs) != 1 || msgs[0].Text() != big {
		t.Errorf("the 2 MiB message did not survive (err %v)", err)
	}
	if es[1].Offset != int64(len(es[0].Raw)+1) {
		t.Errorf("second entry at byte %d, want %d", es[1].Offset, len(es[0].Raw)+1)
	}
}

// TestReadHostileLines reads lines built to make the search for a glued
// entry quadratic; reading them must stay linear (a quadratic search would
// not finish within the test's time limit).
func TestReadHostileLines(t *testing.T) {
	t.Parallel()
	n := 1 << 20
	if raceEnabled {
		n = 1 << 17
	}
	for _, line := range []string{
		strings.Repeat(`{"`, n) + "}",
		strings.Repeat(`{"a":`, n/3) + `{"b":1}`,
		strings.Repeat(`{"a":1}`, n/7) + "}",
	} {
		es, ps := read(t, "hostile.jsonl", []byte(line+"\n"))
		if len(es) != 0 || len(ps) != 1 {
			t.Errorf("hostile line of %d bytes: %d entries, problems %v; want none and one problem", len(line), len(es), kinds(ps))
		}
	}
}
