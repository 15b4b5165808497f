package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
)

// live is a restored live window and where it came from.
type live struct {
	// Source is the session id or the file.
	Source string
	// Session is the stored session's metadata; nil for a file.
	Session *session.Session
	// Format is the transcript format of a file ("" for a stored session).
	Format string
	// Index is the trajectory's position in a file holding several.
	Index int
	Info  model.Info
	// Budget is the prompt budget in tokens; BudgetSource says where it
	// came from: "flag", the policy's name (a file), or, for a stored
	// session, agentctx.Engine.BudgetSource's (the recorded one).
	Budget       int
	BudgetSource string
	Window       *window.Window
	// Problems are what loading skipped or repaired.
	Problems []session.Problem
	// SummaryAt is the index in Window of a Claude Code compaction
	// summary restored as a plain user message (Claude Code's convention:
	// the summary is the first user message of the new context), or -1.
	SummaryAt int
}

// summaryIndex returns the index in w of the user message restored from
// the isCompactSummary entry of entries' live part when w has no
// compaction note of its own, else -1.
func summaryIndex(entries []session.Entry, w *window.Window) int {
	if w.Note() >= 0 {
		return -1
	}
	start, _ := session.Live(entries)
	for k := start; k < len(entries); k++ {
		e := &entries[k]
		if !e.IsCompactSummary {
			continue
		}
		msgs, err := e.Messages()
		if err != nil || len(msgs) != 1 {
			return -1
		}
		text := msgs[0].Text()
		for i := range w.Len() {
			if m := w.At(i); m.Role == chat.RoleUser && m.Text() == text {
				return i
			}
		}
		return -1
	}
	return -1
}

// windowFor returns the window options to restore a transcript file
// under: the model's counter and the budget (flag, else the default
// policy's).
func windowFor(lv *live, modelName string, budget int) (window.Options, error) {
	lv.Info = model.Lookup(modelName)
	c, err := model.Counter(lv.Info)
	if err != nil {
		return window.Options{}, err
	}
	switch {
	case budget > 0:
		lv.Budget, lv.BudgetSource = budget, "flag"
	default:
		lv.Budget, lv.BudgetSource = model.DefaultPolicy.Budget(lv.Info), model.DefaultPolicy.Name()
	}
	return window.Options{Budget: lv.Budget, Counter: c}, nil
}

// pickModel returns the first non-empty name, else replay.DefaultModel.
func pickModel(names ...string) string {
	for _, n := range names {
		if n != "" {
			return n
		}
	}
	return replay.DefaultModel
}

// entriesModel returns the model of the last assistant entry that names
// one, or "".
func entriesModel(entries []session.Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if e.Type != session.TypeAssistant {
			continue
		}
		msgs, err := e.Messages()
		if err != nil {
			continue
		}
		for _, m := range msgs {
			if m.Model != "" && m.Model != "<synthetic>" {
				return m.Model
			}
		}
	}
	return ""
}

// restoreStored restores the live window of session id in st as the
// library resumes it (agentctx.Resume, read-only: nothing is written to
// the session): under the configuration the session recorded (model,
// budget, tool schemas), which modelName and budget, when set, override.
// A session that recorded none (imported, or older) is restored for
// modelName, else its model, else the one its assistant messages name,
// under budget, else that model's default budget.
func restoreStored(ctx context.Context, st session.Store, id, modelName string, budget int) (*live, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, usageError{err}
	}
	tr, err := st.Load(ctx, id, session.LoadOptions{})
	if err != nil {
		return nil, storeError("load", id, err)
	}
	recorded, err := hasConfig(ctx, st, id)
	if err != nil {
		return nil, storeError("load", id, err)
	}
	s := tr.Session
	opts := agentctx.Options{Store: st, Model: modelName, Budget: budget, ReadOnly: true, NoWorkspace: !recorded}
	if !recorded {
		opts.Model = pickModel(modelName, s.Model, entriesModel(tr.Entries))
	}
	eng, err := agentctx.Resume(ctx, id, opts)
	if err != nil {
		return nil, storeError("load", id, err)
	}
	w, err := eng.CloseWindow()
	if err != nil {
		return nil, storeError("load", id, err)
	}
	lv := &live{Source: id, Session: &s, Info: eng.Model(), Budget: eng.Budget(), BudgetSource: eng.BudgetSource(), Window: w}
	if budget > 0 {
		lv.BudgetSource = "flag"
	}
	lv.SummaryAt = summaryIndex(tr.Entries, w)
	lv.Problems = tr.Problems
	return lv, nil
}

