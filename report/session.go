package report

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/transcript"
)

// FromSession returns the report of stored session id: its history (every
// message as it entered the session, without the snapshots compaction
// wrote: [session.History]) is replayed ([FromTrajectory]) under the
// configuration the session recorded (model, budget, system prompt, tool
// schemas, compaction strategy), which opts.Model, opts.Budget and
// opts.Strategy override when set. A recorded strategy that summarizes
// with a model summarizes with the extractive summarizer instead, unless
// opts.Strategy says otherwise: a report calls no model. A session
// that recorded none is replayed for the model it or its messages name.
// The replay reproduces the engine's compactions when the session ran
// with the same strategy; the session's workspace context is not
// gathered again. Nothing is written to the store. Errors: the store's
// (session.ErrNotFound for an unknown id), [FromTrajectory]'s.
func FromSession(ctx context.Context, st session.Store, id string, opts replay.Options) (*Report, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, err
	}
	tr, err := st.Load(ctx, id, session.LoadOptions{All: true})
	if err != nil {
		return nil, fmt.Errorf("report: load %s: %w", id, err)
	}
	msgs, _ := session.Messages(session.History(tr.Entries))
	cfg := recordedConfig(tr.Entries)
	traj := &transcript.Trajectory{
		File: id, ID: id, Format: "session", Model: cfg.Model, Tools: cfg.tools(),
	}
	if traj.Model == "" {
		traj.Model = tr.Session.Model
	}
	if traj.Model == "" {
		traj.Model = lastModel(msgs)
	}
	if cfg.SystemPrompt != "" && (len(msgs) == 0 || msgs[0].Role != chat.RoleSystem) {
		msgs = append([]chat.Message{chat.NewText(chat.RoleSystem, cfg.SystemPrompt)}, msgs...)
	}
	traj.Messages = msgs
	if opts.Budget == 0 {
		opts.Budget = cfg.Budget
	}
	if opts.Strategy == nil {
		if opts.Strategy, err = cfg.strategy(opts); err != nil {
			return nil, fmt.Errorf("report: session %s: %w", id, err)
		}
	}
	rep, err := FromTrajectory(ctx, traj, opts)
	if err != nil {
		return nil, err
	}
	rep.Source, rep.Format, rep.Title = id, "session", "session "+id
	if t := tr.Session.Title; t != "" {
		rep.Title += ": " + t
	}
	rep.Note = fmt.Sprintf("Reconstructed: the session's %d messages replayed under its recorded model and budget.", len(msgs))
	return rep, nil
}

// config is the part of the engine's recorded configuration (the
// "config" of its state entries, written by package agentctx) a replay
// needs.
type config struct {
	Model        string `json:"model"`
	Budget       int    `json:"budget"`
	SystemPrompt string `json:"system_prompt"`
	// Strategy is the recorded strategy: {"name": …, its parameters}.
	Strategy json.RawMessage `json:"strategy"`
	Tools    []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  string `json:"parameters"`
	} `json:"tools"`
}

// tools returns the recorded tool schemas.
func (c config) tools() []chat.ToolDef {
	var out []chat.ToolDef
	for _, t := range c.Tools {
		d := chat.ToolDef{Name: t.Name, Description: t.Description}
		if t.Parameters != "" && json.Valid([]byte(t.Parameters)) {
			d.Parameters = json.RawMessage(t.Parameters)
		}
		out = append(out, d)
	}
	return out
}

// strategy builds the recorded strategy (nil when none is recorded: the
// replay's default) without a model summarizer.
func (c config) strategy(opts replay.Options) (compact.Strategy, error) {
	var fields map[string]json.RawMessage
	if len(c.Strategy) == 0 || json.Unmarshal(c.Strategy, &fields) != nil {
		return nil, nil
	}
	var name string
	if err := json.Unmarshal(fields["name"], &name); err != nil || name == "" {
		return nil, nil
	}
	delete(fields, "name")
	var params json.RawMessage
	if len(fields) > 0 {
		var err error
		if params, err = json.Marshal(fields); err != nil {
			return nil, err
		}
	}
	return compact.Build(name, params, compact.BuildOptions{Logger: opts.Logger})
}

// recordedConfig returns the last configuration the entries record, the
// zero config when none does.
func recordedConfig(entries []session.Entry) config {
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if e.Type != session.TypeState || len(e.State) == 0 {
			continue
		}
		var s struct {
			Config *config `json:"config"`
		}
		if json.Unmarshal(e.State, &s) == nil && s.Config != nil {
			return *s.Config
		}
	}
	return config{}
}

// lastModel returns the model the last assistant message that names one
// names, or "".
func lastModel(msgs []chat.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i].Model; msgs[i].Role == chat.RoleAssistant && m != "" && m != "<synthetic>" {
			return m
		}
	}
	return ""
}
