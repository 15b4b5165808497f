package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/mcpserver"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// fixture is a store with two sessions: "older", whose build log the
// limiter cut (call b1), and "newer", the latest, in project dir.
type fixture struct {
	st      session.Store
	root    string // the store's folder
	full    string // b1's full output
	project string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := t.Context()
	root := t.TempDir()
	// The agent writes through its own store, closed when it is done;
	// the server reads through another (f.st).
	st, err := jsonlstore.Open(jsonlstore.Options{Root: root, Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var b strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "line %d of the build log: compiling pkg%d\n", i, i%13)
	}
	b.WriteString("FAIL: TestParse (needle-42)\n")
	f := &fixture{root: root, full: b.String(), project: t.TempDir()}
	older, err := agentctx.Open(ctx, agentctx.Options{Store: st, SessionID: "older", Dir: f.project, Budget: 8000,
		NoWorkspace: true, RecallToolName: "mcp__agentctx__recall_output"})
	if err != nil {
		t.Fatal(err)
	}
	if err := older.Add(ctx, chat.NewText(chat.RoleUser, "build it"),
		chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "b1", Name: "Bash", Arguments: json.RawMessage(`{"command":"make"}`)}}},
		chat.NewToolResult("b1", "Bash", f.full, false),
		chat.NewText(chat.RoleAssistant, "The build fails in TestParse.")); err != nil {
		t.Fatal(err)
	}
	msgs := older.Messages()
	if r, _ := msgs[2].ToolResult(); len(r.Content) >= len(f.full) || !strings.Contains(r.Content, "mcp__agentctx__recall_output") {
		t.Fatalf("the limiter did not cut b1 with a note naming the MCP tool: %d bytes", len(r.Content))
	}
	if err := older.Close(); err != nil {
		t.Fatal(err)
	}
	newer, err := agentctx.Open(ctx, agentctx.Options{Store: st, SessionID: "newer", Dir: f.project, Budget: 8000, NoWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := newer.Add(ctx, chat.NewText(chat.RoleUser, "now fix the parser")); err != nil {
		t.Fatal(err)
	}
	if err := newer.Close(); err != nil {
		t.Fatal(err)
	}
	if f.st, err = jsonlstore.Open(jsonlstore.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.st.Close() })
	return f
}

