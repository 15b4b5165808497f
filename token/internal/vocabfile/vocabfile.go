// Package vocabfile is the binary form of a tiktoken vocabulary that package
// token embeds and reads in place, with no parsing at start-up.
//
// A tiktoken file ("base64(token) rank" per line, the file tiktoken
// downloads from openaipublic.blob.core.windows.net) takes tens of
// milliseconds to decode into a map; this form is built once by
// [Build] (go generate in package token) and its lookups read the
// embedded bytes directly. All integers are little-endian uint32:
//
//	offset 0   magic "ACV1"
//	offset 4   n: the number of ids (the highest rank + 1)
//	offset 8   slots: the hash table's size, a power of two
//	offset 12  bytes: the length of the token bytes
//	offset 16  n+1 offsets into the token bytes: token id i is bytes[off[i]:off[i+1]] ("" for an unused id)
//	then       slots entries: rank+1 of the token hashed there (open addressing, linear probing), 0 when empty
//	then       the token bytes, concatenated in rank order
//
// [Hash] is fixed here, so the table built by one build is valid in every
// other.
package vocabfile

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
)

// magic starts every vocabulary file.
const magic = "ACV1"

// headerSize is the size of the header in bytes.
const headerSize = 16

// NoRank is what [Table.Rank] returns for bytes that are not a token.
const NoRank = int32(1<<31 - 1)

// Table is a vocabulary read in place from its binary form. Read-only;
// safe for concurrent use. The zero value is an empty vocabulary.
type Table struct {
	data    []byte
	n       int    // ids
	mask    uint32 // slots - 1
	offsets []byte // (n+1) uint32
	slots   []byte // (mask+1) uint32
	tokens  []byte
}

// Open checks the header and sizes of data (the binary form, as [Build]
// writes it) and returns a table that reads it in place; data must not
// change afterwards. Errors name what is wrong: the magic, a size that
// does not match data's length.
func Open(data []byte) (*Table, error) {
	if len(data) < headerSize || string(data[:4]) != magic {
		return nil, errors.New("vocabfile: not a vocabulary file (bad magic)")
	}
	n := int(binary.LittleEndian.Uint32(data[4:]))
	slots := int(binary.LittleEndian.Uint32(data[8:]))
	nb := int(binary.LittleEndian.Uint32(data[12:]))
	if slots == 0 || slots&(slots-1) != 0 {
		return nil, fmt.Errorf("vocabfile: table size %d is not a power of two", slots)
	}
	want := headerSize + 4*(n+1) + 4*slots + nb
	if want != len(data) {
		return nil, fmt.Errorf("vocabfile: %d bytes, the header says %d", len(data), want)
	}
	t := &Table{data: data, n: n, mask: uint32(slots - 1)}
	off := headerSize
	t.offsets = data[off : off+4*(n+1)]
	off += 4 * (n + 1)
	t.slots = data[off : off+4*slots]
	off += 4 * slots
	t.tokens = data[off:]
	// Every offset and slot is checked once, so that lookups never index
	// out of range whatever the bytes (a few hundred microseconds).
	prev := uint32(0)
	for i := range n + 1 {
		o := binary.LittleEndian.Uint32(t.offsets[4*i:])
		if o < prev || int(o) > nb {
			return nil, fmt.Errorf("vocabfile: offset %d of id %d is out of order or past the %d token bytes", o, i, nb)
		}
		prev = o
	}
	if int(prev) != nb {
		return nil, fmt.Errorf("vocabfile: the last offset is %d, the token bytes are %d", prev, nb)
	}
	empty := false
	for i := range slots {
		e := binary.LittleEndian.Uint32(t.slots[4*i:])
		if int(e) > n {
			return nil, fmt.Errorf("vocabfile: slot %d holds id %d, past the %d ids", i, int(e)-1, n)
		}
		empty = empty || e == 0
	}
	if !empty {
		return nil, errors.New("vocabfile: the hash table has no empty slot")
	}
	return t, nil
}

// Len returns the number of token ids: the highest rank + 1.
func (t *Table) Len() int { return t.n }

// Token returns the bytes of token id, or "" when id is unused or out of
// range. The string is a copy.
func (t *Table) Token(id int) string {
	if id < 0 || id >= t.n {
		return ""
	}
	lo := binary.LittleEndian.Uint32(t.offsets[4*id:])
	hi := binary.LittleEndian.Uint32(t.offsets[4*id+4:])
	return string(t.tokens[lo:hi])
}

