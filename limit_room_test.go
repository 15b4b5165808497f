package agentctx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

// goFile returns a Go file of n lines as Claude Code's Read shows it:
// "     1→package store", numbered with an arrow.
func goFile(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		var line string
		switch i % 6 {
		case 0:
			line = fmt.Sprintf("func migrate%d(ctx context.Context, tx *sql.Tx) error {", i)
		case 1:
			line = fmt.Sprintf("\tif _, err := tx.ExecContext(ctx, stmt%d); err != nil {", i)
		case 2:
			line = fmt.Sprintf("\t\treturn fmt.Errorf(\"migrate %d: %%w\", err)", i)
		case 3:
			line = "\t}"
		case 4:
			line = "\treturn nil"
		default:
			line = "}"
		}
		fmt.Fprintf(&b, "%6d→%s\n", i, line)
	}
	return b.String()
}

// toolResult returns the content of the result of call id in msgs.
func toolResult(t *testing.T, msgs []chat.Message, id string) string {
	t.Helper()
	for _, m := range msgs {
		if r, ok := m.ToolResult(); ok && r.ToolCallID == id {
			return r.Content
		}
	}
	t.Fatalf("no result of %s in the request", id)
	return ""
}

// keptLines counts the lines of the file kept in a cut Read result.
func keptLines(s string) int {
	n := 0
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, "→") && !strings.HasPrefix(l, "…[agentctx:") {
			n++
		}
	}
	return n
}

// The newest tool result gets the room the window has: a 1,524-line
// file read into a 16,000-token budget with 14,500 tokens unused was cut
// to its first 53 lines (the seed's 6,000-char quota). It now fills the
// room left under the strategy's compaction ratio, the request still
// fits and compacts nothing, and the next request cuts the older result
// before the newer one.
func TestNewestResultUsesTheRoom(t *testing.T) {
	t.Parallel()
	const budget = 16000
	for _, strategy := range []compact.Strategy{&compact.Tiered{}, &compact.Summarize{}, &compact.Mask{}} {
		t.Run(strategy.Name(), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			e := openEngine(t, agentctx.Options{Budget: budget, NoWorkspace: true, Strategy: strategy,
				SystemPrompt: "You are a coding agent."})
			file := goFile(1524)
			mustAdd(t, e,
				chat.NewText(chat.RoleUser, "The migration in internal/store/migrate.go fails on an existing database. Find out why."),
				call("r1", "Read", `{"file_path":"/home/dev/app/internal/store/migrate.go"}`),
				chat.NewToolResult("r1", "Read", file, false))
			req, err := e.Request(ctx)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, "after the read", e, req, 0)
			if len(req.Compactions) > 0 {
				t.Errorf("the request compacted: %+v", req.Compactions)
			}
			got := toolResult(t, req.Messages, "r1")
			seed, _ := compact.QuotaFor(0).Limit(chat.ToolResult{Content: file}, "Read")
			t.Logf("kept %d of 1,524 lines in a request of %d tokens; the seed's quota keeps %d", keptLines(got), req.Tokens, keptLines(seed.Content))
			// Tiered's 70 % leaves room for 785 lines, 4.7 times the seed's.
			if n, s := keptLines(got), keptLines(seed.Content); n < 4*s || n >= 1524 {
				t.Errorf("kept %d of 1,524 lines; the seed's quota keeps %d", n, s)
			}
			if !strings.HasPrefix(file, strings.SplitN(got, "…[agentctx:", 2)[0]) {
				t.Error("the kept part is not the file's first lines")
			}
			if !strings.Contains(got, "read the rest with an offset, from line ") {
				t.Errorf("note: %s", got[strings.LastIndex(got, "…[agentctx:"):])
			}
			th := 0.8
			if tr, ok := strategy.(compact.Thresholder); ok {
				th = tr.ThresholdRatio()
			}
			if ratio := float64(req.Tokens) / budget; ratio < th-0.15 || ratio >= th {
				t.Errorf("the request holds %d tokens of %d (%.2f): want most of the room under %.2f used", req.Tokens, budget, ratio, th)
			}

			// The next round: its result is the newest, the file the oldest.
			out := strings.Repeat("--- FAIL: TestMigrate (0.02s)\n    migrate_test.go:41: duplicate column name: usage\n", 40)
			mustAdd(t, e,
				chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Let me run the tests."},
					chat.ToolCall{ID: "b1", Name: "Bash", Arguments: []byte(`{"command":"go test ./internal/store/"}`)}}},
				chat.NewToolResult("b1", "Bash", out, true))
			req, err = e.Request(ctx)
			if err != nil {
				t.Fatal(err)
			}
			checkRequest(t, "after the test run", e, req, 0)
			if len(req.Compactions) == 0 {
				// Under the compaction ratio (Tiered's L1 does not cut a
				// result the limiter cut): both results as they came.
				return
			}
			// The limiter may have cut the newest result as it came (the
			// window had no room left); compaction did not touch it.
			newest := toolResult(t, req.Messages, "b1")
			for _, mark := range []string{"older tool result cut", "cut to fit the token budget", "tool output elided"} {
				if strings.Contains(newest, mark) {
					t.Errorf("compaction cut the newest result (%q):\n%s", mark, newest)
				}
			}
			if !strings.HasSuffix(newest, "duplicate column name: usage\n") {
				t.Errorf("the newest result lost its end:\n%s", newest)
			}
			for _, m := range req.Messages {
				if r, ok := m.ToolResult(); ok && r.ToolCallID == "r1" && keptLines(r.Content) >= keptLines(got) {
					t.Errorf("the older result kept its %d lines", keptLines(r.Content))
				}
			}
		})
	}
}

