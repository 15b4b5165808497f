package compact

import (
	"encoding/json"
	"github.com/agentctx/agentctx/tooluse"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
)

// The retention categories, named as in [Retention]'s JSON: the names
// scripts rely on.
const (
	CategoryUserMessages   = "user_messages"
	CategoryFilesModified  = "files_modified"
	CategoryFilesRead      = "files_read"
	CategoryErrors         = "errors"
	CategoryFailingTests   = "failing_tests"
	CategoryFailedCommands = "failed_commands"
)

// Categories lists the retention categories in report order.
func Categories() []string {
	return []string{CategoryUserMessages, CategoryFilesModified, CategoryFilesRead,
		CategoryErrors, CategoryFailingTests, CategoryFailedCommands}
}

// MaxMissing is the most lost facts [Retention.Missing] lists.
const MaxMissing = 20

// retentionPrefixRunes is how much of a text fact must appear when the
// window holds it cut shorter: its first 100 runes.
const retentionPrefixRunes = 100

// MeasureRetention reports how many of removed's facts (the [ExtractFacts]
// of the history a compaction removed) are still present in window, the
// messages after the compaction (summary and kept history). A fact is
// present when its text, whitespace collapsed, occurs in the window's
// concatenated text (text parts, tool-call arguments and their decoded
// string values, tool results, whitespace collapsed):
//
//   - user messages, errors and failed commands: the fact (at most 200
//     runes) or, when the window cut it shorter, its first 100 runes;
//   - file paths: the path, or its base name with its parent directory
//     ("compact/facts.go" for "/repo/compact/facts.go"), or the base name
//     for a path without a directory;
//   - failing tests: the test id.
//
// Fractions are per category and 1 for an empty category; Overall is
// kept/total over all categories (1 when there is nothing to keep).
// Missing lists up to [MaxMissing] lost facts as "category: text".
// The measure is deterministic and needs no model. It is
// O(facts × window text) and safe for concurrent use.
func MeasureRetention(removed Facts, window []chat.Message) Retention {
	hay := windowText(window)
	r := Retention{Counts: map[string][2]int{}}
	check := func(cat string, facts []string, present func(string) bool) {
		c := [2]int{0, len(facts)}
		for _, f := range facts {
			if present(f) {
				c[0]++
			} else if len(r.Missing) < MaxMissing {
				r.Missing = append(r.Missing, cat+": "+f)
			}
		}
		r.Counts[cat] = c
	}
	text := func(f string) bool {
		n := normalizeSpace(f)
		if n == "" || strings.Contains(hay, n) {
			return true
		}
		p := tooluse.HeadRunes(n, retentionPrefixRunes)
		return len(p) < len(n) && strings.Contains(hay, p)
	}
	file := func(f string) bool {
		if strings.Contains(hay, normalizeSpace(f)) {
			return true
		}
		short := path.Base(f)
		if d := path.Base(path.Dir(f)); d != "." && d != "/" && d != "" {
			short = d + "/" + short
		}
		return strings.Contains(hay, normalizeSpace(short))
	}
	exact := func(f string) bool { return strings.Contains(hay, normalizeSpace(f)) }
	check(CategoryUserMessages, removed.UserMessages, text)
	check(CategoryFilesModified, removed.FilesModified, file)
	check(CategoryFilesRead, removed.FilesRead, file)
	check(CategoryErrors, removed.Errors, text)
	check(CategoryFailingTests, removed.FailingTests, exact)
	check(CategoryFailedCommands, removed.FailedCommands, text)
	r.recompute()
	return r
}

// Add adds o's counts to r and recomputes the fractions, so that r becomes
// the retention over both compactions (the overall retention of a replay).
// Missing keeps the first [MaxMissing] lost facts of r then o. A zero r is
// ready to use. Not safe for concurrent use on the same r.
func (r *Retention) Add(o Retention) {
	if r.Counts == nil {
		r.Counts = map[string][2]int{}
	}
	for _, c := range Categories() {
		a, b := r.Counts[c], o.Counts[c]
		r.Counts[c] = [2]int{a[0] + b[0], a[1] + b[1]}
	}
	for _, m := range o.Missing {
		if len(r.Missing) >= MaxMissing {
			break
		}
		r.Missing = append(r.Missing, m)
	}
	r.recompute()
}

// recompute sets the fractions, Kept and Total from Counts.
func (r *Retention) recompute() {
	frac := func(c [2]int) float64 {
		if c[1] == 0 {
			return 1
		}
		return float64(c[0]) / float64(c[1])
	}
	r.Kept, r.Total = 0, 0
	for _, c := range Categories() {
		r.Kept += r.Counts[c][0]
		r.Total += r.Counts[c][1]
	}
	r.UserMessages = frac(r.Counts[CategoryUserMessages])
	r.FilesModified = frac(r.Counts[CategoryFilesModified])
	r.FilesRead = frac(r.Counts[CategoryFilesRead])
	r.Errors = frac(r.Counts[CategoryErrors])
	r.FailingTests = frac(r.Counts[CategoryFailingTests])
	r.FailedCommands = frac(r.Counts[CategoryFailedCommands])
	r.Overall = frac([2]int{r.Kept, r.Total})
}

// windowText returns the searchable text of msgs with every run of white
// space collapsed to one space.
func windowText(msgs []chat.Message) string {
	var b strings.Builder
	w := spaceWriter{b: &b}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				w.write(p.Text)
			case chat.ToolResult:
				w.write(p.Content)
			case chat.ToolCall:
				w.write(p.Name)
				w.write(string(p.Arguments))
				if len(p.Arguments) > 0 && p.Arguments[0] == '{' {
					var v any
					if json.Unmarshal(p.Arguments, &v) == nil {
						writeStrings(&w, v)
					}
				}
			}
		}
	}
	return b.String()
}

func writeStrings(w *spaceWriter, v any) {
	switch v := v.(type) {
	case string:
		w.write(v)
	case []any:
		for _, x := range v {
			writeStrings(w, x)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			writeStrings(w, v[k])
		}
	}
}

// spaceWriter appends texts separated by one space, collapsing white
// space runs.
type spaceWriter struct {
	b     *strings.Builder
	space bool // last byte written was a space (or nothing yet)
}

func (w *spaceWriter) write(s string) {
	if w.b.Len() > 0 && !w.space {
		w.b.WriteByte(' ')
		w.space = true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f' {
				if !w.space && w.b.Len() > 0 {
					w.b.WriteByte(' ')
					w.space = true
				}
			} else {
				w.b.WriteByte(c)
				w.space = false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if !w.space && w.b.Len() > 0 {
				w.b.WriteByte(' ')
				w.space = true
			}
		} else {
			w.b.WriteString(s[i : i+n])
			w.space = false
		}
		i += n
	}
}
