package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
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

// saveBatch is how many messages are appended at once. Messages are
// written before each compaction and at the end whatever the count, so
// batching changes nothing in the saved session, only the number of
// writes.
const saveBatch = 64

// saver writes a replay into a session store.
type saver struct {
	rec     *session.Recorder
	id      string
	pending []chat.Message
}

func newSaver(ctx context.Context, tr *transcript.Trajectory, res *Result, opts Options) (*saver, error) {
	project := opts.Project
	if project == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("replay: save: project: %w", err)
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
	s, err := opts.Store.Create(ctx, session.Session{
		ID:      opts.SessionID,
		Project: project,
		Model:   res.Model,
		Origin:  origin,
		Metadata: map[string]string{
			MetaBudget:     strconv.Itoa(res.Budget),
			MetaStrategy:   res.Strategy,
			MetaToolTokens: strconv.Itoa(res.ToolTokens),
			MetaModel:      res.Model,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("replay: save %s: %w", tr.File, err)
	}
	res.SessionID = s.ID
	return &saver{rec: session.NewRecorder(opts.Store, s.ID), id: s.ID}, nil
}

// add queues m, the message just added to the window.
func (s *saver) add(m chat.Message) {
	s.pending = append(s.pending, m)
}

// flush appends the queued messages.
func (s *saver) flush(ctx context.Context) error {
	if len(s.pending) == 0 {
		return nil
	}
	if err := s.rec.Add(ctx, s.pending...); err != nil {
		return fmt.Errorf("replay: save session %s: %w", s.id, err)
	}
	s.pending = s.pending[:0]
	return nil
}

// maybeFlush appends the queued messages once a batch is full.
func (s *saver) maybeFlush(ctx context.Context) error {
	if len(s.pending) < saveBatch {
		return nil
	}
	return s.flush(ctx)
}

// compacted records a compaction that produced recs: the messages added
// before it, then a compact boundary and the window as it left it.
func (s *saver) compacted(ctx context.Context, w *window.Window, recs []compact.Record) error {
	if err := s.flush(ctx); err != nil {
		return err
	}
	top := recs[0].Level
	for _, r := range recs[1:] {
		top = max(top, r.Level)
	}
	meta := session.CompactMetadata{
		Trigger:   "auto",
		PreTokens: recs[0].TokensBefore,
		Strategy:  recs[0].Strategy,
		Level:     top.String(),
	}
	for _, r := range recs {
		if r.Level == compact.LevelSummary {
			meta.FilesIncluded = r.FilesIncluded
			meta.Fallback = r.Fallback
			meta.Summarizer, meta.DurationMS, meta.Usage = r.Summarizer, r.DurationMS, r.Usage
		}
	}
	if err := s.rec.Compacted(ctx, w, meta); err != nil {
		return fmt.Errorf("replay: save session %s: compaction: %w", s.id, err)
	}
	return nil
}

// saveState appends the queued messages, then the working memory's state
// as an agentctx_state entry (which the recorder re-writes after each
// later compaction).
func (s *saver) saveState(ctx context.Context, mem *memory) error {
	if err := s.flush(ctx); err != nil {
		return err
	}
	st, err := mem.state()
	if err != nil {
		return err
	}
	if err := s.rec.SaveState(ctx, st); err != nil {
		return fmt.Errorf("replay: save session %s: working memory: %w", s.id, err)
	}
	return nil
}

// toolOutput appends the queued messages, then the full output of the
// tool message full, which the limiter cut before it entered the window.
func (s *saver) toolOutput(ctx context.Context, full chat.Message) error {
	r, ok := full.ToolResult()
	if !ok {
		return nil
	}
	if err := s.flush(ctx); err != nil {
		return err
	}
	if err := s.rec.AddToolOutput(ctx, r); err != nil {
		return fmt.Errorf("replay: save session %s: %w", s.id, err)
	}
	return nil
}
