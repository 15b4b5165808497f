package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentctx/agentctx/internal/jsonx"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
)

// NewMessageEntry returns the entry that records m, with the fields a
// [Store] fills (UUID, parent, session, time) left empty:
//
//   - a user, assistant or system message: an entry of that type whose
//     Message is m in the chat package's JSON form (chat.Message.MarshalJSON),
//     which keeps every field of m;
//   - a tool message: a [TypeToolResult] entry (seed 001's tool_result)
//     whose ToolResult holds the call id, the tool name and the content, as
//     Output (a JSON string) or, for an error result, as Error alone. When
//     m has fields a tool result has no place for (ID, Name, Model, Usage),
//     Message holds them in the chat JSON form without parts, so that
//     [Entry.Messages] gives back m exactly.
//
// It returns an error wrapping [ErrInvalidEntry] for a message of an
// unknown role, a tool message that is not one [chat.ToolResult] part
// followed by [chat.Opaque] parts only (see [chat.Message.ToolParts]; a
// tool message with opaque parts is written whole in Message), or a message the chat JSON form rejects (a nil part).
func NewMessageEntry(m chat.Message) (Entry, error) {
	switch m.Role {
	case chat.RoleUser, chat.RoleAssistant, chat.RoleSystem:
		b, err := m.MarshalJSON()
		if err != nil {
			return Entry{}, fmt.Errorf("session: message entry: %w: %w", ErrInvalidEntry, err)
		}
		return Entry{Type: string(m.Role), Message: b}, nil
	case chat.RoleTool:
		r, attached, err := m.ToolParts()
		if err != nil {
			return Entry{}, fmt.Errorf("session: message entry: %w: %w", ErrInvalidEntry, err)
		}
		tr, err := toolResultField(r)
		if err != nil {
			return Entry{}, fmt.Errorf("session: message entry: %w: tool result %q: %w", ErrInvalidEntry, r.ToolCallID, err)
		}
		e := Entry{Type: TypeToolResult, ToolResult: tr}
		if len(attached) > 0 {
			// The opaque blocks of the result's content have no place in
			// the tool_result field: the whole message goes in Message,
			// which Messages reads back first.
			b, err := m.MarshalJSON()
			if err != nil {
				return Entry{}, fmt.Errorf("session: message entry: %w: %w", ErrInvalidEntry, err)
			}
			e.Message = b
		} else if m.ID != "" || m.Name != "" || m.Model != "" || m.Usage != nil {
			head := chat.Message{Role: chat.RoleTool, ID: m.ID, Name: m.Name, Model: m.Model, Usage: m.Usage}
			b, err := head.MarshalJSON()
			if err != nil {
				return Entry{}, fmt.Errorf("session: message entry: %w: %w", ErrInvalidEntry, err)
			}
			e.Message = b
		}
		return e, nil
	}
	return Entry{}, fmt.Errorf("session: message entry: %w: message role %q is not valid", ErrInvalidEntry, m.Role)
}

// Messages decodes the messages e records, in order. It reads both forms
// of [Entry.Message]:
//
//   - agentctx's, the chat JSON form (a message with "parts", or without
//     "content"): one message, exactly as it was written;
//   - Claude Code's ({"role", "content", "model", "id", "usage"} with
//     Anthropic content blocks, converted by chat.FromAnthropic): an
//     assistant line gives one assistant message (Claude Code writes one
//     line per content block; [Messages] merges the lines of a response),
//     a user line gives one tool message per tool_result block and then a
//     user message with the rest. Usage numbers written as floats or
//     strings are read, and a usage record with a count that is negative
//     or above [chat.MaxCallTokens] is dropped (in both forms); block types the message model has no counterpart
//     for become text ("[document]", "[image]") or are dropped, as package
//     transcript does, so that one odd block never loses a whole line. A
//     user or tool message gets e.UUID as its ID.
//
// A [TypeToolUse] entry gives one assistant message holding one
// [chat.ToolCall]; a [TypeToolResult] entry gives one tool message (Output,
// a JSON string, is its content; other JSON is read as its text; a
// non-nil Error makes it an error result whose content is Output then
// Error, joined by "\n" when both are non-empty). Compact boundaries,
// entries without a message and foreign entries give nil and no error.
//
// The error, which names the entry, is returned for a message that is not
// valid JSON or breaks the chat model's rules (an unknown role, a
// tool_use block in a user message). Messages never panics.
func (e *Entry) Messages() ([]chat.Message, error) {
	msgs, _, err := e.decode()
	if err != nil {
		return nil, fmt.Errorf("session: entry %s: %w", e.describe(), err)
	}
	return msgs, nil
}

