package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/session"
)

// TaskToolName is the name of the sub-agent tool ([NewTask]).
const TaskToolName = "task"

// TaskOrigin is the Origin of the sessions the task tool starts.
const TaskOrigin = "task"

// TaskOptions configures [NewTask].
type TaskOptions struct {
	// Parent is the engine of the session the sub-agents work for: each
	// sub-agent's session is linked to it ([session.MetaParent]).
	// Required.
	Parent *agentctx.Engine
	// Engine is the template of a sub-agent's engine options: its store,
	// project, model, budget, system prompt, tool definitions (the task
	// tool's is dropped), summarizer. SessionID, Origin ([TaskOrigin])
	// and the link metadata are the task tool's own. Required: Store.
	Engine agentctx.Options
	// Model answers the sub-agents. Required.
	Model provider.Model
	// Tools returns a sub-agent's tools over its engine; a task tool
	// among them is dropped (a sub-agent starts no sub-agent). Required.
	Tools func(*agentctx.Engine) []tools.Tool
	// Permission decides the sub-agents' tool calls: the parent's, so
	// that a sub-agent may do what its parent may, no more. Optional, as
	// in [Options].
	Permission Permission
	// Checkpoints records the files a sub-agent's writes change, in the
	// parent's current turn: the parent's Options.Checkpoints. Optional.
	Checkpoints *Checkpoints
	// MaxTurns caps a sub-agent's model calls. Optional. Defaults to 50.
	MaxTurns int
}

// SubAgent says which sub-agent an [Event] comes from.
type SubAgent struct {
	// CallID is the id of the parent's task call that runs it.
	CallID string `json:"call_id"`
	// SessionID is the sub-agent's session.
	SessionID string `json:"session_id"`
	// Description is the task's short description.
	Description string `json:"description,omitempty"`
}

// task is the task tool.
type task struct{ o TaskOptions }

// NewTask returns the task tool: the model delegates a self-contained
// piece of work (a search through many files, a survey, a review) to a
// sub-agent that runs on its own Engine session — its own window and
// budget, the parent's tools but this one, the same permissions — and
// gets back only the sub-agent's final answer and its session's id, not
// what the sub-agent read on the way (Claude Code's Task tool). The
// sub-agent's events reach the parent's [Options.Events] with
// [Event.Agent] set. Calls of this tool in one reply run at the same
// time. Errors: an option missing, named.
func NewTask(o TaskOptions) (tools.Tool, error) {
	switch {
	case o.Parent == nil:
		return nil, errors.New("agent: task tool: no Parent engine")
	case o.Engine.Store == nil:
		return nil, errors.New("agent: task tool: no Store in the Engine options")
	case o.Model == nil:
		return nil, errors.New("agent: task tool: no Model")
	case o.Tools == nil:
		return nil, errors.New("agent: task tool: no Tools")
	}
	return task{o}, nil
}

// TaskDef is the task tool's definition, for an engine's Options.Tools
// before the tool itself can be made.
func TaskDef() chat.ToolDef { return task{}.Def() }

func (task) Def() chat.ToolDef {
	return chat.ToolDef{
		Name: TaskToolName,
		Description: "Delegate a self-contained task to a sub-agent with its own fresh context and your tools (but this one). " +
			"Use it for work that reads a lot to answer a little: searching or surveying many files, reviewing a change. " +
			"Only its final answer comes back to you, with its session id. Say in the prompt everything it needs and what to report; " +
			"it does not see this conversation. Several task calls in one reply run at the same time.",
		Parameters: tools.Schema(map[string]any{
			"description": map[string]any{"type": "string", "description": "A short (3-5 words) description of the task."},
			"prompt":      map[string]any{"type": "string", "description": "The task for the sub-agent, self-contained, and what to report back."},
			"resume":      map[string]any{"type": "string", "description": "The session id of an earlier sub-agent of yours, to continue it with this prompt. Optional."},
		}, "description", "prompt"),
	}
}

func (task) Access() tools.Access { return tools.AccessRead }

// Concurrent implements [ConcurrentTool]: sub-agents run side by side.
func (task) Concurrent() bool { return true }

