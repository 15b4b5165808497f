package sqlitestore

import (
	"context"
	"time"
)

// checkpointEvery is how often the checkpointer copies the write-ahead
// log's committed pages into the database file when there were commits
// since its last pass.
const checkpointEvery = 250 * time.Millisecond

// checkpoint runs in the background for the Store's life: every
// [checkpointEvery] with commits since the last pass, it runs a PASSIVE
// checkpoint (https://sqlite.org/pragma.html#pragma_wal_checkpoint: as
// many frames as it can copy without waiting for a reader or a writer)
// on its own connection. The writer's connection runs with
// wal_autocheckpoint = 0, so that no commit pays for a checkpoint: with
// SQLite's default (1,000 pages) the commit that crosses the threshold
// copies the log into the database and syncs it, which made the
// service's slowest turns (the p99 of a 200-session load on SQLite). A
// checkpoint that fails is logged and tried again at the next pass;
// nothing committed depends on it (the log is the database until it is
// copied). Close waits for it to stop.
func (s *Store) checkpoint() {
	defer close(s.ckptDone)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	last := s.commits.Load()
	for {
		select {
		case <-s.closing:
			return
		case <-t.C:
		}
		n := s.commits.Load()
		if n == last {
			continue
		}
		last = n
		if _, err := s.cdb.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
			s.log.Warn("sqlitestore: checkpointing the write-ahead log", "file", s.path, "err", err)
		}
	}
}
