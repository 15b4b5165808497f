package track

import (
	"slices"
	"time"

	"github.com/agentctx/agentctx/secret"
)

// State is a tracker's whole state, the form persisted in a session. JSON
// tags are snake_case; empty lists and zero counts are omitted. A State
// is plain data, not safe for concurrent mutation.
type State struct {
	// Files are the files read, oldest first (a re-read moves a file to
	// the end).
	Files []FileRead `json:"files_read,omitempty"`
	// Commands are the failed commands, oldest first.
	Commands []FailedCommand `json:"failed_commands,omitempty"`
	// Searches are the recent searches, oldest first.
	Searches []Search `json:"recent_searches,omitempty"`
	// Changes are the files written or edited, oldest first.
	Changes []FileChange `json:"files_changed,omitempty"`
	// OmittedFiles, OmittedCommands and OmittedChanges count the entries
	// dropped by the caps.
	OmittedFiles    int `json:"omitted_files,omitempty"`
	OmittedCommands int `json:"omitted_commands,omitempty"`
	OmittedChanges  int `json:"omitted_changes,omitempty"`
	// SearchCount counts every search recorded, including those that
	// left the recent window.
	SearchCount int `json:"search_count,omitempty"`
}

// FileRead is a file the agent read.
type FileRead struct {
	// Call is the id of the tool call that recorded the entry last.
	Call string `json:"call,omitempty"`
	// Path is the path as the tool call named it.
	Path string `json:"path"`
	// Preview holds the first [PreviewLines] lines of the content read.
	Preview string `json:"preview,omitempty"`
	// Reads counts the successful reads of Path.
	Reads int `json:"reads,omitempty"`
	// Known reports whether ModTime and Size were read from disk at the
	// last read.
	Known bool `json:"known,omitempty"`
	// ModTime and Size (bytes) are the file's at the last read.
	ModTime time.Time `json:"mod_time,omitzero"`
	Size    int64     `json:"size,omitempty"`
	// Stale reports that the file changed after the last read.
	Stale bool `json:"stale,omitempty"`
	// ChangedOnReread reports that the last read found the file changed
	// on disk since the read before it.
	ChangedOnReread bool `json:"changed_on_reread,omitempty"`
}

// FailedCommand is a command that failed.
type FailedCommand struct {
	// Call is the id of the tool call that recorded the entry last.
	Call string `json:"call,omitempty"`
	// Command is the command (or "tool argument") cut to [CommandRunes]
	// runes: the key.
	Command string `json:"command"`
	// Error is the first informative line of the last failure's output,
	// cut to [ErrorRunes] runes.
	Error string `json:"error,omitempty"`
	// Failures counts the failures of Command.
	Failures int `json:"failures,omitempty"`
}

// Search is one recent search.
type Search struct {
	// Call is the id of the tool call that recorded the entry last.
	Call string `json:"call,omitempty"`
	// Query is the pattern or command searched for, cut to [QueryRunes].
	Query string `json:"query"`
	// Summary is the first line of the result, cut to
	// [SearchSummaryRunes] runes.
	Summary string `json:"summary,omitempty"`
}

// FileChange is a file the agent wrote or edited.
type FileChange struct {
	// Call is the id of the tool call that recorded the entry last.
	Call string `json:"call,omitempty"`
	// Path is the path as the tool call named it.
	Path string `json:"path"`
	// Op is the last operation: "write", "edit", "create", "patch",
	// "delete" or "redirect".
	Op string `json:"op"`
	// Count counts the changes made to Path.
	Count int `json:"count,omitempty"`
}

// State returns a deep copy of the tracker's state.
func (t *Tracker) State() State {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state.clone()
}

// SetState replaces the tracker's state with a copy of s, as when a
// session resumes. Entries beyond the tracker's caps are dropped oldest
// first and counted as omitted. Its texts are redacted as
// [Tracker.Record] redacts them, so a state saved before redaction
// existed repeats no secret in the section.
func (t *Tracker) SetState(s State) {
	s = s.clone()
	s.redact()
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := t.opts.MaxFiles; n > 0 && len(s.Files) > n {
		s.OmittedFiles += len(s.Files) - n
		s.Files = s.Files[len(s.Files)-n:]
	}
	if n := t.opts.MaxFiles; n > 0 && len(s.Changes) > n {
		s.OmittedChanges += len(s.Changes) - n
		s.Changes = s.Changes[len(s.Changes)-n:]
	}
	if n := t.opts.MaxCommands; n > 0 && len(s.Commands) > n {
		s.OmittedCommands += len(s.Commands) - n
		s.Commands = s.Commands[len(s.Commands)-n:]
	}
	if n := t.opts.MaxSearches; n > 0 && len(s.Searches) > n {
		s.Searches = s.Searches[len(s.Searches)-n:]
	}
	t.state = s
	t.gen++
}

func (s State) clone() State {
	s.Files = slices.Clone(s.Files)
	s.Commands = slices.Clone(s.Commands)
	s.Searches = slices.Clone(s.Searches)
	s.Changes = slices.Clone(s.Changes)
	return s
}

// redact redacts the texts of s ([secret.Redact]), in place: s must own
// its lists.
func (s *State) redact() {
	for i := range s.Files {
		s.Files[i].Preview = secret.Redact(s.Files[i].Preview)
	}
	for i := range s.Commands {
		c := &s.Commands[i]
		c.Command, c.Error = secret.Redact(c.Command), secret.Redact(c.Error)
	}
	for i := range s.Searches {
		q := &s.Searches[i]
		q.Query, q.Summary = secret.Redact(q.Query), secret.Redact(q.Summary)
	}
}
