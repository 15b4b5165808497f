package jsonlstore

import (
	"bytes"
	"testing"

	"github.com/agentctx/agentctx/session"
)

// FuzzTail checks the two readers a writer and a reader use to learn a
// transcript's state without reading it all: lastEntry (backwards from
// the end) and scan (forwards from an offset), against a plain forward
// decoding of every line.
func FuzzTail(f *testing.F) {
	f.Add([]byte(line("a", "") + "\n" + line("b", "") + "\n"))
	f.Add([]byte(line("a", "") + "\n" + `{"uuid":"c","type":"us`))
	f.Add([]byte(line("a", "") + "\n" + line("b", "")))
	f.Add([]byte("\n\n" + line("a", `,"isSidechain":true`) + "\r\nnot json\n"))
	f.Add([]byte(`{"uuid":"b","type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":1}}` + "\n" + line("s", "") + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The expected state, from decoding every line forwards.
		var (
			wantUUID   string
			wantBounds []int64
			wantSize   int64
			entries    int
		)
		torn := len(data) > 0 && data[len(data)-1] != '\n'
		err := session.ReadLines(bytes.NewReader(data), 0, 0, func(l session.Line) error {
			e, err := session.DecodeLine(l.Bytes)
			if err == nil {
				if e.UUID != "" && !e.IsSidechain {
					wantUUID = e.UUID
				}
				if !l.Torn {
					entries++
					if e.IsBoundary() {
						wantBounds = append(wantBounds, l.Offset)
					}
				}
			}
			if !l.Torn {
				wantSize = l.Offset + int64(len(l.Bytes)) + 1
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		uuid, gotTorn, err := lastEntry(bytes.NewReader(data), int64(len(data)))
		if err != nil || uuid != wantUUID || gotTorn != torn {
			t.Fatalf("lastEntry = %q, %v, %v; want %q, %v", uuid, gotTorn, err, wantUUID, torn)
		}
		var idx index
		if err := scan(t.Context(), bytes.NewReader(data), &idx, int64(len(data)), true, false); err != nil {
			t.Fatal(err)
		}
		if idx.Size != wantSize || idx.Session.Entries != entries {
			t.Fatalf("scan covers %d bytes, %d entries; want %d, %d", idx.Size, idx.Session.Entries, wantSize, entries)
		}
		if len(idx.Boundaries) != len(wantBounds) {
			t.Fatalf("scan found boundaries %v, want %v", idx.Boundaries, wantBounds)
		}
		for i := range wantBounds {
			if idx.Boundaries[i] != wantBounds[i] {
				t.Fatalf("scan found boundaries %v, want %v", idx.Boundaries, wantBounds)
			}
		}
		// Catching up from any covered line end gives the same result.
		if wantSize > 0 {
			cut := int64(bytes.IndexByte(data, '\n') + 1)
			part := index{Size: cut}
			if err := scan(t.Context(), bytes.NewReader(data), &part, int64(len(data)), false, false); err != nil {
				t.Fatal(err)
			}
			if part.Size != idx.Size {
				t.Fatalf("catch-up from %d covers %d bytes, want %d", cut, part.Size, idx.Size)
			}
		}
	})
}