// describe names e in errors: its uuid, else its line, else its type.
func (e *Entry) describe() string {
	switch {
	case e.UUID != "":
		return e.UUID
	case e.Line > 0:
		return fmt.Sprintf("at line %d", e.Line)
	}
	return fmt.Sprintf("of type %q", e.Type)
}

// form says how an entry's messages were written.
type form int

const (
	formNone   form = iota // no message
	formChat               // agentctx's chat JSON form
	formClaude             // Claude Code's Anthropic form
	formSeed               // seed 001's tool_use / tool_result objects
)

// messageProbe is what decode needs to tell the two forms of a message
// apart, and all it needs of a Claude Code message.
type messageProbe struct {
	Role    string          `json:"role"`
	Parts   json.RawMessage `json:"parts"`
	Content json.RawMessage `json:"content"`
	Model   string          `json:"model"`
	ID      string          `json:"id"`
	Usage   json.RawMessage `json:"usage"`
}

// decode returns e's messages and the form they were written in.
func (e *Entry) decode() ([]chat.Message, form, error) {
	if e.IsBoundary() {
		return nil, formNone, nil
	}
	switch e.Type {
	case TypeToolUse:
		if e.Tool == nil {
			return nil, formNone, nil
		}
		var args json.RawMessage
		if len(e.Tool.Input) > 0 {
			args = bytes.Clone(e.Tool.Input)
		}
		m := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: e.Tool.ID, Name: e.Tool.Name, Arguments: args}}}
		return []chat.Message{m}, formSeed, nil
	case TypeToolResult:
		if e.ToolResult == nil {
			return nil, formNone, nil
		}
		m, err := e.toolResultMessage()
		if err != nil {
			return nil, formNone, err
		}
		return []chat.Message{m}, formSeed, nil
	case TypeUser, TypeAssistant, TypeSystem:
	default:
		return nil, formNone, nil
	}
	if isNull(e.Message) {
		return nil, formNone, nil
	}
	var p messageProbe
	if err := decodeLoose(e.Message, &p); err != nil {
		return nil, formNone, fmt.Errorf("message: %w", err)
	}
	if p.Parts != nil || p.Content == nil {
		var m chat.Message
		if err := m.UnmarshalJSON(e.Message); err != nil {
			return nil, formNone, err
		}
		m.Usage = plausible(m.Usage)
		return []chat.Message{m}, formChat, nil
	}
	msgs, err := claudeMessages(e, p)
	if err != nil {
		return nil, formNone, err
	}
	return msgs, formClaude, nil
}

// toolResultMessage is the tool message of a tool_result entry.
func (e *Entry) toolResultMessage() (chat.Message, error) {
	tr := e.ToolResult
	content := jsonText(tr.Output)
	isErr := tr.Error != nil
	if isErr {
		switch {
		case content == "":
			content = *tr.Error
		case *tr.Error != "":
			content += "\n" + *tr.Error
		}
	}
	m := chat.NewToolResult(tr.ID, tr.Name, content, isErr)
	if !isNull(e.Message) {
		var head chat.Message
		if err := head.UnmarshalJSON(e.Message); err != nil {
			return chat.Message{}, err
		}
		if head.Parts != nil {
			// A full message written by another program: it wins.
			head.Usage = plausible(head.Usage)
			return head, nil
		}
		m.ID, m.Name, m.Model, m.Usage = head.ID, head.Name, head.Model, plausible(head.Usage)
	}
	return m, nil
}

// plausible returns u, or nil when a count of u is negative or above
// [chat.MaxCallTokens]: a corrupt usage record reads as none.
func plausible(u *chat.Usage) *chat.Usage {
	if u == nil || u.Validate() != nil {
		return nil
	}
	return u
}

// jsonText returns the value of a JSON string, or the text of any other
// JSON value ("" for none or null).
func jsonText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return ""
	}
	if t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
	}
	return string(t)
}

// isNull reports whether raw is empty or the JSON null.
func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// decodeLoose unmarshals raw into v as far as it goes: a value of an
// unexpected JSON type is skipped (json.Unmarshal fills the rest), only
// broken JSON is an error.
func decodeLoose(raw []byte, v any) error {
	err := jsonx.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// Title returns the session title text gives: its first line that is not
// blank, with runs of white space collapsed to one space, cut on a rune
// boundary to at most [MaxTitleRunes] runes, the last of them "…" when
// it was cut. It returns "" for blank text.
func Title(text string) string {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		s := strings.Join(f, " ")
		if utf8.RuneCountInString(s) <= MaxTitleRunes {
			return s
		}
		n := 0
		for i := range s {
			if n == MaxTitleRunes-1 {
				return strings.TrimRight(s[:i], " ") + "…"
			}
			n++
		}
		return s
	}
	return ""
}
