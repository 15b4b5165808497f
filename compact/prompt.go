package compact

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// Limits of [SummaryPrompt], in runes.
const (
	// PromptMessageRunes is the most runes of one message the summary
	// request holds (seed 001 cuts each message at 5,000 characters). A
	// longer message keeps its head and its last fifth, where a tool's
	// error usually is.
	PromptMessageRunes = 5000
	// PromptArgumentRunes is the most runes of one tool call's arguments
	// the summary request holds.
	PromptArgumentRunes = 400
	// PromptFileRunes is the most runes of one file's content the summary
	// request holds; the file analyzer already cuts files to 1,000 lines.
	PromptFileRunes = 20000
)

// summarySystem is the system message of the summary request.
const summarySystem = `You are the context manager of a coding agent. The agent's conversation no longer fits its context window, so its older part will be replaced by the summary you write. The agent will continue the work from your summary and the recent messages alone: anything you leave out is lost for good. Be exact: keep file paths, function names, commands, error messages and the user's own words verbatim. Write plain Markdown, no preamble.`

// summarySections are the sections every summary must have, in order:
// seed 001's six, plus the user's messages and the exact point where work
// stopped, which users of Claude Code, Codex and Gemini CLI report losing
// after compaction.
var summarySections = []string{
	"Primary request and intent: what the user asked for, in detail, and why.",
	"User messages: every user message of the conversation, in order, verbatim when short (under about 300 characters), otherwise its gist with the exact wording of every instruction, constraint and correction.",
	"Key technical decisions: the approaches chosen and rejected, and why.",
	"Files read and modified: each path, whether it was read or changed, what changed and why it matters.",
	"Errors and fixes: each error met (the exact message), how it was fixed or that it is still open; failing tests by id.",
	"Current work: what was being done right before this summary, with a verbatim quote of the last message where it stopped.",
	"Pending tasks: what the user asked for that is not done yet, including open todo or plan items.",
	"Next step: the very next action, in line with the user's latest request; quote the request it follows from.",
}

// SummaryPrompt returns the messages that ask a model for the summary of
// req (seed 001's CompactionService prompt, extended): a system message,
// then one user message holding the history to summarize (each message
// cut to [PromptMessageRunes] runes, tool calls and results rendered in one
// line each plus their content), the important files with their content,
// the previous summary to roll in (summaries roll, they do not nest), the
// user's instructions, the size limit and the required sections. It is
// deterministic: the same request gives the same bytes. Safe for
// concurrent use.
func SummaryPrompt(req SummaryRequest) []chat.Message {
	var b strings.Builder
	b.WriteString("Summarize the conversation below so that the agent can continue the work without it.\n")
	if req.Previous != "" {
		b.WriteString("\n## Previous summary\n\n")
		b.WriteString("The conversation was already compacted once. This is the summary of what came before it. Merge it into your new summary: keep every fact of it that still matters, do not quote it as a whole and do not nest it.\n\n")
		b.WriteString("<previous-summary>\n")
		b.WriteString(strings.TrimSpace(req.Previous))
		b.WriteString("\n</previous-summary>\n")
	}
	fmt.Fprintf(&b, "\n## Conversation history (%d messages, oldest first)\n\n", len(req.Messages))
	for i, m := range req.Messages {
		if i > 0 {
			b.WriteString("\n")
		}
		renderPromptMessage(&b, i+1, m)
	}
	if len(req.Files) > 0 {
		b.WriteString("\n## Important files\n\n")
		b.WriteString("The files the conversation worked on most, most important first, with their current content where it could be read.\n")
		for _, f := range req.Files {
			renderPromptFile(&b, f)
		}
	}
	if n := len(req.Kept); n > 0 {
		fmt.Fprintf(&b, "\n## After the summary\n\nThe %d most recent messages stay verbatim after your summary; do not repeat them. The last of them:\n\n", n)
		renderPromptMessage(&b, len(req.Messages)+n, req.Kept[n-1])
	}
	carried := req.Carried
	if carried == nil {
		carried = CarriedInstructions(req, nil)
	}
	if len(carried) > 0 {
		b.WriteString("\n## The user's standing instructions\n\n")
		b.WriteString("These sentences of the user constrain the work and still apply. Copy each one, verbatim, as a \"- \" item under the heading \"" + SecInstructions + "\" at the top of your summary:\n\n")
		for _, c := range carried {
			b.WriteString("- " + c + "\n")
		}
	}
	if s := strings.TrimSpace(req.Instructions); s != "" {
		b.WriteString("\n## Instructions from the user for this summary\n\n")
		b.WriteString(s)
		b.WriteString("\n")
	}
	b.WriteString("\n## Your summary\n\nWrite these sections, each under its own heading, in this order:\n")
	for i, s := range summarySections {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	if req.MaxTokens > 0 {
		fmt.Fprintf(&b, "\nKeep the summary under %d tokens (about %d words); a longer summary is rejected.\n", req.MaxTokens, req.MaxTokens*3/4)
	}
	return []chat.Message{
		chat.NewText(chat.RoleSystem, summarySystem),
		chat.NewText(chat.RoleUser, b.String()),
	}
}

// RenderSpan renders the messages of a summarized span as text, one
// "[n] role: …" block per message, numbered from 1, in the form of the
// summary request (tool calls as "→ name(arguments)", results as
// "← name: content") but uncut: what recall_output span_id returns and
// greps. Deterministic; never fails.
func RenderSpan(msgs []chat.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		renderMessage(&b, i+1, m, 0)
	}
	return b.String()
}

