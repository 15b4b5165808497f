package compact_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

func TestTextPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []string
	}{
		{"edit src/app.go and ./x.py then /etc/app.conf", []string{"src/app.go", "x.py", "/etc/app.conf"}},
		{"see README.md, main.go:42 and ../up/a.ts.", []string{"README.md", "main.go", "../up/a.ts"}},
		{"not https://example.com/a/b.html nor example.com nor me@mail.org", nil},
		{"versions 1.2.3, v2.0.1 and 3.11 are not files; e.g. not either", nil},
		{"`pkg/foo_test.go` (and \"cmd/main.go\")", []string{"pkg/foo_test.go", "cmd/main.go"}},
		{"twice a.go a.go", []string{"a.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, compact.TextPaths(tt.text)); diff != "" {
				t.Errorf("TextPaths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFileAnalyzerRanking(t *testing.T) {
	t.Parallel()
	msgs := []chat.Message{
		user("look at docs/guide.md and docs/guide.md and docs/guide.md"),
		fxCall("1", "Read", map[string]any{"file_path": "a.go"}),
		fxCall("2", "Edit", map[string]any{"file_path": "b.go"}),
		fxCall("3", "Read", map[string]any{"file_path": "c.go"}),
		asst("c.go is fine"),
		fxCall("4", "Write", map[string]any{"file_path": "d.go"}),
		fxCall("5", "Read", map[string]any{"file_path": "e.go"}),
		fxCall("6", "Read", map[string]any{"file_path": "f.go"}),
	}
	got := compact.FileAnalyzer{}.Analyze(msgs)
	want := []compact.FileContext{
		{Path: "d.go", Modified: true, Mentions: 1, LastMention: 5},
		{Path: "b.go", Modified: true, Mentions: 1, LastMention: 2},
		{Path: "c.go", Mentions: 2, LastMention: 4},
		{Path: "f.go", Mentions: 1, LastMention: 7},
		{Path: "e.go", Mentions: 1, LastMention: 6},
	}
	// docs/guide.md, named three times in one message, counts once and is
	// the oldest: it is the sixth file and left out.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Analyze (-want +got):\n%s", diff)
	}
	if got := (compact.FileAnalyzer{MaxFiles: 2}).Analyze(msgs); len(got) != 2 {
		t.Errorf("MaxFiles 2: got %d files", len(got))
	}
}

func TestFileAnalyzerContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small.go", []byte("package x\n"))
	write("long.txt", []byte(strings.Repeat("line\n", 30)))
	write("bin.dat", []byte("abc\x00def"))
	write("latin1.txt", []byte{'c', 'a', 'f', 0xe9})
	write("big.txt", []byte(strings.Repeat("x", 2000)))
	if err := os.Mkdir(filepath.Join(dir, "sub.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A FIFO, and links to it and to /dev/stdin: reading one would block
	// compaction for ever.
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo.go", filepath.Join(dir, "tofifo.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/stdin", filepath.Join(dir, "stdin.go")); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "small.go")
	tests := []struct {
		path      string
		content   string
		truncated bool
	}{
		{"small.go", "package x\n", false},
		{abs, "package x\n", false},
		{"long.txt", strings.Repeat("line\n", 10), true},
		{"bin.dat", "", false},
		{"latin1.txt", "", false},
		{"big.txt", "", false},
		{"missing.go", "", false},
		{"sub.d", "", false},
		{"fifo.go", "", false},
		{"tofifo.go", "", false},
		{"stdin.go", "", false},
		{"/proc/self/status.txt", "", false},
		{"/dev/null.txt", "", false},
	}
	a := compact.FileAnalyzer{Root: dir, ReadContent: true, MaxLines: 10, MaxBytes: 1000, MaxFiles: 1}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got := a.Analyze([]chat.Message{fxCall("1", "Write", map[string]any{"file_path": tt.path})})
			if strings.HasPrefix(tt.path, "/dev/") {
				// tooluse names no file under /dev: nothing to list or read.
				if len(got) != 0 {
					t.Fatalf("got %+v, want no file", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d files, want 1", len(got))
			}
			if got[0].Content != tt.content || got[0].Truncated != tt.truncated {
				t.Errorf("content %q truncated %v, want %q %v", got[0].Content, got[0].Truncated, tt.content, tt.truncated)
			}
		})
	}
}

// TestFileAnalyzerIdentifiers: code identifiers and domains in prose that
// look like file names (issue 18: "os.path.exists", "models.ForeignKey",
// "hex.pm") are not files; a bare name is one when a tool touched a file
// of that name, or when it exists in the project.
func TestFileAnalyzerIdentifiers(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "setup.cfg"), []byte("[metadata]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{
		chat.NewText(chat.RoleUser, "Check os.path.exists before models.ForeignKey is used; the package is on hex.pm. See setup.cfg and models.py."),
		chat.NewAssistant("Reading.", chat.ToolCall{ID: "c1", Name: "Read", Arguments: []byte(`{"file_path":"/repo/app/models.py"}`)}),
		chat.NewToolResult("c1", "Read", "class Book(models.Model): ...", false),
		chat.NewText(chat.RoleAssistant, "models.py defines Book; next, src/app/views.py."),
	}
	names := func(fs []compact.FileContext) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Path)
		}
		slices.Sort(out)
		return out
	}
	got := names(compact.FileAnalyzer{MaxFiles: 10}.Analyze(msgs))
	want := []string{"/repo/app/models.py", "models.py", "src/app/views.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("without the project (-want +got):\n%s", diff)
	}
	got = names(compact.FileAnalyzer{MaxFiles: 10, Root: root, ReadContent: true}.Analyze(msgs))
	want = []string{"/repo/app/models.py", "models.py", "setup.cfg", "src/app/views.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("with the project (-want +got):\n%s", diff)
	}
}
