package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
)

// TestPins: an instruction pinned through the service is in every later
// request (here after the session is evicted and resumed from the store),
// listed, and gone once unpinned; an unknown pin is 404, an empty text
// 400.
func TestPins(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{CacheSessions: 1}, false)
	id := ts.createSession(t, "", nil)
	base := "/v1/sessions/" + id
	ts.call(t, "POST", base+"/messages", "", `{"messages":[{"role":"user","content":"Fix the parser."}]}`).must(t, 200)
	const rule = "Never edit the generated files in gen/."
	var p agentctx.Pin
	ts.call(t, "POST", base+"/pins", "", map[string]string{"text": rule}).must(t, 201).decode(t, &p)
	if p.ID != "p1" || p.Text != rule {
		t.Fatalf("pin = %+v", p)
	}
	ts.call(t, "POST", base+"/pins", "", `{"text":"  "}`).problem(t, 400, CodeBadRequest)
	// Another session takes the cache's only place: the pinned one is
	// read back from the store.
	ts.createSession(t, "", nil)
	var list pinsView
	ts.call(t, "GET", base+"/pins", "", nil).must(t, 200).decode(t, &list)
	if len(list.Pins) != 1 || list.Pins[0] != p {
		t.Fatalf("pins = %+v, want [%+v]", list.Pins, p)
	}
	request := func() string {
		var rv requestView
		ts.call(t, "POST", base+"/request", "", `{}`).must(t, 200).decode(t, &rv)
		b, err := json.Marshal(rv)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if body := request(); !strings.Contains(body, rule) {
		t.Fatalf("the request does not carry the pin: %s", body)
	}
	ts.call(t, "DELETE", base+"/pins/p9", "", nil).problem(t, 404, CodeNotFound)
	ts.call(t, "DELETE", base+"/pins/p1", "", nil).must(t, 204)
	if body := request(); strings.Contains(body, rule) {
		t.Fatalf("the request still carries the unpinned text: %s", body)
	}
	ts.call(t, "GET", base+"/pins", "", nil).must(t, 200).decode(t, &list)
	if len(list.Pins) != 0 {
		t.Fatalf("pins after unpin = %+v", list.Pins)
	}
}
