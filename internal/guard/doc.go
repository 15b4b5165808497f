// Package guard refuses the requests a web page can make to a service on
// this machine: a Host that is not the address the service listens on
// (DNS rebinding: a page of attacker.example whose name now resolves to
// 127.0.0.1 reads the service's answers as its own), a browser Origin the
// service did not allow (cross-site requests, such as a "simple" text/plain
// POST that needs no CORS preflight), and a JSON body sent under another
// media type. The serve and proxy commands use it; each answers a refusal
// in its own error shape.
//
// # Rules
//
//   - Host: a loopback name or address ("localhost", 127.0.0.0/8, [::1]) or
//     the address the connection came in on, whatever the port (a local
//     reverse proxy in front forwards its own; a rebinding page's name is
//     never loopback); or a name of [Policy].AllowedHosts. A
//     request that came through no listener (http.LocalAddrContextKey
//     unset: a handler called in process) is not checked.
//   - Origin: none (programs such as agents, SDKs and curl send none); or
//     the request's own origin (same-origin, its host the request's Host);
//     or one of [Policy].AllowedOrigins. "null" (sandboxed frames, files) is
//     refused.
//   - Content-Type: [JSON] checks for application/json (parameters such as
//     charset allowed).
package guard
