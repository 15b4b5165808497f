package jsonlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/session"
)

// sidecarFormat is the version of the sidecar's JSON form.
const sidecarFormat = 1

// tmpEx ends the name of every temporary file (sidecars and project.json
// being rewritten); List and Delete ignore such files.
const tmpEx = ".tmp"

// index is a session's metadata plus what locating its live part needs;
// its JSON form is the sidecar "<id>.meta.json". The transcript is the
// truth: the sidecar is a cache of it, except for the caller-owned
// Session fields (Title as set by Update, Metadata, Origin).
type index struct {
	Format  int             `json:"format"`
	Session session.Session `json:"session"`
	// Size is how many bytes of the transcript the index covers, always
	// up to the end of a line (or 0).
	Size int64 `json:"size"`
	// Boundaries are the byte offsets of the compact boundary lines in
	// the covered part, ascending.
	Boundaries []int64 `json:"boundaries,omitempty"`
	// LastUUID is the uuid of the last entry with one in the covered part.
	LastUUID string `json:"last_uuid,omitempty"`
}

// clone copies idx with its own slices and maps.
func (idx index) clone() index {
	idx.Session = cloneSession(idx.Session)
	idx.Boundaries = slices.Clone(idx.Boundaries)
	return idx
}

// sidecarPath returns the sidecar of a transcript path.
func sidecarPath(transcript string) string {
	return strings.TrimSuffix(transcript, transcriptEx) + sidecarEx
}

// writeSidecar rewrites transcript's sidecar atomically from idx; with
// sync the temporary file is fsynced before the rename.
func writeSidecar(transcript string, idx *index, sync bool) error {
	idx.Format = sidecarFormat
	b, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	return writeAtomic(sidecarPath(transcript), append(b, '\n'), sync)
}

// readSidecar reads transcript's sidecar; an error when it is missing or
// not a sidecar of this format.
func readSidecar(transcript string) (*index, error) {
	b, err := readRegular(sidecarPath(transcript), maxSmallFile)
	if err != nil {
		return nil, err
	}
	var idx index
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, err
	}
	if idx.Format != sidecarFormat {
		return nil, fmt.Errorf("sidecar format %d, want %d", idx.Format, sidecarFormat)
	}
	return &idx, nil
}

// writeAtomic replaces dst with b: a temporary file (0600) in dst's
// folder, written, optionally fsynced, then renamed over dst.
func writeAtomic(dst string, b []byte, sync bool) (err error) {
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*"+tmpEx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(fileMode); err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), dst)
}

// syncDir fsyncs a folder so that a file created or renamed in it
// survives a power loss.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}

// readIndex returns the index of transcript f (stat st): the sidecar,
// caught up by scanning the tail it does not cover, or, when the sidecar
// is missing, corrupt or does not match the file, rebuilt by one
// streaming scan. stale reports that the result differs from the sidecar
// on disk. With torn, a torn last line that decodes is observed though
// not covered (what a reader wants; a writer observes it once its next
// write ends the line). It never writes.
func (s *Store) readIndex(ctx context.Context, id, path string, f io.ReaderAt, st os.FileInfo, torn bool) (idx index, stale bool, err error) {
	size := st.Size()
	sc, err := readSidecar(path)
	if err == nil {
		if why := mismatch(sc, id, f, size); why != "" {
			err = errors.New(why)
		}
	}
	rebuilt := err != nil
	if rebuilt {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("jsonlstore: rebuilding sidecar", "file", sidecarPath(path), "err", err)
		}
		sc = &index{Session: session.Session{ID: id, Project: projectOf(filepath.Dir(path))}}
	}
	stale = rebuilt
	if sc.Size < size {
		before := sc.Size
		if err := scan(ctx, f, sc, size, rebuilt, torn); err != nil {
			return index{}, false, fmt.Errorf("%s: %w", path, err)
		}
		stale = stale || sc.Size != before
	}
	if rebuilt {
		if sc.Session.Created.IsZero() {
			sc.Session.Created = st.ModTime().UTC()
		}
		if sc.Session.LastActivity.IsZero() {
			sc.Session.LastActivity = sc.Session.Created
		}
	}
	return *sc, stale, nil
}

// mismatch says why sidecar sc cannot describe a transcript of size bytes
// read from f, or "".
func mismatch(sc *index, id string, f io.ReaderAt, size int64) string {
	switch {
	case sc.Session.ID != id:
		return fmt.Sprintf("sidecar of session %q", sc.Session.ID)
	case sc.Size < 0 || sc.Size > size:
		return fmt.Sprintf("sidecar covers %d bytes, transcript has %d", sc.Size, size)
	case !slices.IsSorted(sc.Boundaries) || len(sc.Boundaries) > 0 && (sc.Boundaries[0] < 0 || sc.Boundaries[len(sc.Boundaries)-1] >= sc.Size):
		return "sidecar boundaries out of range"
	}
	if sc.Size > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], sc.Size-1); err != nil || b[0] != '\n' {
			return fmt.Sprintf("sidecar size %d is not at the end of a line", sc.Size)
		}
	}
	return ""
}

// observeEntry records entry e, read at offset, in idx; with fill,
// Created and GitBranch come from the first entries that have them.
func observeEntry(idx *index, e session.Entry, offset int64, fill bool) {
	if fill {
		if idx.Session.Created.IsZero() && !e.Timestamp.IsZero() {
			idx.Session.Created = e.Timestamp.UTC()
		}
		if idx.Session.GitBranch == "" {
			idx.Session.GitBranch = e.GitBranch
		}
	}
	idx.Session.Observe(e)
	if e.IsBoundary() {
		idx.Boundaries = append(idx.Boundaries, offset)
	}
	if e.UUID != "" && !e.IsSidechain {
		idx.LastUUID = e.UUID
	}
}

// scanCheckEvery is how many lines scan reads between checks of ctx.
const scanCheckEvery = 1024

// errTorn stops a scan at a torn last line.
var errTorn = errors.New("torn line")

// scan extends idx over f's bytes [idx.Size, end): every entry is
// observed, boundaries and the last uuid recorded. It stops before a torn
// last line, which idx does not cover; with torn it observes that line
// when it decodes. With fill, Created and GitBranch
// are taken from the first entries that have them (a rebuild).
func scan(ctx context.Context, f io.ReaderAt, idx *index, end int64, fill, torn bool) error {
	from := idx.Size
	n := 0
	err := session.ReadLines(io.NewSectionReader(f, from, end-from), from, 0, func(l session.Line) error {
		if l.Torn {
			// A last line without its newline is not covered, but counts
			// when it decodes (session.Read keeps it): the next append
			// ends it with a newline.
			if e, err := session.DecodeLine(l.Bytes); err == nil && torn {
				observeEntry(idx, e, l.Offset, fill)
			}
			return errTorn
		}
		if n++; n%scanCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		next := l.Offset + int64(len(l.Bytes)) + 1
		if e, err := session.DecodeLine(l.Bytes); err == nil {
			observeEntry(idx, e, l.Offset, fill)
		}
		idx.Size = next
		return nil
	})
	if errors.Is(err, errTorn) {
		return nil
	}
	return err
}
