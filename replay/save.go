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

// saveOptions fills the engine options that save the replay as a session:
// the store, the id, the project and the origin
// ("replay:<format>:<file>[#index]"). The replay's model, budget, tool
// schemas and strategy are recorded by the engine itself (its
// configuration, which agentctx.Resume restores).
func saveOptions(tr *transcript.Trajectory, opts Options, eo agentctx.Options) (agentctx.Options, error) {
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
	return eo, nil
}
