package storeurl_test

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
	"github.com/agentctx/agentctx/session/storeurl"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw  string
		want storeurl.URL
	}{
		{"", storeurl.URL{Scheme: "sqlite", Query: url.Values{}}},
		{"/data/sessions", storeurl.URL{Scheme: "jsonl", Path: "/data/sessions", Query: url.Values{}}},
		{"rel/dir", storeurl.URL{Scheme: "jsonl", Path: "rel/dir", Query: url.Values{}}},
		{`C:\data`, storeurl.URL{Scheme: "jsonl", Path: `C:\data`, Query: url.Values{}}},
		{"jsonl:/x", storeurl.URL{Scheme: "jsonl", Path: "/x", Query: url.Values{}}},
		{"jsonl:", storeurl.URL{Scheme: "jsonl", Query: url.Values{}}},
		{"sqlite:/x/s.db?sync=always&lease=2s", storeurl.URL{Scheme: "sqlite", Path: "/x/s.db", Query: url.Values{"sync": {"always"}, "lease": {"2s"}}}},
		{"SQLite:s.db", storeurl.URL{Scheme: "sqlite", Path: "s.db", Query: url.Values{}}},
		{"./odd:name", storeurl.URL{Scheme: "jsonl", Path: "./odd:name", Query: url.Values{}}},
	} {
		got, err := storeurl.Parse(c.raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.raw, err)
			continue
		}
		c.want.Raw = c.raw
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", c.raw, d)
		}
	}
	for _, raw := range []string{"mysql://h/db", "redis:x"} {
		if _, err := storeurl.Parse(raw); !errors.Is(err, storeurl.ErrUnknownScheme) {
			t.Errorf("Parse(%q): %v, want ErrUnknownScheme", raw, err)
		}
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	opts := storeurl.Options{Home: home}
	for _, c := range []struct {
		raw  string
		kind string
		file string // a file the store must have made
	}{
		{"", "sqlite", sqlitestore.FileName},
		{"jsonl:", "jsonl", "projects"},
		{"jsonl:" + filepath.Join(home, "j"), "jsonl", "j/projects"},
		{filepath.Join(home, "bare"), "jsonl", "bare/projects"},
		{"sqlite:", "sqlite", sqlitestore.FileName},
		{"sqlite:" + filepath.Join(home, "x.db") + "?sync=never&lock_timeout=1s&lease=3s", "sqlite", "x.db"},
	} {
		st, err := storeurl.Open(c.raw, opts)
		if err != nil {
			t.Fatalf("Open(%q): %v", c.raw, err)
		}
		switch st.(type) {
		case *jsonlstore.Store:
			if c.kind != "jsonl" {
				t.Errorf("Open(%q) is a JSONL store", c.raw)
			}
		case *sqlitestore.Store:
			if c.kind != "sqlite" {
				t.Errorf("Open(%q) is an SQLite store", c.raw)
			}
		}
		if _, err := os.Stat(filepath.Join(home, c.file)); err != nil {
			t.Errorf("Open(%q): %v", c.raw, err)
		}
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	}
	for _, raw := range []string{"sqlite:/x?sync=sometimes", "jsonl:/x?lease=2s", "sqlite:/x?bogus=1", "sqlite:/x?lock_timeout=soon", "sqlite:/x?sync=turn&sync=never"} {
		if st, err := storeurl.Open(raw, opts); err == nil {
			_ = st.Close()
			t.Errorf("Open(%q) succeeded, want an option error", raw)
		}
	}
}

// TestOpenStoresShareDefaults: "" and "sqlite:" are the same store, the
// database in the data folder.
func TestOpenStoresShareDefaults(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a, err := storeurl.Open("", storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sess, err := a.Create(t.Context(), session.Session{Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := storeurl.Open("sqlite:", storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Get(t.Context(), sess.ID); err != nil {
		t.Errorf("sqlite: does not see the default store's session: %v", err)
	}
}

// FuzzParse: Parse never panics, and a URL it accepts has a known
// scheme.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "jsonl:/x", "sqlite:/x?sync=always", "postgres://u@h/db", "C:\\x", "a:b:c?%zz", "sqlite:?&=&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := storeurl.Parse(raw)
		if err != nil {
			return
		}
		if !slices.Contains(storeurl.Schemes(), u.Scheme) {
			t.Errorf("Parse(%q) gave scheme %q", raw, u.Scheme)
		}
		if u.Raw != raw {
			t.Errorf("Raw = %q, want %q", u.Raw, raw)
		}
	})
}
