package compact

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/window"
)

// DefaultNamesRatio is the share of the budget the names section of a
// compaction note may take by default ([Tiered.NamesRatio]), and
// MaxNamesTokens the most it takes at any budget, in tokens (about 250
// names with their sources' labels): at a 1,000,000-token budget a
// tenth would be a list nobody reads. The cap was 4,000; at 1,600 a
// 16,000-token budget sends 1.7 % fewer tokens (7,071 → 6,950) and a
// 32,000-token one 1.9 % fewer, for 0.1 and 0.5 points of next-action
// support (agentctx eval on ../shared/data, L2 at 70 %).
const (
	DefaultNamesRatio = 0.15
	MaxNamesTokens    = 1600
)

// namesHeader opens the names section of a compaction note; each line
// after it is "- SOURCE: name, name, …".
const namesHeader = "Names seen in the removed tool outputs, newest first (read the file or recall the output again for its text):"

// maxNameRunes is the longest name listed, in runes; maxLabelRunes the
// longest source label (a command is cut there).
const (
	maxNameRunes  = 80
	maxLabelRunes = 60
)

// nameGroup is the names one removed tool output held: its source (the
// file it read, the command it ran or the tool's name) and the paths and
// identifiers in it, in order of first appearance.
type nameGroup struct {
	label string
	names []string
}

// removedNames returns the names of the tool results of w before index
// keep that are neither pinned nor spared: what an L2 drop is about to remove, newest
// output first. Names are [tooluse.TextRefs]' paths and identifiers of
// each line (the same reading eval applies to an agent's next action),
// redacted: a name that [secret.Redact] changes is left out. This is a
// names-only map of what the removed outputs showed, in the spirit of
// Aider's repository map (symbols and files without their bodies,
// aider.chat/docs/repomap.html): the agent keeps knowing which files,
// functions and types it has seen without the tokens of their text.
func removedNames(w *window.Window, keep int, spare spared) []nameGroup {
	labels := map[string]string{} // call id -> source label
	for i := 0; i < keep && i < w.Len(); i++ {
		m := w.At(i)
		if m.Role != chat.RoleAssistant {
			continue
		}
		for _, c := range m.ToolCalls() {
			labels[c.ID] = callLabel(w.Classify(c), c)
		}
	}
	var out []nameGroup
	for i := min(keep, w.Len()) - 1; i >= 0; i-- {
		if w.Pinned(i) || w.IsNote(i) || spare.holds(i) {
			continue
		}
		r, ok := w.At(i).ToolResult()
		if !ok || strings.Contains(r.Content, cutMark) && len(r.Content) < 200 {
			continue
		}
		names := namesIn(r.Content)
		if len(names) == 0 {
			continue
		}
		label := labels[r.ToolCallID]
		if label == "" {
			label = r.ToolName
		}
		// One line, and not a "- " line's start: the section is read back.
		if label = strings.Join(strings.Fields(label), " "); label == "" {
			label = "tool output"
		}
		out = append(out, nameGroup{label: label, names: names})
	}
	return out
}

// callLabel names the source of a tool call's output, from its reading
// u: the file it read, its command (cut to [maxLabelRunes] runes) or its
// tool's name.
func callLabel(u tooluse.Use, c chat.ToolCall) string {
	switch {
	case len(u.Reads) > 0:
		return u.Reads[0]
	case u.Command != "":
		return tooluse.CutRunes(strings.Join(strings.Fields(u.Command), " "), maxLabelRunes)
	}
	return c.Name
}

