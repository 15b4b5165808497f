package compact

import (
	"strings"
	"testing"
)

// TestWithNamesPathsFirst: when the section cannot hold every name, the
// paths of every group, newest first, go in before the identifiers: an
// older directory listing's files outlast a newer read's identifiers, and
// each group keeps its names in their order.
func TestWithNamesPathsFirst(t *testing.T) {
	t.Parallel()
	groups := []nameGroup{
		{label: "pkg/server.go", names: []string{"NewServer", "pkg/handler.go", "handle_request", "ServeHTTP", "parse_body", "write_header", "close_conn"}},
		{label: "find . -name '*.go'", names: []string{"pkg/server.go", "pkg/config/load.go", "cmd/app/main.go"}},
	}
	count := func(s string) int { return len(s) }
	full := withNames(note0, groups, 1<<20, count)
	// Room for the header, both labels, the four paths and one identifier.
	limit := count(namesHeader) + 1 + count("pkg/server.go") + 3 + count("find . -name '*.go'") + 3
	for _, n := range []string{"pkg/handler.go", "pkg/server.go", "pkg/config/load.go", "cmd/app/main.go", "NewServer"} {
		limit += count(n) + 1
	}
	note := withNames(note0, groups, limit, count)
	got := notedNames(note)
	if len(got) != 2 {
		t.Fatalf("groups read back %+v, want 2 from\n%s", got, note)
	}
	if want := []string{"NewServer", "pkg/handler.go"}; strings.Join(got[0].names, ",") != strings.Join(want, ",") {
		t.Errorf("newest group's names %q, want %q (its path, then the first identifier that fits, in order)", got[0].names, want)
	}
	if want := []string{"pkg/server.go", "pkg/config/load.go", "cmd/app/main.go"}; strings.Join(got[1].names, ",") != strings.Join(want, ",") {
		t.Errorf("listing's names %q, want all its paths %q", got[1].names, want)
	}
	if len(note) >= len(full) {
		t.Errorf("the cut section (%d bytes) is not shorter than the whole (%d)", len(note), len(full))
	}
}
