package proxy

import (
	"hash/maphash"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/agentctx/agentctx/chat"
)

// readCacheSize is how many history elements the proxy keeps read: an
// agent resends its whole history with every request, and only the
// elements it has not sent before need reading. 65,536 elements hold a
// few hundred sessions' histories.
const readCacheSize = 1 << 16

// readCache keeps what each history element read as, by the element's
// bytes: the same bytes always read the same. Safe for concurrent use;
// what it holds is shared, never modified.
type readCache struct {
	lru *lru.Cache[elemKey, any]
}

// elemKey identifies an element's bytes: two hashes with independent
// seeds and the length (a false match needs all three to collide).
type elemKey struct {
	wire Wire
	a, b uint64
	n    int
}

var seedA, seedB = maphash.MakeSeed(), maphash.MakeSeed()

func newReadCache(size int) *readCache {
	c, _ := lru.New[elemKey, any](size) // size > 0 never fails
	return &readCache{lru: c}
}

func keyOf(w Wire, raw []byte) elemKey {
	return elemKey{wire: w, a: maphash.Bytes(seedA, raw), b: maphash.Bytes(seedB, raw), n: len(raw)}
}

// messages returns what an element of the Anthropic or OpenAI wires reads
// as, reading it with read when it is not cached. c may be nil.
func (c *readCache) messages(w Wire, raw []byte, read func() ([]chat.Message, error)) ([]chat.Message, error) {
	if c == nil {
		return read()
	}
	k := keyOf(w, raw)
	if v, ok := c.lru.Get(k); ok {
		if ms, ok := v.([]chat.Message); ok {
			return ms, nil
		}
	}
	ms, err := read()
	if err == nil {
		c.lru.Add(k, ms)
	}
	return ms, err
}

// responsesElem is what a Responses API item reads as: its message, and
// what readResponses needs of the item itself.
type responsesElem struct {
	msg       chat.Message
	typ       string
	callID    string
	assistant bool
	tools     []chat.ToolDef
}

// item returns what a Responses API item reads as, reading it with read
// when it is not cached. c may be nil.
func (c *readCache) item(raw []byte, read func() (responsesElem, error)) (responsesElem, error) {
	if c == nil {
		return read()
	}
	k := keyOf(WireResponses, raw)
	if v, ok := c.lru.Get(k); ok {
		if e, ok := v.(responsesElem); ok {
			return e, nil
		}
	}
	e, err := read()
	if err == nil {
		c.lru.Add(k, e)
	}
	return e, err
}

// content returns the decoding of a Gemini API content, decoding it with
// read when it is not cached. c may be nil.
func (c *readCache) content(raw []byte, read func() (chat.GeminiContent, error)) (chat.GeminiContent, error) {
	if c == nil {
		return read()
	}
	k := keyOf(WireGemini, raw)
	if v, ok := c.lru.Get(k); ok {
		if g, ok := v.(chat.GeminiContent); ok {
			return g, nil
		}
	}
	g, err := read()
	if err == nil {
		c.lru.Add(k, g)
	}
	return g, err
}
