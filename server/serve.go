package server

import (
	"context"
	"embed"
	"errors"
	"net"
	"net/http"
	"time"
)

// Timeouts of [Serve]'s http.Server.
const (
	// ReadHeaderTimeout bounds reading a request's headers (slowloris).
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds reading a whole request, body included.
	ReadTimeout = 60 * time.Second
	// WriteTimeout bounds a response (an event stream lifts it).
	WriteTimeout = 120 * time.Second
	// IdleTimeout closes keep-alive connections idle this long.
	IdleTimeout = 120 * time.Second
	// ShutdownTimeout is how long [Serve] waits for the requests in
	// flight after ctx is done, before it closes their connections: a
	// client still sending its body then (a trickle within ReadTimeout)
	// is cut, and Serve returns soon after.
	ShutdownTimeout = 30 * time.Second
)

// timeouts are the http.Server's deadlines and the shutdown's wait.
type timeouts struct {
	readHeader, read, write, idle, shutdown time.Duration
}

// serveTimeouts are the documented timeouts of [Serve].
var serveTimeouts = timeouts{ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout, ShutdownTimeout}

// Serve serves s on ln until ctx is done, then shuts down gracefully:
// it stops accepting connections, ends the event streams, waits up to
// [ShutdownTimeout] for the requests in flight (an append that started
// is finished and stored), and closes s (saving each open session's
// state). It returns nil after a graceful shutdown, else the listener's
// or the shutdown's error (context.DeadlineExceeded when requests were
// still in flight after ShutdownTimeout: their connections were closed).
// It does not close the store.
func Serve(ctx context.Context, ln net.Listener, s *Server) error {
	return serve(ctx, ln, s, serveTimeouts)
}

// serve is [Serve] with timeouts t.
func serve(ctx context.Context, ln net.Listener, s *Server, t timeouts) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: t.readHeader,
		ReadTimeout:       t.read,
		WriteTimeout:      t.write,
		IdleTimeout:       t.idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          nil,
	}
	srv.RegisterOnShutdown(s.events.close)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return errors.Join(err, s.Close())
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.shutdown)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		// Requests still in flight: close their connections, so that a
		// handler reading a trickled body fails now rather than at its
		// read deadline (Close then waits for the handlers only).
		_ = srv.Close()
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, s.Close())
}

//go:embed openapi.json
var spec embed.FS

// OpenAPI returns the API's OpenAPI 3.1 document (JSON), the one served
// at GET /openapi.json.
func OpenAPI() []byte {
	b, _ := spec.ReadFile("openapi.json")
	return b
}

func (s *Server) openapi(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPI())
	return nil
}
