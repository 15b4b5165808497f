package session_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// claudeFiles returns the Claude Code sessions and sub-agent files of the
// shared data.
func claudeFiles(t *testing.T) []string {
	t.Helper()
	root := sharedtest.Dir(t)
	files, _ := filepath.Glob(filepath.Join(root, "claude-code", "*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(root, "claude-code", "*", "subagents", "*.jsonl"))
	files = append(files, sub...)
	if len(files) == 0 {
		t.Fatalf("no Claude Code files under %s", root)
	}
	return files
}

// TestClaudeCodeRealFiles reads every real Claude Code file through
// ReadFile, Resolve and Messages and compares the conversation with what
// package transcript reads from the same file in file order: the same
// messages, but for the ids each reader gives user messages.
func TestClaudeCodeRealFiles(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	for _, f := range claudeFiles(t) {
		rel, _ := filepath.Rel(root, f)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			es, rps, err := session.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res, cps := session.Resolve(es)
			msgs, mps := session.Messages(res)
			trs, err := transcript.ReadFile(f, transcript.Options{Format: transcript.FormatClaudeCode})
			if err != nil {
				t.Fatal(err)
			}
			want := trs[0].Messages
			if len(msgs) != len(want) {
				t.Errorf("%d messages, transcript reads %d", len(msgs), len(want))
			}
			opts := cmp.Options{
				cmpopts.IgnoreFields(chat.Message{}, "ID"),
				cmpopts.EquateEmpty(),
				cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) }),
			}
			if diff := cmp.Diff(want, msgs, opts); diff != "" {
				t.Errorf("conversation differs from transcript's (-transcript +session):\n%s", diff)
			}
			rep := session.Check(es, rps)
			rep.SetFile(rel)
			t.Logf("%s: %d lines, %d entries (%d foreign, %d side-chain), %d boundaries, %d messages, %d abandoned; %d problems (read %d, chain %d, messages %d)",
				rel, rep.Lines, rep.Entries, rep.Foreign, rep.Sidechain, rep.Boundaries, rep.Messages, rep.Abandoned, len(rep.Problems), len(rps), len(cps), len(mps))
			for _, p := range rep.Problems {
				t.Logf("  %s line %d (byte %d): %s", p.Kind, p.Line, p.Offset, p.Detail)
			}
			if !rep.OK() || rep.Messages != len(msgs) || rep.Lines != rep.Entries {
				t.Errorf("Check = %+v; the shared files are sound", rep)
			}
		})
	}
}

// TestClaudeCodeRealRepair rewrites every real Claude Code file through
// Repair and MarshalLine: a sound file comes back byte for byte, every
// field Claude Code wrote included.
func TestClaudeCodeRealRepair(t *testing.T) {
	t.Parallel()
	for _, f := range claudeFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			es, _ := read(t, f, data)
			fixed, fixes := session.Repair(es)
			if len(fixes) > 0 {
				t.Errorf("Repair of a sound file made fixes: %v", fixes)
			}
			if got := marshalAll(t, fixed); !bytes.Equal(got, data) {
				t.Errorf("rewritten file differs from the original (%d bytes, want %d)", len(got), len(data))
			}
		})
	}
}

