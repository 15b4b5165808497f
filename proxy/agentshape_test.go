package proxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// noisePNG returns a w×h PNG of random pixels, base64: it does not
// compress, so its bytes are about 3wh.
func noisePNG(t *testing.T, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// The elements Claude Code 2.1.328's default model sends that the message
// model does not interpret, as recorded from its requests.
const (
	ccEnvironment  = `{"role":"system","content":"# Environment\nYou have been invoked in the following environment: \n - Primary working directory: /work/proj\n - Is a git repository: true\n - Platform: linux"}`
	ccToolRef      = `{"type":"tool_reference","tool_name":"WebFetch"}`
	ccHeardFromYou = `{"role":"system","content":"The user hasn't heard from you in a while. As you continue, keep them updated."}`
)

// claudeCodeBody writes a request shaped as Claude Code's default model
// sends it: reminders before the prompt in the first user message, its
// environment as a system message in "messages", signed thinking,
// ToolSearch answered with a tool_reference, a Read of a PNG answered with
// an image, n Bash rounds of about size bytes each, a system message late
// in the conversation, and a cache_control marker on the last block.
func claudeCodeBody(t *testing.T, pngData string, n, size int) []byte {
	t.Helper()
	msgs := []string{
		`{"role":"user","content":[{"type":"text","text":"<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# gitStatus\nclean\n</system-reminder>"},{"type":"text","text":"fix the test"}]}`,
		ccEnvironment,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Load the fetch tool first.","signature":"sig-AAAA"},{"type":"tool_use","id":"toolu_00","name":"ToolSearch","input":{"query":"select:WebFetch"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_00","content":[` + ccToolRef + `]}]}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Read","input":{"file_path":"/work/proj/shot.png"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pngData + `"}}]}]}`,
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("toolu_%02d", i+2)
		var out strings.Builder
		for j := 0; out.Len() < size; j++ {
			fmt.Fprintf(&out, "row %04d of step %d: alpha beta gamma delta %d\n", j, i, j*i)
		}
		res, _ := json.Marshal(out.String())
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"cat big_%d.txt"}}]}`, id, i),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%s}]}`, id, res))
		if i == 3 && i < n-1 {
			msgs = append(msgs, ccHeardFromYou)
		}
	}
	last := msgs[len(msgs)-1]
	msgs[len(msgs)-1] = strings.TrimSuffix(last, "}]}") + `,"cache_control":{"type":"ephemeral"}}]}`
	return fmt.Appendf(nil, `{"model":"claude-opus-5-5","max_tokens":32000,"system":[{"type":"text","text":"You are Claude Code, Anthropic's official CLI for Claude."}],"tools":[{"name":"Bash","description":"Run a command","input_schema":{"type":"object"}},{"name":"Read","description":"Read a file","input_schema":{"type":"object"}}],"messages":[%s],"thinking":{"type":"adaptive"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"stream":true}`,
		strings.Join(msgs, ","))
}

// TestClaudeCodeDefaultShapeManaged: a request with a system message in
// "messages", a tool_reference and an image in tool results is managed
// within the budget; every element the message model does not interpret
// reaches the upstream byte for byte; the session is filed under the
// agent's project, titled with the user's prompt, and ends with the
// upstream's answer.
func TestClaudeCodeDefaultShapeManaged(t *testing.T) {
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	const budget = 20000
	r := newRig(t, providertest.WireAnthropic, providertest.Options{}, Options{Store: st, Budget: budget})
	body := claudeCodeBody(t, noisePNG(t, 64, 64), 12, 9000)
	hdr := http.Header{"X-Claude-Code-Session-Id": {"74ca04a0-ef30-4cb8-bfed-a2888fe10f02"}}
	status, answer := r.post(t, providertest.WireAnthropic, body, hdr)
	if status != 200 {
		t.Fatalf("status %d: %s", status, answer)
	}
	exs := r.exchanges()
	ex := exs[len(exs)-1]
	if ex.Err != "" || !ex.Managed {
		t.Fatalf("not managed: %+v", ex)
	}
	if ex.SentTokens > budget || ex.AgentTokens <= budget {
		t.Errorf("agent %d tokens, sent %d, budget %d", ex.AgentTokens, ex.SentTokens, budget)
	}
	if !strings.HasPrefix(ex.Session, "claude-74ca04a0-ef30-4cb8-bfed-a2888fe10f02-") {
		t.Errorf("session %q does not carry the agent's session id", ex.Session)
	}
	up := r.up.Requests()
	sent := up[len(up)-1].Body
	for name, elem := range map[string]string{"environment": ccEnvironment, "late system message": ccHeardFromYou} {
		if !bytes.Contains(sent, []byte(elem)) {
			t.Errorf("%s not sent byte for byte", name)
		}
	}
	// Compaction keeps a tool_reference whole or drops it with its
	// round (or its masked result); it never rewrites it.
	if bytes.Contains(sent, []byte(`"tool_reference"`)) != bytes.Contains(sent, []byte(ccToolRef)) {
		t.Error("the tool_reference was rewritten")
	}
	if !bytes.Contains(sent, []byte(`"signature":"sig-AAAA"`)) && bytes.Contains(sent, []byte(`"toolu_00"`)) {
		t.Error("a thinking block went out without its signature")
	}
	if len(sent) >= len(body) {
		t.Errorf("sent %d bytes of the agent's %d", len(sent), len(body))
	}
	// Fields the proxy does not read are untouched.
	if rawField(t, sent, "context_management") != rawField(t, body, "context_management") {
		t.Error("context_management changed")
	}

	_ = r.p.Close()
	list, err := st.List(context.Background(), session.ListOptions{})
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v %d", err, len(list))
	}
	if got := list[0]; got.Project != "/work/proj" || got.Title != "fix the test" {
		t.Errorf("session project %q title %q, want /work/proj and the user's prompt", got.Project, got.Title)
	}
	tr, err := st.Load(context.Background(), list[0].ID, session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := session.Messages(tr.Entries)
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleAssistant || !strings.Contains(last.Text(), "ok") {
		t.Errorf("the session ends with %s %q, want the upstream's answer", last.Role, last.Text())
	}
	st0 := r.p.Status()
	if len(st0.Sessions) != 1 || st0.Sessions[0].Managed != 1 || st0.Sessions[0].Unmanaged != 0 {
		t.Errorf("status: %+v", st0)
	}
}

// TestTooLargeKeepsTokenBudget: a 413 for too many bytes sheds the oldest
// images (a text names each) and sends again, with the token budget
// unchanged; the byte budget in force is reported.
func TestTooLargeKeepsTokenBudget(t *testing.T) {
	const budget = 60000
	img := noisePNG(t, 160, 160) // ~100 KB of base64
	body := claudeCodeBody(t, img, 3, 2000)
	r := newRig(t, providertest.WireAnthropic, providertest.Options{MaxBodyBytes: len(body) - 20000}, Options{Budget: budget})
	status, answer := r.post(t, providertest.WireAnthropic, body, nil)
	if status != 200 {
		t.Fatalf("status %d: %s\n%s", status, answer, r.log)
	}
	exs := r.exchanges()
	ex := exs[len(exs)-1]
	if ex.TooLarge != 1 || ex.Overflows != 0 || ex.Budget != budget {
		t.Errorf("too large %d, overflows %d, budget %d (want 1, 0, %d)", ex.TooLarge, ex.Overflows, ex.Budget, budget)
	}
	if ex.ByteBudget >= len(body) || ex.ByteBudget <= 0 {
		t.Errorf("byte budget %d, body %d", ex.ByteBudget, len(body))
	}
	up := r.up.Requests()
	sent := up[len(up)-1].Body
	if bytes.Contains(sent, []byte(img[:200])) || !bytes.Contains(sent, []byte("image of")) {
		t.Errorf("the image was not replaced by a note naming it")
	}
	// The next request (the image still in the agent's history) is sent
	// without it at once, and the token budget still holds.
	status, _ = r.post(t, providertest.WireAnthropic, body, nil)
	if status != 200 {
		t.Fatalf("second request: %d", status)
	}
	if got := r.up.Requests(); len(got) != len(up)+1 {
		t.Errorf("second request took %d upstream calls, want 1", len(got)-len(up))
	}
	if exs := r.exchanges(); exs[len(exs)-1].Budget != budget {
		t.Errorf("budget after a 413: %d", exs[len(exs)-1].Budget)
	}
}

// TestSameFirstPromptTwoAgents: two agent sessions with the same system
// prompt and first prompt, told apart by their session headers, never
// share a proxied session.
func TestSameFirstPromptTwoAgents(t *testing.T) {
	r := newRig(t, providertest.WireAnthropic, providertest.Options{}, Options{Budget: 20000})
	body := claudeCodeBody(t, noisePNG(t, 8, 8), 2, 500)
	for _, id := range []string{"aaaa-1", "bbbb-2", "aaaa-1"} {
		if status, a := r.post(t, providertest.WireAnthropic, body, http.Header{"X-Claude-Code-Session-Id": {id}}); status != 200 {
			t.Fatalf("%d %s", status, a)
		}
	}
	exs := r.exchanges()
	if exs[0].Session == exs[1].Session || exs[0].Session != exs[2].Session {
		t.Errorf("sessions %q %q %q", exs[0].Session, exs[1].Session, exs[2].Session)
	}
	res, err := http.Get(r.srv.URL + StatusPath)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st Status
	data, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(data, &st); err != nil || len(st.Sessions) != 2 {
		t.Fatalf("status: %v %s", err, data)
	}
	for _, s := range st.Sessions {
		if s.Requests == 0 || s.AgentTokens == 0 || s.Budget != 20000 {
			t.Errorf("status of %s: %+v", s.Key, s)
		}
	}
}

// TestCodexDefaultShapeManaged: a Responses API request shaped as Codex
// CLI 0.169's default model sends it (its tools as a leading
// additional_tools item, a provider compaction item, a web search call) is
// managed within the budget, with those items sent byte for byte and the
// kept items with their ids.
func TestCodexDefaultShapeManaged(t *testing.T) {
	up := newResponsesUpstream(t, 0)
	u, _ := url.Parse(up.srv.URL)
	p, err := New(Options{Upstream: u, Budget: 6000})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := httptest.NewServer(p)
	defer srv.Close()
	addTools := `{"type":"additional_tools","id":"at_1","role":"developer","tools":[{"type":"namespace","name":"functions","tools":[{"type":"function","name":"exec","description":"Run JavaScript","parameters":{"type":"object"}}]}]}`
	compaction := `{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAAB-COMPACTED-STATE"}`
	search := `{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"go modules"}}`
	items := []string{addTools,
		`{"type":"message","id":"msg_d","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]}`,
		`{"type":"message","id":"msg_e","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/work/codexproj</cwd>\n</environment_context>"}]}`,
		`{"type":"message","id":"msg_u","role":"user","content":[{"type":"input_text","text":"fix the test"}]}`,
		compaction, search}
	for i := 0; i < 10; i++ {
		out, _ := json.Marshal(strings.Repeat(fmt.Sprintf("output line %d of call %d\n", i, i), 120))
		items = append(items,
			fmt.Sprintf(`{"type":"custom_tool_call","id":"ctc_%d","call_id":"call_%d","name":"exec","input":"run('cat f%d')"}`, i, i, i),
			fmt.Sprintf(`{"type":"custom_tool_call_output","id":"out_%d","call_id":"call_%d","output":%s}`, i, i, out))
	}
	body := fmt.Appendf(nil, `{"model":"gpt-6.1-sol","stream":true,"store":false,"input":[%s],"include":["reasoning.encrypted_content"]}`, strings.Join(items, ","))
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/responses", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json") // as Codex sends it
	req.Header.Set("session-id", "01a21cf0-a984-7592-9dfe-c624d656957a")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, data)
	}
	sent := up.bodies[len(up.bodies)-1]
	if len(sent) >= len(body) {
		t.Fatalf("not managed: sent %d bytes of %d", len(sent), len(body))
	}
	for name, it := range map[string]string{"additional_tools": addTools, "compaction": compaction, "web_search_call": search} {
		if !bytes.Contains(sent, []byte(it)) {
			t.Errorf("%s not sent byte for byte", name)
		}
	}
	// Every output sent, rewritten or not, keeps its id.
	var sentReq struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(sent, &sentReq); err != nil {
		t.Fatal(err)
	}
	outputs := 0
	for _, it := range sentReq.Input {
		if it["type"] == "custom_tool_call_output" {
			outputs++
			if id, _ := it["id"].(string); id != "out_"+strings.TrimPrefix(it["call_id"].(string), "call_") {
				t.Errorf("output %v lost its id", it["call_id"])
			}
		}
	}
	if outputs == 0 {
		t.Error("no output sent")
	}
	if n := up.tokens[len(up.tokens)-1]; n > 6000 {
		t.Errorf("upstream counted %d tokens, budget 6000", n)
	}
	st := p.Status()
	if len(st.Sessions) != 1 || !strings.HasPrefix(st.Sessions[0].Session, "codex-01a21cf0-a984-7592-9dfe-c624d656957a-") || st.Sessions[0].Project != "" && st.Sessions[0].Project != "/work/codexproj" {
		t.Errorf("status: %+v", st)
	}
}
