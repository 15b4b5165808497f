package agentctx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

// The newest result is kept whole when the strategy can make room for it
// from older history (compact.Reclaimer): a 400-line Read arriving in a
// window near its compaction ratio, full of older test runs, was cut to
// the room left under that ratio, and the edit that followed could not
// find its text (issue 27: an old_string on line 84 of a Read that went
// out as lines 1-45). With the default Tiered the Read goes in whole,
// and the request that carries it compacts the older runs instead. The
// window is filled to within a tenth of the budget of where Tiered
// compacts.
func TestNewestResultReclaimsOlderHistory(t *testing.T) {
	t.Parallel()
	const budget = 16000
	ctx := t.Context()
	tiered := &compact.Tiered{}
	e := openEngine(t, agentctx.Options{Budget: budget, NoWorkspace: true, Strategy: tiered,
		SystemPrompt: "You are a coding agent."})
	full := int((tiered.ThresholdRatio() - 0.1) * budget)
	mustAdd(t, e, chat.NewText(chat.RoleUser, "The migration in internal/store/migrate.go fails on an existing database. Find out why."))
	for i := 0; ; i++ {
		req, err := e.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if req.Tokens > full {
			break
		}
		if i > 100 {
			t.Fatalf("the window does not fill: %d tokens", req.Tokens)
		}
		id := fmt.Sprintf("b%d", i)
		out := strings.Repeat(fmt.Sprintf("--- FAIL: TestMigrate%d (0.02s)\n    migrate_test.go:%d: duplicate column name: usage\n", i, 40+i), 25)
		mustAdd(t, e, call(id, "Bash", `{"command":"go test ./internal/store/"}`), chat.NewToolResult(id, "Bash", out, true))
	}
	file := goFile(400)
	mustAdd(t, e, call("r1", "Read", `{"file_path":"/home/dev/app/internal/store/migrate.go"}`),
		chat.NewToolResult("r1", "Read", file, false))
	req, err := e.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkRequest(t, "after the read", e, req, 0)
	if got := toolResult(t, req.Messages, "r1"); got != file {
		t.Errorf("the newest Read was cut: kept %d of 400 lines", keptLines(got))
	}
	if len(req.Compactions) == 0 {
		t.Error("the request compacted nothing: the older runs should have made the room")
	}
	if req.Tokens > budget {
		t.Errorf("the request holds %d tokens, over the budget of %d", req.Tokens, budget)
	}
}