// A file that fits in the room is added whole, even over the seed's
// quota; results of one round share the room.
func TestResultsShareTheRoom(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := openEngine(t, agentctx.Options{Budget: 16000, NoWorkspace: true, Strategy: &compact.Tiered{}})
	small := goFile(300) // over 6,000 chars, about 4,000 tokens
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Read the store."),
		call("r0", "Read", `{"file_path":"store.go"}`), chat.NewToolResult("r0", "Read", small, false))
	req, err := e.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolResult(t, req.Messages, "r0"); got != small {
		t.Errorf("a 300-line file that fits was cut to %d lines", keptLines(got))
	}

	e = openEngine(t, agentctx.Options{Budget: 16000, NoWorkspace: true, Strategy: &compact.Tiered{}})
	big := goFile(1524)
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Read both."),
		chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ToolCall{ID: "a", Name: "Read", Arguments: []byte(`{"file_path":"a.go"}`)},
			chat.ToolCall{ID: "b", Name: "Read", Arguments: []byte(`{"file_path":"b.go"}`)}}},
		chat.NewToolResult("a", "Read", big, false), chat.NewToolResult("b", "Read", big, false))
	req, err = e.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkRequest(t, "two reads", e, req, 0)
	a, b := keptLines(toolResult(t, req.Messages, "a")), keptLines(toolResult(t, req.Messages, "b"))
	if a < 200 || b < 53 {
		t.Errorf("kept %d and %d lines", a, b)
	}
	if len(req.Compactions) > 0 {
		t.Errorf("compacted: %+v", req.Compactions)
	}
}

// A negative Options.MaxResultTokens keeps the seed's quotas only.
func TestMaxResultTokensOff(t *testing.T) {
	t.Parallel()
	e := openEngine(t, agentctx.Options{Budget: 16000, NoWorkspace: true, MaxResultTokens: -1})
	file := goFile(1524)
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Read it."),
		call("r1", "Read", `{"file_path":"migrate.go"}`), chat.NewToolResult("r1", "Read", file, false))
	req, err := e.Request(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := compact.QuotaFor(0).Limit(chat.ToolResult{Content: file}, "Read")
	if got, want := keptLines(toolResult(t, req.Messages, "r1")), keptLines(seed.Content); got != want {
		t.Errorf("kept %d lines, want the seed quota's %d", got, want)
	}
}
