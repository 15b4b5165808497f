package guard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheck applies the Host and Origin rules to requests that came in on
// 127.0.0.1:8080 (or on no listener).
func TestCheck(t *testing.T) {
	t.Parallel()
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	lan := &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 8080}
	cases := []struct {
		name   string
		policy Policy
		local  net.Addr // nil: no listener
		host   string
		origin []string
		want   error
	}{
		{"loopback IP", Policy{}, local, "127.0.0.1:8080", nil, nil},
		{"other loopback IP", Policy{}, local, "127.0.0.2:8080", nil, nil},
		{"localhost", Policy{}, local, "localhost:8080", nil, nil},
		{"LocalHost", Policy{}, local, "LocalHost:8080", nil, nil},
		{"IPv6 loopback", Policy{}, local, "[::1]:8080", nil, nil},
		{"rebound name", Policy{}, local, "attacker.example:8080", nil, ErrHost},
		{"localhost suffix", Policy{}, local, "localhost.attacker.example:8080", nil, ErrHost},
		{"other port", Policy{}, local, "127.0.0.1:9090", nil, nil},
		{"no port", Policy{}, local, "localhost", nil, nil},
		{"empty", Policy{}, local, "", nil, ErrHost},
		{"connection's own address", Policy{}, lan, "10.1.2.3:8080", nil, nil},
		{"another address", Policy{}, lan, "10.1.2.4:8080", nil, ErrHost},
		{"allowed name", Policy{AllowedHosts: []string{"agentctx.lan"}}, lan, "AGENTCTX.lan:8080", nil, nil},
		{"allowed name:port", Policy{AllowedHosts: []string{"agentctx.lan:80"}}, lan, "agentctx.lan", nil, nil},
		{"allowed name, other port", Policy{AllowedHosts: []string{"agentctx.lan:80"}}, lan, "agentctx.lan:8080", nil, ErrHost},
		{"any host", Policy{AllowedHosts: []string{Any}}, local, "x.example", nil, nil},
		{"AnyHost", Policy{AnyHost: true}, local, "x.example", nil, nil},
		{"in process", Policy{}, nil, "example.com", nil, nil},
		{"same origin", Policy{}, local, "127.0.0.1:8080", []string{"http://127.0.0.1:8080"}, nil},
		{"same origin by name", Policy{}, local, "localhost:8080", []string{"http://localhost:8080"}, nil},
		{"cross origin", Policy{}, local, "127.0.0.1:8080", []string{"http://evil.example"}, ErrOrigin},
		{"cross port", Policy{}, local, "127.0.0.1:8080", []string{"http://127.0.0.1:3000"}, ErrOrigin},
		{"https default port", Policy{}, local, "127.0.0.1:8080", []string{"https://127.0.0.1"}, ErrOrigin},
		{"null", Policy{}, local, "127.0.0.1:8080", []string{"null"}, ErrOrigin},
		{"extension", Policy{}, local, "127.0.0.1:8080", []string{"chrome-extension://abc"}, ErrOrigin},
		{"two origins", Policy{}, local, "127.0.0.1:8080", []string{"http://127.0.0.1:8080", "http://evil.example"}, ErrOrigin},
		{"allowed origin", Policy{AllowedOrigins: []string{"http://localhost:3000/"}}, local, "127.0.0.1:8080", []string{"http://LOCALHOST:3000"}, nil},
		{"any origin", Policy{AllowedOrigins: []string{Any}}, local, "127.0.0.1:8080", []string{"null"}, nil},
		{"origin in process", Policy{}, nil, "example.com", []string{"http://evil.example"}, ErrOrigin},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if tc.local != nil {
				r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tc.local))
			}
			r.Host = tc.host
			for _, o := range tc.origin {
				r.Header.Add("Origin", o)
			}
			err := tc.policy.Check(r)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("Check = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestJSON checks the media type rule.
func TestJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ctype, body string
		ok          bool
	}{
		{"application/json", "{}", true},
		{"application/json; charset=utf-8", "{}", true},
		{"Application/JSON", "{}", true},
		{"", "", true},
		{"", "{}", false},
		{"text/plain", "{}", false},
		{"text/plain;charset=UTF-8", "{}", false},
		{"application/x-www-form-urlencoded", "{}", false},
		{"multipart/form-data; boundary=x", "{}", false},
		{"application/jsonp", "{}", false},
		{"application/json, text/plain", "{}", false},
	}
	for _, tc := range cases {
		var body *strings.Reader
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		if tc.body != "" {
			body = strings.NewReader(tc.body)
			r = httptest.NewRequest(http.MethodPost, "/", body)
		}
		if tc.ctype != "" {
			r.Header.Set("Content-Type", tc.ctype)
		}
		if err := JSON(r); (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrMediaType)) {
			t.Errorf("%q with body %q: %v, want ok %v", tc.ctype, tc.body, err, tc.ok)
		}
	}
}
