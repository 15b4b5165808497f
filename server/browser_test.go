package server

import (
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

// attackPage is the script of a hostile page. It runs at
// http://attacker.example:PORT after the name was rebound to 127.0.0.1 (so
// that its own origin reaches the server, Host attacker.example:PORT), and
// also tries the server cross-origin by IP: a "simple" text/plain POST
// (no CORS preflight) and a fetch read of the export. It writes what it
// got into #out as JSON.
const attackPage = `<!doctype html><meta charset="utf-8"><body><pre id="out"></pre><script>
const target = %q, id = %q, out = {};
async function probe(name, url, init) {
  try {
    const r = await fetch(url, init);
    out[name] = {status: r.status, type: r.type, body: r.type === "opaque" ? "" : (await r.text()).slice(0, 300)};
  } catch (e) {
    out[name] = {error: String(e)};
  }
}
(async () => {
  await probe("rebound_list", "/v1/sessions");
  await probe("rebound_create", "/v1/sessions", {method: "POST", headers: {"Content-Type": "text/plain"}, body: "{}"});
  await probe("rebound_json_create", "/v1/sessions", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"});
  await probe("rebound_export", "/v1/sessions/" + id + "/export");
  await probe("cross_simple_post", target + "/v1/sessions", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: "{}"});
  await probe("cross_read", target + "/v1/sessions/" + id + "/export");
  document.getElementById("out").textContent = JSON.stringify(out);
  document.body.setAttribute("data-done", "1");
})();
</script>`

// TestBrowserAttack runs a hostile page in headless Chromium against a
// server without tokens. Chromium resolves attacker.example to 127.0.0.1
// (--host-resolver-rules: the state after DNS rebinding), and the page is
// served on the server's own port, so its same-origin requests reach the
// server with Host attacker.example:PORT: each answers 421, and the page
// reads no session. Its cross-origin requests to 127.0.0.1:PORT (a
// no-preflight text/plain POST, a fetch read) reach the server with the
// page's Origin and are refused with 403, logged. No session was made.
func TestBrowserAttack(t *testing.T) {
	bin := sharedtest.Chromium(t)
	var logs syncBuffer
	s, err := New(Options{Store: newStore(t), Logger: newJSONLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	var page atomic.Pointer[string] // set once the port is known
	// One listener: /attack.html is the attacker's page (what its server
	// served before the rebinding), everything else the agentctx server.
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/attack.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = fmt.Fprint(w, *page.Load())
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(hs.URL, "http://"))
	ts := &testServer{Server: s, URL: hs.URL}
	id := ts.createSession(t, "", map[string]any{"model": "gpt-4o"})
	const secret = "the-user-secret-prompt-7f3a"
	ts.call(t, "POST", "/v1/sessions/"+id+"/messages", "", `{"messages":[{"role":"user","content":"`+secret+`"}]}`).must(t, 200)
	doc := fmt.Sprintf(attackPage, "http://127.0.0.1:"+port, id)
	page.Store(&doc)

	dom := string(sharedtest.Browse(t, bin, "http://attacker.example:"+port+"/attack.html",
		"--host-resolver-rules=MAP attacker.example 127.0.0.1", "--dump-dom"))
	if !strings.Contains(dom, `data-done="1"`) {
		t.Fatalf("the page's script did not finish; DOM %.600q", dom)
	}
	m := regexp.MustCompile(`(?s)<pre id="out">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no #out in %.600q", dom)
	}
	type probe struct {
		Status int    `json:"status"`
		Type   string `json:"type"`
		Body   string `json:"body"`
		Error  string `json:"error"`
	}
	var got map[string]probe
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatalf("#out: %v: %s", err, m[1])
	}
	t.Logf("the page saw: %s", html.UnescapeString(m[1]))
	failed := 0
	for _, name := range []string{"rebound_list", "rebound_create", "rebound_json_create", "rebound_export"} {
		if p := got[name]; p.Status != http.StatusMisdirectedRequest || !strings.Contains(p.Body, CodeMisdirected) {
			t.Errorf("%s: the page got %+v, want 421 %s", name, p, CodeMisdirected)
			failed++
		}
	}
	if p := got["cross_simple_post"]; p.Type != "opaque" && p.Error == "" {
		t.Errorf("cross_simple_post: the page read %+v", p)
		failed++
	}
	if p := got["cross_read"]; p.Error == "" {
		t.Errorf("cross_read: the page read %+v, want a network error (no CORS)", p)
		failed++
	}
	if strings.Contains(dom, secret) {
		t.Error("the page read the session's message")
	}
	t.Logf("page requests refused %d/6", 6-failed)
	// What the server saw: the four requests with the rebound Host (each
	// twice: Chromium sends a request again on a new connection after a
	// 421, and its favicon request too), the two with the page's Origin,
	// all refused and logged as warnings.
	var hosts, origins int
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil || rec["level"] != "WARN" {
			continue
		}
		switch {
		case rec["status"] == float64(421):
			hosts++
		case rec["status"] == float64(403) && rec["origin"] == "http://attacker.example:"+port:
			origins++
		}
	}
	if hosts < 4 || origins != 2 {
		t.Errorf("%d Host and %d Origin refusals logged, want ≥ 4 and 2:\n%s", hosts, origins, logs.String())
	}
	var list listBody
	ts.call(t, "GET", "/v1/sessions", "", nil).must(t, 200).decode(t, &list)
	if len(list.Sessions) != 1 {
		t.Errorf("%d sessions after the attack, want 1", len(list.Sessions))
	}
}
