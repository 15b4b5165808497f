package reminder

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/agentctx/agentctx/tooluse"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/secret"
)

// Defaults returns the built-in generators in the order the [Manager]
// runs them: [SecurityGenerator], [ChangedFilesGenerator],
// [PressureGenerator] (with [DefaultPressureRatio]) and [TodoGenerator].
// Each call returns a new slice.
func Defaults() []Generator {
	return defaults(0)
}

func defaults(ratio float64) []Generator {
	return []Generator{SecurityGenerator(), ChangedFilesGenerator(), PressureGenerator(ratio), TodoGenerator()}
}

// KeyTodoEmpty is the key of the empty-todo-list reminder: it is sent at
// most once per session.
const KeyTodoEmpty = "todo:empty"

// todoMaxItems caps the listing of the todo reminder; todoMaxRunes cuts
// each item's content (seed 004: content.substring(0, 100)).
const (
	todoMaxItems = 30
	todoMaxRunes = 100
)

// TodoGenerator reminds the agent of its todo list (seed 004
// dispatchTodoEvent, Kode):
//
//   - when s.TodosKnown and the list is empty: once per session, key
//     [KeyTodoEmpty], a note that the list is empty and may be used;
//   - when the list is not empty: key "todo:" + a hash of the items' (id,
//     content, status, priority), a compact listing ("- [status] content
//     (priority)", content cut to 100 runes, at most 30 items) and a
//     sentence on what to continue with.
//
// Unlike the seed it never re-sends an unchanged list: the key only
// changes with the list, and the [Manager] keeps the last todo key (see
// the package documentation on latest-only kinds), so a list that changes
// back to an earlier state is sent again. Priority [PriorityTodo].
func TodoGenerator() Generator {
	return GeneratorFunc(func(s State) []Reminder {
		if len(s.Todos) == 0 {
			if !s.TodosKnown {
				return nil
			}
			return []Reminder{{
				Key:      KeyTodoEmpty,
				Kind:     KindTodo,
				Priority: PriorityTodo,
				Text: "Your todo list is empty right now. Do not bring this up with the user; they know. " +
					"If the current work has several steps, creating a todo list with the todo tool helps track them; " +
					"otherwise ignore this note.",
			}}
		}
		return []Reminder{{
			Key:      KindTodo + ":" + TodoHash(s.Todos),
			Kind:     KindTodo,
			Priority: PriorityTodo,
			Text:     todoText(s.Todos),
		}}
	})
}

// TodoHash is the hash the todo reminder's key holds: 16 hex digits of a
// SHA-256 over each item's id, content, status and priority, in order.
// Equal lists have equal hashes; safe for concurrent use.
func TodoHash(todos []Todo) string {
	parts := make([]string, 0, 4*len(todos))
	for _, t := range todos {
		parts = append(parts, t.ID, t.Content, t.Status, t.Priority)
	}
	return digest(parts...)
}

func todoText(todos []Todo) string {
	var b strings.Builder
	b.WriteString("Your todo list has changed. Its current contents:\n")
	var current, next string
	for i, t := range todos {
		content := oneLine(t.Content)
		status := t.Status
		if status == "" {
			status = TodoPending
		}
		if current == "" && status == TodoInProgress {
			current = content
		}
		if next == "" && status == TodoPending {
			next = content
		}
		if i >= todoMaxItems {
			continue
		}
		fmt.Fprintf(&b, "- [%s] %s", status, tooluse.CutRunes(content, todoMaxRunes))
		if t.Priority != "" {
			fmt.Fprintf(&b, " (%s)", t.Priority)
		}
		b.WriteByte('\n')
	}
	if len(todos) > todoMaxItems {
		fmt.Fprintf(&b, "… and %d more\n", len(todos)-todoMaxItems)
	}
	switch {
	case current != "":
		fmt.Fprintf(&b, "Continue with the item in progress: %s. Do not mention this reminder to the user.", tooluse.CutRunes(current, todoMaxRunes))
	case next != "":
		fmt.Fprintf(&b, "No item is in progress: mark the next pending one (%s) in progress when you start on it. Do not mention this reminder to the user.", tooluse.CutRunes(next, todoMaxRunes))
	default:
		b.WriteString("Every item is done or closed. Do not mention this reminder to the user.")
	}
	return b.String()
}

