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

// TestWithNamesSkipsNoted: a name the note already gives (its "files
// touched" line) is not listed again; the others are.
func TestWithNamesSkipsNoted(t *testing.T) {
	t.Parallel()
	base := "[agentctx compaction note] removed.\n- files touched: /src/app/server.go, /src/app/db.go\nThe messages after this note are kept verbatim."
	groups := []nameGroup{{label: "find /src -type f", names: []string{"/src/app/server.go", "/src/app/handler.go", "/src/app/db.go", "ServeHTTP"}}}
	got := notedNames(withNames(base, groups, 1<<20, func(s string) int { return len(s) }))
	if len(got) != 1 || strings.Join(got[0].names, ",") != "/src/app/handler.go,ServeHTTP" {
		t.Errorf("names listed %+v, want only /src/app/handler.go and ServeHTTP (the note gives the other two)", got)
	}
}

// TestWithNamesLabels: a file read twice is one line of the section,
// labelled by its base name when the note gives its full path; a source
// the note does not name keeps its label, and a command is never
// shortened.
func TestWithNamesLabels(t *testing.T) {
	t.Parallel()
	base := "[agentctx compaction note] removed.\n- files touched: /src/app/server.go\nThe messages after this note are kept verbatim."
	groups := []nameGroup{
		{label: "/src/app/server.go", names: []string{"ServeHTTP", "handleLogin"}},
		{label: "/src/app/db.go", names: []string{"OpenDB"}},
		{label: "cat /src/app/server.go", names: []string{"listenAddr"}},
		{label: "/src/app/server.go", names: []string{"ServeHTTP", "readConfig"}},
	}
	note := withNames(base, groups, 1<<20, func(s string) int { return len(s) })
	got := notedNames(note)
	want := []nameGroup{
		{label: "server.go", names: []string{"ServeHTTP", "handleLogin", "readConfig"}},
		{label: "/src/app/db.go", names: []string{"OpenDB"}},
		{label: "cat /src/app/server.go", names: []string{"listenAddr"}},
	}
	if len(got) != len(want) {
		t.Fatalf("read back %+v from\n%s\nwant %+v", got, note, want)
	}
	for i := range want {
		if got[i].label != want[i].label || strings.Join(got[i].names, ",") != strings.Join(want[i].names, ",") {
			t.Errorf("line %d: %+v, want %+v\n%s", i, got[i], want[i], note)
		}
	}
}

// TestRandomID: generated ids (message and tool-call ids, signatures,
// base64) are left out of the names; identifiers, paths, hex hashes and
// UUIDs are kept.
func TestRandomID(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"msg_0167kgZUrgcT7dg7uZK7hVSg", "toolu_018GZVh9ymkrdx1TnR8reg5Y",
		"EsQCCkYICxgCKkCiHauF2Q62eGbSzb4GxFiNFSp0SWTm0U5qENU", "cnK1ZiocxWhQX",
		"call_Xy7Qp2LmN9aB3cD4",
	} {
		if !randomID(s) {
			t.Errorf("randomID(%q) = false, want true", s)
		}
	}
	for _, s := range []string{
		"TranscriptRendererTest", "Spotter.Services.TranscriptRenderer", "render_assistant_block",
		"HTMLDivElement", "parseHTTP2Frame", "a78b257", "8463c716-a2ea-4c14-9efa-87158ebd9f20",
		"/home/user/project/lib/utf8Decoder.go", "SHA256Sum", "Base64URLEncoding", "x86_64", "IPv6Address",
	} {
		if randomID(s) {
			t.Errorf("randomID(%q) = true, want false", s)
		}
	}
}
