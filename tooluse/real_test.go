package tooluse_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/transcript"
)

// TestClassifyReal classifies every tool call of the real trajectories
// in ../shared/data: each tool name is known to a table, paths are never
// empty, and the calls that touch files are found.
func TestClassifyReal(t *testing.T) {
	t.Parallel()
	names := map[string]string{}
	var calls, reads, writes, searches int
	for _, f := range sharedtest.Files(t) {
		trs, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tr := range trs {
			for _, m := range tr.Messages {
				for _, c := range m.ToolCalls() {
					calls++
					u := tooluse.Classify(c)
					names[c.Name] = fmt.Sprintf("%s/%v", u.Agent, u.Kind)
					if u.Agent == "" {
						t.Errorf("%s: tool %q is in no table", f, c.Name)
					}
					for _, p := range u.Paths {
						if p == "" {
							t.Errorf("%s: %s call %s has an empty path", f, c.Name, c.ID)
						}
					}
					reads += len(u.Reads)
					writes += len(u.Writes)
					searches += len(u.Searches)
				}
			}
		}
	}
	if calls == 0 || reads == 0 || writes == 0 || searches == 0 {
		t.Errorf("%d calls: %d reads, %d writes, %d searches; want some of each", calls, reads, writes, searches)
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-20s %s", k, names[k])
	}
	t.Logf("%d calls: %d reads, %d writes, %d searches", calls, reads, writes, searches)
}
