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
	// flight after ctx is done, before it closes their connections.
	ShutdownTimeout = 30 * time.Second
)

// Serve serves s on ln until ctx is done, then shuts down gracefully:
// it stops accepting connections, ends the event streams, waits up to
// [ShutdownTimeout] for the requests in flight (an append that started
// is finished and stored), and closes s (saving each open session's
// state). It returns nil after a graceful shutdown, else the listener's
// or the shutdown's error. It does not close the store.
func Serve(ctx context.Context, ln net.Listener, s *Server) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
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
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
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
