package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/transcript"
)

// Metadata keys of a session saved by a replay ([Options].Store): the
// replay's model, budget, strategy and reserved tool-schema tokens, so
// that `agentctx inspect` can restore the window under the same options.
const (
	// MetaBudget is the replay's prompt budget in tokens, in decimal.
	MetaBudget = "replay_budget"
	// MetaStrategy is the name of the compaction strategy replayed.
	MetaStrategy = "replay_strategy"
	// MetaToolTokens is the size in tokens of the tool schemas the
	// transcript records, reserved in every prompt (window.Options
	// Reserved), in decimal.
	MetaToolTokens = "replay_tool_tokens"
	// MetaModel is the model the replay counted tokens for. The session's
	// own Model is the one its assistant messages name, which may be
	// spelled differently ("deepseek-chat" for "deepseek/deepseek-chat").
	MetaModel = "replay_model"
)

// saveOptions fills the engine options that save the replay as a session:
// the store, the id, the project, the origin
// ("replay:<format>:<file>[#index]") and the metadata.
func saveOptions(tr *transcript.Trajectory, res *Result, opts Options, eo agentctx.Options) (agentctx.Options, error) {
	project := opts.Project
	if project == "" {
		wd, err := os.Getwd()
		if err != nil {
			return eo, fmt.Errorf("replay: save: project: %w", err)
		}
		project = wd
	}
	if abs, err := filepath.Abs(project); err == nil {
		project = abs
	}
	file := tr.File
	if abs, err := filepath.Abs(file); err == nil && file != "" {
		file = abs
	}
	origin := "replay:" + string(tr.Format) + ":" + file
	if tr.Index > 0 {
		origin += "#" + strconv.Itoa(tr.Index)
	}
	if opts.SessionID != "" {
		// The engine would resume an existing session; a replay makes a
		// new one.
		if _, err := opts.Store.Get(context.Background(), opts.SessionID); err == nil {
			return eo, fmt.Errorf("replay: save %s: session %s: %w", tr.File, opts.SessionID, session.ErrExists)
		}
	}
	eo.Store, eo.SessionID, eo.Dir, eo.Origin = opts.Store, opts.SessionID, project, origin
	eo.Metadata = map[string]string{
		MetaBudget:     strconv.Itoa(res.Budget),
		MetaStrategy:   res.Strategy,
		MetaToolTokens: strconv.Itoa(res.ToolTokens),
		MetaModel:      res.Model,
	}
	return eo, nil
}
