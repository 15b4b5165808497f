package agent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
)

// Checkpoints keeps, per user message (a turn of [Agent.Run]), the
// pre-image of each file the agent's write and edit tools change, taken
// before the change is made, so that a rewind to that message can put
// the files back (Claude Code's file checkpoints). Only the agent's own
// writes are recorded: what a command or the user changes is not, and a
// file changed since the agent last wrote it is left alone by
// [Checkpoints.Restore].
//
// On disk: a log of JSON lines (LogPath) and the pre-images, one file
// per content named by its SHA-256, in BlobDir (shared by the sessions
// of a store, so a fork's copy of the log reads the same blobs). Safe
// for concurrent use (sub-agents write in their parent's turn).
type Checkpoints struct {
	env     tools.Env
	logPath string
	blobDir string

	mu   sync.Mutex
	recs []checkpointRecord
}

// checkpointRecord is one line of the log: a turn's start (Text set), a
// file's pre-image (Before or Existed false), or what the agent left in
// it (After; "" when the file is absent).
type checkpointRecord struct {
	Turn    int    `json:"turn"`
	Kind    string `json:"kind"`
	Text    string `json:"text,omitempty"`
	Path    string `json:"path,omitempty"`
	Existed bool   `json:"existed,omitempty"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
}

// validate checks what Restore relies on: a known kind, a turn from 1,
// an absolute clean path, hashes of 64 hex digits (a blob's file name).
func (r checkpointRecord) validate() error {
	isHash := func(h string) bool {
		if len(h) != 64 {
			return false
		}
		_, err := hex.DecodeString(h)
		return err == nil
	}
	switch {
	case r.Turn < 1:
		return fmt.Errorf("turn %d: turns count from 1", r.Turn)
	case r.Kind == kindTurn:
		return nil
	case r.Kind != kindBefore && r.Kind != kindAfter:
		return fmt.Errorf("kind %q: want turn, before or after", r.Kind)
	case !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path:
		return fmt.Errorf("path %q: want an absolute, clean path", r.Path)
	case r.Before != "" && !isHash(r.Before), r.After != "" && !isHash(r.After):
		return errors.New("before/after: want a SHA-256 in hex")
	case r.Kind == kindBefore && r.Existed != (r.Before != ""):
		return errors.New("before: existed and before disagree")
	}
	return nil
}

// The kinds of checkpoint records.
const (
	kindTurn   = "turn"
	kindBefore = "before"
	kindAfter  = "after"
)

// CheckpointTurn is one user message the checkpoints know: its number,
// from 1 in the order of the session, and its text.
type CheckpointTurn struct {
	N    int
	Text string
}

// RestoreReport is what [Checkpoints.Restore] did: the files put back
// as they were (Restored; a file the agent created is removed), and
// those left alone because something else changed them since the agent
// last wrote them (Kept). Paths are as the tools show them.
type RestoreReport struct {
	Restored []string
	Kept     []string
}

// OpenCheckpoints opens the checkpoint log at logPath (created at the
// first write) with pre-images in blobDir, for files resolved as env's
// tools resolve them. Errors: the log cannot be read, or a line of it is
// not a record (named by its line number).
func OpenCheckpoints(env tools.Env, logPath, blobDir string) (*Checkpoints, error) {
	c := &Checkpoints{env: env, logPath: logPath, blobDir: blobDir}
	b, err := os.ReadFile(logPath)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("agent: checkpoints: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r checkpointRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("agent: checkpoints %s, line %d: %w", logPath, n, err)
		}
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("agent: checkpoints %s, line %d: %w", logPath, n, err)
		}
		c.recs = append(c.recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("agent: checkpoints %s: %w", logPath, err)
	}
	return c, nil
}

// CopyTo writes this log to logPath, for a forked session: the fork can
// restore what the agent wrote before it. Errors: the file system's.
func (c *Checkpoints) CopyTo(logPath string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return writeRecords(logPath, c.recs)
}

// Turns returns the turns recorded, oldest first.
func (c *Checkpoints) Turns() []CheckpointTurn {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []CheckpointTurn
	for _, r := range c.recs {
		if r.Kind == kindTurn {
			out = append(out, CheckpointTurn{N: r.Turn, Text: r.Text})
		}
	}
	return out
}

// turn returns the current turn's number, 0 before the first.
func (c *Checkpoints) turn() int {
	if len(c.recs) == 0 {
		return 0
	}
	return c.recs[len(c.recs)-1].Turn
}

// begin starts a turn for the user message text.
func (c *Checkpoints) begin(text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.append(checkpointRecord{Turn: c.turn() + 1, Kind: kindTurn, Text: text})
}

// before records the pre-image of the file call would change, once per
// turn. A call that changes no file (bad arguments) records nothing.
func (c *Checkpoints) before(call chat.ToolCall) error {
	p, ok, err := tools.WritePath(c.env, call)
	if !ok || err != nil {
		return nil // the tool reports its own error
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	turn := c.turn()
	for _, r := range c.recs {
		if r.Turn == turn && r.Kind == kindBefore && r.Path == p {
			return nil
		}
	}
	rec := checkpointRecord{Turn: turn, Kind: kindBefore, Path: p}
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("checkpoint %s: %w", p, err)
	default:
		rec.Existed = true
		if rec.Before, err = c.putBlob(data); err != nil {
			return err
		}
	}
	return c.append(rec)
}

// after records what the agent left in the file call changed.
func (c *Checkpoints) after(call chat.ToolCall) error {
	p, ok, err := tools.WritePath(c.env, call)
	if !ok || err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h, err := hashFile(p)
	if err != nil {
		return err
	}
	return c.append(checkpointRecord{Turn: c.turn(), Kind: kindAfter, Path: p, After: h})
}

// Restore puts back the files the agent changed in turn n and after, as
// they were before turn n, and forgets those turns (the log keeps the
// turns before n). A file whose content is not what the agent last
// wrote to it (edited by the user, a command, another program) is left
// as it is and named in Kept. Errors: a pre-image that cannot be read or
// a file that cannot be written (the files before it in path order are
// restored; the log is unchanged).
func (c *Checkpoints) Restore(n int) (RestoreReport, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rep RestoreReport
	first := map[string]checkpointRecord{} // the pre-image before turn n
	last := map[string]string{}            // what the agent left
	for _, r := range c.recs {
		if r.Turn < n {
			continue
		}
		switch r.Kind {
		case kindBefore:
			if _, ok := first[r.Path]; !ok {
				first[r.Path] = r
			}
		case kindAfter:
			last[r.Path] = r.After
		}
	}
	paths := make([]string, 0, len(first))
	for p := range first {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		r := first[p]
		if _, in := c.rel(p); !in && !c.env.AllowOutside {
			// Not the project's: never touched, whatever the log says.
			rep.Kept = append(rep.Kept, p)
			continue
		}
		now, err := hashFile(p)
		if err != nil {
			return rep, err
		}
		want, wrote := last[p]
		if !wrote {
			// Asked, never written (the write failed): nothing to undo
			// unless it changed.
			want = r.Before
			if !r.Existed {
				want = ""
			}
		}
		if now != want {
			rep.Kept = append(rep.Kept, c.display(p))
			continue
		}
		if !r.Existed {
			if now != "" {
				if err := os.Remove(p); err != nil {
					return rep, fmt.Errorf("restore %s: %w", c.display(p), err)
				}
				rep.Restored = append(rep.Restored, c.display(p))
			}
			continue
		}
		if now == r.Before {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.blobDir, r.Before))
		if err != nil {
			return rep, fmt.Errorf("restore %s: its checkpoint: %w", c.display(p), err)
		}
		mode := fs.FileMode(0o644)
		if fi, err := os.Stat(p); err == nil {
			mode = fi.Mode().Perm()
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			return rep, fmt.Errorf("restore %s: %w", c.display(p), err)
		}
		rep.Restored = append(rep.Restored, c.display(p))
	}
	keep := slices.DeleteFunc(slices.Clone(c.recs), func(r checkpointRecord) bool { return r.Turn >= n })
	if err := writeRecords(c.logPath, keep); err != nil {
		return rep, err
	}
	c.recs = keep
	return rep, nil
}

// display is p relative to the project when it is inside it.
func (c *Checkpoints) display(p string) string {
	if rel, in := c.rel(p); in {
		return rel
	}
	return p
}

// rel returns p relative to the project root (as given, or with its
// symlinks resolved, as the tools resolve paths), and whether p is
// inside it.
func (c *Checkpoints) rel(p string) (string, bool) {
	roots := []string{c.env.Root}
	if resolved, err := filepath.EvalSymlinks(c.env.Root); err == nil {
		roots = append(roots, resolved)
	}
	for _, root := range roots {
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
			return rel, true
		}
	}
	return "", false
}

// append adds r to the log, on disk first. The caller holds c.mu.
func (c *Checkpoints) append(r checkpointRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.logPath), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	f, err := os.OpenFile(c.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("checkpoint %s: %w", c.logPath, werr)
	}
	c.recs = append(c.recs, r)
	return nil
}

// putBlob stores data under its hash and returns the hash.
func (c *Checkpoints) putBlob(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	p := filepath.Join(c.blobDir, h)
	if _, err := os.Stat(p); err == nil {
		return h, nil
	}
	if err := os.MkdirAll(c.blobDir, 0o700); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	tmp, err := os.CreateTemp(c.blobDir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("checkpoint: %w", werr)
	}
	return h, nil
}

// hashFile returns the SHA-256 of p's content in hex, "" when p does not
// exist.
func hashFile(p string) (string, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("checkpoint %s: %w", p, err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// writeRecords writes the log at path whole, through a temporary file.
func writeRecords(path string, recs []checkpointRecord) error {
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
