package chat

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// This file follows the Gemini API reference
// (https://ai.google.dev/api/generate-content: a request's "contents" and
// "systemInstruction", Content and Part, and the response's
// "usageMetadata"), the "Function calling" guide
// (https://ai.google.dev/gemini-api/docs/function-calling: a function
// response turn comes right after its function call turn and holds one
// functionResponse part per functionCall part) and the "Thought
// signatures" guide (https://ai.google.dev/gemini-api/docs/thought-signatures:
// a thoughtSignature comes back exactly as received, on the part that
// carried it; with parallel calls only the first functionCall part has
// one).

// GeminiContent is one element of a Gemini API request's "contents" array,
// or its "systemInstruction", in the field names of the wire JSON. Role is
// "user" or "model" ("" is read as "user"; the system instruction's role
// is not read). Like [Message], it is plain data: safe to read from
// several goroutines, not to modify while others read it.
type GeminiContent struct {
	Parts []GeminiPart `json:"parts"`
	Role  string       `json:"role,omitempty"`
}

// GeminiPart is one part of a [GeminiContent]. The message model reads
// three kinds of part field by field:
//
//   - text: Text, with Thought (a thought summary) and ThoughtSignature;
//   - "functionCall": FunctionCall, with ThoughtSignature (Gemini 3 puts
//     the signature of a step on its first function call part);
//   - "functionResponse": FunctionResponse.
//
// Every other part ("inlineData", "fileData", "executableCode",
// "codeExecutionResult", kinds yet to come) and a text part with fields
// other than these keeps its JSON in Raw, which MarshalJSON writes back
// byte for byte. A functionCall or functionResponse part is read field by
// field whatever else it holds: fields of it the model lacks (such as
// "partMetadata", or a functionResponse's "willContinue") are not kept.
type GeminiPart struct {
	Text             string
	Thought          bool
	ThoughtSignature string
	FunctionCall     *GeminiFunctionCall
	FunctionResponse *GeminiFunctionResponse
	// Raw is the part's JSON as read, for a part the model does not read
	// field by field (see above); nil otherwise. Set, it is what
	// MarshalJSON writes.
	Raw json.RawMessage
}

// GeminiFunctionCall is a part's "functionCall": the model's request to
// run a tool. ID is the call's "id" ("" when the model gave none: Gemini
// then pairs responses with calls by name and order); Args is the
// arguments object as sent (nil when absent).
type GeminiFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Args json.RawMessage `json:"args,omitempty"`
	Name string          `json:"name"`
}

// GeminiFunctionResponse is a part's "functionResponse": a tool's result.
// Response is the result object as sent; ID the "id" of the call it
// answers, "" when absent; Parts the media parts of a multimodal function
// response ("inlineData", "fileData"), as sent.
type GeminiFunctionResponse struct {
	Name     string            `json:"name"`
	Response json.RawMessage   `json:"response,omitempty"`
	ID       string            `json:"id,omitempty"`
	Parts    []json.RawMessage `json:"parts,omitempty"`
}

// geminiModeled are the part fields the model reads.
var geminiModeled = map[string]bool{"text": true, "thought": true, "thoughtSignature": true, "functionCall": true, "functionResponse": true}

// geminiDataKeys are the part fields that say what a part holds (the
// Part's "data" union), in the order a kind is looked for.
var geminiDataKeys = []string{"text", "functionCall", "functionResponse", "inlineData", "fileData", "executableCode", "codeExecutionResult"}

