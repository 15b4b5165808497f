package session

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadOptions says where the bytes given to [Read] come from. The zero
// value reads a whole input whose line numbers are unknown.
type ReadOptions struct {
	// File names the input in problems. Optional.
	File string
	// Start is the byte offset in the file of the reader's first byte,
	// when reading starts mid-file (at a compact boundary's offset).
	// Optional. Defaults to 0.
	Start int64
	// FirstLine is the 1-based number of the first line; 0 when it is not
	// known (reading started mid-file), which leaves [Entry.Line] and
	// [Problem.Line] 0. Optional. Pass 1 for a whole file.
	FirstLine int
}

// Read decodes the transcript lines of r, in file order. Each entry gets
// its byte offset and line number (see [ReadOptions]). Damage is skipped
// and reported, never fatal; each [Problem] names the file, line and byte
// offset:
//
//   - a last line without its newline (a write cut short) that does not
//     decode: [ProblemTornLine], skipped;
//   - a last line without its newline that does decode: its bytes are all
//     there, so the entry is kept, and reported as [ProblemTornLine] with
//     Repaired set (the next append must start a new line);
//   - a line in the middle of the file that ends in incomplete JSON: a
//     torn line that later appends followed, [ProblemTornLine]; the entry
//     after it is reported as [ProblemAfterTorn], Repaired;
//   - a torn line with the next append glued to it
//     (`{"uuid":"a","par{"uuid":"b",…}`): the torn bytes are reported as
//     [ProblemTornLine], and the complete entry after them (found by
//     decoding from each later `{"`) is kept, at its own byte offset, and
//     reported as [ProblemAfterTorn], Repaired;
//   - any other line that is not an entry: [ProblemMalformed], skipped.
//
// Only an error of r is returned as an error (wrapped, naming the file);
// the entries and problems read before it are returned with it. Lines of
// any length are read (see [ReadLines]).
func Read(r io.Reader, opts ReadOptions) ([]Entry, []Problem, error) {
	var es []Entry
	ps, err := readEach(r, opts, func(e Entry) { es = append(es, e) })
	return es, ps, err
}

// readEach is [Read] handing each entry to keep as it is read, so that a
// caller can keep less than the whole entry.
func readEach(r io.Reader, opts ReadOptions, keepEntry func(Entry)) ([]Problem, error) {
	var (
		ps    []Problem
		after bool // the previous line was torn: report the next entry
	)
	prob := func(kind ProblemKind, l Line, off int64, uuid string, repaired bool, format string, args ...any) {
		ps = append(ps, Problem{Kind: kind, File: opts.File, Line: l.Number, Offset: off, UUID: uuid, Detail: fmt.Sprintf(format, args...), Repaired: repaired})
	}
	keep := func(e Entry, l Line, off int64) {
		e.Offset, e.Line = off, l.Number
		if after {
			prob(ProblemAfterTorn, l, off, e.UUID, true, "entry follows a torn line: a writer crashed mid-line and a later one appended; kept")
			after = false
		}
		keepEntry(e)
	}
	err := ReadLines(r, opts.Start, opts.FirstLine, func(l Line) error {
		e, err := DecodeLine(l.Bytes)
		if err == nil {
			if l.Torn {
				prob(ProblemTornLine, l, l.Offset, e.UUID, true, "last line (%d bytes) has no newline but holds a complete entry; kept", len(l.Bytes))
			}
			keep(e, l, l.Offset)
			return nil
		}
		if l.Torn {
			prob(ProblemTornLine, l, l.Offset, "", false, "last line (%d bytes) has no newline and holds no complete entry (a write cut short); skipped: %v", len(l.Bytes), err)
			return nil
		}
		if g, at, ok := glued(l.Bytes); ok {
			prob(ProblemTornLine, l, l.Offset, "", false, "%d bytes of a torn entry, with the next entry glued to them at byte %d; the torn bytes are skipped", at, l.Offset+int64(at))
			after = true
			keep(g, l, l.Offset+int64(at))
			return nil
		}
		if incomplete(err) {
			prob(ProblemTornLine, l, l.Offset, "", false, "line (%d bytes) ends in incomplete JSON: a write cut short, then more appends; skipped: %v", len(l.Bytes), err)
			after = true
			return nil
		}
		prob(ProblemMalformed, l, l.Offset, "", false, "%v; skipped", err)
		return nil
	})
	if err != nil {
		name := opts.File
		if name == "" {
			name = "<input>"
		}
		return ps, fmt.Errorf("session: read %s: %w", name, err)
	}
	return ps, nil
}

// ReadFile reads the transcript file at path with [Read]. Errors: opening
// or reading the file fails (os.ErrNotExist and the like pass through,
// wrapped, for errors.Is).
func ReadFile(path string) ([]Entry, []Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("session: read %s: %w", path, err)
	}
	defer f.Close()
	return Read(f, ReadOptions{File: path, FirstLine: 1})
}

// incomplete reports whether a decoding error says the JSON stopped short.
func incomplete(err error) bool {
	return strings.Contains(err.Error(), "unexpected end of JSON input")
}

// entryStart is how every JSON object with a key starts.
var entryStart = []byte(`{"`)

// glued looks in a malformed line for a complete entry after torn bytes:
// an object that starts at a `{"` after the first byte and ends where the
// line ends. Inside a JSON string `{"` is written `{\"`, so candidates are
// object starts only. They are tried from the right: an object nested in
// the glued entry closes before the line ends, so the first candidate that
// reaches the end is the entry itself. An object that holds no uuid,
// session id or known type is not taken for an entry. The bytes scanned
// are bounded by a small multiple of the line's length, so that a hostile
// line cannot make reading quadratic.
func glued(line []byte) (Entry, int, bool) {
	end := len(bytes.TrimRight(line, " \t\r"))
	if end == 0 || line[end-1] != '}' {
		return Entry{}, 0, false
	}
	budget := 8*len(line) + 4096
	for at := end; at > 1; {
		k := bytes.LastIndex(line[1:at], entryStart)
		if k < 0 {
			break
		}
		at = k + 1
		n, ok := valueEnd(line[at:end])
		budget -= n
		if !ok {
			budget -= end - at // scanned to the end without closing
		}
		if ok && at+n == end {
			if e, err := DecodeLine(line[at:end]); err == nil && (e.UUID != "" || e.SessionID != "" || e.Known()) {
				return e, at, true
			}
		}
		if budget < 0 {
			break
		}
	}
	return Entry{}, 0, false
}

// valueEnd returns the length of the JSON object or array that b starts
// with, found by matching brackets outside strings; false when it does not
// close within b. It does not validate: DecodeLine does.
func valueEnd(b []byte) (int, bool) {
	depth := 0
	inStr, esc := false, false
	for i, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
			if depth < 0 {
				return 0, false
			}
		}
	}
	return 0, false
}
