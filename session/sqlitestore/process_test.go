//go:build unix

package sqlitestore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// helperEnv selects what TestHelperProcess does in a child process.
const helperEnv = "SQLITESTORE_TEST_HELPER"

// TestHelperProcess is not a test: run as a child process by
// TestTwoProcesses and TestCrash (with helperEnv set), it writes to
// session $SQLITESTORE_TEST_ID of the database $SQLITESTORE_TEST_PATH.
//
//   - "lock": append one entry (taking the lease), print "locked", then
//     wait until stdin closes.
//   - "append": append forever, printing each entry's uuid after Append
//     returns; every 25th append is a compaction (boundary + summary),
//     every other one a turn's end (durable under SyncTurn).
//   - "concurrent": as "append" on each of the comma-separated sessions
//     $SQLITESTORE_TEST_ID at once, one goroutine each, so that their
//     turn ends share fsyncs.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper for the multi-process tests")
	}
	ttl, _ := time.ParseDuration(os.Getenv("SQLITESTORE_TEST_TTL"))
	s, err := sqlitestore.Open(sqlitestore.Options{Path: os.Getenv("SQLITESTORE_TEST_PATH"), LeaseTTL: ttl})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	id := os.Getenv("SQLITESTORE_TEST_ID")
	out := bufio.NewWriter(os.Stdout)
	switch mode {
	case "lock":
		if _, err := s.Append(ctx, id, userMsg(t, "child holds the lease")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, os.Stdin)
		if os.Getenv("SQLITESTORE_TEST_NOCLOSE") != "" {
			os.Exit(0) // die without releasing the lease
		}
		if err := s.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	case "append":
		appendLoop(t, s, id, func(uuid string) {
			fmt.Fprintln(out, uuid)
			_ = out.Flush()
		})
	case "concurrent":
		var mu sync.Mutex
		ids := strings.Split(id, ",")
		for _, id := range ids[1:] {
			go appendLoop(t, s, id, func(uuid string) {
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintln(out, uuid)
				_ = out.Flush()
			})
		}
		appendLoop(t, s, ids[0], func(uuid string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(out, uuid)
			_ = out.Flush()
		})
	}
	os.Exit(0)
}

// appendLoop appends to session id forever (TestHelperProcess's
// "append"), calling acked with each entry's uuid once Append returned;
// it exits the process on an error.
func appendLoop(t *testing.T, s *sqlitestore.Store, id string, acked func(uuid string)) {
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
		got, err := s.Append(context.Background(), id, es...)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, e := range got {
			acked(e.UUID)
		}
	}
}

// child returns a command running TestHelperProcess in mode.
func child(mode, path, id string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "SQLITESTORE_TEST_PATH="+path, "SQLITESTORE_TEST_ID="+id)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	return cmd
}

// startLocked starts a "lock" child and waits until it holds the lease;
// closing the returned writer lets it exit.
func startLocked(t *testing.T, path, id string, env ...string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := child("lock", path, id, env...)
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
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	return cmd, stdin
}

// TestTwoProcesses: while another process writes a session, this one
// gets ErrSessionBusy and can read it; when that process closes its
// Store, the session is free at once.
func TestTwoProcesses(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	s := open(t, sqlitestore.Options{Path: path})
	sess := newSession(t, s)
	cmd, stdin := startLocked(t, path, sess.ID)
	if _, err := s.Append(t.Context(), sess.ID, userMsg(t, "parent")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Append while another process holds the lease: %v, want ErrSessionBusy", err)
	}
	if err := s.Delete(t.Context(), sess.ID); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Delete while another process holds the lease: %v, want ErrSessionBusy", err)
	}
	if tr := mustLoad(t, s, sess.ID, true); len(tr.Entries) != 1 {
		t.Errorf("reader sees %d entries, want the child's 1", len(tr.Entries))
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	if _, err := s.Append(t.Context(), sess.ID, userMsg(t, "parent")); err != nil {
		t.Errorf("Append after the child closed its store: %v", err)
	}
}

