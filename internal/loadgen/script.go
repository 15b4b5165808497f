package loadgen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/transcript"
)

// OpKind names one step of an agent's turn, as the API has a route for it.
type OpKind string

// The steps of a turn.
const (
	// OpMessages adds the user and tool messages since the last reply
	// (POST .../messages).
	OpMessages OpKind = "messages"
	// OpRequest gets the next model call's request (POST .../request).
	OpRequest OpKind = "request"
	// OpReply reports the model's reply (POST .../reply).
	OpReply OpKind = "reply"
	// OpCompact compacts now with instructions (POST .../compact).
	OpCompact OpKind = "compact"
	// OpInspect looks at the window (GET .../inspect). It writes nothing.
	OpInspect OpKind = "inspect"
	// OpRecall reads a tool call's full output back (GET
	// .../outputs/{call_id}). It writes nothing; 404 (no output kept for
	// the call: it was not cut) is an answer too.
	OpRecall OpKind = "recall"
)

// Op is one step of a session's script.
type Op struct {
	Kind OpKind
	// Messages are the messages of OpMessages, one for OpReply (the
	// assistant's reply).
	Messages []chat.Message
	// Instructions are OpCompact's.
	Instructions string
	// CallID is OpRecall's tool call.
	CallID string
}

// Script is one session's replayed trajectory: the options its session
// is created with and its steps in order.
type Script struct {
	// File is the transcript the steps come from (relative to the data
	// folder) and Index the trajectory's index in it.
	File  string
	Index int
	// Budget is the session's prompt budget in tokens: small, so that
	// compaction runs on the longer trajectories.
	Budget int
	Ops    []Op
}

// Trajectories reads every trajectory of the files, skipping those with
// fewer than two assistant messages and those that use one tool call id
// for two calls (no provider accepts that in one conversation, and an
// Engine resumed from the store pairs such results with their calls
// otherwise than the live one did). Errors: a file that cannot be read.
func Trajectories(files []string) ([]*transcript.Trajectory, error) {
	var out []*transcript.Trajectory
	for _, f := range files {
		ts, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			return nil, fmt.Errorf("loadgen: %s: %w", f, err)
		}
		for _, t := range ts {
			n := 0
			ids := map[string]bool{}
			unique := true
			for _, m := range t.Messages {
				if m.Role != chat.RoleAssistant {
					continue
				}
				n++
				for _, c := range m.ToolCalls() {
					unique = unique && !ids[c.ID]
					ids[c.ID] = true
				}
			}
			if n >= 2 && unique {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// Compaction instructions a script asks for now and then.
var instructions = []string{
	"Keep the file paths and the failing test names.",
	"Keep the decisions made and what is left to do.",
	"",
}

// NewScript turns trajectory t into a session's steps, as an agent that
// replays it would call the API: the messages before each assistant
// message in one OpMessages, then OpRequest, then OpReply with the
// assistant message; after a reply, now and then an OpInspect (1 in 8),
// an OpCompact (1 in 25) or an OpRecall of the last tool call (1 in 10).
// At most maxTurns model calls (0: all). rng picks the extras; the same
// seed gives the same script. System messages are left out: the system
// prompt is the session's.
func NewScript(t *transcript.Trajectory, maxTurns, budget int, rng *rand.Rand) Script {
	s := Script{File: t.File, Index: t.Index, Budget: budget}
	var batch []chat.Message
	lastCall := ""
	turns := 0
	for _, m := range t.Messages {
		switch m.Role {
		case chat.RoleSystem:
			continue
		case chat.RoleAssistant:
		default:
			batch = append(batch, m)
			continue
		}
		if maxTurns > 0 && turns == maxTurns {
			break
		}
		turns++
		if len(batch) > 0 {
			s.Ops = append(s.Ops, Op{Kind: OpMessages, Messages: batch})
			batch = nil
		}
		s.Ops = append(s.Ops, Op{Kind: OpRequest}, Op{Kind: OpReply, Messages: []chat.Message{m}})
		for _, c := range m.ToolCalls() {
			lastCall = c.ID
		}
		switch r := rng.IntN(200); {
		case r < 25:
			s.Ops = append(s.Ops, Op{Kind: OpInspect})
		case r < 33:
			s.Ops = append(s.Ops, Op{Kind: OpCompact, Instructions: instructions[rng.IntN(len(instructions))]})
		case r < 53 && lastCall != "":
			s.Ops = append(s.Ops, Op{Kind: OpRecall, CallID: lastCall})
		}
	}
	return s
}

// roundTrip gives msgs as the server decodes them from the chat JSON
// form, so that the reference Engine gets the very same messages.
func roundTrip(msgs []chat.Message) ([]chat.Message, error) {
	b, err := json.Marshal(msgs)
	if err != nil {
		return nil, err
	}
	var out []chat.Message
	return out, json.Unmarshal(b, &out)
}
