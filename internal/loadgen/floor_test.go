package loadgen_test

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

// floorServerEnv makes the test binary the stand-in server of
// TestPacedFloor (TestMain) instead of running tests.
const floorServerEnv = "AGENTCTX_FLOOR_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(floorServerEnv) == "1" {
		serveFloor()
		return
	}
	os.Exit(m.Run())
}

// serveFloor is the stand-in server: on 127.0.0.1, each call reads its
// body, keeps a core busy for the time its "us" query asks (a quarter of
// it under one lock, as a store's one writer), and answers "bytes" bytes
// with its time in a Server-Timing header, as agentctx serve does. It
// prints its address, then serves until its stdin closes.
func serveFloor() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var writer sync.Mutex
	answer := bytes.Repeat([]byte("a"), 64<<10)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		_, _ = io.Copy(io.Discard, r.Body)
		us, _ := strconv.Atoi(r.URL.Query().Get("us"))
		n, _ := strconv.Atoi(r.URL.Query().Get("bytes"))
		work := time.Duration(us) * time.Microsecond
		spin(work / 2)
		writer.Lock()
		spin(work / 4)
		writer.Unlock()
		spin(work - work/2 - work/4)
		w.Header().Set("Server-Timing", fmt.Sprintf("app;dur=%.3f", float64(time.Since(start))/float64(time.Millisecond)))
		_, _ = w.Write(answer[:min(n, len(answer))])
	})}
	fmt.Println(ln.Addr())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); _ = srv.Close() }()
	_ = srv.Serve(ln)
}

// spin keeps the goroutine's core busy for d.
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 100; i++ {
			_ = i * i
		}
	}
}

// TestPacedFloor measures what this machine gives the paced load's
// client (scripts/load.sh N paced) when the server does nothing but
// spend a given CPU time per call: SESSIONS sessions, each turn a 16 KB
// call answered with 16 KB, 0.5-1.5 s of the model's pacing, then a
// 500-byte call answered with 500 bytes, against a stand-in server
// process whose calls each keep a core busy for a time drawn from an
// exponential distribution of the given mean. Its table is the turn's
// p50/p99 as the client measured it, the server's own time, and their
// difference (the loopback, both processes' scheduling on the shared
// cores): the floor under the paced run's turn row for a server as fast
// as agentctx's on average, without its collector, system calls or
// heavier tail. Means in µs per call from $AGENTCTX_FLOOR_US (default
// "0,650"), each run $AGENTCTX_FLOOR_SECONDS (default 4) long.
func TestPacedFloor(t *testing.T) {
	sharedtest.SkipUnlessLong(t) // a load test
	secs := envInt("AGENTCTX_FLOOR_SECONDS", 4)
	var means []int
	for f := range strings.SplitSeq(cmp.Or(os.Getenv("AGENTCTX_FLOOR_US"), "0,650"), ",") {
		us, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || us < 0 {
			t.Fatalf("AGENTCTX_FLOOR_US: %q is not a count of µs", f)
		}
		means = append(means, us)
	}
	addr := startFloorServer(t)
	fmt.Printf("paced floor: %d sessions, %d s a run, a stand-in server (exponential CPU time a call)\n", sessions, secs)
	fmt.Printf("%28s %7s %8s %8s %10s %10s %8s %8s\n", "mean server time a call", "turns", "p50 ms", "p99 ms", "server p50", "server p99", "gap p50", "gap p99")
	for _, us := range means {
		r := runFloor(t, addr, us, time.Duration(secs)*time.Second)
		for i := range r.gap {
			// The server's time is rounded to the µs in its header.
			if r.gap[i] < -time.Microsecond {
				t.Fatalf("%d µs: a turn's server time %v is over the client's %v", us, r.server[i], r.client[i])
			}
		}
		fmt.Printf("%25d µs %7d %8.2f %8.2f %10.2f %10.2f %8.2f %8.2f\n", us, len(r.client),
			ms(quantile(r.client, 0.5)), ms(quantile(r.client, 0.99)), ms(quantile(r.server, 0.5)), ms(quantile(r.server, 0.99)),
			ms(quantile(r.gap, 0.5)), ms(quantile(r.gap, 0.99)))
		if len(r.client) < sessions {
			t.Errorf("%d µs: %d turns of %d sessions in %d s", us, len(r.client), sessions, secs)
		}
		if s, c := quantile(r.server, 0.99), quantile(r.client, 0.99); s > c {
			t.Errorf("%d µs: the server's p99 %v is over the client's %v", us, s, c)
		}
	}
}

// startFloorServer starts the test binary as the stand-in server and
// returns its address; it stops with the test.
func startFloorServer(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), floorServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("stand-in server: %v", err)
	}
	return strings.TrimSpace(line)
}

// floorRun is one run's turns, in the same order in each slice: the
// client's time, the server's (the two calls' Server-Timing), the
// difference.
type floorRun struct{ client, server, gap []time.Duration }

// runFloor runs the paced sessions against the stand-in server at addr
// for d, its calls' CPU time exponential of mean us µs.
func runFloor(t *testing.T, addr string, us int, d time.Duration) floorRun {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * sessions, IdleConnTimeout: time.Minute}, Timeout: time.Minute}
	defer hc.CloseIdleConnections()
	big := bytes.Repeat([]byte("m"), 16<<10)
	small := bytes.Repeat([]byte("r"), 500)
	call := func(rng *rand.Rand, body []byte) (client, server time.Duration, err error) {
		work := int(rng.ExpFloat64() * float64(us))
		start := time.Now()
		resp, err := hc.Post(fmt.Sprintf("http://%s/?us=%d&bytes=%d", addr, work, len(body)), "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		client = time.Since(start)
		if err != nil {
			return 0, 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("status %d", resp.StatusCode)
		}
		var msDur float64
		if _, err := fmt.Sscanf(resp.Header.Get("Server-Timing"), "app;dur=%g", &msDur); err != nil {
			return 0, 0, fmt.Errorf("Server-Timing %q: %w", resp.Header.Get("Server-Timing"), err)
		}
		return client, time.Duration(msDur * float64(time.Millisecond)), nil
	}
	var (
		mu  sync.Mutex
		run floorRun
		wg  sync.WaitGroup
	)
	stop := time.Now().Add(d)
	for i := range sessions {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
			time.Sleep(time.Duration(rng.Int64N(int64(time.Second)))) // spread the starts
			for time.Now().Before(stop) {
				c1, s1, err := call(rng, big)
				if err != nil {
					t.Error(err)
					return
				}
				time.Sleep(500*time.Millisecond + time.Duration(rng.Int64N(int64(time.Second))))
				c2, s2, err := call(rng, small)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				run.client = append(run.client, c1+c2)
				run.server = append(run.server, s1+s2)
				run.gap = append(run.gap, c1+c2-s1-s2)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return run
}

// quantile returns the q-quantile of ds (sorted in place), 0 for none.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(int(q*float64(len(ds))), len(ds)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
