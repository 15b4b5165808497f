package token

import (
	"bytes"
	"testing"

	"github.com/agentctx/agentctx/token/internal/vocabfile"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// TestEmbeddedVocab checks that the embedded binary vocabularies are what
// go generate builds from the loader's tiktoken files today (a stale or
// hand-edited data file fails), and that every token of the tiktoken file
// has its rank in the opened table.
func TestEmbeddedVocab(t *testing.T) {
	for _, name := range []string{O200kBase, Cl100kBase} {
		t.Run(name, func(t *testing.T) {
			src, err := assets.Assets.ReadFile(name + ".tiktoken")
			if err != nil {
				t.Fatal(err)
			}
			want, err := vocabfile.Build(src)
			if err != nil {
				t.Fatal(err)
			}
			if got := embedded(name); !bytes.Equal(got, want) {
				t.Fatalf("data/%s.acv is stale: run go generate ./token", name)
			}
			v, err := loadVocab(name)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSpace(src), []byte("\n"))
			if v.t.Len() != len(lines) {
				t.Errorf("%d ids, the tiktoken file has %d lines", v.t.Len(), len(lines))
			}
			// Every token's bytes give its rank back.
			for id := range v.t.Len() {
				tok := v.t.Token(id)
				if r := v.rank(tok); int(r) != id {
					t.Fatalf("rank(token %d = %q) = %d", id, tok, r)
				}
			}
			if r := v.rank("\x00\x01\x02 not a token \xff"); r != noRank {
				t.Errorf("a non-token has rank %d", r)
			}
		})
	}
}