func (t task) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Description string `json:"description"`
		Prompt      string `json:"prompt"`
		Resume      string `json:"resume"`
	}
	fail := func(format string, args ...any) chat.ToolResult {
		return chat.ToolResult{ToolCallID: call.ID, ToolName: call.Name, Content: "Error: " + fmt.Sprintf(format, args...), IsError: true}
	}
	if err := tools.Decode(call, &a); err != nil {
		return fail("%v", err)
	}
	a.Prompt, a.Description = strings.TrimSpace(a.Prompt), strings.TrimSpace(a.Description)
	if a.Prompt == "" {
		return fail("prompt is required")
	}
	o := t.o
	opts := o.Engine
	opts.SessionID, opts.Origin, opts.ReadOnly = "", TaskOrigin, false
	opts.Tools = nil
	for _, d := range o.Engine.Tools {
		if d.Name != TaskToolName {
			opts.Tools = append(opts.Tools, d)
		}
	}
	opts.Metadata = maps.Clone(o.Engine.Metadata)
	if opts.Metadata == nil {
		opts.Metadata = map[string]string{}
	}
	opts.Metadata[session.MetaParent] = o.Parent.ID()
	opts.Metadata[session.MetaTask] = a.Description
	var child *agentctx.Engine
	var err error
	if a.Resume != "" {
		s, gerr := opts.Store.Get(ctx, a.Resume)
		if gerr != nil {
			return fail("resume %s: %v", a.Resume, gerr)
		}
		if s.Metadata[session.MetaParent] != o.Parent.ID() || s.Metadata[session.MetaTask] == "" {
			return fail("resume %s: not a sub-agent of this session", a.Resume)
		}
		opts.Metadata = nil
		child, err = agentctx.Resume(ctx, a.Resume, opts)
	} else {
		child, err = agentctx.Open(ctx, opts)
	}
	if err != nil {
		return fail("start the sub-agent: %v", err)
	}
	defer child.Close()
	sub := &SubAgent{CallID: call.ID, SessionID: child.ID(), Description: a.Description}
	forward := emitterOf(ctx)
	var ts []tools.Tool
	for _, x := range o.Tools(child) {
		if x.Def().Name != TaskToolName {
			ts = append(ts, x)
		}
	}
	ag, err := New(Options{
		Engine: child, Model: o.Model, Tools: ts, Permission: o.Permission, MaxTurns: o.MaxTurns, Checkpoints: o.Checkpoints,
		Events: func(ev Event) {
			ev.Agent = sub
			forward(ev)
		},
	})
	if err != nil {
		return fail("start the sub-agent: %v", err)
	}
	ag.nested = true
	res, err := ag.Run(ctx, a.Prompt)
	note := fmt.Sprintf("\n\n[sub-agent session %s: %d model calls, %d tool calls; its whole transcript is stored (agentctx sessions show %s); task with resume=%q continues it]",
		child.ID(), res.ModelCalls, res.ToolCalls, child.ID(), child.ID())
	switch {
	case err != nil:
		return fail("the sub-agent failed: %v%s", err, note)
	case res.StopReason == StopDenied:
		return fail("the sub-agent stopped: %s%s", res.Refusal.Error(), note)
	case res.StopReason != StopDone:
		return fail("the sub-agent stopped (%s) before answering; its last text: %s%s", res.StopReason, res.Text, note)
	}
	return chat.ToolResult{ToolCallID: call.ID, ToolName: call.Name, Content: strings.TrimSpace(res.Text) + note}
}

// ConcurrentTool is a tool whose calls may run at the same time as the
// other calls of such tools in the same reply ([NewTask]'s sub-agents):
// [Agent.Run] starts them together and adds their results in the reply's
// order.
type ConcurrentTool interface {
	tools.Tool
	// Concurrent reports whether calls may run side by side.
	Concurrent() bool
}

// emitterKey carries, in a tool call's context, the running agent's
// event sink, so that a sub-agent's events reach it.
type emitterKey struct{}

// emitterOf returns the event sink ctx carries, or one that drops.
func emitterOf(ctx context.Context) func(Event) {
	if f, ok := ctx.Value(emitterKey{}).(func(Event)); ok {
		return f
	}
	return func(Event) {}
}
