package transcript

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// Claude Code session JSONL (FORMATS.md §4).

type ccRecord struct {
	Type       string `json:"type"`
	Subtype    string `json:"subtype"`
	UUID       string `json:"uuid"`
	ParentUUID string `json:"parentUuid"`
	// LogicalParentUUID is a compact boundary's link to the last line
	// before it (its parentUuid is null).
	LogicalParentUUID string     `json:"logicalParentUuid"`
	AgentID           string     `json:"agentId"`
	SessionID         string     `json:"sessionId"`
	IsSidechain       bool       `json:"isSidechain"`
	IsCompactSummary  bool       `json:"isCompactSummary"`
	CWD               string     `json:"cwd"`
	GitBranch         string     `json:"gitBranch"`
	Timestamp         string     `json:"timestamp"`
	Message           *ccMessage `json:"message"`
	CompactMetadata   *struct {
		Trigger   string `json:"trigger"`
		PreTokens count  `json:"preTokens"`
	} `json:"compactMetadata"`
	// api-request-shape (Claude Code 2.1.3xx): the request's system
	// prompt (a string or text blocks) and tool definitions, under
	// "shape" as Claude Code 2.1.328 writes them ({"type":
	// "api-request-shape", "shapeHash", "version", "shape": {"system":
	// [blocks], "tools": [definitions]}}), or at the top of the line or
	// under "request".
	System  ccContent       `json:"system"`
	Tools   json.RawMessage `json:"tools"`
	Shape   *ccShape        `json:"shape"`
	Request *ccShape        `json:"request"`
}

// ccShape is a recorded request's system prompt and tool definitions.
type ccShape struct {
	System ccContent       `json:"system"`
	Tools  json.RawMessage `json:"tools"`
}

