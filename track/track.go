package track

import (
	"os"
	"slices"
	"sync"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
)

// Defaults of [Options]. The seed keeps every file and command; the caps
// are agentctx's, sized so that a full section stays well under
// [DefaultMaxTokens].
const (
	// DefaultMaxFiles is the default cap on files read and on files
	// changed kept (entries).
	DefaultMaxFiles = 50
	// DefaultMaxCommands is the default cap on failed commands kept.
	DefaultMaxCommands = 20
	// DefaultMaxSearches is the number of recent searches kept (seed 000:
	// MAX_RECENT_SEARCHES = 5).
	DefaultMaxSearches = 5
	// DefaultMaxTokens is the default cap on [Tracker.Section], in tokens
	// as counted by [Options.Counter].
	DefaultMaxTokens = 1500
)

// Cuts applied at record time and at render time, in runes (seed 000).
const (
	// PreviewLines is the number of leading content lines kept per file
	// read.
	PreviewLines = 3
	// CommandRunes is the length a failed command's key is cut to.
	CommandRunes = 100
	// SearchSummaryRunes is the length a search's first result line is cut
	// to when recorded.
	SearchSummaryRunes = 200
	// ErrorRunes is the length a failed command's error line is cut to
	// when recorded (agentctx's bound; the seed keeps the whole line).
	ErrorRunes = 200
	// QueryRunes is the length a search query is cut to when recorded
	// (agentctx's bound; the seed keeps the whole query).
	QueryRunes = 200
	// SectionPreviewRunes is the length of a file's preview line in the
	// section.
	SectionPreviewRunes = 80
	// SectionSummaryRunes is the length of a search summary in the
	// section.
	SectionSummaryRunes = 100
)

// Options configures a [Tracker]. The zero value means defaults.
type Options struct {
	// MaxFiles caps the files read kept, and separately the files changed
	// kept; the oldest entry is dropped first and counted as omitted.
	// Optional. Defaults to [DefaultMaxFiles]; negative means no cap.
	MaxFiles int
	// MaxCommands caps the failed commands kept, oldest dropped first.
	// Optional. Defaults to [DefaultMaxCommands]; negative means no cap.
	MaxCommands int
	// MaxSearches is the number of recent searches kept. Optional.
	// Defaults to [DefaultMaxSearches] (seed 000); negative means no cap.
	MaxSearches int
	// MaxTokens caps [Tracker.Section] in tokens. Optional. Defaults to
	// [DefaultMaxTokens]; negative means no cap.
	MaxTokens int
	// Counter counts the section's tokens for MaxTokens. Optional.
	// Defaults to [token.Estimator]; pass an exact counter
	// (token.ForEncoding) to enforce the cap exactly for a model.
	Counter token.Counter
	// Stat returns a file's modification time and size in bytes; it is
	// used to notice files that changed on disk after they were read.
	// Optional. Defaults to [os.Stat]. An error means "unknown": the file
	// is then never reported stale by the disk check.
	Stat func(path string) (modTime time.Time, size int64, err error)
	// Classify reads a tool call (Record). Optional. Defaults to
	// [tooluse.Classify]; a caller that reads the same calls elsewhere
	// passes a [tooluse.Recent]'s, so that each is read once. It must
	// return what tooluse.Classify returns, and its result is not
	// changed.
	Classify func(chat.ToolCall) tooluse.Use
}

// Tracker records the working state of one agent session (seed 000's
// ContextManager). Create it with [New]. It is safe for concurrent use: a
// mutex serializes every method. Record and Section cost O(n) in the
// number of entries kept, which the caps bound.
type Tracker struct {
	mu    sync.Mutex
	opts  Options
	state State
	// counts remembers the counts of the section's headings and omitted
	// lines (SectionTokens); lines holds its entries' lines and their
	// counts.
	counts token.Memo
	lines  lineCache
	// gen numbers the versions of state: every change moves it on.
	gen uint64
	// shown reports the calls whose results the window shows (SetShown).
	shown func(call string) bool
	// last is the last section rendered (SectionTokens), of state
	// version last.gen; valid when last.ok.
	last struct {
		gen    uint64
		ok     bool
		text   string
		tokens int
	}
	// all is the size of the section with nothing hidden (HiddenTokens),
	// of state version all.gen; valid when all.ok.
	all struct {
		gen    uint64
		ok     bool
		tokens int
	}
}

