package compact

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
)

// Summarizer writes the summary that replaces old history in a summarizing
// compaction ([Summarize]). The extractive summarizer ([Extractive]) needs
// no model; an LLM summarizer sends [SummaryPrompt]'s messages to a model
// (see package provider). Implementations are safe for concurrent use.
type Summarizer interface {
	// Summarize returns the summary of req.Messages. An error makes
	// [Summarize] fall back to truncation and say so.
	Summarize(ctx context.Context, req SummaryRequest) (SummaryResult, error)
	// Name names the summarizer in records: "extractive", "llm:<model>".
	Name() string
}

// SummaryRequest is what a summarizer is given.
type SummaryRequest struct {
	// Messages is the history being replaced, oldest first, whole rounds.
	// A previous summary among them is in Previous, not here.
	Messages []chat.Message
	// Kept is the recent history that stays verbatim after the summary,
	// for context: the summary need not repeat it.
	Kept []chat.Message
	// Previous is the summary of an earlier compaction that is being
	// rolled into this one ("" when none): summaries roll, they do not
	// nest.
	Previous string
	// Files are the important files (seed 001's file analyzer), most
	// important first, with their content when it could be read.
	Files []FileContext
	// Instructions are the user's own instructions for this summary
	// (Claude Code's `/compact <instructions>`). Optional.
	Instructions string
	// MaxTokens is the most tokens the summary may hold; a longer one is
	// rejected and the compaction falls back.
	MaxTokens int
	// Carried are the user's instruction sentences the summary must
	// carry verbatim under [SecInstructions] ([CarriedInstructions]).
	// Optional: [Summarize] fills it; a summarizer given nil computes it.
	Carried []string
	// Spans are the ids of the spans of history the summary covers: the
	// previous summary's and this one's, last ([SecSpans]). Optional:
	// [Summarize] fills it.
	Spans []string
}

// SummaryResult is a summarizer's answer: the summary text and, for a
// model, the usage its call reported.
type SummaryResult struct {
	Text  string
	Usage *chat.Usage
}