// namesIn returns the distinct paths and identifiers of text, in order:
// each line is split at every rune that is not a letter, a digit or one
// of _ . / - @ (code's parentheses, quotes and "file:line" colons), and
// the words [tooluse.TextRefs] reads as a path or an identifier
// ([tooluse.WordRef], at most [tooluse.MaxSymbolRefs] identifiers a line,
// as TextRefs caps them) are kept, but for those starting with a digit
// ("0.00s", "1.23"), longer than [maxNameRunes] runes, or holding a
// credential ([secret.Redact], applied to the whole text once).
func namesIn(text string) []string {
	var out []string
	seen := map[string]bool{}
	line := map[string]bool{} // the line's distinct names, as TextRefs caps them
	symbols := 0
	text = withoutSecrets(text)
	// The words are the runs of name runes ([nameRune]): read in place,
	// without mapping the text, as the mapped line's fields would be.
	for i := 0; i < len(text); {
		start := i
		for i < len(text) {
			r, size := rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			if nameRune(r) == ' ' {
				break
			}
			i += size
		}
		if i == start { // a separator
			if text[i] == '\n' {
				clear(line)
				symbols = 0
			}
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		w := strings.TrimRight(text[start:i], ".")
		ref, ok := tooluse.WordRef(w)
		if !ok || line[ref.Text] {
			continue
		}
		if ref.Kind == tooluse.RefSymbol {
			if symbols >= tooluse.MaxSymbolRefs {
				continue
			}
			symbols++
		}
		line[ref.Text] = true
		s := ref.Text
		if s == "" || seen[s] || s[0] >= '0' && s[0] <= '9' || utf8.RuneCountInString(s) > maxNameRunes || isTagName(s) || randomID(s) {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// randomID reports a generated identifier: a message or tool-call id
// ("msg_0167kgZUrgcT7dg7uZK7hVSg", "toolu_01FZ9…"), a signature or a
// base64 blob. Some part of it (between _ . / - @), of 10 ASCII letters
// and digits or more, mixes upper case, lower case and digits and changes
// between them about every other rune (at least len/2 - 1 times), as
// random base62 does (~0.62 a rune), where a name changes at its words
// ("TranscriptRendererTest": 5 changes in 22 runes, "IPv6Address": 4 in
// 11). Hex hashes and UUIDs, which have no upper case, are kept: agents
// name commits.
func randomID(s string) bool {
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return strings.ContainsRune("_./-@", r) }) {
		if len(part) < 10 {
			continue
		}
		var has [3]bool
		changes, prev := 0, -1
		for _, r := range part {
			c := 0
			switch {
			case 'A' <= r && r <= 'Z':
				c = 1
			case '0' <= r && r <= '9':
				c = 2
			case 'a' <= r && r <= 'z':
			default:
				c = -1
			}
			if c < 0 {
				changes, prev = 0, -1
				break
			}
			has[c] = true
			if prev >= 0 && c != prev {
				changes++
			}
			prev = c
		}
		if has[0] && has[1] && has[2] && 2*changes+2 >= len(part) {
			return true
		}
	}
	return false
}

// shortLabel returns label, a names group's source, as the names
// section writes it: a path the note already names in full is written as
// its last element ("session.ex"), which the note's full path resolves;
// anything else as it is.
func shortLabel(note, label string) string {
	i := strings.LastIndexByte(label, '/')
	if i < 0 || i == len(label)-1 || strings.ContainsAny(label, " :") {
		return label
	}
	if ref, ok := tooluse.WordRef(label); !ok || ref.Kind != tooluse.RefPath || !tooluse.ContainsToken(note, label) {
		return label
	}
	return label[i+1:]
}

// withoutSecrets returns line with its credentials ([secret.Redact])
// and their markers removed.
func withoutSecrets(line string) string {
	red := secret.Redact(line)
	if red == line {
		return line
	}
	var b strings.Builder
	for {
		i := strings.Index(red, secret.MarkerPrefix)
		if i < 0 {
			break
		}
		b.WriteString(red[:i])
		b.WriteByte(' ')
		j := strings.IndexByte(red[i:], ']')
		if j < 0 {
			red = ""
			break
		}
		red = red[i+j+1:]
	}
	b.WriteString(red)
	return b.String()
}

// isTagName reports a closing tag's name read as a path
// ("</system-reminder>" gives "/system-reminder"): one leading slash, no
// other slash, no dot.
func isTagName(s string) bool {
	return strings.HasPrefix(s, "/") && !strings.ContainsAny(s[1:], "/.")
}

// nameRune keeps the runes of names and turns the others into spaces.
func nameRune(r rune) rune {
	if r < utf8.RuneSelf {
		if asciiName[r] {
			return r
		}
		return ' '
	}
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		return r
	}
	return ' '
}

// asciiName marks the ASCII runes of names: letters, digits and _ . / - @.
var asciiName = func() (t [utf8.RuneSelf]bool) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_./-@", r)
	}
	return t
}()

