//go:build unix

package jsonlstore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// helperEnv selects what TestHelperProcess does in a child process.
const helperEnv = "JSONLSTORE_TEST_HELPER"

// TestHelperProcess is not a test: run as a child process by
// TestTwoProcesses and TestCrash (with helperEnv set), it writes to a
// session of the store at $JSONLSTORE_TEST_ROOT.
//
//   - "lock": append one entry (taking the lock), print "locked", then
//     wait until stdin closes.
//   - "append": append forever, printing each entry's uuid after Append
//     returns; every 25th append is a compaction (boundary + summary).
//   - "import": Import session id from entries that never end, printing
//     "importing" after the first 200.
//   - "create": create session id (project /crash).
//   - "verify": check session id after a crash campaign (verify);
//     $JSONLSTORE_TEST_ACKED is the file of acknowledged uuids, one a line.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper for the multi-process tests")
	}
	s, err := jsonlstore.Open(jsonlstore.Options{Root: os.Getenv("JSONLSTORE_TEST_ROOT")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	id := os.Getenv("JSONLSTORE_TEST_ID")
	out := bufio.NewWriter(os.Stdout)
	switch mode {
	case "lock":
		if _, err := s.Append(ctx, id, userMsg(t, "child holds the lock")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "append":
		pad := strings.Repeat("output line\n", 40)
		for i := 0; ; i++ {
			var es []session.Entry
			switch {
			case i%25 == 24:
				es = []session.Entry{boundaryEntry(1), summaryEntry(t, fmt.Sprint("summary ", i))}
			case i%2 == 0:
				es = []session.Entry{userMsg(t, fmt.Sprint("prompt ", i))}
			default:
				es = []session.Entry{msgEntry(t, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: pad}}})}
			}
			got, err := s.Append(ctx, id, es...)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			for _, e := range got {
				fmt.Fprintln(out, e.UUID)
			}
			_ = out.Flush()
		}
	case "create":
		if _, err := s.Create(ctx, session.Session{ID: id, Project: "/crash"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	case "verify":
		os.Exit(verify(t, s, id, os.Getenv("JSONLSTORE_TEST_ACKED")))
	case "import":
		// An import that never ends: the parent kills it once it has
		// written some entries.
		es := func(yield func(session.Entry, error) bool) {
			for i := 0; ; i++ {
				if i == 200 {
					fmt.Println("importing")
				}
				if i >= 200 {
					time.Sleep(time.Millisecond)
				}
				if !yield(userMsg(t, fmt.Sprint("imported ", i)), nil) {
					return
				}
			}
		}
		_, err := s.Import(ctx, session.Session{ID: id, Project: "/imported", Origin: "claude-code:/x.jsonl"}, es)
		fmt.Fprintln(os.Stderr, "import returned", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// child returns a command running TestHelperProcess in mode.
func child(t *testing.T, mode, root, id string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "JSONLSTORE_TEST_ROOT="+root, "JSONLSTORE_TEST_ID="+id)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestTwoProcesses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	cmd := child(t, "lock", root, sess.ID)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	if _, err := s.Append(t.Context(), sess.ID, userMsg(t, "parent")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Append while another process holds the lock: %v, want ErrSessionBusy", err)
	}
	if err := s.Delete(t.Context(), sess.ID); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Delete while another process holds the lock: %v, want ErrSessionBusy", err)
	}
	if tr := mustLoad(t, s, sess.ID, true); len(tr.Entries) != 1 {
		t.Errorf("reader sees %d entries, want the child's 1", len(tr.Entries))
	}
	// When the child exits its lock goes with it.
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	if _, err := s.Append(t.Context(), sess.ID, userMsg(t, "parent")); err != nil {
		t.Errorf("Append after the child exited: %v", err)
	}
}

// TestCrash kills a child appending in a loop with SIGKILL at random
// moments, several times, and checks that every entry whose Append
// returned loads, the chain stays linear and the file accepts appends.
func TestCrash(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	const kills = 5
	var acked []string
	for k := range kills {
		cmd := child(t, "append", root, sess.ID)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the first acknowledged entry, so that each round
		// writes something, then kill at a random moment.
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			acked = append(acked, sc.Text())
		}
		delay := time.Duration(20+r.IntN(180)) * time.Millisecond
		time.Sleep(delay)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			acked = append(acked, sc.Text())
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v, want killed", k, err)
		}
		t.Logf("round %d: killed after %v, %d entries acknowledged so far", k, delay, len(acked))
	}
	if len(acked) < kills {
		t.Fatalf("only %d acknowledged entries", len(acked))
	}

	s = open(t, jsonlstore.Options{Root: root})
	tr := mustLoad(t, s, sess.ID, true)
	loaded := map[string]bool{}
	for _, e := range tr.Entries {
		if loaded[e.UUID] {
			t.Fatalf("uuid %s loaded twice", e.UUID)
		}
		loaded[e.UUID] = true
	}
	for _, u := range acked {
		if !loaded[u] {
			t.Errorf("acknowledged entry %s was lost", u)
		}
	}
	torn := 0
	for _, p := range tr.Problems {
		switch p.Kind {
		case session.ProblemTornLine, session.ProblemMalformed, session.ProblemAfterTorn:
			torn++
		default:
			t.Errorf("unexpected problem %+v", p)
		}
	}
	if torn > kills {
		t.Errorf("%d torn or malformed lines after %d kills", torn, kills)
	}
	prev := linear(t, tr.Entries)
	out := mustAppend(t, s, sess.ID, userMsg(t, "after the crashes"))
	if out[0].ParentUUID != prev {
		t.Errorf("new entry's parent %q, want the last loaded %q", out[0].ParentUUID, prev)
	}
	live := mustLoad(t, s, sess.ID, false)
	if n := len(live.Entries); n == 0 || live.Entries[n-1].UUID != out[0].UUID {
		t.Errorf("live part does not end with the new entry: %v", uuidsOf(live.Entries))
	}
	t.Logf("%d entries acknowledged, %d loaded, %d problems", len(acked), len(tr.Entries), len(tr.Problems))
}

