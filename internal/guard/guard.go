package guard

import (
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Errors of [Policy.Check] and [JSON]. Each is wrapped with what the
// request sent.
var (
	// ErrHost reports a Host header that names neither the address the
	// service listens on nor an allowed host (421 Misdirected Request).
	// Reach the service by 127.0.0.1 or localhost, or allow the name
	// (--allowed-host).
	ErrHost = errors.New("guard: host not allowed")
	// ErrOrigin reports a browser Origin header that is not the request's
	// own origin nor an allowed one (403 Forbidden). Allow the page's
	// origin (--allowed-origin) if a page must call the service.
	ErrOrigin = errors.New("guard: origin not allowed")
	// ErrMediaType reports a body whose Content-Type is not
	// application/json (415 Unsupported Media Type). Send
	// Content-Type: application/json.
	ErrMediaType = errors.New("guard: content type not application/json")
)

// Any allows every value when listed in [Policy].AllowedHosts or
// AllowedOrigins.
const Any = "*"

// Policy says which Hosts and Origins a service accepts beyond the
// defaults of the package documentation. The zero value accepts the
// defaults only. Safe for concurrent use once built.
type Policy struct {
	// AllowedHosts are further Host values accepted: a name ("agentctx.lan",
	// any port) or a name with a port ("agentctx.lan:8080"), compared
	// without case; [Any] accepts every Host. Optional.
	AllowedHosts []string
	// AllowedOrigins are further browser origins accepted, as browsers
	// send them ("http://localhost:3000"), compared without case; [Any]
	// accepts every Origin. Optional.
	AllowedOrigins []string
	// AnyHost accepts every Host: for a service whose every request is
	// authenticated by a secret a page cannot send (bearer tokens), where
	// rebinding gains nothing. Optional.
	AnyHost bool
}

// Check returns nil when r may be served, else an error wrapping [ErrHost]
// or [ErrOrigin] that names the value refused.
func (p Policy) Check(r *http.Request) error {
	if !p.AnyHost && !p.hostOK(r) {
		return fmt.Errorf("%w: Host %q", ErrHost, r.Host)
	}
	if o := r.Header.Values("Origin"); len(o) > 0 && !p.originOK(r, o) {
		return fmt.Errorf("%w: Origin %q", ErrOrigin, strings.Join(o, ", "))
	}
	return nil
}

// hostOK applies the Host rule.
func (p Policy) hostOK(r *http.Request) bool {
	host, port := splitHost(r.Host)
	if host == "" {
		return false
	}
	for _, a := range p.AllowedHosts {
		if a == Any || strings.EqualFold(a, host) || strings.EqualFold(a, net.JoinHostPort(host, port)) {
			return true
		}
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if local == nil {
		// A handler called in process (tests, an embedding program), not
		// through a listener: no page is behind it.
		return true
	}
	// The port is not compared: a loopback name is enough to rule out DNS
	// rebinding (the page's name is never one), and a local reverse proxy
	// or recorder in front forwards its own Host and port.
	lhost, _, _ := net.SplitHostPort(local.String())
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	return ip.IsLoopback() || (lhost != "" && ip.Equal(net.ParseIP(lhost)) && !ip.IsUnspecified())
}

// splitHost splits a Host header into its lower-case name (an IPv6
// address without brackets) and port ("80" when it has none).
func splitHost(h string) (host, port string) {
	h = strings.ToLower(strings.TrimSpace(h))
	if hh, pp, err := net.SplitHostPort(h); err == nil {
		return hh, pp
	}
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), "80"
}

// originOK applies the Origin rule to the request's Origin values.
func (p Policy) originOK(r *http.Request, origins []string) bool {
	if len(origins) != 1 {
		return false
	}
	o := strings.TrimSpace(origins[0])
	for _, a := range p.AllowedOrigins {
		if a == Any || strings.EqualFold(strings.TrimSuffix(a, "/"), o) {
			return true
		}
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null", a file, an extension
	}
	oh, op := splitHost(u.Host)
	if u.Port() == "" && u.Scheme == "https" {
		op = "443"
	}
	rh, rp := splitHost(r.Host)
	return oh == rh && op == rp
}

// JSON returns nil when r's Content-Type is application/json (parameters
// allowed), or when r has no body and no Content-Type; else an error
// wrapping [ErrMediaType] naming the type sent.
func JSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" && (r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody) {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return fmt.Errorf("%w: Content-Type %q", ErrMediaType, ct)
	}
	return nil
}