// Rank returns the rank (the id) of the token whose bytes are s, or
// [NoRank] when s is not a token. It allocates nothing.
func (t *Table) Rank(s string) int32 {
	if t.mask == 0 && len(t.slots) == 0 {
		return NoRank
	}
	for i := Hash(s) & t.mask; ; i = (i + 1) & t.mask {
		e := binary.LittleEndian.Uint32(t.slots[4*i:])
		if e == 0 {
			return NoRank
		}
		id := e - 1
		lo := binary.LittleEndian.Uint32(t.offsets[4*id:])
		hi := binary.LittleEndian.Uint32(t.offsets[4*id+4:])
		if int(hi-lo) == len(s) && string(t.tokens[lo:hi]) == s {
			return int32(id)
		}
	}
}

// Hash is the table's hash of a token's bytes: a multiply-xorshift mix of
// 8-byte words, the last (or only) word read so that it covers every byte
// (overlapping loads, as in wyhash). Fixed: a table built with it is
// valid in every build.
func Hash(s string) uint32 {
	n := len(s)
	h := uint64(n) * 0x9e3779b97f4a7c15
	var w uint64
	switch {
	case n > 8:
		rest := s
		for len(rest) > 8 {
			h = (h ^ le64(rest)) * 0xbf58476d1ce4e5b9
			h ^= h >> 31
			rest = rest[8:]
		}
		w = le64(s[n-8:])
	case n == 8:
		w = le64(s)
	case n >= 4:
		w = uint64(le32(s)) | uint64(le32(s[n-4:]))<<32
	case n > 0:
		w = uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	h = (h ^ w) * 0x94d049bb133111eb
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return uint32(h>>32) ^ uint32(h)
}

// le64 reads the first 8 bytes of s, little-endian (one load).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// le32 reads the first 4 bytes of s, little-endian (one load).
func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// Build converts a tiktoken vocabulary file ("base64(token) rank" per
// line, blank lines ignored) into the binary form. The hash table has at
// least 2.5 slots per token, so a lookup that misses probes about one
// slot. Errors name the line: a missing or bad rank, bad base64, a rank
// or token given twice.
func Build(tiktoken []byte) ([]byte, error) {
	type entry struct {
		tok  []byte
		rank int
	}
	var entries []entry
	maxRank := -1
	data := tiktoken
	for lineNo := 1; len(data) > 0; lineNo++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("vocabfile: line %d: no rank", lineNo)
		}
		tok, err := base64.StdEncoding.AppendDecode(nil, line[:sp])
		if err != nil {
			return nil, fmt.Errorf("vocabfile: line %d: %w", lineNo, err)
		}
		r, err := strconv.ParseInt(string(line[sp+1:]), 10, 32)
		if err != nil || r < 0 || r >= 1<<31-2 {
			return nil, fmt.Errorf("vocabfile: line %d: bad rank %q", lineNo, line[sp+1:])
		}
		entries = append(entries, entry{tok, int(r)})
		maxRank = max(maxRank, int(r))
	}
	n := maxRank + 1
	byRank := make([][]byte, n)
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		if byRank[e.rank] != nil {
			return nil, fmt.Errorf("vocabfile: entry %d: rank %d given twice", i+1, e.rank)
		}
		if seen[string(e.tok)] {
			return nil, fmt.Errorf("vocabfile: entry %d: token %q given twice", i+1, e.tok)
		}
		seen[string(e.tok)] = true
		byRank[e.rank] = e.tok
	}
	slots := 1 << bits.Len(uint(len(entries)*5/2))
	var tokens []byte
	offsets := make([]uint32, n+1)
	for id, tok := range byRank {
		offsets[id] = uint32(len(tokens))
		tokens = append(tokens, tok...)
	}
	offsets[n] = uint32(len(tokens))
	table := make([]uint32, slots)
	mask := uint32(slots - 1)
	for id, tok := range byRank {
		if tok == nil {
			continue
		}
		i := Hash(string(tok)) & mask
		for table[i] != 0 {
			i = (i + 1) & mask
		}
		table[i] = uint32(id + 1)
	}
	out := make([]byte, 0, headerSize+4*(n+1)+4*slots+len(tokens))
	out = append(out, magic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = binary.LittleEndian.AppendUint32(out, uint32(slots))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(tokens)))
	for _, o := range offsets {
		out = binary.LittleEndian.AppendUint32(out, o)
	}
	for _, e := range table {
		out = binary.LittleEndian.AppendUint32(out, e)
	}
	return append(out, tokens...), nil
}
