package token

import (
	_ "embed" // the binary vocabularies
	"fmt"

	"github.com/agentctx/agentctx/token/internal/vocabfile"
)

// vocab is one tiktoken encoding's vocabulary: the byte sequence of every
// token and its rank, which is also its id, read in place from the binary
// form embedded in the program (data/*.acv, see package vocabfile).
// Read-only; safe for concurrent use.
type vocab struct {
	t       *vocabfile.Table
	special map[int]string // special tokens, for Decode only
}

// rank returns the rank of b, or noRank when b is not a token.
func (v *vocab) rank(b string) int32 { return v.t.Rank(b) }

// specialTokens are tiktoken's special tokens of each encoding
// (tiktoken_ext/openai_public.py). Ordinary counting never produces them;
// [BPE.Decode] renders them.
var specialTokens = map[string]map[int]string{
	Cl100kBase: {
		100257: "<|endoftext|>",
		100258: "<|fim_prefix|>",
		100259: "<|fim_middle|>",
		100260: "<|fim_suffix|>",
		100276: "<|endofprompt|>",
	},
	O200kBase: {
		199999: "<|endoftext|>",
		200018: "<|endofprompt|>",
	},
}

//go:generate go run ./internal/genvocab data

// embedded holds the binary vocabularies, built by go generate from the
// tiktoken files pkoukk/tiktoken-go-loader compiles in (the same files
// tiktoken downloads from openaipublic.blob.core.windows.net);
// TestEmbeddedVocab checks that they match.
//
// Byte slices, not an embed.FS: the FS would copy them on every read.
var (
	//go:embed data/o200k_base.acv
	o200kData []byte
	//go:embed data/cl100k_base.acv
	cl100kData []byte
)

// embedded returns the binary vocabulary of an encoding, nil for an
// unknown one. The bytes are the program's own: never written to.
func embedded(name string) []byte {
	switch name {
	case O200kBase:
		return o200kData
	case Cl100kBase:
		return cl100kData
	}
	return nil
}

// loadVocab opens the embedded vocabulary of an encoding in place: no
// decoding, only a check of its sizes and offsets.
func loadVocab(name string) (*vocab, error) {
	data := embedded(name)
	if data == nil {
		return nil, fmt.Errorf("token: load %s: %w", name, ErrUnknownEncoding)
	}
	t, err := vocabfile.Open(data)
	if err != nil {
		return nil, fmt.Errorf("token: load %s: %w", name, err)
	}
	return &vocab{t: t, special: specialTokens[name]}, nil
}