// FileContext is one important file for a summary (seed 001's
// FileAnalyzer): its path, why it matters, and its content when the file
// still exists, is text and is small (at most 1,000 lines).
type FileContext struct {
	// Path is the file's path as the transcript names it.
	Path string `json:"path"`
	// Modified is true when a tool call wrote or edited the file.
	Modified bool `json:"modified"`
	// Mentions counts the tool calls and texts that name the file.
	Mentions int `json:"mentions"`
	// LastMention is the index of the last message naming the file.
	LastMention int `json:"last_mention"`
	// Content is the file's text, cut to 1,000 lines; "" when it could not
	// be read (gone, binary, too large) or was not asked for.
	Content string `json:"content,omitempty"`
	// Truncated is true when Content was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// Facts are the key facts of a stretch of history that a compaction must
// not lose, extracted deterministically (no model): each list is sorted
// and free of duplicates. [ExtractFacts] fills it.
type Facts struct {
	// UserMessages holds each user message's text, cut to its first 200
	// runes (compaction notes and summaries are not user messages).
	UserMessages []string `json:"user_messages"`
	// FilesModified and FilesRead are file paths from tool-call arguments
	// of writing and reading tools.
	FilesModified []string `json:"files_modified"`
	FilesRead     []string `json:"files_read"`
	// Errors holds error signatures: the first non-empty line of each
	// failed tool result.
	Errors []string `json:"errors"`
	// FailingTests holds failing test ids found in tool results (pytest
	// "FAILED path::test", Go "--- FAIL: TestX", and the like).
	FailingTests []string `json:"failing_tests"`
	// FailedCommands holds the commands whose result failed or reported a
	// non-zero exit code.
	FailedCommands []string `json:"failed_commands"`
}

// Retention is how many of the removed part's facts are still present in
// the window after a compaction, per category and overall, as fractions
// in [0, 1] (1 when a category had nothing to keep). The JSON names are
// part of `agentctx replay --json`'s contract.
type Retention struct {
	Overall        float64 `json:"overall"`
	UserMessages   float64 `json:"user_messages"`
	FilesModified  float64 `json:"files_modified"`
	FilesRead      float64 `json:"files_read"`
	Errors         float64 `json:"errors"`
	FailingTests   float64 `json:"failing_tests"`
	FailedCommands float64 `json:"failed_commands"`
	// Kept and Total count facts over all categories.
	Kept  int `json:"kept"`
	Total int `json:"total"`
	// Counts holds, per category (the JSON names above: "user_messages",
	// "files_modified", …), the facts kept and the facts in total:
	// Counts[c][0] kept, Counts[c][1] total. [Retention.Add] sums them
	// to give the retention over many compactions.
	Counts map[string][2]int `json:"counts,omitempty"`
	// Missing lists up to 20 facts that were lost, for reports.
	Missing []string `json:"missing,omitempty"`
}

// Limits of the "User instructions" section every summary carries
// ([CarriedInstructions]).
const (
	// MaxInstructionTokens is the most tokens the section's sentences may
	// hold, whatever the summary's limit.
	MaxInstructionTokens = 1000
	// MinInstructionTokens is the least the cap is, however small the
	// summary's limit.
	MinInstructionTokens = 100
)

// SecInstructions is the heading of the section every summary carries,
// by every summarizer: the user's instruction sentences ([Instructions])
// verbatim, one per "- " item, oldest first. [CarriedInstructions] reads
// a previous summary's section by it, so that instructions survive any
// number of compactions.
const SecInstructions = "## User instructions (verbatim; they still apply)"

// SecSpans is the heading of the section that names the spans of history
// a summary replaced, which the agent can read back (recall_output with
// span_id), one per line: "- s1", "- s2" and so on.
const SecSpans = "## Summarized spans (read back with recall_output span_id)"

// InstructionTokens returns the cap, in tokens, of the "User
// instructions" section of a summary limited to maxTokens tokens: a
// quarter of it, at least [MinInstructionTokens] and at most
// [MaxInstructionTokens] (maxTokens <= 0: MaxInstructionTokens).
func InstructionTokens(maxTokens int) int {
	if maxTokens <= 0 {
		return MaxInstructionTokens
	}
	return min(MaxInstructionTokens, max(MinInstructionTokens, maxTokens/4))
}

// CarriedInstructions returns the instruction sentences a summary of req
// must carry verbatim: those of req.Previous's "User instructions"
// section ([SecInstructions]), then those [Instructions] finds in
// req.Messages, each once (exact text), oldest first. When they hold more
// than [InstructionTokens](req.MaxTokens) tokens counted with c (each
// item with its "- " and line break), the oldest are left out: the newest
// sentence (a correction overrides what it corrects) wins. c nil counts
// with the default o200k_base counter. Never fails; nil when there is
// none.
func CarriedInstructions(req SummaryRequest, c token.Counter) []string {
	var all []string
	seen := map[string]bool{}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	for _, s := range sectionItems(req.Previous, SecInstructions) {
		add(s)
	}
	for _, in := range Instructions(req.Messages) {
		add(in.Text)
	}
	if len(all) == 0 {
		return nil
	}
	if c == nil {
		var err error
		if c, err = (Extractive{}).counter(); err != nil {
			return all
		}
	}
	limit := InstructionTokens(req.MaxTokens)
	sum, k := 0, len(all)
	for i := len(all) - 1; i >= 0; i-- {
		n := c.Count("- "+all[i]) + 1
		if sum+n > limit {
			break
		}
		sum += n
		k = i
	}
	return all[k:]
}

// SummarySpans returns the ids of the spans a summary text names under
// [SecSpans] (a note that keeps an earlier summary names them too), in
// order, each once; nil when none.
func SummarySpans(text string) []string {
	var out []string
	for _, s := range sectionItems(text, SecSpans) {
		if f := strings.Fields(s); len(f) > 0 && !slices.Contains(out, f[0]) {
			out = append(out, f[0])
		}
	}
	return out
}

// NextSpanID returns the id of the next span of a window whose note is
// prev and which made summaries summaries so far: "s" followed by one
// more than the largest number among prev's spans and summaries.
func NextSpanID(prev string, summaries int) string {
	n := summaries
	for _, id := range SummarySpans(prev) {
		if v, err := strconv.Atoi(strings.TrimPrefix(id, "s")); err == nil && strings.HasPrefix(id, "s") {
			n = max(n, v)
		}
	}
	return "s" + strconv.Itoa(n+1)
}

// sectionItems returns the "- " items under the heading head in text, up
// to the next "## " heading or the end; an item's continuation lines are
// not read (the sections written here hold one line per item).
func sectionItems(text, head string) []string {
	var out []string
	for off := 0; ; {
		i := strings.Index(text[off:], head)
		if i < 0 {
			return out
		}
		rest := text[off+i+len(head):]
		off += i + len(head)
		for line := range strings.Lines(rest) {
			line = strings.TrimRight(line, "\r\n")
			if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "[agentctx") {
				break
			}
			if s, ok := strings.CutPrefix(line, "- "); ok {
				out = append(out, s)
			}
		}
	}
}