// connectors connect a go-sdk client to a server over each transport.
var connectors = map[string]func(t *testing.T, s *mcpserver.Server) *mcp.ClientSession{
	"memory": func(t *testing.T, s *mcpserver.Server) *mcp.ClientSession {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.MCP().Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		return connect(t, ct)
	},
	"http": func(t *testing.T, s *mcpserver.Server) *mcp.ClientSession {
		srv := httptest.NewServer(s.Handler())
		t.Cleanup(srv.Close)
		return connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL})
	},
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agentctx-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callText calls tool with args and returns its text and whether it is an
// error result.
func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lines := strings.SplitAfter(f.full, "\n")
	for name, conn := range connectors {
		t.Run(name, func(t *testing.T) {
			s, err := mcpserver.New(mcpserver.Options{Store: f.st, Project: f.project, Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			cs := conn(t, s)
			if got := cs.InitializeResult().ServerInfo.Name; got != "agentctx" {
				t.Errorf("server name %q", got)
			}
			lt, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range lt.Tools {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			if diff := cmp.Diff([]string{"context", "pin", "recall_output", "recall_span", "search_session", "unpin"}, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}

			// recall_output without a session: the default one ("newer")
			// lacks b1, the search finds it in "older".
			got, isErr := callText(t, cs, "recall_output", map[string]any{"call_id": "b1", "start_line": 1500, "end_line": 1502})
			head, body, _ := strings.Cut(got, "\n")
			if isErr || body != strings.Join(lines[1499:1502], "") || !strings.Contains(head, "lines 1500-1502 of 2001") {
				t.Errorf("recall_output lines: error=%v %q", isErr, got)
			}
			got, isErr = callText(t, cs, "recall_output", map[string]any{"session_id": "older", "call_id": "b1", "query": "needle-42"})
			if isErr || !strings.Contains(got, "2001: FAIL: TestParse (needle-42)") {
				t.Errorf("recall_output query: error=%v %q", isErr, got)
			}
			// The whole output comes back in pieces; put together they
			// are the output.
			var whole strings.Builder
			for start := 1; start <= len(lines)-1; start += agentctx.RecallMaxLines {
				got, isErr := callText(t, cs, "recall_output", map[string]any{"call_id": "b1", "start_line": start, "end_line": start + agentctx.RecallMaxLines - 1})
				if isErr {
					t.Fatalf("recall_output from line %d: %s", start, got)
				}
				_, body, _ := strings.Cut(got, "\n")
				whole.WriteString(body)
			}
			if whole.String() != f.full {
				t.Errorf("the recalled pieces are %d bytes, the output %d", whole.Len(), len(f.full))
			}
			for _, args := range []map[string]any{{"call_id": "nope"}, {"session_id": "older", "call_id": "b1", "start_line": 9000}, {}} {
				if got, isErr := callText(t, cs, "recall_output", args); !isErr || got == "" {
					t.Errorf("recall_output %v: not an error result: %q", args, got)
				}
			}
			if got, isErr := callText(t, cs, "recall_span", map[string]any{"session_id": "older", "span_id": "s7"}); !isErr || !strings.Contains(got, "s7") {
				t.Errorf("recall_span of an unknown span: error=%v %q", isErr, got)
			}

			// search_session finds the line in the full output and in
			// the assistant's text.
			got, isErr = callText(t, cs, "search_session", map[string]any{"session_id": "older", "query": "testparse"})
			if isErr || !strings.Contains(got, "call_id=b1, full output) line 2001: FAIL: TestParse (needle-42)") ||
				!strings.Contains(got, "assistant line 1: The build fails in TestParse.") {
				t.Errorf("search_session: error=%v %q", isErr, got)
			}

			// context: the default session is the latest in the project.
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "context", Arguments: map[string]any{"session_id": "older"}})
			if err != nil || res.IsError {
				t.Fatalf("context: %v %+v", err, res)
			}
			var rep mcpserver.ContextReport
			raw, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(raw, &rep); err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, c := range rep.Categories {
				sum += c.Tokens
			}
			if rep.SessionID != "older" || rep.Budget != 8000 || rep.Tokens == 0 || sum != rep.Tokens || rep.FreeTokens != rep.Budget-rep.Tokens {
				t.Errorf("context report: %+v (categories sum %d)", rep, sum)
			}
			if len(rep.CutOutputs) != 1 || rep.CutOutputs[0].CallID != "b1" || rep.CutOutputs[0].Bytes != len(f.full) || rep.CutOutputs[0].Lines != 2001 {
				t.Errorf("cut outputs %+v", rep.CutOutputs)
			}
		})
	}
}

