package compact

import (
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
)

// MaxInstructionRunes is the longest sentence, in runes, [Instructions]
// keeps: a longer one is a paste (a log, a specification) rather than a
// rule the user stated, and carrying it verbatim through every summary
// would cost more than it protects.
const MaxInstructionRunes = 400

// Instruction is a sentence of a user message that constrains the work: a
// rule ("never edit the generated files"), a preference ("always run the
// tests with -race") or a correction ("no, use the v2 client"). Users of
// Claude Code, Codex and Gemini CLI name the loss of such sentences at
// compaction as their most frequent complaint about it (their issue
// trackers: "forgets my instructions after compact"), so summaries carry
// them verbatim and `agentctx eval` measures their survival.
type Instruction struct {
	// Text is the sentence as the user wrote it, trimmed, secrets
	// redacted ([secret.Redact]).
	Text string
	// Message is the index of the user message it was found in.
	Message int
}

// instructionMarkers are the words that make a sentence an instruction,
// matched as whole words, case-insensitively: the modal and imperative
// words users state rules with. "only" and "instead" catch the narrowing
// and replacing forms ("only touch the parser", "use rg instead").
var instructionMarkers = []string{
	"never", "always", "don't", "dont", "do not", "must", "mustn't", "must not",
	"only", "should", "shouldn't", "should not", "avoid", "instead", "make sure",
	"ensure", "prefer", "from now on", "remember", "important", "required",
	"not allowed", "no need to", "stop", "keep", "without",
}

// correctionOpeners start a sentence that corrects the agent: the whole
// sentence is an instruction whatever words follow.
var correctionOpeners = []string{
	"no,", "no.", "no ", "nope", "actually", "wait", "that's wrong", "that is wrong",
	"not that", "wrong", "undo", "revert",
}

// Instructions returns the instructions among the user messages of msgs,
// in order, each once (the first occurrence of a sentence wins). Only
// messages of role user are read, and in them only text outside fenced
// code blocks; messages that are system reminders, command output or
// other meta text an agent puts in the user role (see [ExtractFacts]) are
// skipped. Instructions never fails; an empty or instruction-free history
// gives nil.
func Instructions(msgs []chat.Message) []Instruction {
	var out []Instruction
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.Role != chat.RoleUser {
			continue
		}
		t := strings.TrimSpace(m.Text())
		if t == "" || isMeta(t) {
			continue
		}
		for _, s := range InstructionSentences(t) {
			if seen[s] {
				continue
			}
			seen[s] = true
			out = append(out, Instruction{Text: s, Message: i})
		}
	}
	return out
}

// InstructionSentences returns the sentences of one user text that are
// instructions (see [Instruction]), trimmed, in order, secrets redacted.
// Sentences end at a line break or at ".", "!" or "?" followed by a
// space; text in fenced code blocks (```) and in angle-bracketed tags an
// agent injects (<system-reminder>…) is left out; a sentence of fewer
// than three words or more than [MaxInstructionRunes] runes is not one.
func InstructionSentences(text string) []string {
	var out []string
	for _, s := range sentences(stripInjected(text)) {
		n := utf8.RuneCountInString(s)
		if n > MaxInstructionRunes || len(strings.Fields(s)) < 3 {
			continue
		}
		if !isInstruction(s) {
			continue
		}
		out = append(out, secret.Redact(s))
	}
	return out
}

// isInstruction reports whether the sentence s holds a marker word or
// opens as a correction.
func isInstruction(s string) bool {
	low := strings.ToLower(s)
	low = strings.ReplaceAll(low, "’", "'")
	for _, o := range correctionOpeners {
		if strings.HasPrefix(low, o) {
			return true
		}
	}
	for _, w := range instructionMarkers {
		if hasWord(low, w) {
			return true
		}
	}
	return false
}

// hasWord reports whether w occurs in s with no letter or digit on either
// side ("only" in "only the parser", not in "commonly").
func hasWord(s, w string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return false
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		off = i + len(w)
	}
}

// stripInjected removes fenced code blocks and <tag>…</tag> spans whose
// tag is one agents inject into user text (injectedTags: reminders,
// environment, command output): what the user did not write is not their
// instruction.
func stripInjected(text string) string {
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			b.WriteString("\n")
			continue
		}
		if fenced {
			continue
		}
		b.WriteString(line)
	}
	out := b.String()
	for _, tag := range injectedTags {
		for {
			open := strings.Index(out, "<"+tag)
			if open < 0 {
				break
			}
			end := strings.Index(out[open:], "</"+tag+">")
			if end < 0 {
				out = out[:open]
				break
			}
			out = out[:open] + "\n" + out[open+end+len(tag)+3:]
		}
	}
	return out
}

// sentences splits text at line breaks and at ".", "!" or "?" followed by
// a space, trimming each piece and dropping list markers.
func sentences(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "-*•>#0123456789) ")
		start := 0
		for i := 0; i < len(line); i++ {
			c := line[i]
			if (c == '.' || c == '!' || c == '?') && i+1 < len(line) && line[i+1] == ' ' {
				if s := strings.TrimSpace(line[start : i+1]); s != "" {
					out = append(out, s)
				}
				start = i + 2
			}
		}
		if s := strings.TrimSpace(line[start:]); s != "" {
			out = append(out, s)
		}
	}
	return out
}
