package sqlitestore

import (
	"fmt"
	"os"
	"sync"
)

// groupSync makes commits durable by fsyncing the write-ahead log, one
// fsync for every commit made before it started: the commits that need
// to be durable at about the same time (the turn ends of many sessions)
// share one fsync (group commit), and none of them waits for it while
// holding the writer (Store.wmu).
//
// Why an fsync of the log is enough: the writer commits with
// synchronous=NORMAL, under which a commit in WAL mode has written its
// frames (with their checksums and the commit marker) into the log file
// but not synced it; synchronous=FULL only adds an fsync of the log
// after that write (https://sqlite.org/pragma.html#pragma_synchronous,
// https://sqlite.org/wal.html). Recovery after a crash rebuilds the
// log's index from the frames on disk whose checksums hold, so a commit
// whose frames were fsynced is there after a power loss. Frames are
// overwritten only once a checkpoint has copied them into the database
// file and synced it, and SQLite syncs the log's header itself when it
// starts the log over. The log file is never removed while the Store's
// writer connection is open (SQLite deletes it when the last connection
// closes), so the file opened here stays the one SQLite writes.
type groupSync struct {
	mu   sync.Mutex
	cond *sync.Cond // signaled when an fsync ends
	// running is set while a caller runs the fsync, without mu.
	running bool
	// synced is the number of the last commit known durable: every
	// commit numbered up to it (Store.commits) is on disk.
	synced int64
	// err is the first failed fsync's: after it the log's state on disk
	// is unknown (the kernel may have dropped the pages it failed to
	// write), so every later durable write fails with it.
	err error
	// wal is the log file, opened at the first fsync; only the caller
	// that set running uses it.
	wal *os.File
	// syncs counts the fsyncs of the log, for the tests.
	syncs int64
	// hook, when set (tests), is called before each fsync with the
	// number of the last commit it covers, without mu held.
	hook func(target int64)
}

// syncTo returns once commit n (a number Store.commits gave) is durable:
// when an fsync of the log that started after the commit has ended. A
// caller that finds no fsync running runs one for itself and every
// commit made so far; the others wait for it, and run the next one if
// theirs came too late for it. Errors: the fsync's (sticky: see
// groupSync.err), the log file cannot be opened.
func (s *Store) syncTo(n int64) error {
	g := &s.group
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.synced < n && g.err == nil {
		if g.running {
			g.cond.Wait()
			continue
		}
		g.running = true
		// Every commit numbered up to target returned from SQLite before
		// it was numbered: its frames are in the file.
		target := s.commits.Load()
		hook := g.hook
		g.mu.Unlock()
		if hook != nil {
			hook(target)
		}
		err := g.fsync(s.path)
		g.mu.Lock()
		g.running = false
		g.syncs++
		if err != nil {
			g.err = fmt.Errorf("fsync of the write-ahead log: %w (the entries written since the last successful one may be lost on a power loss; reopen the store)", err)
		} else {
			g.synced = max(g.synced, target)
		}
		g.cond.Broadcast()
	}
	return g.err
}

// fsync opens the database's write-ahead log (path + "-wal") when not
// yet open and flushes it to disk (datasync: fdatasync on Linux, as
// SQLite's own syncs of the log). Called by the one caller that set
// running.
func (g *groupSync) fsync(path string) error {
	if g.wal == nil {
		// Write access: some systems (Windows) flush only files open
		// for writing. Nothing is written through it.
		f, err := os.OpenFile(path+"-wal", os.O_RDWR, 0)
		if err != nil {
			return err
		}
		g.wal = f
	}
	return datasync(g.wal)
}

// pending reports whether a commit made so far is not yet known
// durable.
func (s *Store) pending() bool {
	g := &s.group
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.synced < s.commits.Load()
}

// closeLog closes the log file opened by fsync, once no fsync runs.
func (g *groupSync) closeLog() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.running {
		g.cond.Wait()
	}
	if g.wal == nil {
		return nil
	}
	err := g.wal.Close()
	g.wal = nil
	return err
}