// renderPromptMessage writes message m, numbered n, in the compact form of
// the summary request: "[n] role:" then its text, one line per tool call
// ("→ name(arguments)") and per tool result ("← name (error): content").
func renderPromptMessage(b *strings.Builder, n int, m chat.Message) {
	renderMessage(b, n, m, PromptMessageRunes)
}

// renderMessage writes message m, numbered n, its text cut to limit runes
// (0: uncut; arguments are then uncut too).
func renderMessage(b *strings.Builder, n int, m chat.Message, limit int) {
	var body strings.Builder
	for _, p := range m.Parts {
		if body.Len() > 0 {
			body.WriteString("\n")
		}
		switch p := p.(type) {
		case chat.Text:
			body.WriteString(p.Text)
		case chat.ToolCall:
			args := strings.TrimSpace(string(p.Arguments))
			if limit > 0 {
				args = compactArguments(p.Arguments)
			}
			fmt.Fprintf(&body, "→ %s(%s)", p.Name, args)
		case chat.ToolResult:
			name := p.ToolName
			if name == "" {
				name = "tool"
			}
			status := ""
			if p.IsError {
				status = " (error)"
			}
			fmt.Fprintf(&body, "← %s%s: %s", name, status, p.Content)
		case chat.Thinking:
			// Reasoning is the model's scratch work: not part of the
			// history a summary needs, and often encrypted.
			body.WriteString("[reasoning omitted]")
		case chat.Image:
			fmt.Fprintf(&body, "[image %s]", p.Source)
		case chat.Opaque:
			if p.Text != "" {
				fmt.Fprintf(&body, "[%s] %s", p.Kind, p.Text)
			} else {
				fmt.Fprintf(&body, "[%s]", p.Kind)
			}
		}
	}
	text := strings.TrimSpace(body.String())
	if limit > 0 {
		text = CutText(text, limit, limit/5, "message cut for the summary request")
	}
	fmt.Fprintf(b, "[%d] %s: %s\n", n, m.Role, text)
}

// compactArguments renders a tool call's JSON arguments on one line, cut to
// [PromptArgumentRunes] runes.
func compactArguments(args json.RawMessage) string {
	s := strings.TrimSpace(string(args))
	if s == "" {
		return ""
	}
	var v any
	if json.Unmarshal(args, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			s = string(b) // one line; encoding/json sorts object keys
		}
	}
	s = strings.ReplaceAll(s, "\n", "\\n")
	return CutText(s, PromptArgumentRunes, 0, "arguments cut")
}

// renderPromptFile writes one important file: its path, why it matters and
// its content in a fence long enough not to be closed by the content.
func renderPromptFile(b *strings.Builder, f FileContext) {
	why := "read"
	if f.Modified {
		why = "modified"
	}
	fmt.Fprintf(b, "\n### %s (%s, named %d times)\n", f.Path, why, f.Mentions)
	if f.Content == "" {
		b.WriteString("(content not available)\n")
		return
	}
	content := CutText(f.Content, PromptFileRunes, 0, "file cut for the summary request")
	if f.Truncated && content == f.Content {
		content += "\n…[agentctx: file cut at 1,000 lines]"
	}
	fence := "```"
	for strings.Contains(content, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "%s\n%s\n%s\n", fence, strings.TrimRight(content, "\n"), fence)
}