// TestKilledHolder: a process that dies holding a lease (SIGKILL) keeps
// the session busy until the lease expires, then it is free.
func TestKilledHolder(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	const ttl = 500 * time.Millisecond
	s := open(t, sqlitestore.Options{Path: path, LeaseTTL: ttl})
	sess := newSession(t, s)
	cmd, _ := startLocked(t, path, sess.ID, "SQLITESTORE_TEST_TTL="+ttl.String())
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()
	if _, err := s.Append(t.Context(), sess.ID, userMsg(t, "too early")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Append right after the holder died: %v, want ErrSessionBusy until the lease expires", err)
	}
	w := open(t, sqlitestore.Options{Path: path, LeaseTTL: ttl, LockTimeout: 5 * time.Second})
	if _, err := w.Append(t.Context(), sess.ID, userMsg(t, "after expiry")); err != nil {
		t.Fatalf("Append waiting for the dead holder's lease: %v", err)
	}
	if waited := time.Since(killed); waited > ttl+time.Second {
		t.Errorf("waited %v for a lease of %v", waited, ttl)
	}
}

// TestCrash kills a child appending in a loop with SIGKILL at random
// moments, several times, and checks that every entry whose Append
// returned loads, exactly once, the chain stays linear with no
// problems, and the session accepts appends.
func TestCrash(t *testing.T) {
	t.Parallel()
	crashCampaign(t, "append", 1)
}

// TestCrashConcurrent is TestCrash with a child appending to four
// sessions at once, their turn ends sharing fsyncs (group commit): every
// entry acknowledged to any of them is there once.
func TestCrashConcurrent(t *testing.T) {
	t.Parallel()
	crashCampaign(t, "concurrent", 4)
}

// crashCampaign runs TestHelperProcess in mode on n new sessions, kills
// it with SIGKILL at a random moment five times, then checks every
// session as TestCrash says.
func crashCampaign(t *testing.T, mode string, n int) {
	path := dbPath(t)
	const ttl = 200 * time.Millisecond
	s := open(t, sqlitestore.Options{Path: path})
	ids := make([]string, n)
	for i := range ids {
		ids[i] = newSession(t, s).ID
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	const kills = 5
	var acked []string
	for k := range kills {
		cmd := child(mode, path, strings.Join(ids, ","), "SQLITESTORE_TEST_TTL="+ttl.String())
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		// The previous child's lease must expire first.
		time.Sleep(ttl + 20*time.Millisecond)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
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
	time.Sleep(ttl + 20*time.Millisecond)
	s = open(t, sqlitestore.Options{Path: path})
	loaded := map[string]bool{}
	total := 0
	for _, id := range ids {
		tr := mustLoad(t, s, id, true)
		total += len(tr.Entries)
		for _, e := range tr.Entries {
			if loaded[e.UUID] {
				t.Fatalf("uuid %s loaded twice", e.UUID)
			}
			loaded[e.UUID] = true
		}
		if len(tr.Problems) != 0 {
			t.Errorf("session %s: problems after kills: %v", id, tr.Problems)
		}
		for k := 1; k < len(tr.Entries); k++ {
			e := tr.Entries[k]
			if e.IsBoundary() {
				if e.LogicalParentUUID != tr.Entries[k-1].UUID {
					t.Fatalf("session %s: boundary %d: logical parent %q, want %q", id, k, e.LogicalParentUUID, tr.Entries[k-1].UUID)
				}
			} else if e.ParentUUID != tr.Entries[k-1].UUID {
				t.Fatalf("session %s: entry %d: parent %q, want %q", id, k, e.ParentUUID, tr.Entries[k-1].UUID)
			}
		}
		out := mustAppend(t, s, id, userMsg(t, "after the crashes"))
		live := mustLoad(t, s, id, false)
		if n := len(live.Entries); n == 0 || live.Entries[n-1].UUID != out[0].UUID {
			t.Errorf("session %s: live part does not end with the new entry: %v", id, uuidsOf(live.Entries))
		}
		if got := mustLoad(t, s, id, true); got.Session.Entries != len(got.Entries) {
			t.Errorf("session %s: metadata counts %d entries, %d loaded", id, got.Session.Entries, len(got.Entries))
		}
	}
	for _, u := range acked {
		if !loaded[u] {
			t.Errorf("acknowledged entry %s was lost", u)
		}
	}
	t.Logf("%d entries acknowledged, %d loaded", len(acked), total)
}
