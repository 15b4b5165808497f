package chat

import (
	"encoding/json"
)

// The wires an [Opaque] part can come from: the value of [Opaque.Wire].
const (
	// WireAnthropic is the Anthropic Messages API's content blocks.
	WireAnthropic = "anthropic"
	// WireOpenAI is the OpenAI chat completions API's content parts.
	WireOpenAI = "openai"
	// WireResponses is the OpenAI Responses API's input items.
	WireResponses = "responses"
	// WireGemini is the Gemini API's parts.
	WireGemini = "gemini"
)

// Opaque is an element of a provider's wire that the message model does not
// interpret, carried byte for byte in its place: an Anthropic block such as
// "document", "search_result", "tool_reference", "server_tool_use" or
// "compaction"; a Responses API item such as "web_search_call",
// "additional_tools" or "compaction"; an OpenAI "input_audio" or "file"
// part; a Gemini part of a kind the model lacks; and, when a reader is asked
// to keep media ([WireReader].KeepMedia), images with their data.
//
// Compaction keeps or drops an opaque part whole and never rewrites it. In
// a tool message, opaque parts follow the one [ToolResult]: they are the
// non-text blocks of the result's content, in order.
//
// Raw is the element's JSON exactly as the wire held it; Wire says which
// wire (see [WireAnthropic] and its siblings) and Kind is the element's
// type as that wire names it ("image", "tool_reference", "compaction").
// Text is what of it the model reads as text where that is known (a search
// result's or a compaction summary's text, "" otherwise): it is counted,
// searched and shown in summaries. Tokens is the size of the rest in
// tokens, estimated by the provider's documented rule where there is one
// (an Anthropic image: width × height / 750, capped); 0 means "estimate
// from the size of Raw" ([Opaque.Estimate]). Boundary marks a
// provider-written compaction (Anthropic's "compaction" block, the
// Responses API's "compaction" item): what it replaced is gone upstream,
// and compaction never removes it.
type Opaque struct {
	Wire     string          `json:"wire"`
	Kind     string          `json:"kind"`
	Raw      json.RawMessage `json:"raw"`
	Text     string          `json:"text,omitempty"`
	Tokens   int             `json:"tokens,omitempty"`
	Boundary bool            `json:"boundary,omitempty"`
	// Pinned marks an element compaction never removes though it is no
	// compaction: a tool list sent as an input item (Codex's
	// "additional_tools"), which the model needs as much as "tools".
	Pinned bool `json:"pinned,omitempty"`
	// Media marks an image, a document, audio or a file: content that
	// counts against a request's byte limit and that a request too large
	// in bytes sheds first.
	Media bool `json:"media,omitempty"`
}

func (Opaque) isPart() {}

// opaqueBytesPerToken is the conservative bytes-per-token rate of
// [Opaque.Estimate] for JSON whose tokens no provider documents: 3 bytes
// a token, below the ~4 of English text, since JSON punctuation and ids
// tokenize densely.
const opaqueBytesPerToken = 3

// Estimate returns the part's size in tokens beyond its Text: Tokens when
// set, else len(Raw)/3 rounded up (a conservative estimate for JSON of a
// kind no provider documents a rule for). Media parts should set Tokens:
// the bytes of base64 data say nothing of what the model reads.
func (o Opaque) Estimate() int {
	if o.Tokens > 0 {
		return o.Tokens
	}
	return (len(o.Raw) + opaqueBytesPerToken - 1) / opaqueBytesPerToken
}

// Opaques returns the message's [Opaque] parts in order (nil when none).
func (m Message) Opaques() []Opaque {
	var out []Opaque
	for _, p := range m.Parts {
		if o, ok := p.(Opaque); ok {
			out = append(out, o)
		}
	}
	return out
}

// IsBoundary reports whether the message holds a provider-written
// compaction ([Opaque].Boundary).
func (m Message) IsBoundary() bool {
	for _, p := range m.Parts {
		if o, ok := p.(Opaque); ok && o.Boundary {
			return true
		}
	}
	return false
}

// IsPinned reports whether compaction may not remove the message: it holds
// an [Opaque] part that is a Boundary or Pinned.
func (m Message) IsPinned() bool {
	for _, p := range m.Parts {
		if o, ok := p.(Opaque); ok && (o.Boundary || o.Pinned) {
			return true
		}
	}
	return false
}

// MaxImageTokens is the cost in tokens of an image whose size is unknown, and
// the most an image can cost: Anthropic resizes images to at most about 1.15
// megapixels, which is about 1,600 tokens at its documented rate of
// width×height/750 ("Vision" guide, "Calculate image costs").
const MaxImageTokens = 1600

// ImageTokens estimates an image's cost in tokens with Anthropic's formula,
// width×height/750, capped at [MaxImageTokens]. Unknown dimensions cost
// MaxImageTokens.
func ImageTokens(width, height int) int {
	if width <= 0 || height <= 0 {
		return MaxImageTokens
	}
	t := (width*height + 749) / 750
	return min(t, MaxImageTokens)
}

// PDFPageTokens is the estimated cost of one page of a PDF document in
// tokens: the top of the 1,500–3,000 tokens of text per page that
// Anthropic's "PDF support" guide gives, since each page is also read as
// an image.
const PDFPageTokens = 3000

// WireReader converts wire messages to the message model with options;
// the package's FromAnthropic, FromOpenAI, FromResponses and FromGemini
// are the zero WireReader's.
//
// KeepMedia makes images (and, where the wire has them, documents, audio
// and files) [Opaque] parts holding their bytes, as a proxy needs to send
// them again, instead of [Image] placeholders without their data. Their
// Tokens are estimated from the image's size where the data tells it.
type WireReader struct {
	KeepMedia bool
}

// ToolParts returns a tool message's [ToolResult] and the [Opaque] parts
// that follow it (the non-text blocks of the result's content). It returns
// an [ErrInvalid] error when the message does not hold one ToolResult
// first and only Opaque parts after it.
func (m Message) ToolParts() (ToolResult, []Opaque, error) {
	if len(m.Parts) == 0 {
		return ToolResult{}, nil, errorf(ErrInvalid, "chat: a tool message must hold a tool result, it has no parts")
	}
	r, ok := m.Parts[0].(ToolResult)
	if !ok {
		return ToolResult{}, nil, errorf(ErrInvalid, "chat: parts[0]: a tool message must hold a tool result first, not %s", partKind(m.Parts[0]))
	}
	var rest []Opaque
	for j, p := range m.Parts[1:] {
		o, ok := p.(Opaque)
		if !ok {
			return ToolResult{}, nil, errorf(ErrInvalid, "chat: parts[%d]: a tool message holds one tool result and opaque parts after it, not %s", j+1, partKind(p))
		}
		rest = append(rest, o)
	}
	return r, rest, nil
}