// renderSection returns head and one "- " line per item, or "" when
// there is no item.
func renderSection(head string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteByte('\n')
	for _, it := range items {
		b.WriteString("- ")
		b.WriteString(strings.ReplaceAll(it, "\n", " "))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// withCarried returns a summarizer's text with the sections every summary
// carries: the "User instructions" section holding instructions (the
// summarizer's own section of that name replaced when it lacks any of
// them verbatim) and the spans section naming spans. Both go right after
// the first paragraph (the [SummaryHeader] line), where a later
// compaction and a reader find them first.
func withCarried(text string, instructions, spans []string) string {
	need := false
	for _, s := range instructions {
		if !slices.Contains(sectionItems(text, SecInstructions), s) {
			need = true
			break
		}
	}
	if !need && (len(spans) == 0 || slices.Equal(SummarySpans(text), spans)) {
		return text
	}
	text = dropSection(dropSection(text, SecSpans), SecInstructions)
	var add []string
	if s := renderSection(SecInstructions, instructions); s != "" {
		add = append(add, s)
	}
	if s := renderSection(SecSpans, spans); s != "" {
		add = append(add, s)
	}
	if len(add) == 0 {
		return text
	}
	head, rest, _ := strings.Cut(text, "\n")
	out := head + "\n\n" + strings.Join(add, "\n\n")
	if rest = strings.TrimLeft(rest, "\n"); rest != "" {
		out += "\n\n" + rest
	}
	return out
}

// dropSection removes the first section headed head from text (up to the
// next "## " heading or the end).
func dropSection(text, head string) string {
	i := strings.Index(text, head)
	if i < 0 {
		return text
	}
	rest := text[i+len(head):]
	j := strings.Index(rest, "\n## ")
	if j < 0 {
		return strings.TrimRight(text[:i], "\n")
	}
	return text[:i] + rest[j+1:]
}

// Refill categories ([Refill].Tokens keys): what fills a window again
// after a compaction.
const (
	RefillToolResults = "tool_results"
	RefillRereads     = "reread_files"
	RefillReminders   = "reminders"
	RefillUser        = "user_text"
	RefillAssistant   = "assistant_text"
	RefillToolCalls   = "tool_calls"
	RefillThinking    = "thinking"
)

// Refill is why a window refilled: a compaction that came within a few
// model calls of the previous one records the growth of each category
// since the previous compaction left the window, in tokens (negative when
// a category shrank). The Engine fills it (Claude Code calls the pattern
// thrashing: "the context refilled to the limit within 3 turns of the
// previous compact", anthropics/claude-code#60485).
type Refill struct {
	// Calls is the model calls since the previous compaction.
	Calls int `json:"calls"`
	// Tokens maps a category (RefillToolResults, RefillRereads…) to its
	// growth in tokens. RefillRereads is the part of RefillToolResults
	// that reads files already read before the previous compaction;
	// RefillReminders is the growth of the request's tail and other
	// reserved parts (reminders, working memory, tracker, rehydration).
	Tokens map[string]int `json:"tokens"`
	// InARow counts the back-to-back compactions in a row, this one
	// included (1 for the first that followed another soon).
	InARow int `json:"in_a_row"`
}

// Top returns the categories of r that grew, largest growth first, as
// "name +tokens" strings (RefillRereads is listed apart, being part of
// RefillToolResults).
func (r *Refill) Top() []string {
	if r == nil {
		return nil
	}
	keys := make([]string, 0, len(r.Tokens))
	for k, v := range r.Tokens {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := r.Tokens[b] - r.Tokens[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + " +" + strconv.Itoa(r.Tokens[k])
	}
	return out
}