// New returns an empty tracker configured by opts.
func New(opts Options) *Tracker {
	if opts.MaxFiles == 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxCommands == 0 {
		opts.MaxCommands = DefaultMaxCommands
	}
	if opts.MaxSearches == 0 {
		opts.MaxSearches = DefaultMaxSearches
	}
	if opts.MaxTokens == 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.Counter == nil {
		opts.Counter = token.Estimator{}
	}
	if opts.Stat == nil {
		opts.Stat = osStat
	}
	if opts.Classify == nil {
		opts.Classify = tooluse.Classify
	}
	return &Tracker{opts: opts}
}

func osStat(path string) (time.Time, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, 0, err
	}
	return fi.ModTime(), fi.Size(), nil
}

// Record feeds one tool call and its result to the tracker. What it
// records depends on what [tooluse.Classify] reads from the call and on
// whether it failed
// ([chat.ToolResult.FailedFor]: the result's IsError flag or a non-zero
// exit code in the content, but not grep's "no match" or diff's "differ"):
//
//   - a successful read records each path read with the first
//     [PreviewLines] lines of the content (a failed read records nothing,
//     as in the seed);
//   - a search records its query and first result line, failed or not
//     (seed 000: "searched but found nothing" is information too);
//   - a successful write or edit records each path changed with its
//     operation and marks an earlier read of it stale;
//   - a web search records its query as a recent search;
//   - any failed call records its command (shell, or a SWE-agent text
//     action) or "name action argument" (other tools: the first path,
//     query or URL), cut to [CommandRunes] runes, with the first error
//     line ([tooluse.ErrorLine]).
//
// A shell command is parsed (see [tooluse.Classify]): every simple
// command in it is read, inside lists, pipelines, if and for bodies,
// blocks and $(…).
//
// What is recorded from the call and its result (previews, search queries
// and summaries, failed commands and their error lines) is redacted
// before it is cut ([secret.Redact]): the state is saved in the session
// and the section repeated on every request, while the result itself is
// kept once, as recorded. Record never panics, whatever the arguments or
// content hold.
func (t *Tracker) Record(call chat.ToolCall, result chat.ToolResult) {
	u := t.opts.Classify(call)
	a := analyze(call, u)
	failed := result.FailedFor(call)
	content := result.Content
	if failed || len(a.reads) > 0 || len(a.searches) > 0 {
		content = secret.Redact(content)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !failed {
		var preview string
		if len(a.reads) > 0 {
			preview = firstLines(body(content), PreviewLines)
		}
		for _, p := range a.reads {
			t.recordRead(p, preview, call.ID)
		}
		for _, w := range a.writes {
			t.recordWrite(w.path, w.op, call.ID)
		}
	}
	if len(a.searches) > 0 {
		summary := tooluse.HeadRunes(firstLine(body(content)), SearchSummaryRunes)
		for _, q := range a.searches {
			t.recordSearch(secret.Redact(q), summary, call.ID)
		}
	}
	if failed {
		t.recordFailure(tooluse.HeadRunes(secret.Redact(failureKey(call, u)), CommandRunes), tooluse.HeadRunes(tooluse.ErrorLine(content), ErrorRunes), call.ID)
	}
}

func (t *Tracker) recordRead(path, preview, id string) {
	t.gen++
	mod, size, err := t.opts.Stat(path)
	f := FileRead{Path: path, Preview: preview, Reads: 1, Call: id}
	if err == nil {
		f.ModTime, f.Size, f.Known = mod, size, true
	}
	s := &t.state
	var dropped int
	s.Files, dropped = upsert(s.Files, func(e FileRead) bool { return e.Path == path }, t.opts.MaxFiles, func(old *FileRead) FileRead {
		if old != nil {
			f.Reads = old.Reads + 1
			f.ChangedOnReread = old.Known && f.Known && (!old.ModTime.Equal(f.ModTime) || old.Size != f.Size)
		}
		return f
	})
	s.OmittedFiles += dropped
}

// upsert moves the entry of list that match selects to the end, replaced
// by build(the old entry), or appends build(nil) when there is none; then it
// drops the oldest entries beyond limit (when positive) and returns how many
// it dropped. The tracker's lists are ordered by last use, so a cap drops
// what was least recently touched.
func upsert[T any](list []T, match func(T) bool, limit int, build func(old *T) T) ([]T, int) {
	var e T
	if i := slices.IndexFunc(list, match); i >= 0 {
		old := list[i]
		e = build(&old)
		list = slices.Delete(list, i, i+1)
	} else {
		e = build(nil)
	}
	list = append(list, e)
	if limit > 0 && len(list) > limit {
		drop := len(list) - limit
		return slices.Delete(list, 0, drop), drop
	}
	return list, 0
}

func (t *Tracker) recordWrite(path, op, id string) {
	t.gen++
	s := &t.state
	if i := slices.IndexFunc(s.Files, func(e FileRead) bool { return e.Path == path }); i >= 0 {
		s.Files[i].Stale = true
	}
	var dropped int
	s.Changes, dropped = upsert(s.Changes, func(e FileChange) bool { return e.Path == path }, t.opts.MaxFiles, func(old *FileChange) FileChange {
		c := FileChange{Path: path, Op: op, Count: 1, Call: id}
		if old != nil {
			c.Count = old.Count + 1
		}
		return c
	})
	s.OmittedChanges += dropped
}

func (t *Tracker) recordSearch(query, summary, id string) {
	t.gen++
	s := &t.state
	s.Searches = append(s.Searches, Search{Query: tooluse.HeadRunes(query, QueryRunes), Summary: summary, Call: id})
	s.SearchCount++
	if n := t.opts.MaxSearches; n > 0 && len(s.Searches) > n {
		s.Searches = slices.Delete(s.Searches, 0, len(s.Searches)-n)
	}
}

func (t *Tracker) recordFailure(command, errLine, id string) {
	t.gen++
	s := &t.state
	var dropped int
	s.Commands, dropped = upsert(s.Commands, func(e FailedCommand) bool { return e.Command == command }, t.opts.MaxCommands, func(old *FailedCommand) FailedCommand {
		c := FailedCommand{Command: command, Error: errLine, Failures: 1, Call: id}
		if old != nil {
			c.Failures = old.Failures + 1
		}
		return c
	})
	s.OmittedCommands += dropped
}

// SetShown sets which tool calls' results the caller's window shows:
// the entries a call recorded last (their Call) are left out of
// [Tracker.Section] while shown(call) is true, since the window shows
// what they would repeat; an entry without a call (a state saved before
// entries named theirs) is always listed. Nil shows none. The section
// is rendered again at the next call: call SetShown again whenever what
// shown answers changes. The tracker does not save shown in its state.
func (t *Tracker) SetShown(shown func(call string) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.shown = shown
	t.gen++
}

// Stale checks the disk now and returns, sorted, the paths of files read
// whose content may have changed since: a write tool changed them after
// the read, or their modification time or size (from [Options.Stat])
// differs from the read's. A file that no longer exists is stale; a file
// whose size and time were unknown at read time is judged only by
// writes. Found files are marked stale in the state, so [Tracker.Section]
// shows them until they are read again. It calls Stat once per file read.
func (t *Tracker) Stale() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stale()
}

// StaleExternal is [Tracker.Stale] less the files the agent itself
// changed (a recorded write, edit, create, patch, delete or redirect):
// the files read that changed on disk by someone else, sorted. Claude
// Code reminds the model only of those; the agent knows what it changed.
// It calls Stat once per file read.
func (t *Tracker) StaleExternal() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	stale := t.stale()
	if len(stale) == 0 {
		return nil
	}
	out := stale[:0]
	for _, p := range stale {
		if !slices.ContainsFunc(t.state.Changes, func(c FileChange) bool { return c.Path == p }) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// stale is Stale with t.mu held.
func (t *Tracker) stale() []string {
	var out []string
	for i := range t.state.Files {
		f := &t.state.Files[i]
		if !f.Stale && f.Known {
			mod, size, err := t.opts.Stat(f.Path)
			if err != nil || !mod.Equal(f.ModTime) || size != f.Size {
				f.Stale = true
				t.gen++
			}
		}
		if f.Stale {
			out = append(out, f.Path)
		}
	}
	slices.Sort(out)
	return out
}

// Reset forgets everything recorded (seed 000's clear).
func (t *Tracker) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state = State{}
	t.gen++
}
