//go:build unix

package pgstore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
)

// helperEnv selects what TestHelperProcess does in a child process.
const helperEnv = "PGSTORE_TEST_HELPER"

// TestHelperProcess is not a test: run as a child process by TestCrash
// (with helperEnv set), it appends to session $PGSTORE_TEST_ID of the
// store in schema $PGSTORE_TEST_SCHEMA forever, printing each entry's
// uuid after Append returns; every 25th append is a compaction.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "append" {
		t.Skip("helper for the multi-process tests")
	}
	ctx := context.Background()
	schema := os.Getenv("PGSTORE_TEST_SCHEMA")
	s, err := pgstore.Open(ctx, pgstore.Options{DSN: childDSN(schema), Schema: schema, LeaseTTL: leaseTTL, LockTimeout: time.Minute})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	id := os.Getenv("PGSTORE_TEST_ID")
	out := bufio.NewWriter(os.Stdout)
	pad := strings.Repeat("output line\n", 40)
	for i := 0; ; i++ {
		var es []session.Entry
		switch {
		case i%25 == 24:
			es = []session.Entry{boundaryEntry(1), userMsg(t, fmt.Sprint("summary ", i))}
			es[1].IsCompactSummary = true
		case i%2 == 0:
			es = []session.Entry{userMsg(t, fmt.Sprint("prompt ", i))}
		default:
			es = []session.Entry{msgEntry(t, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: pad}}}), userMsg(t, "next")}
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
}

// TestCrash kills a child appending in a loop with SIGKILL at random
// moments, several times: every entry whose Append returned loads, once;
// the chain stays linear; each new child waits out the dead one's lease
// (LockTimeout) and goes on; the session accepts appends afterwards.
func TestCrash(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t, "test_")
	s := open(t, pgstore.Options{Schema: schema})
	sess := newSession(t, s)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	const kills = 4
	var acked []string
	for k := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"=append", "PGSTORE_TEST_SCHEMA="+schema, "PGSTORE_TEST_ID="+sess.ID)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			acked = append(acked, sc.Text())
		}
		delay := time.Duration(50+r.IntN(250)) * time.Millisecond
		time.Sleep(delay)
		if k == kills-1 && childSessions(t, schema) == 0 {
			t.Fatal("the appending child has no database session named for this test: waitChildrenGone would not wait for it")
		}
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
	// A killed child's last COMMIT may still be in its server process,
	// which ends it (an append not acknowledged, allowed to land) before
	// it sees the client gone: read the session once no child's server
	// process is left, so that the checks below see one state.
	waitChildrenGone(t, schema)
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
	if len(tr.Problems) != 0 {
		t.Errorf("problems after the kills: %v", tr.Problems)
	}
	prev := linear(t, tr.Entries)
	if got := mustGet(t, s, sess.ID).Entries; got != len(tr.Entries) {
		t.Errorf("metadata counts %d entries, %d stored", got, len(tr.Entries))
	}
	// The last child's lease is still live: wait for it.
	var out []session.Entry
	for deadline := time.Now().Add(5 * leaseTTL); ; {
		var err error
		out, err = s.Append(t.Context(), sess.ID, userMsg(t, "after the crashes"))
		if err == nil {
			break
		}
		if !errors.Is(err, session.ErrSessionBusy) || time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out[0].ParentUUID != prev {
		t.Errorf("new entry's parent %q, want the last loaded %q", out[0].ParentUUID, prev)
	}
	live := mustLoad(t, s, sess.ID, false)
	if n := len(live.Entries); n == 0 || live.Entries[n-1].UUID != out[0].UUID {
		t.Errorf("live part does not end with the new entry: %v", uuidsOf(live.Entries))
	}
	t.Logf("%d entries acknowledged, %d loaded", len(acked), len(tr.Entries))
}

// childDSN is the test database's DSN with an application_name naming
// the children of the test that uses schema (pg_stat_activity shows it).
func childDSN(schema string) string {
	d := pgtest.DSN()
	if u, err := url.Parse(d); err == nil && u.Scheme != "" {
		q := u.Query()
		q.Set("application_name", "crash-"+schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return d + " application_name=crash-" + schema
}

// childSessions returns how many database sessions the children of the
// test that uses schema have open (childDSN names them).
func childSessions(t *testing.T, schema string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), pgtest.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, "crash-"+schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitChildrenGone waits, up to 30 s, until the children of the test
// that uses schema have no database session left.
func waitChildrenGone(t *testing.T, schema string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		n := childSessions(t, schema)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d database sessions of the killed children still open after 30 s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustGet(t testing.TB, s session.Store, id string) session.Session {
	t.Helper()
	sess, err := s.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sess
}
