package token

import (
	lru "github.com/hashicorp/golang-lru/v2"
)

// cacheMinBytes is the shortest text a [Cache] remembers: shorter texts
// count faster than they hash.
const cacheMinBytes = 256

// Cache is a [Counter] that remembers the counts of recent texts, for
// callers that count the same text again and again: the engine renders the
// tracker's section and the working memory's context before every model
// call, mostly unchanged, and fits them to budgets by counting. Texts of
// at least 256 bytes are remembered, up to the size given to [NewCache],
// least recently used first out; a text's count is the same as the
// wrapped counter's. Safe for concurrent use.
type Cache struct {
	c     Counter
	cache *lru.Cache[string, int]
}

// NewCache returns a Cache over c remembering up to size texts (at least
// 1). Remembered texts stay in memory until evicted.
func NewCache(c Counter, size int) *Cache {
	l, _ := lru.New[string, int](max(size, 1)) // errors only for size <= 0
	return &Cache{c: c, cache: l}
}

// Count returns the number of tokens text encodes to.
func (k *Cache) Count(text string) int {
	if len(text) < cacheMinBytes {
		return k.c.Count(text)
	}
	if n, ok := k.cache.Get(text); ok {
		return n
	}
	n := k.c.Count(text)
	k.cache.Add(text, n)
	return n
}

// Remember records that text counts n tokens, for a caller that computed
// the count another way (token.AppendCount, say): n must be what the
// wrapped counter returns for text. Texts under 256 bytes are not kept.
func (k *Cache) Remember(text string, n int) {
	if len(text) >= cacheMinBytes {
		k.cache.Add(text, n)
	}
}

// Name returns the wrapped counter's name.
func (k *Cache) Name() string { return k.c.Name() }
