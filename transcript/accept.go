package transcript

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// What a reader requires, and what it says when an input does not meet
// it (issue 18: refuse rather than guess).
//
// Each reader states its requirement in its own code: the records it
// recognises (a Claude Code line of a known type, a Codex rollout line,
// an OpenAI message with a role, …). What a reader reads but does not
// understand (a content block of an unknown type, a message without a
// role, a record of an unknown type that holds a message) is left out
// and counted in [Trajectory].Dropped. [Read] then refuses, with a
// [*FormatError] naming the format that came closest, an input that no
// reader accepts fully:
//
//   - one where the reader read no message although it left something
//     out (an empty replay of a file that was not empty);
//   - one where more than half of what the reader met was left out
//     ([refuseShare]);
//   - one that shows another format's tool calls or results where the
//     reader would drop them ([Trajectory.DroppedPairing]: Anthropic
//     tool_use and tool_result blocks in an OpenAI message list, a
//     Cline api_conversation_history.json);
//   - one without a single record the reader knows (a Codex rollout
//     read as Claude Code).

// refuseShare is the share of dropped items above which [Read] refuses
// an input rather than return what is left: more than half of it.
const refuseShare = 0.5

// TraceShare is the share of dropped items, against the messages read,
// that is still "a trace": `agentctx replay --strict` fails above it
// (and on any dropped tool call or tool result, see
// [Trajectory].DroppedPairing). 1 %, a choice of this package.
const TraceShare = 0.01

// FormatError reports an input that no reader accepts fully: Closest is
// the format its shape came nearest (the one detected, or the one
// forced by [Options].Format when Forced), Reason what did not match.
// Tried, when set, is a format forced by [Options].Format that failed on
// an input another reader reads: Closest is then that format, and Calls
// the model calls its reader reads (issue 28). It unwraps to
// [ErrUnknownFormat], whose message lists the known formats. Pass the
// right format in [Options].Format if Closest is wrong, or convert the
// file; nothing was read.
type FormatError struct {
	File    string
	Closest Format
	Forced  bool
	Reason  string
	Tried   Format
	Calls   int
}

// Error formats the error as "transcript: FILE: not a CLOSEST transcript:
// REASON", followed by the known formats when the format was detected;
// with Tried, "transcript: FILE: not a TRIED transcript (--format
// TRIED): REASON; it reads as CLOSEST (CALLS model calls): --format
// CLOSEST".
func (e *FormatError) Error() string {
	switch {
	case e.Tried != "":
		return fmt.Sprintf("transcript: %s: not a %s transcript (--format %s): %s; it reads as %s (%s): --format %s", displayName(e.File), e.Tried, e.Tried, e.Reason, e.Closest, modelCallsText(e.Calls), e.Closest)
	case e.Forced:
		return fmt.Sprintf("transcript: %s: not a %s transcript (--format %s): %s", displayName(e.File), e.Closest, e.Closest, e.Reason)
	}
	return fmt.Sprintf("transcript: %s: closest format %s, but %s: %v", displayName(e.File), e.Closest, e.Reason, ErrUnknownFormat)
}

// modelCallsText is "1 model call" or "N model calls".
func modelCallsText(n int) string {
	if n == 1 {
		return "1 model call"
	}
	return fmt.Sprintf("%d model calls", n)
}

// Unwrap returns [ErrUnknownFormat].
func (e *FormatError) Unwrap() error { return ErrUnknownFormat }

// drops counts what a reader left out, by kind. A nil drops counts
// nothing (the detectors' reading of a value).
type drops map[string]int

func (d drops) add(kind string) {
	if d != nil {
		d[kind]++
	}
}

// Kinds of dropped items. Each is the start of a [Trajectory].Dropped
// key; the quoted type follows where there is one.
const (
	dropBlock     = "content block"                            // + ` "type"`: a content part or block of a type the reader does not know
	dropNoRole    = "message without role"                     // an OpenAI-style message with no role
	dropRecord    = "record"                                   // + ` "type"`: a line of an unknown type that holds a message
	dropItem      = "item"                                     // + ` "type"`: a Codex response item of an unknown type
	dropToolBlock = "tool block"                               // + ` "type"`: a tool call or result the reader cannot pair (Anthropic blocks in OpenAI messages)
	dropWrapped   = `message with its content under "message"` // a {role, message: {content}} record read as an OpenAI message
)

func kindOf(prefix, typ string) string {
	if typ == "" {
		return prefix + " without type"
	}
	return prefix + " " + strconv.Quote(typ)
}

// droppedTotal is the number of items t's reader left out.
func droppedTotal(t *Trajectory) int {
	n := 0
	for _, v := range t.Dropped {
		n += v
	}
	return n
}

// DroppedPairing counts the dropped items that were tool calls or tool
// results: any is more than a trace, for it changes what the rounds
// hold.
func (t *Trajectory) DroppedPairing() int {
	n := 0
	for k, v := range t.Dropped {
		if strings.HasPrefix(k, dropToolBlock) {
			n += v
		}
	}
	return n
}

// MoreThanTrace reports whether t's reader left out more than a trace
// of the input: more than [TraceShare] of the messages read, at least
// one item, or any tool call or result ([Trajectory.DroppedPairing]).
func (t *Trajectory) MoreThanTrace() bool {
	n := droppedTotal(t)
	if n == 0 {
		return false
	}
	return t.DroppedPairing() > 0 || float64(n) > TraceShare*float64(len(t.Messages))
}

// DroppedSummary lists t.Dropped as "N KIND" items, most frequent
// first, for a warning line; "" when nothing was dropped.
func (t *Trajectory) DroppedSummary() string {
	return dropSummary(t.Dropped)
}

func dropSummary(d map[string]int) string {
	keys := slices.Collect(maps.Keys(d))
	slices.SortFunc(keys, func(a, b string) int {
		if d[a] != d[b] {
			return d[b] - d[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", d[k], k))
	}
	return strings.Join(parts, ", ")
}

// accept applies the rules above to the trajectories a reader of format
// f returned for the input name: a *FormatError when the input is
// refused, else nil. forced tells whether f was forced.
func accept(trajs []*Trajectory, name string, f Format, forced bool) error {
	fe := func(reason string) error {
		return &FormatError{File: name, Closest: f, Forced: forced, Reason: reason}
	}
	msgs, dropped, tool := 0, map[string]int{}, map[string]int{}
	for _, t := range trajs {
		msgs += len(t.Messages)
		for k, v := range t.Dropped {
			if typ, ok := strings.CutPrefix(k, dropToolBlock+" "); ok {
				tool[typ] += v
			}
		}
		for k, v := range t.Dropped {
			dropped[k] += v
		}
	}
	n := 0
	for _, v := range dropped {
		n += v
	}
	switch {
	case len(tool) > 0:
		return fe("its messages hold tool calls or results of another format, which this reader would drop (" + dropSummary(tool) +
			"; Anthropic content blocks: a Cline/Roo api_conversation_history.json or an Anthropic messages list?)")
	case msgs == 0 && n == 0 && forced:
		return fe("no message read")
	case n == 0:
		return nil
	case msgs == 0:
		return fe("no message read; left out " + dropSummary(dropped))
	case float64(n) > refuseShare*float64(n+msgs):
		return fe(fmt.Sprintf("%d messages read, %d items left out (%s)", msgs, n, dropSummary(dropped)))
	}
	return nil
}

// forcedError marks a [*FormatError] of a reader as the error of a
// format forced by [Options].Format when forced.
func forcedError(err error, forced bool) error {
	var fe *FormatError
	if forced && errors.As(err, &fe) {
		fe.Forced = true
	}
	return err
}