// TestPin: pin and unpin write the session's pins, which a Resume keeps;
// a session another engine holds is refused with a clear error.
func TestPin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, err := mcpserver.New(mcpserver.Options{Store: f.st, Session: "older", OpenWriter: func() (session.Store, error) {
		return jsonlstore.Open(jsonlstore.Options{Root: f.root})
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectors["memory"](t, s)
	got, isErr := callText(t, cs, "pin", map[string]any{"text": "Never push to main."})
	if isErr || !strings.Contains(got, `"id":"p1"`) {
		t.Fatalf("pin: error=%v %s", isErr, got)
	}
	callText(t, cs, "pin", map[string]any{"text": "Answer in French."})
	if got, isErr := callText(t, cs, "unpin", map[string]any{"id": "p1"}); isErr {
		t.Fatalf("unpin: %s", got)
	}
	e, err := agentctx.Resume(t.Context(), "older", agentctx.Options{Store: f.st, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]agentctx.Pin{{ID: "p2", Text: "Answer in French."}}, e.Pins()); diff != "" {
		t.Errorf("pins after resume (-want +got):\n%s", diff)
	}
	_ = e.Close()
	if got, isErr := callText(t, cs, "unpin", map[string]any{"id": "p9"}); !isErr || !strings.Contains(got, "p9") {
		t.Errorf("unpin of an unknown pin: error=%v %q", isErr, got)
	}
	// While another process (here another store on the same folder)
	// writes the session, pin says so.
	other, err := jsonlstore.Open(jsonlstore.Options{Root: f.root})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	held, err := agentctx.Resume(t.Context(), "older", agentctx.Options{Store: other})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if got, isErr := callText(t, cs, "pin", map[string]any{"text": "x"}); !isErr || !strings.Contains(got, "another process") {
		t.Errorf("pin of a held session: error=%v %q", isErr, got)
	}
}

// TestNoSession: a store without sessions gets an error result naming
// session_id, not a protocol error.
func TestNoSession(t *testing.T) {
	t.Parallel()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := mcpserver.New(mcpserver.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectors["memory"](t, s)
	for tool, args := range map[string]map[string]any{
		"context": {}, "search_session": {"query": "x"}, "recall_output": {"call_id": "c1"}, "pin": {"text": "x"},
	} {
		got, isErr := callText(t, cs, tool, args)
		if !isErr || !strings.Contains(got, "session_id") {
			t.Errorf("%s: error=%v %q", tool, isErr, got)
		}
	}
	if _, err := mcpserver.New(mcpserver.Options{}); err == nil {
		t.Error("New without a store is not an error")
	}
}

// TestRecallSpan: a span a summary replaced comes back whole by its id,
// or its lines holding a query; context lists it.
func TestRecallSpan(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	w, err := jsonlstore.Open(jsonlstore.Options{Root: root, Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	e, err := agentctx.Open(ctx, agentctx.Options{Store: w, SessionID: "spans", Dir: t.TempDir(), Budget: 8000, NoWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "Build the project step by step.")); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		id := fmt.Sprintf("c%d", i)
		if err := e.Add(ctx,
			chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "Bash", Arguments: json.RawMessage(fmt.Sprintf(`{"command":"make step%d"}`, i))}}},
			chat.NewToolResult(id, "Bash", fmt.Sprintf("step %d built, MARK-%d found\n", i, i), false),
			chat.NewText(chat.RoleAssistant, fmt.Sprintf("step %d done", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := mcpserver.New(mcpserver.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectors["memory"](t, s)
	rep, err := s.Context(ctx, "")
	if err != nil || len(rep.Spans) == 0 || rep.Spans[0] != "s1" || rep.Compactions == 0 {
		t.Fatalf("context: spans %v, compactions %d, %v", rep.Spans, rep.Compactions, err)
	}
	got, isErr := callText(t, cs, "recall_span", map[string]any{"span_id": "s1"})
	if isErr || !strings.HasPrefix(got, "[messages of span s1, lines 1-") || !strings.Contains(got, "make step0") {
		t.Errorf("recall_span s1: error=%v %.300q", isErr, got)
	}
	got, isErr = callText(t, cs, "recall_span", map[string]any{"span_id": "s1", "query": "MARK-0 found"})
	if isErr || !strings.Contains(got, "step 0 built, MARK-0 found") {
		t.Errorf("recall_span s1 query: error=%v %q", isErr, got)
	}
	// search_session finds what the summary replaced.
	got, isErr = callText(t, cs, "search_session", map[string]any{"query": "MARK-1 found"})
	if isErr || !strings.Contains(got, "tool (Bash call_id=c1) line 1: step 1 built, MARK-1 found") {
		t.Errorf("search_session: error=%v %q", isErr, got)
	}
}