type ccMessage struct {
	Role    string    `json:"role"`
	Model   string    `json:"model"`
	ID      string    `json:"id"`
	Content ccContent `json:"content"`
	Usage   *struct {
		InputTokens              count `json:"input_tokens"`
		CacheCreationInputTokens count `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     count `json:"cache_read_input_tokens"`
		OutputTokens             count `json:"output_tokens"`
	} `json:"usage"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      jsonText        `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   ccContent       `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
}

// syntheticModel marks assistant lines that Claude Code generated itself
// (API error notices, "No response requested."): they are not model output
// and are not sent back to the model, so the reader skips them.
const syntheticModel = "<synthetic>"

// ccNonContext is what Claude Code writes beside the conversation and
// never sends to the model: the known non-context kinds, by line type
// (a "system" line other than a compact boundary by "system/SUBTYPE",
// which are all the CLI's own notices). The api-request-* lines (Claude
// Code 2.1.3xx) record each request beside the messages it was built
// from.
var ccNonContext = nonContextTable{
	"progress":              "a tool's or hook's progress line, shown while it runs",
	"file-history-snapshot": "the checkpoint of edited files, for /rewind",
	"queue-operation":       "a prompt queued while the model was busy (sent later as a user line)",
	"summary":               "a session title for the /resume list",
	"api-request-blob":      "a blob of a request's bytes, recorded beside the messages it was built from",
	"api-request-shape":     "a request's system prompt and tool list (read for the first call's system prompt and tools)",
	"system":                "a CLI notice (system line other than a compact boundary): local commands, hook summaries, turn durations, API errors",
	"synthetic assistant":   "an assistant line the CLI generated itself (model <synthetic>): an API error notice",
	ccOffChain:              "a message line off the chain Claude Code sends (parentUuid from the newest leaf): a branch left by a rewind, or a copy a resume appended",
	ccRepeated:              "a copy of what a line already read holds (its uuid, or the same tool call, block or tool result of the same response): a resumed session's file holds its chain again",
}

// ccOffChain is the known non-context kind of a message line off the
// active chain: Claude Code does not send it.
const ccOffChain = "off-chain line"

// ccRepeated is the known non-context kind of a line that repeats one
// already read. Claude Code sends the chain from the newest leaf along
// parentUuid once: the copies a resume appends add nothing to it.
const ccRepeated = "repeated line"

// ccKnownTypes are the line types Claude Code writes: the conversation's
// and those of [ccNonContext].
var ccKnownTypes = func() map[string]bool {
	m := map[string]bool{"user": true, "assistant": true, "system": true}
	for k := range ccNonContext {
		m[k] = true
	}
	return m
}()

// readClaudeCode reads a Claude Code session (or side-chain) JSONL file.
//
// Rules (FORMATS.md §4): user and assistant lines are kept, system lines
// only for compact_boundary, everything else skipped. Assistant lines with
// the same message.id are one model response: they merge into the message
// at the first line's position, and tool results follow in file order;
// the usage of the response is the last line's (streaming lines repeat it
// with a growing output_tokens). A file whose every message line is a
// side chain (a sub-agent or compaction call) is read as one trajectory.
// In a main session, side-chain lines (Claude Code 1.0.x kept Task
// sub-agents inline, isSidechain: true) are read as trajectories of their
// own, after the main one: Index 1, 2, … in the order each chain starts,
// ID the session id + "-sidechain-" + the agentId, or the chain's number
// when no agentId is recorded; a chain is the lines of one agentId, else
// the lines linked by parentUuid to a side-chain line without a side-chain
// parent. The main session's message lines are those of the chain
// Claude Code sends, from the newest leaf along parentUuid
// (claudecode_chain.go), or all of them in file order when the file
// holds no such chain; a side-chain file is read in file order. Content
// blocks of unknown types without text, and lines of unknown types that
// hold a message, are counted in [Trajectory].Dropped;
// a file without a line of a known type is refused.
func readClaudeCode(data []byte, name string) ([]*Trajectory, error) {
	return readClaudeCodeLines(newBytesLineReader(data), name)
}

// ccRun is one reading of a Claude Code file's lines into a trajectory.
type ccRun struct {
	t      *Trajectory
	b      ccBuilder
	md     meta
	shaped bool   // an api-request-shape line was read
	system string // the first api-request-shape's system prompt
	// chain, when not nil, holds the message lines until the file is
	// read, to read them in the order of the active chain (a main
	// session; see claudecode_chain.go).
	chain *ccChain
}

func newCCRun() *ccRun {
	t := &Trajectory{}
	return &ccRun{t: t, b: ccBuilder{t: t, byID: map[string]int{}, models: map[string]int{}, lastSeen: map[string]int{}, pending: -1, d: drops{},
		seen: map[string]bool{}, answered: map[string]bool{}}, md: meta{t: t}}
}

// sideRuns reads the inline side chains of a main session, each into a
// run of its own (see readClaudeCode).
type sideRuns struct {
	runs    []*ccRun
	agents  []string       // the agentId of each run, or ""
	byAgent map[string]int // agentId -> index in runs
	byUUID  map[string]int // uuid of a side-chain line -> index in runs
}

func newSideRuns() *sideRuns {
	return &sideRuns{byAgent: map[string]int{}, byUUID: map[string]int{}}
}

// chain returns the index of the run side-chain line r belongs to,
// opening a new one (with run, when not nil, as its reading) when r
// continues none, and records r's uuid and agentId as the run's.
func (s *sideRuns) chain(r *ccRecord, run *ccRun) int {
	k, ok := -1, false
	if r.AgentID != "" {
		k, ok = s.byAgent[r.AgentID]
	}
	if !ok && r.ParentUUID != "" {
		k, ok = s.byUUID[r.ParentUUID]
	}
	if !ok {
		k = len(s.runs)
		if run == nil {
			run = newCCRun()
		}
		s.runs = append(s.runs, run)
		s.agents = append(s.agents, "")
	}
	if r.AgentID != "" {
		s.byAgent[r.AgentID] = k
		s.agents[k] = r.AgentID
	}
	if r.UUID != "" {
		s.byUUID[r.UUID] = k
	}
	return k
}

// add reads side-chain line r into the run of its chain.
func (s *sideRuns) add(r *ccRecord) {
	s.runs[s.chain(r, nil)].add(r)
}

func (c *ccRun) add(r *ccRecord) {
	if c.t.ID == "" {
		c.t.ID = r.SessionID
	}
	if c.chain != nil {
		c.chain.note(r)
		if ccDeferred(r) {
			c.md.line(r.CWD, r.GitBranch, parseTime(r.Timestamp))
			return
		}
	}
	c.apply(r)
}

// flush reads the lines the chain held, in the order of the active
// chain; those off it are counted as known non-context.
func (c *ccRun) flush() {
	ch := c.chain
	if ch == nil {
		return
	}
	c.chain = nil
	order, chained := ch.order()
	read := make([]bool, len(ch.recs))
	for _, i := range order {
		read[i] = true
		c.apply(ch.recs[i])
	}
	if !chained {
		return
	}
	for i, ok := range read {
		switch {
		case ok:
		case ch.replaced[i]:
			ccNonContext.count(c.t, ccRepeated)
		default:
			ccNonContext.count(c.t, ccOffChain)
		}
	}
}

// apply reads line r into the run.
func (c *ccRun) apply(r *ccRecord) {
	t, b, md := c.t, &c.b, &c.md
	ts := parseTime(r.Timestamp)
	md.line(r.CWD, r.GitBranch, ts)
	md.stamp(len(t.Messages), time.Time{})
	switch r.Type {
	case "system":
		if r.Subtype != "compact_boundary" {
			ccNonContext.count(t, "system")
		}
		if r.Subtype == "compact_boundary" {
			c := Compaction{At: len(t.Messages)}
			if m := r.CompactMetadata; m != nil {
				c.Trigger, c.PreTokens = m.Trigger, int(m.PreTokens)
			}
			t.Compactions = append(t.Compactions, c)
			b.pending = len(t.Compactions) - 1
		}
	case "user", "assistant":
		if r.UUID != "" && b.seen[r.UUID] {
			ccNonContext.count(t, ccRepeated)
			break
		}
		if r.UUID != "" {
			b.seen[r.UUID] = true
		}
		if r.Type == "user" {
			b.user(*r)
		} else {
			b.assistant(*r)
		}
	case "api-request-shape":
		ccNonContext.count(t, r.Type)
		if !c.shaped {
			c.shape(r)
		}
	default:
		if !ccNonContext.count(t, r.Type) && r.Message != nil && r.Message.Role != "" {
			b.d.add(kindOf(dropRecord, r.Type))
		}
	}
	md.stamp(len(t.Messages), ts)
}

// readClaudeCodeLines reads the lines of lr one at a time: only the
// messages are kept, never the lines. Two readings run side by side
// until the file shows it is a main session (a user or assistant line
// that is not a side chain): one of the main session's lines, one of
// every line (the trajectory of a file that is all side chain). Then the
// second becomes the first side chain when it read messages (side-chain
// lines before the main session's first line are read as one chain), and
// each later side-chain line is read into its chain's run.
func readClaudeCodeLines(lr *lineReader, name string) ([]*Trajectory, error) {
	var probs []Problem
	mainRun, allRun := newCCRun(), newCCRun()
	mainRun.chain = newCCChain()
	side := newSideRuns()
	main, items, known := false, 0, 0
	unknown := map[string]int{} // line types not of Claude Code
	for {
		rec, ok := lr.next()
		if !ok {
			break
		}
		var r ccRecord
		if ok, p := decodeRecord(name, rec, &r); !ok {
			probs = append(probs, p)
			continue
		}
		if r.Type == "" {
			probs = append(probs, recProblem(name, rec, "not a Claude Code record (no type)"))
			continue
		}
		items++
		if ccKnownTypes[r.Type] {
			known++
		} else {
			unknown[r.Type]++
		}
		if !main && (r.Type == "user" || r.Type == "assistant") && !r.IsSidechain {
			main = true
			if len(allRun.t.Messages) == 0 {
				side = newSideRuns() // no chain read before: forget their lines
			}
			allRun = nil
		}
		switch {
		case !r.IsSidechain:
			mainRun.add(&r)
		case main:
			side.add(&r)
		default:
			side.chain(&r, allRun) // read by allRun, the first chain
		}
		if allRun != nil {
			allRun.add(&r)
		}
	}
	if lr.err != nil {
		return nil, fmt.Errorf("transcript: read %s: %w", displayName(name), lr.err)
	}
	if items == 0 {
		return nil, noRecords(name, probs, "Claude Code")
	}
	sortProblems(probs)
	run := mainRun
	if !main {
		run = allRun
	} else {
		mainRun.flush()
	}
	if known == 0 {
		return nil, &FormatError{File: name, Closest: FormatClaudeCode,
			Reason: "no line has a Claude Code record type (" + ccTypeList + "); its lines have type " + dropSummary(unknown)}
	}
	out := []*Trajectory{run.done()}
	run.t.Problems = probs
	if !main {
		return out, nil
	}
	var runs []*ccRun
	var agents []string
	for k, sr := range side.runs {
		if len(sr.t.Messages) > 0 {
			runs, agents = append(runs, sr), append(agents, side.agents[k])
		}
	}
	for i, sr := range runs {
		t := sr.done()
		t.Index = i + 1
		suffix := agents[i]
		if suffix == "" {
			suffix = strconv.Itoa(i + 1)
		}
		t.ID = firstNonEmpty(t.ID, run.t.ID) + "-sidechain-" + suffix
		t.Notes = append(t.Notes, fmt.Sprintf("inline side chain %d of %d (a Task sub-agent: isSidechain lines of the main session file)", i+1, len(runs)))
		out = append(out, t)
	}
	if n := len(runs); n > 0 {
		run.t.Notes = append(run.t.Notes, fmt.Sprintf("%d inline side chains (Task sub-agents, isSidechain lines) replayed as their own trajectories #1-#%d", n, n))
	}
	return out, nil
}

// ccTypeList names the Claude Code record types, for errors.
const ccTypeList = "user, assistant, system, progress, summary, …"

// shape takes the system prompt and tools of the run's first request
// from api-request-shape line r: Claude Code records them there (2.1.3xx)
// and nowhere else, so the first call is counted with them, as the
// provider counted it; later requests resend the same.
func (c *ccRun) shape(r *ccRecord) {
	system, tools := r.System, r.Tools
	for _, q := range []*ccShape{r.Shape, r.Request} {
		if q != nil && len(tools) == 0 && !system.array && system.s == "" {
			system, tools = q.System, q.Tools
		}
	}
	text := ccResultText(system)
	defs := toolDefs(tools)
	if text == "" && len(defs) == 0 {
		return
	}
	c.shaped, c.system = true, text
	if len(c.t.Tools) == 0 {
		c.t.Tools = defs
	}
}

// done completes the run's trajectory: its times, model and drops, and
// the system prompt of its first request shape, before its messages.
func (c *ccRun) done() *Trajectory {
	c.md.finish(len(c.t.Messages))
	if c.system != "" && len(c.t.Messages) > 0 {
		t := c.t
		t.Messages = slices.Insert(t.Messages, 0, chat.Message{Role: chat.RoleSystem, Parts: []chat.Part{chat.Text{Text: c.system}}})
		if t.Times != nil {
			t.Times = slices.Insert(t.Times, 0, t.Times[0])
		}
		for i := range t.Compactions {
			t.Compactions[i].At++
		}
	}
	c.t.Model = c.b.model()
	if len(c.b.d) > 0 {
		c.t.Dropped = c.b.d
	}
	return c.t
}

type ccBuilder struct {
	t        *Trajectory
	byID     map[string]int // message.id -> index in t.Messages
	models   map[string]int // model -> lines
	lastSeen map[string]int // model -> last line order
	seq      int
	pending  int   // index in t.Compactions of a boundary awaiting its summary, or -1
	d        drops // what was left out
	// seen holds the uuids of the user and assistant lines read, and
	// answered the tool_use ids a tool_result answered: a resumed
	// session's file can hold its chain again, whose copies add nothing.
	seen, answered map[string]bool
}

func (b *ccBuilder) model() string {
	best, bestN, bestLast := "", 0, -1
	for m, n := range b.models {
		if n > bestN || (n == bestN && b.lastSeen[m] > bestLast) {
			best, bestN, bestLast = m, n, b.lastSeen[m]
		}
	}
	return best
}

// ccContent is a content value (message.content, a tool_result's
// content) decoded where it stands, in the pass that decodes its line:
// a string (or anything but an array: its [str] text), or an array of
// blocks, where a string item is a text block and other items that are
// not objects are dropped. The zero value is an absent content: the
// string "".
type ccContent struct {
	present bool // the key was there, whatever its value
	array   bool
	s       string
	blocks  []ccBlock
}

// UnmarshalJSON decodes raw, which the decoder of the enclosing value
// has checked. It never fails: values of an unexpected type are skipped.
func (c *ccContent) UnmarshalJSON(raw []byte) error {
	*c = ccContent{present: true}
	if !rawArray(raw) {
		c.s = str(raw)
		return nil
	}
	c.array = true
	// One decoding of the whole array when every item is an object, as
	// almost all are; item by item otherwise. Room for one block, as
	// most contents hold (the fast decoder makes room for 10), doubled
	// as needed.
	c.blocks = make([]ccBlock, 0, 1)
	if err := jsonx.Unmarshal(raw, &c.blocks); !isTypeError(err) {
		return nil
	}
	c.blocks = nil
	var items []json.RawMessage
	_ = decodeLoose(raw, &items)
	for _, it := range items {
		var bl ccBlock
		if rawObject(it) {
			_ = decodeLoose(it, &bl)
		} else if s := str(it); s != "" {
			bl = ccBlock{Type: "text", Text: jsonText(s)}
		} else {
			continue
		}
		c.blocks = append(c.blocks, bl)
	}
	return nil
}

func (bl ccBlock) image() chat.Image {
	if bl.Source == nil {
		return chat.Image{}
	}
	if bl.Source.URL != "" {
		return chat.Image{Source: bl.Source.URL}
	}
	return chat.Image{Source: bl.Source.MediaType, Bytes: base64Size(bl.Source.Data)}
}

func (b *ccBuilder) user(r ccRecord) {
	var m ccMessage
	if r.Message != nil {
		m = *r.Message
	}
	t := b.t
	s, isString, blocks := m.Content.s, !m.Content.array, m.Content.blocks
	if r.IsCompactSummary {
		summary := s
		if !isString {
			var texts []string
			for _, bl := range blocks {
				if bl.Type == "text" {
					texts = append(texts, string(bl.Text))
				}
			}
			summary = strings.Join(texts, "\n")
		}
		if b.pending >= 0 {
			c := &t.Compactions[b.pending]
			c.At, c.Summary = len(t.Messages), summary
		} else {
			t.Compactions = append(t.Compactions, Compaction{At: len(t.Messages), Summary: summary})
		}
		b.pending = -1
	}
	if isString {
		t.Messages = append(t.Messages, chat.Message{Role: chat.RoleUser, Parts: textParts(s, nil), ID: r.UUID})
		return
	}
	var parts []chat.Part
	flush := func() {
		if len(parts) > 0 {
			t.Messages = append(t.Messages, chat.Message{Role: chat.RoleUser, Parts: parts, ID: r.UUID})
			parts = nil
		}
	}
	repeated := false // a tool result of the line was a copy
	defer func() {
		if repeated {
			ccNonContext.count(t, ccRepeated)
		}
	}()
	for _, bl := range blocks {
		switch bl.Type {
		case "tool_result":
			if bl.ToolUseID != "" && b.answered[bl.ToolUseID] {
				repeated = true
				continue
			}
			b.answered[bl.ToolUseID] = true
			flush()
			t.Messages = append(t.Messages, chat.Message{Role: chat.RoleTool, ID: r.UUID, Parts: []chat.Part{chat.ToolResult{
				ToolCallID: bl.ToolUseID, Content: ccResultText(bl.Content), IsError: bl.IsError,
			}}})
		case "image":
			parts = append(parts, bl.image())
		case "text":
			parts = append(parts, chat.Text{Text: string(bl.Text)})
		case "document":
			parts = append(parts, chat.Text{Text: "[document]"})
		default:
			if tx := string(bl.Text); tx != "" {
				parts = append(parts, chat.Text{Text: tx})
			} else {
				b.d.add(kindOf(dropBlock, bl.Type))
			}
		}
	}
	flush()
}

// open marks the tool calls of parts as awaiting their result: an id
// reused by a later response is answered again.
func (b *ccBuilder) open(parts []chat.Part) {
	for _, p := range parts {
		if c, ok := p.(chat.ToolCall); ok {
			delete(b.answered, c.ID)
		}
	}
}

// ccHasPart reports whether parts holds p already: a tool call of its id,
// or a text or thinking part equal to it (the lines of one response hold
// one block each; a second line with the same block is a copy).
func ccHasPart(parts []chat.Part, p chat.Part) bool {
	for _, q := range parts {
		switch p := p.(type) {
		case chat.ToolCall:
			if c, ok := q.(chat.ToolCall); ok && c.ID == p.ID && p.ID != "" {
				return true
			}
		case chat.Text:
			if x, ok := q.(chat.Text); ok && x.Text == p.Text && p.Text != "" {
				return true
			}
		case chat.Thinking:
			if x, ok := q.(chat.Thinking); ok && x.Text == p.Text && x.Signature == p.Signature && x.Encrypted == p.Encrypted {
				return true
			}
		}
	}
	return false
}

// ccResultText is a tool_result's content: the string, or the text of its
// blocks joined by "\n", with a note for each image block.
func ccResultText(c ccContent) string {
	if !c.array {
		return c.s
	}
	var texts []string
	for _, bl := range c.blocks {
		switch bl.Type {
		case "image":
			note := "[image]"
			if im := bl.image(); im.Source != "" {
				note = "[image: " + im.Source + "]"
			}
			texts = append(texts, note)
		default:
			if tx := string(bl.Text); tx != "" || bl.Type == "text" {
				texts = append(texts, tx)
			}
		}
	}
	return strings.Join(texts, "\n")
}

func (b *ccBuilder) assistant(r ccRecord) {
	var m ccMessage
	if r.Message != nil {
		m = *r.Message
	}
	if m.Model == syntheticModel {
		ccNonContext.count(b.t, "synthetic assistant")
		return
	}
	t := b.t
	var parts []chat.Part
	if !m.Content.array {
		parts = textParts(m.Content.s, nil)
	}
	for _, bl := range m.Content.blocks {
		switch bl.Type {
		case "text":
			parts = append(parts, chat.Text{Text: string(bl.Text)})
		case "thinking":
			parts = append(parts, chat.Thinking{Text: bl.Thinking, Signature: bl.Signature})
		case "redacted_thinking":
			parts = append(parts, chat.Thinking{Encrypted: bl.Data})
		case "tool_use", "server_tool_use", "mcp_tool_use":
			parts = append(parts, chat.ToolCall{ID: bl.ID, Name: bl.Name, Arguments: parseArgs(bl.Input)})
		case "image":
			parts = append(parts, bl.image())
		default:
			// Server-side tool results (web_search_tool_result, …) sit in
			// the assistant message itself; keep their content as text.
			if tx := string(bl.Text); tx != "" {
				parts = append(parts, chat.Text{Text: tx})
			} else if bl.Content.present {
				parts = append(parts, chat.Text{Text: ccResultText(bl.Content)})
			} else {
				b.d.add(kindOf(dropBlock, bl.Type))
			}
		}
	}
	var usage *chat.Usage
	if u := m.Usage; u != nil {
		usage = &chat.Usage{
			InputTokens:      int(u.InputTokens),
			OutputTokens:     int(u.OutputTokens),
			CacheReadTokens:  int(u.CacheReadInputTokens),
			CacheWriteTokens: int(u.CacheCreationInputTokens),
		}
		if usage.IsZero() {
			usage = nil
		}
	}
	if m.Model != "" {
		b.seq++
		b.models[m.Model]++
		b.lastSeen[m.Model] = b.seq
	}
	if m.ID != "" {
		if i, ok := b.byID[m.ID]; ok {
			n := len(parts)
			parts = slices.DeleteFunc(parts, func(p chat.Part) bool { return ccHasPart(t.Messages[i].Parts, p) })
			if len(parts) < n {
				ccNonContext.count(t, ccRepeated)
			}
			b.open(parts)
			t.Messages[i].Parts = append(t.Messages[i].Parts, parts...)
			if usage != nil {
				t.Messages[i].Usage = usage
			}
			return
		}
		b.byID[m.ID] = len(t.Messages)
	}
	b.open(parts)
	t.Messages = append(t.Messages, chat.Message{Role: chat.RoleAssistant, Parts: parts, ID: m.ID, Model: m.Model, Usage: usage})
}
