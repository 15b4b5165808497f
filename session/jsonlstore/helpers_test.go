package jsonlstore_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// open opens a store on opts (Root defaults to a fresh temporary folder)
// and closes it when the test ends.
func open(t testing.TB, opts jsonlstore.Options) *jsonlstore.Store {
	t.Helper()
	if opts.Root == "" {
		opts.Root = t.TempDir()
	}
	s, err := jsonlstore.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newSession creates a session in a fresh project folder.
func newSession(t testing.TB, s *jsonlstore.Store) session.Session {
	t.Helper()
	sess, err := s.Create(t.Context(), session.Session{Project: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

func msgEntry(t testing.TB, m chat.Message) session.Entry {
	t.Helper()
	e, err := session.NewMessageEntry(m)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func userMsgPlain(text string) chat.Message {
	return chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: text}}}
}

func userMsg(t testing.TB, text string) session.Entry {
	return msgEntry(t, chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: text}}})
}

func assistantMsg(t testing.TB, text string) session.Entry {
	return msgEntry(t, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text}}})
}

func boundaryEntry(n int) session.Entry {
	return session.Entry{
		Type:            session.TypeSystem,
		Subtype:         session.SubtypeCompactBoundary,
		CompactMetadata: &session.CompactMetadata{Trigger: "auto", PreTokens: 100, Messages: n},
	}
}

func summaryEntry(t testing.TB, text string) session.Entry {
	e := userMsg(t, text)
	e.IsCompactSummary = true
	return e
}

func mustAppend(t testing.TB, s *jsonlstore.Store, id string, es ...session.Entry) []session.Entry {
	t.Helper()
	out, err := s.Append(t.Context(), id, es...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return out
}

func mustLoad(t testing.TB, s *jsonlstore.Store, id string, all bool) *session.Transcript {
	t.Helper()
	tr, err := s.Load(t.Context(), id, session.LoadOptions{All: all})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return tr
}

func mustPath(t testing.TB, s *jsonlstore.Store, id string) string {
	t.Helper()
	p, err := s.Path(id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// appendRaw appends bytes to a file behind the store's back.
func appendRaw(t testing.TB, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// fileSize returns the size of path.
func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// lines returns the lines of a file, without newlines.
func lines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for l := range bytes.SplitSeq(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		out = append(out, string(l))
	}
	return out
}

func uuidsOf(es []session.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.UUID
	}
	return out
}

func sidecar(transcript string) string {
	return transcript[:len(transcript)-len(".jsonl")] + ".meta.json"
}

// countFiles returns the regular files under dir.
func countFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// linear fails t unless es form one linear chain, each entry's parent
// (a boundary's logical parent) the entry before it, and returns the last
// uuid.
func linear(t testing.TB, es []session.Entry) string {
	t.Helper()
	prev := ""
	for i, e := range es {
		parent := e.ParentUUID
		if e.IsBoundary() {
			parent = e.LogicalParentUUID
		}
		if parent != prev {
			t.Fatalf("entry %d (%s): parent %q, want %q", i, e.UUID, parent, prev)
		}
		prev = e.UUID
	}
	return prev
}
