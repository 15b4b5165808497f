package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveLoopback serves s on a loopback listener with timeouts tm until the
// test ends; it returns the address, what stops it, and a channel closed
// when serve returned.
func serveLoopback(t *testing.T, s *Server, tm timeouts) (string, context.CancelFunc, <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = serve(ctx, ln, s, tm)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not return")
		}
	})
	return ln.Addr().String(), cancel, done
}

// rawPost opens a connection to addr and sends a POST of path that
// announces n body bytes, then the first part of body; it returns the
// connection.
func rawPost(t *testing.T, addr, path string, n int, part string) *net.TCPConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, addr, n, part)
	return c.(*net.TCPConn)
}

// readStatus reads the status code of the answer on c, within 10 s.
func readStatus(t *testing.T, c net.Conn) (int, string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestClientBodyFaults: a client that cuts its body mid-way gets 400
// bad-request, one that trickles it past the read deadline 408
// request-timeout; neither is a 500 logged as an error.
func TestClientBodyFaults(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	s, err := New(Options{Store: newStore(t), Logger: newJSONLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	tm := serveTimeouts
	tm.read = 500 * time.Millisecond
	addr, _, _ := serveLoopback(t, s, tm)
	body := `{"model":"gpt-4o","system_prompt":"` + strings.Repeat("x", 200) + `"}`

	t.Run("cut", func(t *testing.T) {
		c := rawPost(t, addr, "/v1/sessions", len(body), body[:40])
		if err := c.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		status, b := readStatus(t, c)
		if status != 400 || !strings.Contains(b, CodeBadRequest) || !strings.Contains(b, "cut short") {
			t.Errorf("cut body: %d %s", status, b)
		}
	})
	t.Run("trickle", func(t *testing.T) {
		c := rawPost(t, addr, "/v1/sessions", len(body), body[:10])
		start := time.Now()
		stop := make(chan struct{})
		defer close(stop)
		go func() { // one byte every 100 ms: past the 500 ms deadline
			for i := 10; i < len(body); i++ {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := c.Write([]byte{body[i]}); err != nil {
					return
				}
			}
		}()
		status, b := readStatus(t, c)
		if status != 408 || !strings.Contains(b, CodeTimeout) {
			t.Errorf("trickled body: %d %s", status, b)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("answered after %v", d)
		}
	})
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("a client's fault logged as an error:\n%s", logs.String())
	}
}

// TestShutdownTrickle: a client that trickles its body (within the read
// deadline) does not hold the shutdown past ShutdownTimeout: its
// connection is closed then, and serve returns.
func TestShutdownTrickle(t *testing.T) {
	t.Parallel()
	s, err := New(Options{Store: newStore(t)})
	if err != nil {
		t.Fatal(err)
	}
	tm := serveTimeouts // ReadTimeout 60 s, as served
	tm.shutdown = 300 * time.Millisecond
	addr, cancel, done := serveLoopback(t, s, tm)
	body := `{"model":"gpt-4o"}`
	c := rawPost(t, addr, "/v1/sessions", len(body)+100, body[:5])
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	time.Sleep(200 * time.Millisecond) // the handler is reading
	start := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve still waits for the trickling client 10 s after shutdown began")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("shutdown took %v with a 300 ms shutdown timeout", d)
	}
}
