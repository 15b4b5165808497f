package jsonlstore_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/session/jsonlstore"
)

func TestEscapeProject(t *testing.T) {
	t.Parallel()
	long := "/" + strings.Repeat("deep/", 60) + "project"
	for _, c := range []struct {
		path, want string
	}{
		{"/home/u/my-proj", "-home-u-my%2Dproj"},
		{"/a-b", "-a%2Db"},
		{"/a/b", "-a-b"},
		{"/", "-"},
		{"/srv/app_v1.2", "-srv-app_v1.2"},
		{"/.hidden/x", "-.hidden-x"},
		{".", "%2E"},
		{"..", "%2E."},
		{"/with space/100%", "-with%20space-100%25"},
		{"/home/jürgen", "-home-j%C3%BCrgen"},
		{`C:\Users\me`, `C%3A%5CUsers%5Cme`},
		{"/a~b", "-a%7Eb"},
		{"", ""},
	} {
		t.Run(c.path, func(t *testing.T) {
			t.Parallel()
			got := jsonlstore.EscapeProject(c.path)
			if got != c.want {
				t.Errorf("EscapeProject(%q) = %q, want %q", c.path, got, c.want)
			}
			back, ok := jsonlstore.UnescapeProject(got)
			if !ok || back != c.path {
				t.Errorf("UnescapeProject(%q) = %q, %v; want %q", got, back, ok, c.path)
			}
		})
	}
	t.Run("long", func(t *testing.T) {
		t.Parallel()
		name := jsonlstore.EscapeProject(long)
		if len(name) > jsonlstore.MaxProjectName || !strings.Contains(name, "~") || !strings.HasPrefix(name, "-deep-deep-") {
			t.Errorf("EscapeProject(long) = %q (%d bytes): want a readable prefix, '~' and a hash, at most %d bytes", name, len(name), jsonlstore.MaxProjectName)
		}
		if other := jsonlstore.EscapeProject(long + "2"); other == name {
			t.Errorf("two long paths share the name %q", name)
		}
		if _, ok := jsonlstore.UnescapeProject(name); ok {
			t.Errorf("UnescapeProject(%q) claims to reverse a hashed name", name)
		}
		// A %XX triple is never cut by the prefix.
		for n := 150; n < 220; n++ {
			p := "/" + strings.Repeat("é", n)
			name := jsonlstore.EscapeProject(p)
			prefix, _, _ := strings.Cut(name, "~")
			if i := strings.LastIndexByte(prefix, '%'); i >= 0 && i > len(prefix)-3 {
				t.Fatalf("EscapeProject cut a %%XX triple: %q", prefix[i:])
			}
		}
	})
	for _, bad := range []string{"%", "%4", "%zz", "%41", "%2F", "a b", "a~0123", "x/y", "%2e", ".x"} {
		if p, ok := jsonlstore.UnescapeProject(bad); ok {
			t.Errorf("UnescapeProject(%q) = %q, true; want false (not a name EscapeProject writes)", bad, p)
		}
	}
}

// TestEscapeProjectProperty checks on random paths that the escaping is
// injective and reversible.
func TestEscapeProjectProperty(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("/-%._~aZ9 \x00\xff\xc3\xa9")
	seen := map[string]string{}
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		p := string(b)
		name := jsonlstore.EscapeProject(p)
		if q, dup := seen[name]; dup && q != p {
			t.Fatalf("EscapeProject(%q) = EscapeProject(%q) = %q", p, q, name)
		}
		seen[name] = p
		if back, ok := jsonlstore.UnescapeProject(name); !ok || back != p {
			t.Fatalf("UnescapeProject(EscapeProject(%q)) = %q, %v", p, back, ok)
		}
	}
}

func FuzzEscapeProject(f *testing.F) {
	for _, s := range []string{"/home/u/my-proj", "/a-b", "/a/b", "", ".", "..", "%2D", "-", "/x~y", strings.Repeat("/ab-é", 80)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name := jsonlstore.EscapeProject(s)
		if len(name) > jsonlstore.MaxProjectName {
			t.Fatalf("EscapeProject(%q) is %d bytes", s, len(name))
		}
		if strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." || strings.HasPrefix(name, ".") {
			t.Fatalf("EscapeProject(%q) = %q is not a safe folder name", s, name)
		}
		if !strings.Contains(name, "~") {
			if back, ok := jsonlstore.UnescapeProject(name); !ok || back != s {
				t.Fatalf("UnescapeProject(EscapeProject(%q)) = %q, %v", s, back, ok)
			}
		}
		// Read as a folder name: only EscapeProject's own names unescape.
		if p, ok := jsonlstore.UnescapeProject(s); ok && jsonlstore.EscapeProject(p) != s {
			t.Fatalf("UnescapeProject(%q) = %q, but EscapeProject of it is %q", s, p, jsonlstore.EscapeProject(p))
		}
	})
}