// changedFilesMax caps the paths the changed-files reminder lists.
const changedFilesMax = 20

// ChangedFilesGenerator names the files the agent read earlier that have
// changed on disk since (s.ChangedFiles, from track.Tracker.Stale): key
// "changed_files:" + a hash of the sorted list, at most 20 paths then "…
// and N more", and the instruction to read them again before editing
// (Claude Code's "file was modified" reminder). changed_files is a
// latest-only kind: the reminder is sent when the set changes, not every
// turn, and again when a file changes after the set was empty. Priority
// [PriorityChangedFiles].
func ChangedFilesGenerator() Generator {
	return GeneratorFunc(func(s State) []Reminder {
		if len(s.ChangedFiles) == 0 {
			return nil
		}
		files := slices.Clone(s.ChangedFiles)
		slices.Sort(files)
		files = slices.Compact(files)
		var b strings.Builder
		if len(files) == 1 {
			b.WriteString("This file changed on disk after you last read it (by the user, a formatter or another process):\n")
		} else {
			b.WriteString("These files changed on disk after you last read them (by the user, a formatter or another process):\n")
		}
		for i, f := range files {
			if i == changedFilesMax {
				fmt.Fprintf(&b, "… and %d more\n", len(files)-changedFilesMax)
				break
			}
			fmt.Fprintf(&b, "- %s\n", oneLine(f))
		}
		if len(files) == 1 {
			b.WriteString("Your earlier view of it is out of date: read it again before you edit it, and do not undo changes you did not make.")
		} else {
			b.WriteString("Your earlier view of them is out of date: read them again before you edit them, and do not undo changes you did not make.")
		}
		return []Reminder{{
			Key:      KindChangedFiles + ":" + digest(files...),
			Kind:     KindChangedFiles,
			Priority: PriorityChangedFiles,
			Text:     b.String(),
		}}
	})
}

// SecurityGenerator warns when a tool result looks like it holds a secret
// ([secret.Find] over each of s.Results). One reminder per result, keyed
// "security:" + the kinds found (joined by "+") + ":" + a hash of the
// distinct secret values, so the same secret is never warned about twice
// however often it is read. The text names the tool, the call id and the
// kinds, never the secret, and tells the agent not to repeat, store or
// transmit the value and to suggest rotating it if it is real. Priority
// [PrioritySecurity]. Kode has a security reminder; the detection is
// agentctx's own.
func SecurityGenerator() Generator {
	return GeneratorFunc(func(s State) []Reminder {
		var out []Reminder
		for _, r := range s.Results {
			found := secret.Find(r.Content)
			if len(found) == 0 {
				continue
			}
			var kinds []string
			var values []string
			for _, f := range found {
				if !slices.Contains(kinds, f.Kind) {
					kinds = append(kinds, f.Kind)
				}
				values = append(values, r.Content[f.Offset:f.Offset+f.Length])
			}
			slices.Sort(kinds)
			slices.Sort(values)
			values = slices.Compact(values)
			out = append(out, Reminder{
				Key:      KindSecurity + ":" + strings.Join(kinds, "+") + ":" + digest(values...),
				Kind:     KindSecurity,
				Priority: PrioritySecurity,
				Text:     securityText(r.ToolName, r.ToolCallID, kinds),
			})
		}
		return out
	})
}

// secretLabels are the kinds' names in the reminder text.
var secretLabels = map[string]string{
	secret.KindAWSAccessKeyID:     "an AWS access key ID",
	secret.KindAWSSecretAccessKey: "an AWS secret access key",
	secret.KindPrivateKey:         "a private key",
	secret.KindGitHubToken:        "a GitHub token",
	secret.KindAnthropicKey:       "an Anthropic API key",
	secret.KindOpenAIKey:          "an OpenAI API key",
	secret.KindSlackToken:         "a Slack token",
	secret.KindGoogleAPIKey:       "a Google API key",
	secret.KindStripeKey:          "a Stripe live key",
	secret.KindJWT:                "a JSON Web Token",
	secret.KindGeneric:            "a password or secret assigned in configuration",
}