// UnmarshalJSON reads a part; one the model does not read field by field
// keeps its JSON in Raw.
func (p *GeminiPart) UnmarshalJSON(data []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	if keys == nil {
		return errorf(ErrInvalid, "a part is an object, not null")
	}
	_, call := keys["functionCall"]
	_, resp := keys["functionResponse"]
	_, text := keys["text"]
	modeled := 0
	for _, k := range []bool{call, resp, text} {
		if k {
			modeled++
		}
	}
	plain := modeled == 1
	if plain && text {
		for k := range keys {
			if !geminiModeled[k] {
				plain = false // a text part with fields the model lacks
				break
			}
		}
	}
	if plain {
		for _, k := range geminiDataKeys[3:] {
			if _, ok := keys[k]; ok {
				plain = false
			}
		}
	}
	if !plain {
		*p = GeminiPart{Raw: append(json.RawMessage(nil), bytes.TrimSpace(data)...)}
		return nil
	}
	var v struct {
		Text             string                  `json:"text"`
		Thought          bool                    `json:"thought"`
		ThoughtSignature string                  `json:"thoughtSignature"`
		FunctionCall     *GeminiFunctionCall     `json:"functionCall"`
		FunctionResponse *GeminiFunctionResponse `json:"functionResponse"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch {
	case call && v.FunctionCall == nil:
		return errorf(ErrInvalid, "functionCall is null")
	case resp && v.FunctionResponse == nil:
		return errorf(ErrInvalid, "functionResponse is null")
	}
	*p = GeminiPart{Text: v.Text, Thought: v.Thought, ThoughtSignature: v.ThoughtSignature, FunctionCall: v.FunctionCall, FunctionResponse: v.FunctionResponse}
	return nil
}

// MarshalJSON writes Raw when set; else a functionCall part, a
// functionResponse part, or a text part ("text" always written, "" too),
// each with its thought fields when set.
func (p GeminiPart) MarshalJSON() ([]byte, error) {
	if p.Raw != nil {
		return p.Raw, nil
	}
	switch {
	case p.FunctionCall != nil:
		return jsonx.MarshalNoEscape(struct {
			FunctionCall     *GeminiFunctionCall `json:"functionCall"`
			ThoughtSignature string              `json:"thoughtSignature,omitempty"`
		}{p.FunctionCall, p.ThoughtSignature})
	case p.FunctionResponse != nil:
		return jsonx.MarshalNoEscape(struct {
			FunctionResponse *GeminiFunctionResponse `json:"functionResponse"`
		}{p.FunctionResponse})
	}
	return jsonx.MarshalNoEscape(struct {
		Text             string `json:"text"`
		Thought          bool   `json:"thought,omitempty"`
		ThoughtSignature string `json:"thoughtSignature,omitempty"`
	}{p.Text, p.Thought, p.ThoughtSignature})
}

// geminiPartKind names a raw part by the field that says what it holds
// ("inlineData", "executableCode" …), else by its first other field in
// sorted order, else "part".
func geminiPartKind(raw json.RawMessage) string {
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(raw, &keys) // a Raw part was read as an object
	for _, k := range geminiDataKeys {
		if _, ok := keys[k]; ok {
			return k
		}
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		if k != "thought" && k != "thoughtSignature" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		return names[0]
	}
	return "part"
}

// GeminiFileTokens is the cost in tokens given to a Gemini "fileData"
// part that is not an image (a PDF, audio or video referenced by URI),
// whose length the request does not tell: one PDF page's worth,
// [PDFPageTokens]. It is a placeholder, not a measure: the Gemini API
// counts 258 tokens per PDF page, 32 per second of audio and 263 per
// second of video ("Token counting" guide).
const GeminiFileTokens = PDFPageTokens

// geminiOpaque returns the [Opaque] part of a raw Gemini part: media
// ("inlineData", "fileData") with its tokens estimated, code and its
// result with their text.
func geminiOpaque(raw json.RawMessage) Opaque {
	kind := geminiPartKind(raw)
	o := Opaque{Wire: WireGemini, Kind: kind, Raw: append(json.RawMessage(nil), raw...)}
	var v struct {
		Text       string `json:"text"`
		InlineData *struct {
			MimeType string `json:"mimeType"`
			Data     string `json:"data"`
		} `json:"inlineData"`
		FileData *struct {
			MimeType string `json:"mimeType"`
		} `json:"fileData"`
		ExecutableCode *struct {
			Code string `json:"code"`
		} `json:"executableCode"`
		CodeExecutionResult *struct {
			Output string `json:"output"`
		} `json:"codeExecutionResult"`
	}
	_ = json.Unmarshal(raw, &v) // fields of other types are left zero
	switch kind {
	case "text":
		o.Text = v.Text
	case "inlineData":
		o.Media = true
		if d := v.InlineData; d != nil {
			switch {
			case strings.HasPrefix(d.MimeType, "image/"):
				im := inlineImage(d.MimeType, d.Data, true)
				o.Tokens = ImageTokens(im.Width, im.Height)
			case strings.Contains(d.MimeType, "pdf"):
				o.Tokens = pdfPages(d.Data) * PDFPageTokens
			}
			// Audio and video: estimated from the size of Raw, far
			// above what the model reads, which is safe for a budget.
		}
	case "fileData":
		o.Media = true
		o.Tokens = GeminiFileTokens
		if v.FileData != nil && strings.HasPrefix(v.FileData.MimeType, "image/") {
			o.Tokens = MaxImageTokens
		}
	case "executableCode":
		if v.ExecutableCode != nil {
			o.Text = v.ExecutableCode.Code
		}
	case "codeExecutionResult":
		if v.CodeExecutionResult != nil {
			o.Text = v.CodeExecutionResult.Output
		}
	}
	return o
}

// GeminiUsage is the "usageMetadata" of a Gemini API response, in tokens.
// PromptTokenCount includes CachedContentTokenCount; ThoughtsTokenCount is
// not part of CandidatesTokenCount.
type GeminiUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
}

// UsageFromGemini converts a Gemini usageMetadata: [Usage.InputTokens] is
// promptTokenCount less the cached tokens ([Usage.CacheReadTokens]), as
// for [UsageFromOpenAI]; [Usage.OutputTokens] is candidatesTokenCount +
// thoughtsTokenCount, of which [Usage.ReasoningTokens] are the thoughts.
// toolUsePromptTokenCount (the results of tools the API ran itself) is not
// part of the prompt the agent sent and is left out. Negative counts
// stay as they are, for [Usage.Validate] to refuse.
func UsageFromGemini(u GeminiUsage) Usage {
	cached := u.CachedContentTokenCount
	in := u.PromptTokenCount - cached
	if in < 0 && u.PromptTokenCount >= 0 && cached >= 0 {
		in = 0
	}
	return Usage{
		InputTokens:     in,
		OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
		CacheReadTokens: cached,
		ReasoningTokens: u.ThoughtsTokenCount,
	}
}

// GeminiCallID returns the id [GeminiReader] gives the n-th function call
// (n from 1) named name in a conversation when the call has no "id" of its
// own: name + "#" + n, such as "read_file#2". The Gemini API pairs a
// function response without an id with a call by name and order, so the
// id only ties them together in the message model; [ToGemini] leaves ids
// of this form out of what it writes.
func GeminiCallID(name string, n int) string {
	return name + "#" + strconv.Itoa(n)
}

// geminiSynthetic reports whether id is a [GeminiCallID] of name.
func geminiSynthetic(id, name string) bool {
	rest, ok := strings.CutPrefix(id, name+"#")
	if !ok || rest == "" || rest[0] == '0' {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// GeminiReader converts the "contents" of one Gemini request to the
// message model one element at a time, in order, as [WireReader.FromGemini]
// does for the whole array: it carries what ties a function response
// without an id to its call (the unanswered calls of each name). A proxy
// reads element by element to know which message came from which element.
// The zero value is ready to use; not safe for concurrent use.
type GeminiReader struct {
	n     int                 // contents read so far
	count map[string]int      // function calls read per name
	open  map[string][]string // ids of unanswered calls per name, oldest first
}

// Read converts the next element of "contents", reading it as
// [WireReader.FromGemini] does. Errors name the element and part
// (contents[3].parts[1]) and wrap [ErrInvalid]; the element still counts,
// so the next Read names the next index.
func (r *GeminiReader) Read(c GeminiContent) ([]Message, error) {
	i := r.n
	r.n++
	if r.count == nil {
		r.count, r.open = map[string]int{}, map[string][]string{}
	}
	switch c.Role {
	case "model":
		m := Message{Role: RoleAssistant, Parts: make([]Part, 0, len(c.Parts))}
		for j, p := range c.Parts {
			switch {
			case p.Raw != nil:
				m.Parts = append(m.Parts, geminiOpaque(p.Raw))
			case p.FunctionResponse != nil:
				return nil, errorf(ErrInvalid, "chat: gemini: contents[%d].parts[%d]: a functionResponse belongs in a user turn", i, j)
			case p.FunctionCall != nil:
				fc := p.FunctionCall
				if p.ThoughtSignature != "" {
					m.Parts = append(m.Parts, Thinking{Signature: p.ThoughtSignature})
				}
				r.count[fc.Name]++
				id := fc.ID
				if id == "" {
					id = GeminiCallID(fc.Name, r.count[fc.Name])
				}
				r.open[fc.Name] = append(r.open[fc.Name], id)
				var args json.RawMessage
				if fc.Args != nil {
					args = normalizeArguments(fc.Args)
				}
				m.Parts = append(m.Parts, ToolCall{ID: id, Name: fc.Name, Arguments: args})
			case p.Thought:
				m.Parts = append(m.Parts, Thinking{Text: p.Text, Signature: p.ThoughtSignature})
			default:
				if p.ThoughtSignature != "" {
					m.Parts = append(m.Parts, Thinking{Signature: p.ThoughtSignature})
				}
				m.Parts = append(m.Parts, Text{Text: p.Text})
			}
		}
		return []Message{m}, nil
	case "user", "":
		var out []Message
		user := Message{Role: RoleUser}
		tools := 0
		for j, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				return nil, errorf(ErrInvalid, "chat: gemini: contents[%d].parts[%d]: a functionCall belongs in a model turn", i, j)
			case p.FunctionResponse != nil:
				m, err := r.response(p.FunctionResponse)
				if err != nil {
					return nil, prefixed(err, "chat: gemini: contents[%d].parts[%d]", i, j)
				}
				out = append(out, m)
				tools++
			case p.Raw != nil:
				user.Parts = append(user.Parts, geminiOpaque(p.Raw))
			case p.Thought || p.ThoughtSignature != "":
				// Thoughts are the model's: in a user turn the part is
				// carried as it is.
				raw, _ := p.MarshalJSON() // strings always marshal
				o := geminiOpaque(raw)
				o.Text = p.Text
				user.Parts = append(user.Parts, o)
			default:
				user.Parts = append(user.Parts, Text{Text: p.Text})
			}
		}
		if len(user.Parts) > 0 || tools == 0 {
			out = append(out, user)
		}
		return out, nil
	}
	return nil, errorf(ErrInvalid, "chat: gemini: contents[%d].role: %q is not valid, want user or model", i, c.Role)
}

// response converts a functionResponse to a tool message, pairing it with
// its call: by id when it has one, else with the oldest unanswered call
// of its name. A response without a name (the API requires one; carried
// all the same) takes its call's name when its id finds the call, so the
// result reads the same after [ToGemini] writes the name back.
func (r *GeminiReader) response(fr *GeminiFunctionResponse) (Message, error) {
	id, name := fr.ID, fr.Name
	if name == "" && id != "" {
		names := make([]string, 0, len(r.open))
		for n := range r.open {
			names = append(names, n)
		}
		sort.Strings(names) // one answer when two names share an id
		for _, n := range names {
			if slices.Contains(r.open[n], id) {
				name = n
				break
			}
		}
	}
	open := r.open[name]
	if id == "" && len(open) > 0 {
		id = open[0]
	}
	for k, o := range open {
		if o == id {
			r.open[name] = append(open[:k:k], open[k+1:]...)
			break
		}
	}
	content, isError := geminiResponseText(fr.Response)
	m := Message{Role: RoleTool, Parts: []Part{ToolResult{ToolCallID: id, ToolName: name, Content: content, IsError: isError}}}
	for k, raw := range fr.Parts {
		t := bytes.TrimSpace(raw)
		if len(t) == 0 || t[0] != '{' {
			return Message{}, errorf(ErrInvalid, "functionResponse.parts[%d]: a part is an object", k)
		}
		m.Parts = append(m.Parts, geminiOpaque(t))
	}
	return m, nil
}

// geminiResponseText is the text of a functionResponse's "response": the
// string of its only field when that field is "output" (Gemini CLI's
// shape for a result) or "error" (its shape for a failure, isError), else
// the object's JSON, compacted; "" when absent or null.
func geminiResponseText(raw json.RawMessage) (string, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return "", false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(t, &obj) == nil && len(obj) == 1 {
		for k, v := range obj {
			var s string
			if (k == "output" || k == "error") && json.Unmarshal(v, &s) == nil && bytes.TrimSpace(v)[0] == '"' {
				return s, k == "error"
			}
		}
	}
	return string(normalizeArguments(t)), false
}

// geminiResponseObject is the "response" object for a tool result's
// content, reversing [geminiResponseText]: {"error": content} for an
// error; the content itself when it is a JSON object that reads back as
// the same text; else {"output": content}.
func geminiResponseObject(content string, isError bool) json.RawMessage {
	key := "output"
	if isError {
		key = "error"
	} else if t := strings.TrimSpace(content); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		if s, e := geminiResponseText(json.RawMessage(content)); s == content && !e {
			return json.RawMessage(content)
		}
	}
	b, _ := jsonx.MarshalNoEscape(map[string]string{key: content}) // strings always marshal
	return b
}

// FromGemini converts a Gemini request's system instruction (nil when
// absent) and contents to the message model: [WireReader.FromGemini]
// without options.
func FromGemini(system *GeminiContent, contents []GeminiContent) ([]Message, error) {
	return WireReader{}.FromGemini(system, contents)
}

// FromGemini converts a Gemini request's system instruction (nil when
// absent) and contents to the message model:
//
//   - the system instruction, when it has parts, becomes one [RoleSystem]
//     message: its text parts as [Text], others as [Opaque];
//   - a "model" content becomes one assistant message with a part per
//     wire part, in order: text as [Text]; a thought ("thought": true) as
//     [Thinking] with its Text and Signature; a functionCall as a
//     [ToolCall] (arguments kept as JSON) whose ID is the call's "id", or
//     when it has none [GeminiCallID] of its name and rank among the
//     conversation's calls of that name. A thoughtSignature on a text or
//     functionCall part becomes a [Thinking] holding only the Signature,
//     right before the part it was on; [ToGemini] puts it back on that
//     part;
//   - a "user" content becomes one [RoleTool] message per
//     functionResponse part, in order, then a user message with its other
//     parts (when there are any, or when there was no functionResponse).
//     A tool result's ToolCallID is the response's "id", or else the id of
//     the oldest unanswered call of its name (Gemini pairs responses with
//     calls by name and order); its ToolName is the response's name; its
//     Content the "response" object's only field when that is the string
//     "output" (Gemini CLI's shape) or "error" (then IsError), else the
//     object's JSON, compacted. A multimodal response's media parts
//     follow the ToolResult as [Opaque] parts;
//   - every other part ("inlineData", "fileData", "executableCode",
//     "codeExecutionResult", a text part with fields the model lacks, a
//     thought in a user turn, kinds yet to come) becomes an [Opaque] part
//     of [WireGemini] holding the part byte for byte: media with Media set
//     and Tokens estimated (an inline image by [ImageTokens] of the size
//     its header tells, a PDF by [PDFPageTokens] a page, an image by URI
//     [MaxImageTokens], another file by URI [GeminiFileTokens]; inline
//     audio and video from the size of Raw), code and its result with
//     their text as Text. Gemini media is always kept with its data, so
//     r.KeepMedia changes nothing here.
//
// So Gemini → model → Gemini ([ToGemini]) gives back the contents Gemini
// CLI sends byte for byte, but for the system instruction's role, the
// fields of a functionCall or functionResponse part the model lacks, a
// response object that is the single string "content" or "result" (it
// comes back as "output"), whitespace inside arguments and response
// objects, and a user content that mixes function responses with other
// parts (its other parts come back as a content of their own).
//
// It returns an [ErrInvalid] error for a role other than "user", "model"
// or "", a functionCall in a user turn and a functionResponse in a model
// turn, naming the element and part (contents[3].parts[1]). It never
// panics, and the result shares no memory with its input.
func (r WireReader) FromGemini(system *GeminiContent, contents []GeminiContent) ([]Message, error) {
	var out []Message
	if system != nil && len(system.Parts) > 0 {
		m := Message{Role: RoleSystem}
		for _, p := range system.Parts {
			if p.Raw == nil && p.FunctionCall == nil && p.FunctionResponse == nil && !p.Thought && p.ThoughtSignature == "" {
				m.Parts = append(m.Parts, Text{Text: p.Text})
				continue
			}
			raw, _ := p.MarshalJSON() // a part read from JSON marshals
			m.Parts = append(m.Parts, geminiOpaque(raw))
		}
		out = append(out, m)
	}
	var rd GeminiReader
	for _, c := range contents {
		ms, err := rd.Read(c)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

// ToGemini converts messages to a Gemini request's system instruction and
// contents, reversing [WireReader.FromGemini]:
//
//   - the leading system messages become the system instruction (nil
//     when there are none), their parts in order; a system message after
//     any other message becomes a "user" content in its place (the
//     contents have no system role);
//   - a user message becomes a "user" content, an assistant message a
//     "model" content, one content per message (the API accepts
//     consecutive contents of one role);
//   - a run of consecutive tool messages becomes one "user" content of
//     functionResponse parts, as the API wants all the responses to one
//     function call turn in the next content. A response's "id" is the
//     result's ToolCallID and its "name" the ToolName (else the name of
//     the call it answers); its "response" is {"output": content} ({"error":
//     content} when IsError), or the content itself when it is a JSON
//     object that [WireReader.FromGemini] reads back as the same text.
//     The [Opaque] parts of [WireGemini] after the ToolResult go in the
//     response's "parts";
//   - [Text] becomes a text part; [ToolCall] a functionCall part (the
//     arguments as "args"); [Thinking] with Text, or that no text or
//     function call follows in its message, a thought part ("thought":
//     true) with its Signature; a [Thinking] holding only a Signature puts
//     it on the text or function call part after it, as it was read. An
//     [Opaque] part of [WireGemini] is written byte for byte; one of
//     another wire as a text part naming it (in a tool message, a line
//     after the content).
//
// Ids of the [GeminiCallID] form are left out, on calls and responses
// alike. Not kept: [Message.Name], ID, Model and Usage, and
// [Thinking.Encrypted] (Gemini has no encrypted reasoning). A [Thinking]
// Signature of another provider is sent as a thoughtSignature, which the
// API refuses: convert only Gemini's own history.
//
// ToGemini returns an [ErrInvalid] error, naming the message index and
// part, for an unknown role, an [Image] (its data is not kept), a
// ToolCall or Thinking outside an assistant message, a ToolResult outside
// a tool message, a tool message that does not hold one ToolResult first
// and opaque parts after it, or a nil part. The result shares no memory
// with msgs.
func ToGemini(msgs []Message) (system *GeminiContent, contents []GeminiContent, err error) {
	i := 0
	for ; i < len(msgs) && msgs[i].Role == RoleSystem; i++ {
		if system == nil {
			system = &GeminiContent{}
		}
		parts, err := geminiUserParts(msgs[i], i)
		if err != nil {
			return nil, nil, err
		}
		system.Parts = append(system.Parts, parts...)
	}
	calls := callNames{}
	var tools *GeminiContent // the function response content being built
	for ; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != RoleTool {
			tools = nil
		}
		switch m.Role {
		case RoleUser, RoleSystem:
			parts, err := geminiUserParts(m, i)
			if err != nil {
				return nil, nil, err
			}
			contents = append(contents, GeminiContent{Role: "user", Parts: parts})
		case RoleAssistant:
			c := GeminiContent{Role: "model", Parts: make([]GeminiPart, 0, len(m.Parts))}
			sig := "" // a signature for the next text or call part
			for j, p := range m.Parts {
				switch p := p.(type) {
				case Thinking:
					if p.Text == "" && p.Signature != "" && j+1 < len(m.Parts) && carriesSignature(m.Parts[j+1]) {
						sig = p.Signature
						continue
					}
					c.Parts = append(c.Parts, GeminiPart{Text: p.Text, Thought: true, ThoughtSignature: p.Signature})
				case Text:
					c.Parts = append(c.Parts, GeminiPart{Text: p.Text, ThoughtSignature: sig})
				case ToolCall:
					calls.push(p.ID, p.Name)
					fc := &GeminiFunctionCall{Name: p.Name}
					if !geminiSynthetic(p.ID, p.Name) {
						fc.ID = p.ID
					}
					if p.Arguments != nil {
						fc.Args = append(json.RawMessage(nil), p.Arguments...)
					}
					c.Parts = append(c.Parts, GeminiPart{FunctionCall: fc, ThoughtSignature: sig})
				case Opaque:
					c.Parts = append(c.Parts, geminiFromOpaque(p))
				default:
					return nil, nil, errorf(ErrInvalid, "chat: gemini: message %d: parts[%d]: %s in an assistant message", i, j, partKind(p))
				}
				sig = ""
			}
			contents = append(contents, c)
		case RoleTool:
			r, attached, err := m.ToolParts()
			if err != nil {
				return nil, nil, prefixed(err, "chat: gemini: message %d", i)
			}
			name := calls.pop(r.ToolCallID)
			if r.ToolName != "" {
				name = r.ToolName
			}
			content := r.Content
			fr := &GeminiFunctionResponse{Name: name}
			for _, o := range attached {
				if o.Wire == WireGemini && len(o.Raw) > 0 {
					fr.Parts = append(fr.Parts, append(json.RawMessage(nil), o.Raw...))
				} else {
					content += "\n" + opaqueNote(o)
				}
			}
			fr.Response = geminiResponseObject(content, r.IsError)
			if !geminiSynthetic(r.ToolCallID, name) {
				fr.ID = r.ToolCallID
			}
			if tools == nil {
				contents = append(contents, GeminiContent{Role: "user"})
				tools = &contents[len(contents)-1]
			}
			tools.Parts = append(tools.Parts, GeminiPart{FunctionResponse: fr})
		default:
			return nil, nil, errorf(ErrInvalid, "chat: gemini: message %d: role %q is not valid", i, m.Role)
		}
	}
	return system, contents, nil
}

// carriesSignature reports whether a part is written as a text or a
// function call part, which can carry a thoughtSignature.
func carriesSignature(p Part) bool {
	switch p.(type) {
	case Text, ToolCall:
		return true
	}
	return false
}

// geminiUserParts writes the parts of a user or system message: text and
// opaque parts only.
func geminiUserParts(m Message, i int) ([]GeminiPart, error) {
	parts := make([]GeminiPart, 0, len(m.Parts))
	for j, p := range m.Parts {
		switch p := p.(type) {
		case Text:
			parts = append(parts, GeminiPart{Text: p.Text})
		case Opaque:
			parts = append(parts, geminiFromOpaque(p))
		case Image:
			return nil, errorf(ErrInvalid, "chat: gemini: message %d: parts[%d]: an image cannot be sent without its data", i, j)
		default:
			return nil, errorf(ErrInvalid, "chat: gemini: message %d: parts[%d]: a %s message holds text and opaque parts, not %s", i, j, m.Role, partKind(p))
		}
	}
	return parts, nil
}

// geminiFromOpaque is the part for an [Opaque] part: its JSON for one of
// the Gemini wire, a text naming it for one of another wire.
func geminiFromOpaque(o Opaque) GeminiPart {
	if o.Wire == WireGemini && len(o.Raw) > 0 {
		return GeminiPart{Raw: append(json.RawMessage(nil), o.Raw...)}
	}
	return GeminiPart{Text: opaqueNote(o)}
}