// namesSection returns the names section a compaction note holds, from
// its header to the note's last line or its end; "" when it holds none.
func namesSection(note string) string {
	i := strings.Index(note, namesHeader)
	if i < 0 {
		return ""
	}
	s := note[i:]
	if j := strings.LastIndex(s, noteTail); j >= 0 {
		s = s[:j]
	}
	return s
}

// notedNames reads back the names section a compaction note holds.
func notedNames(note string) []nameGroup {
	section := namesSection(note)
	if section == "" {
		return nil
	}
	var out []nameGroup
	for line := range strings.SplitSeq(section[len(namesHeader):], "\n") {
		if line == "" {
			continue
		}
		rest, ok := strings.CutPrefix(line, "- ")
		if !ok {
			break
		}
		k := strings.LastIndex(rest, ": ")
		if k < 0 {
			break
		}
		out = append(out, nameGroup{label: rest[:k], names: strings.Split(rest[k+2:], ", ")})
	}
	return out
}

// withNames returns note with a names section listing groups (newest
// first) and each name once, its newest source naming it, cut at limit
// tokens as counter counts them: the paths of the groups newest first,
// then their identifiers newest first, until the next does not fit; each
// group's chosen names in their order, one line per source (a file read
// twice is one line), a file the note gives in full labelled by its base
// name ([shortLabel]). A note without names to list is returned unchanged. The section goes before
// the note's last line ("The messages after this note are kept
// verbatim.") when it has one, else at its end.
func withNames(note string, groups []nameGroup, limit int, count func(string) int) string {
	if limit <= 0 || len(groups) == 0 {
		return note
	}
	// Two passes over the groups, newest first: the paths, then the
	// identifiers. A path is what an agent opens next (a file a listing
	// showed); an identifier it finds again by reading the file.
	seen := map[string]bool{}
	for _, g := range groups {
		for _, n := range g.names {
			if !seen[n] && tooluse.ContainsToken(note, n) {
				seen[n] = true // the note names it already ("files touched")
			}
		}
	}
	picked := make([]map[string]bool, len(groups))
	size := count(namesHeader) + 1
	full := false
	for pass := 0; pass < 2 && !full; pass++ {
	groups:
		for i, g := range groups {
			for _, n := range g.names {
				if n == "" || seen[n] {
					continue
				}
				if ref, ok := tooluse.WordRef(n); (ok && ref.Kind == tooluse.RefPath) != (pass == 0) {
					continue
				}
				cost := count(n) + 1
				if picked[i] == nil {
					cost += count(g.label) + 3
				}
				if size+cost > limit {
					full = true
					break groups
				}
				if picked[i] == nil {
					picked[i] = map[string]bool{}
				}
				seen[n] = true
				picked[i][n] = true
				size += cost
			}
		}
	}
	// One line per source, in order of its newest output: a file read
	// twice is one line, and a file the note names already (its "files
	// touched") is labelled by its base name.
	var lines []nameGroup
	at := map[string]int{}
	for i, g := range groups {
		if picked[i] == nil {
			continue
		}
		label := shortLabel(note, g.label)
		k, ok := at[label]
		if !ok {
			k = len(lines)
			at[label] = k
			lines = append(lines, nameGroup{label: label})
		}
		for _, n := range g.names {
			if picked[i][n] {
				lines[k].names = append(lines[k].names, n)
				delete(picked[i], n) // a name twice in a group is written once
			}
		}
	}
	if len(lines) == 0 {
		return note
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("- " + l.label + ": " + strings.Join(l.names, ", ") + "\n")
	}
	section := namesHeader + "\n" + b.String()
	if i := strings.LastIndex(note, noteTail); i >= 0 {
		return note[:i] + section + note[i:]
	}
	return note + "\n" + section
}