func securityText(tool, callID string, kinds []string) string {
	labels := make([]string, len(kinds))
	for i, k := range kinds {
		labels[i] = secretLabels[k]
	}
	// The tool name and call id come from the model; keep them short and
	// drop them should they themselves look like a secret.
	tool, callID = tooluse.CutRunes(oneLine(tool), 64), tooluse.CutRunes(oneLine(callID), 64)
	if secret.Find(tool) != nil {
		tool = ""
	}
	if secret.Find(callID) != nil {
		callID = ""
	}
	src := "A tool result"
	switch {
	case tool != "" && callID != "":
		src = fmt.Sprintf("The result of the %s tool call %s", tool, callID)
	case tool != "":
		src = fmt.Sprintf("A result of the %s tool", tool)
	case callID != "":
		src = fmt.Sprintf("The result of tool call %s", callID)
	}
	return src + " appears to contain " + joinList(labels) + ". " +
		"Treat it as sensitive: do not repeat or quote it, do not write it to files, commits, logs or commands, " +
		"and do not send it anywhere. If it looks like a real credential, tell the user it was exposed and suggest rotating it."
}

// joinList joins "a", "a and b", "a, b and c".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// DefaultPressureRatio is the share of the compaction threshold at which
// the context-pressure reminder fires: 0.85, so 68 % usage at the usual
// 80 % threshold (seed 001/003).
const DefaultPressureRatio = 0.85

// pressureUnknownThreshold is the usage ratio at which the pressure
// reminder fires when the compaction threshold is unknown.
const pressureUnknownThreshold = 0.7

// PressureGenerator warns that the context window is filling up (Kode's
// performance reminder, made concrete): when s.Budget > 0 and the usage
// ratio (s.Ratio, or s.Tokens/s.Budget when s.Ratio is 0) reaches ratio ×
// s.Threshold (0.7 when s.Threshold is 0). ratio ≤ 0 means
// [DefaultPressureRatio]. The key is "context_pressure:" + s.Compactions +
// ":" + the usage rounded down to a 5 % step, so the reminder fires once
// per step, not every turn, and fires again after a compaction lowered
// the usage and it rose back. The text gives the numbers ("Context
// window: 71 % used (11,360 of 16,000 tokens); older history will be
// summarized at 80 %.") and advises targeted reads. Priority
// [PriorityContextPressure].
func PressureGenerator(ratio float64) Generator {
	if ratio <= 0 || math.IsNaN(ratio) || math.IsInf(ratio, 0) {
		ratio = DefaultPressureRatio
	}
	return GeneratorFunc(func(s State) []Reminder {
		if s.Budget <= 0 {
			return nil
		}
		usage := s.Ratio
		if usage == 0 || math.IsNaN(usage) || math.IsInf(usage, 0) {
			usage = float64(s.Tokens) / float64(s.Budget)
		}
		warn := pressureUnknownThreshold
		if s.Threshold > 0 && !math.IsInf(s.Threshold, 0) {
			warn = ratio * s.Threshold
		}
		if usage < warn || usage <= 0 {
			return nil
		}
		pct := int(math.Floor(min(usage, 100)*100 + 1e-9))
		var b strings.Builder
		fmt.Fprintf(&b, "Context window: %d %% used", pct)
		if s.Tokens > 0 {
			fmt.Fprintf(&b, " (%s of %s tokens)", thousands(s.Tokens), thousands(s.Budget))
		} else {
			fmt.Fprintf(&b, " (budget %s tokens)", thousands(s.Budget))
		}
		if s.Threshold > 0 && !math.IsInf(s.Threshold, 0) {
			fmt.Fprintf(&b, "; older history will be summarized at %d %%.", int(math.Round(s.Threshold*100)))
		} else {
			b.WriteString("; older history will be summarized when it fills.")
		}
		b.WriteString(" Prefer targeted reads (line ranges, grep) over whole files and large outputs.")
		return []Reminder{{
			Key:      KindContextPressure + ":" + strconv.Itoa(s.Compactions) + ":" + strconv.Itoa(pct/5*5),
			Kind:     KindContextPressure,
			Priority: PriorityContextPressure,
			Text:     b.String(),
		}}
	})
}

// thousands formats n with "," between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// digest is 16 hex digits of a SHA-256 over the length-prefixed parts, so
// ("ab","c") and ("a","bc") differ.
func digest(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// oneLine replaces line breaks and tabs with spaces and trims s.
func oneLine(s string) string {
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return strings.TrimSpace(s)
}
