package token

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Library is an exact [Counter] built on the pkoukk/tiktoken-go library
// (regular-expression pre-tokenizer, offline vocabulary). It counts like
// [BPE] — the tests check both against tiktoken itself — but 10 to 25 times
// slower; it is here for callers who prefer the library's code path and as
// the reference the fuzz tests compare [BPE] with. Two known differences:
// pkoukk does not treat "'ſ" (long s) as a contraction the way tiktoken
// does, and its regular expressions class runes with Go's unicode tables
// (Unicode 15.0 in Go 1.26), so the 5,055 letters, marks and numbers
// Unicode 15.1 and 16.0 added count as symbols there, unlike in tiktoken
// and [BPE] ("\U0002EBF0's": 6 tokens in o200k_base, tiktoken 5). Safe for
// concurrent use.
type Library struct {
	name string
	enc  *tiktoken.Tiktoken
}

var libLoader sync.Once

// NewLibrary returns the library counter for a tiktoken encoding name
// ([O200kBase], [Cl100kBase]), or an error wrapping [ErrUnknownEncoding].
func NewLibrary(name string) (*Library, error) {
	switch name {
	case O200kBase, Cl100kBase:
	default:
		return nil, fmt.Errorf("%w: %q (known: %s, %s)", ErrUnknownEncoding, name, O200kBase, Cl100kBase)
	}
	libLoader.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("token: load %s: %w", name, err)
	}
	return &Library{name: name, enc: enc}, nil
}

// Count returns the number of tokens text encodes to, as ordinary text.
func (l *Library) Count(text string) int {
	if text == "" {
		return 0
	}
	return len(l.enc.EncodeOrdinary(text))
}

// Name returns the encoding's tiktoken name.
func (l *Library) Name() string { return l.name }
