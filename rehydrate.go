package agentctx

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/safefile"

	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/secret"
)

// Defaults of [RehydrateOptions].
const (
	DefaultRehydrateFiles       = 5
	DefaultRehydrateFileTokens  = 10_000
	DefaultRehydrateTotalTokens = 50_000
	// rehydrateShare is the largest share of the budget the rehydrated
	// files may take together.
	rehydrateShare = 0.15
	// rehydrateMaxBytes is the most read of one file, in bytes.
	rehydrateMaxBytes = 4 << 20
)

// rehydrate builds the rehydration block after a summarizing compaction
// (what Claude Code re-attaches after /compact): the most recently read
// files, read again from disk, the todo list and the plan, and the
// tracker's section when requests do not carry it already. The
// instruction files need nothing: they are in the static prompt, which
// compaction never touches.
func (e *Engine) rehydrate() {
	e.rehydration = ""
	if e.opts.Rehydrate.Disabled {
		return
	}
	var b strings.Builder
	if files := e.recentFiles(); files != "" {
		b.WriteString("## Recently read files\n\nRead again from disk after the summary; they may have changed since the agent read them.\n\n")
		b.WriteString(files)
	}
	if len(e.todos) > 0 {
		b.WriteString("## Todo list\n\n")
		for _, t := range e.todos {
			fmt.Fprintf(&b, "- [%s] %s\n", t.Status, t.Content)
		}
		b.WriteString("\n")
	}
	if e.active != nil {
		if p, ok := e.active.Plan(); ok && len(p.Steps) > 0 {
			b.WriteString("## Plan\n\n")
			for i, s := range p.Steps {
				fmt.Fprintf(&b, "%d. [%s] %s\n", i+1, s.Status, s.Description)
			}
			b.WriteString("\n")
		}
	}
	if e.tracker != nil && e.opts.NoTrackerSection {
		e.syncShown()
		if s := e.tracker.Section(); s != "" {
			b.WriteString(s)
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		return
	}
	e.rehydration = secret.Redact("# Context restored after compaction\n\nThe earlier conversation was summarized (see the summary in the conversation). This restores what the summary cannot hold.\n\n" + strings.TrimSpace(b.String()))
	e.stats.Rehydrations++
}

// recentFiles renders the most recently read files that still exist,
// newest first, within the per-file and total caps.
func (e *Engine) recentFiles() string {
	if e.tracker == nil {
		return ""
	}
	o := e.opts.Rehydrate
	n := o.Files
	if n == 0 {
		n = DefaultRehydrateFiles
	}
	per := o.FileTokens
	if per <= 0 {
		per = DefaultRehydrateFileTokens
	}
	total := o.TotalTokens
	if total <= 0 {
		total = DefaultRehydrateTotalTokens
	}
	total = min(total, int(rehydrateShare*float64(e.w.Budget())))
	read := o.ReadFile
	if read == nil {
		// Regular files only, never blocking on a FIFO, and at most
		// rehydrateMaxBytes of each: the block keeps a few thousand
		// tokens of it anyway.
		read = func(p string) ([]byte, error) {
			data, _, err := safefile.ReadFile(p, rehydrateMaxBytes, safefile.Options{})
			return data, err
		}
	}
	files := e.tracker.State().Files
	var b strings.Builder
	seen := map[string]bool{}
	for i := len(files) - 1; i >= 0 && n > 0 && total > 0; i-- {
		p := files[i].Path
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(e.opts.Dir, full)
		}
		if seen[full] {
			continue
		}
		seen[full] = true
		data, err := read(full)
		if err != nil || !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		text := string(data)
		capTokens := min(per, total)
		body := prompt.CutTokens(text, capTokens, e.counter)
		if strings.TrimSpace(body) == "" {
			continue
		}
		lines := strings.Count(text, "\n") + 1
		head := fmt.Sprintf("### %s (%d lines)\n", p, lines)
		if body != text {
			head = fmt.Sprintf("### %s (%d lines, cut to %d tokens)\n", p, lines, capTokens)
		}
		block := head + "```\n" + body + "\n```\n\n"
		total -= e.counter.Count(block)
		b.WriteString(block)
		n--
	}
	return b.String()
}