// TestImportKilled kills a child in the middle of an Import with SIGKILL:
// no session is left (List, Get), and importing the same id again works
// and removes the dead import's temporary file.
func TestImportKilled(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const id = "imported-session"
	cmd := child(t, "import", root, id)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "importing\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("child said %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	s := open(t, jsonlstore.Options{Root: root})
	ctx := t.Context()
	if all, err := s.List(ctx, session.ListOptions{}); err != nil || len(all) != 0 {
		t.Fatalf("List after a killed import: %v, %v; want nothing", all, err)
	}
	if _, err := s.Get(ctx, id); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Get after a killed import: %v, want ErrNotFound", err)
	}
	dir := filepath.Join(root, "projects", jsonlstore.EscapeProject("/imported"))
	if tmps, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmps) != 1 {
		t.Errorf("temporary files after the kill: %v, want the dead import's one", tmps)
	}
	es := []session.Entry{userMsg(t, "one"), assistantMsg(t, "two")}
	got, err := s.Import(ctx, session.Session{ID: id, Project: "/imported"}, func(yield func(session.Entry, error) bool) {
		for _, e := range es {
			if !yield(e, nil) {
				return
			}
		}
	})
	if err != nil || got.Entries != 2 {
		t.Fatalf("import again: %+v, %v", got, err)
	}
	if tr := mustLoad(t, s, id, true); len(tr.Entries) != 2 || len(tr.Problems) != 0 {
		t.Errorf("loaded %d entries, problems %v", len(tr.Entries), tr.Problems)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// verify checks session id of s after writers were killed
// (scripts/crash.sh): every uuid of the file acked (one a line, printed
// by "append" children after Append returned) loads, exactly once; the
// transcript checks OK (torn lines are warnings); the live part loads; an
// append is accepted and loads last. It prints one line of numbers and
// returns the exit status: 0, or 1 when anything failed.
func verify(t *testing.T, s *jsonlstore.Store, id, acked string) int {
	ctx := context.Background()
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "session %s: "+format+"\n", append([]any{id}, args...)...)
		return 1
	}
	b, err := os.ReadFile(acked)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail("%v", err)
	}
	want := strings.Fields(string(b))
	tr, err := s.Load(ctx, id, session.LoadOptions{All: true})
	if err != nil {
		return fail("load: %v", err)
	}
	loaded := map[string]int{}
	for _, e := range tr.Entries {
		loaded[e.UUID]++
	}
	lost, twice := 0, 0
	for _, u := range want {
		switch loaded[u] {
		case 0:
			lost++
			fmt.Fprintf(os.Stderr, "session %s: acknowledged entry %s lost\n", id, u)
		case 1:
		default:
			twice++
		}
	}
	path, err := s.Path(id)
	if err != nil {
		return fail("%v", err)
	}
	es, ps, err := session.ReadFile(path)
	if err != nil {
		return fail("%v", err)
	}
	rep := session.Check(es, ps)
	for _, p := range rep.Problems {
		if !p.Warning() {
			fmt.Fprintf(os.Stderr, "session %s: problem %s at byte %d: %s\n", id, p.Kind, p.Offset, p.Detail)
		}
	}
	if _, err := s.Load(ctx, id, session.LoadOptions{}); err != nil {
		return fail("load the live part: %v", err)
	}
	out, err := s.Append(ctx, id, userMsg(t, "after the campaign"))
	if err != nil {
		return fail("append: %v", err)
	}
	live, err := s.Load(ctx, id, session.LoadOptions{})
	if err != nil || len(live.Entries) == 0 || live.Entries[len(live.Entries)-1].UUID != out[0].UUID {
		return fail("the appended entry does not load last (%v)", err)
	}
	fmt.Printf("session %s: %d acknowledged, %d loaded, %d lost, %d loaded twice, %d warnings, %d other problems\n",
		id, len(want), len(tr.Entries), lost, twice, rep.Warnings, len(rep.Problems)-rep.Warnings)
	if lost > 0 || twice > 0 || !rep.OK() {
		return 1
	}
	return 0
}
