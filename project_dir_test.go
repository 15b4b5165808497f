package agentctx_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// filesSeen is a summarizer that remembers the files of the requests it
// is given, and writes the extractive summary.
type filesSeen struct {
	mu    sync.Mutex
	files []compact.FileContext
}

func (s *filesSeen) Summarize(ctx context.Context, req compact.SummaryRequest) (compact.SummaryResult, error) {
	s.mu.Lock()
	s.files = append(s.files, req.Files...)
	s.mu.Unlock()
	return compact.Extractive{}.Summarize(ctx, req)
}

func (s *filesSeen) Name() string { return "files-seen" }

// content returns the content the summarizer was given for path.
func (s *filesSeen) content(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files {
		if f.Path == path {
			return f.Content
		}
	}
	return ""
}

// TestSummaryReadsProjectFiles: a summary of a resumed session reads the
// files its history names relative to the session's project directory,
// not to the process's working directory (the test's, which holds no
// such file); a session whose project is gone reads no content at all.
func TestSummaryReadsProjectFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	const rel = "conf/settings.toml"
	if err := os.MkdirAll(filepath.Join(dir, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), []byte("retries = 7 # only-on-disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rel); err == nil {
		t.Fatalf("%s exists in the process's working directory: the test proves nothing", rel)
	}
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e, err := agentctx.Open(ctx, agentctx.Options{Store: store, Dir: dir, Budget: 6000, NoWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		err := e.Add(ctx, chat.NewText(chat.RoleUser, "Raise the retries in "+rel+", round "+strings.Repeat("x", i)),
			chat.NewText(chat.RoleAssistant, "I changed "+rel+" as asked: "+strings.Repeat("detail ", 300)))
		if err != nil {
			t.Fatal(err)
		}
	}
	id := e.ID()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		project string
		want    string
	}{
		{"project on disk", dir, "only-on-disk"},
		{"project gone", filepath.Join(dir, "gone"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer cp.Close()
			copyTo(t, store, cp, id, tc.project)
			sum := &filesSeen{}
			r, err := agentctx.Resume(ctx, id, agentctx.Options{Store: cp, Summarizer: sum})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if recs, err := r.Compact(ctx, ""); err != nil || len(recs) == 0 {
				t.Fatalf("Compact = %v, %v; want a summary", recs, err)
			}
			if got := sum.content(rel); !strings.Contains(got, tc.want) || (tc.want == "" && got != "") {
				t.Errorf("content of %s in the summary request = %q, want %q", rel, got, tc.want)
			}
		})
	}
}

// copyTo copies session id from src to dst with project as its project.
func copyTo(t *testing.T, src, dst *jsonlstore.Store, id, project string) {
	t.Helper()
	tr, err := src.Load(t.Context(), id, session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Session
	s.Project = project
	if _, err := dst.Create(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Append(t.Context(), id, tr.Entries...); err != nil {
		t.Fatal(err)
	}
}

// TestResumeReadOnly: a read-only resume of a session that recorded no
// configuration, with options that would override one, leaves the
// session's file byte-identical, even after Add, Compact and Close.
func TestResumeReadOnly(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e, err := agentctx.Open(ctx, agentctx.Options{Store: store, Budget: 6000, NoWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if err := e.Add(ctx, chat.NewText(chat.RoleUser, "Fix parse.go."), chat.NewText(chat.RoleAssistant, "Done: "+strings.Repeat("detail ", 300))); err != nil {
			t.Fatal(err)
		}
	}
	id := e.ID()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	before := sessionFiles(t, root)
	r, err := agentctx.Resume(ctx, id, agentctx.Options{Store: store, Budget: 9000, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Budget() != 9000 {
		t.Errorf("Budget = %d, want the option's 9000", r.Budget())
	}
	if err := r.Add(ctx, chat.NewText(chat.RoleUser, "And the tests.")); err != nil {
		t.Fatal(err)
	}
	if recs, err := r.Compact(ctx, ""); err != nil || len(recs) == 0 {
		t.Fatalf("Compact = %v, %v; want a summary", recs, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	after := sessionFiles(t, root)
	if len(after) != len(before) {
		t.Fatalf("files %d → %d", len(before), len(after))
	}
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Errorf("%s changed by a read-only resume", name)
		}
	}
}

// sessionFiles returns the contents of the files under root by path.
func sessionFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