// restoreFile restores the live window(s) of a transcript file. A Claude
// Code file (or an agentctx session file, which has the same lines) goes
// through the session package: the live part from the last compact
// boundary, the parentUuid chain resolved, the window restored. Other
// formats are read with package transcript; the window holds the
// messages from the last recorded compaction on (a Codex compaction's
// replacement history, then what followed).
func restoreFile(ctx context.Context, path, modelName string, budget int) ([]*live, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	format, err := transcript.Detect(data)
	if err != nil {
		return nil, err
	}
	if format == transcript.FormatClaudeCode {
		return restoreSessionFile(path, modelName, budget)
	}
	trs, err := transcript.ReadFile(path, transcript.Options{Format: format})
	if err != nil {
		return nil, err
	}
	var out []*live
	for _, tr := range trs {
		lv := &live{Source: path, Format: string(tr.Format), Index: tr.Index, SummaryAt: -1}
		if _, err := windowFor(lv, pickModel(modelName, tr.Model), budget); err != nil {
			return nil, err
		}
		msgs := tr.Messages
		if n := len(tr.Compactions); n > 0 {
			c := tr.Compactions[n-1]
			if c.Replacement != nil {
				msgs = append(append([]chat.Message(nil), c.Replacement...), tr.Messages[min(c.At, len(tr.Messages)):]...)
			}
		}
		if lv.Window, err = engineWindow(ctx, lv, tr.Tools, msgs); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, lv)
	}
	return out, nil
}

// engineWindow returns the window an engine (no store, no workspace,
// limiter, working memory or reminders) builds from msgs, added as a live
// agent adds them: a tool result whose call is not in the window goes in
// as user text saying so (the Engine's rule). A message the window
// rejects is left out and noted in lv.Problems.
func engineWindow(ctx context.Context, lv *live, tools []chat.ToolDef, msgs []chat.Message) (*window.Window, error) {
	eng, err := agentctx.Open(ctx, agentctx.Options{
		Model: lv.Info.Name, Budget: lv.Budget, Tools: tools,
		NoWorkspace: true, NoLimit: true, NoWorkingMemory: true, NoReminders: true,
	})
	if err != nil {
		return nil, err
	}
	for i, m := range msgs {
		if err := eng.Add(ctx, m); err != nil {
			lv.Problems = append(lv.Problems, session.Problem{Kind: session.ProblemUnreadable, Detail: fmt.Sprintf("message %d: %v", i, err)})
		}
	}
	return eng.CloseWindow()
}

// restoreSessionFile restores the window of a Claude Code or agentctx
// session file.
func restoreSessionFile(path, modelName string, budget int) ([]*live, error) {
	entries, probs, err := session.ReadFile(path)
	if err != nil {
		return nil, err
	}
	resolved, p := session.Resolve(entries)
	probs = append(probs, p...)
	_, p = session.Live(resolved)
	probs = append(probs, p...)
	lv := &live{Source: path, Format: string(transcript.FormatClaudeCode), SummaryAt: -1}
	opts, err := windowFor(lv, pickModel(modelName, entriesModel(entries)), budget)
	if err != nil {
		return nil, err
	}
	w, p, err := session.Restore(resolved, opts)
	if err != nil {
		return nil, fmt.Errorf("restore %s: %w", path, err)
	}
	lv.Window, lv.SummaryAt = w, summaryIndex(resolved, w)
	lv.Problems = append(probs, p...)
	return []*live{lv}, nil
}
