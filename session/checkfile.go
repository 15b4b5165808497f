package session

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// CheckReader is [Check] of the transcript r holds, read as [Read] reads
// it, in memory proportional to the number of entries rather than to
// their size: each entry is kept with its long strings (text, tool
// output, arguments: JSON string values of more than [checkStringBytes]
// bytes) cut to "…", since no check looks into them, and without its
// line ([Entry.Raw]); a line is held whole only while it is decoded. A
// 1 GB session checks in a small fraction of its size. The report is the
// one Check gives for the entries and problems Read returns. Errors:
// those of Read (an error of r, wrapped), with no report.
func CheckReader(r io.Reader, opts ReadOptions) (Report, error) {
	var (
		es      []Entry
		offsets []int64 // of es, increasing
		ends    []int64 // where each line of es ends
	)
	ps, err := readEach(r, opts, func(e Entry) {
		offsets = append(offsets, e.Offset)
		ends = append(ends, e.Offset+int64(len(e.Raw)))
		es = append(es, lighten(e))
	})
	if err != nil {
		return Report{}, err
	}
	end := func(e *Entry) (int64, bool) {
		i, ok := slices.BinarySearch(offsets, e.Offset)
		if !ok {
			return 0, false
		}
		return ends[i], true
	}
	rep := check(es, ps, end)
	if opts.File != "" {
		rep.SetFile(opts.File)
	}
	return rep, nil
}

// CheckFile checks the transcript file at path with [CheckReader].
// Errors: opening or reading the file fails (os.ErrNotExist and the like
// pass through, wrapped, for errors.Is).
func CheckFile(path string) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{}, fmt.Errorf("session: read %s: %w", path, err)
	}
	defer f.Close()
	return CheckReader(f, ReadOptions{File: path, FirstLine: 1})
}

// checkStringBytes is the length in bytes, quotes included, above which
// [CheckReader] cuts a JSON string value: longer than any id, type, role,
// model name or timestamp a check compares.
const checkStringBytes = 80

// lighten returns e as [CheckReader] keeps it: decoded again from its
// line with long string values cut ([cutStrings]), without the line and
// without the fields no check reads (working directory, branch, version,
// session id, state, reminders). Only structure, ids and types matter to
// the checks, and cutting strings changes none of them.
func lighten(e Entry) Entry {
	le, err := DecodeLine(cutStrings(e.Raw))
	if err != nil {
		return e // never expected: cutting keeps the JSON valid
	}
	le.Offset, le.Line = e.Offset, e.Line
	le.Raw, le.CWD, le.GitBranch, le.Version, le.SessionID, le.State, le.Reminders = nil, "", "", "", "", nil, nil
	return le
}

// cutStrings returns a copy of the JSON text b in which every string
// value (not object key) longer than checkStringBytes is replaced by
// "…". b must be valid JSON.
func cutStrings(b []byte) []byte {
	out := make([]byte, 0, min(len(b), 1024))
	i := 0
	for i < len(b) {
		c := b[i]
		if c != '"' {
			out = append(out, c)
			i++
			continue
		}
		j := i + 1
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		j = min(j+1, len(b)) // past the closing quote
		k := j
		for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r' || b[k] == '\n') {
			k++
		}
		isKey := k < len(b) && b[k] == ':'
		if !isKey && j-i > checkStringBytes {
			out = append(out, `"…"`...)
		} else {
			out = append(out, b[i:j]...)
		}
		i = j
	}
	return out
}