// TestClaudeCodeRealRestore restores the live window of the real Claude
// Code session that auto-compacted: it starts at the summary.
func TestClaudeCodeRealRestore(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	f := filepath.Join(root, "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	es, rps, err := session.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	start, lps := session.Live(es)
	res, cps := session.Resolve(es[start:])
	w, ps, err := session.Restore(res, window.Options{Counter: quarterCounter{}})
	if err != nil || len(rps)+len(lps)+len(cps)+len(ps) > 0 {
		t.Fatalf("Restore: %v; problems %v %v %v %v", err, rps, lps, cps, ps)
	}
	if vs := w.Check(); len(vs) > 0 {
		t.Errorf("restored window: %v", vs)
	}
	first := w.At(0)
	if !es[start].IsBoundary() || first.Role != chat.RoleUser || !bytes.HasPrefix([]byte(first.Text()), []byte("This session is being continued")) {
		t.Errorf("restored window starts with %s %.60q, want the compaction summary", first.Role, first.Text())
	}
	all, _ := session.Messages(res)
	if w.Len() != len(all) {
		t.Errorf("window holds %d messages, the live part has %d", w.Len(), len(all))
	}
	t.Logf("live part: %d of %d entries, %d messages, %d tokens (quarter counter), anchor %+v", len(res), len(es), w.Len(), w.Tokens(), w.Anchor())
}

// TestClaudeCodeRealDamaged damages the real session that compacted (a
// line removed from the middle of the chain, one turned into garbage, the
// last one torn) and checks that the conversation survives whole but for
// what was destroyed, that Check names each defect, and that Repair gives
// a sound file with the same conversation.
func TestClaudeCodeRealDamaged(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	data, err := os.ReadFile(filepath.Join(root, "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ls := bytes.SplitAfter(data, []byte("\n"))
	ls = ls[:len(ls)-1] // the empty piece after the last newline
	if raceEnabled {
		ls = ls[:800] // past the compact boundary (line 714), within the race detector's time
		data = bytes.Join(ls, nil)
	}
	es, _ := read(t, "orig", data)
	// An assistant line in the middle whose child follows it, before the
	// boundary (so that the walk must cross the damage).
	cut := -1
	for i := len(es) / 5; i < len(es)-1; i++ {
		if es[i].Type == session.TypeAssistant && es[i+1].ParentUUID == es[i].UUID {
			cut = i
			break
		}
	}
	garbage := cut + 40
	if cut < 0 || ls[garbage][0] != '{' {
		t.Fatalf("no line to damage")
	}
	var d bytes.Buffer
	for i, l := range ls {
		switch {
		case i == cut:
		case i == garbage:
			d.WriteString("\x00\x01 not json\n")
		case i == len(ls)-1:
			d.Write(l[:len(l)/2])
		default:
			d.Write(l)
		}
	}
	damaged, rps := read(t, "damaged.jsonl", d.Bytes())
	rep := session.Check(damaged, rps)
	got := map[session.ProblemKind]int{}
	for _, p := range rep.Problems {
		got[p.Kind]++
		if p.File != "damaged.jsonl" || p.Line == 0 {
			t.Errorf("problem without file or line: %+v", p)
		}
	}
	if got[session.ProblemMalformed] != 1 || got[session.ProblemTornLine] != 1 || got[session.ProblemDanglingParent] == 0 {
		t.Errorf("Check problems by kind = %v; want a malformed line, a torn line and dangling parents", got)
	}
	// Every entry the original conversation holds and the damage spared
	// is still in it.
	orig, _ := session.Resolve(es)
	res, _ := session.Resolve(damaged)
	have := map[string]bool{}
	for _, e := range res {
		have[e.UUID] = true
	}
	lost := map[string]bool{es[cut].UUID: true, es[garbage].UUID: true, es[len(es)-1].UUID: true}
	for _, e := range orig {
		if !have[e.UUID] && !lost[e.UUID] {
			t.Errorf("entry %s (line %d) fell out of the damaged conversation", e.UUID, e.Line)
		}
	}
	fixed, fixes := session.Repair(damaged)
	again, aps := read(t, "fixed.jsonl", marshalAll(t, fixed))
	// The tool result whose call was on the removed line stays an orphan:
	// Repair fixes the chain, it cannot invent the call.
	for _, p := range session.Check(again, aps).Problems {
		if p.Kind != session.ProblemOrphanResult {
			t.Errorf("after %d fixes, Check reports %+v", len(fixes), p)
		}
	}
	res2, _ := session.Resolve(again)
	m1, _ := session.Messages(res)
	m2, _ := session.Messages(res2)
	if diff := cmp.Diff(m1, m2); diff != "" {
		t.Errorf("repaired conversation differs (-damaged +repaired):\n%s", diff)
	}
	t.Logf("damaged: %d problems (%v); %d fixes; conversation %d of %d entries", len(rep.Problems), got, len(fixes), len(res), len(orig))
}
