package pgstore

// Crash ends s as a killed server would: the renewal stops and the pool
// closes, but no lease is released (they expire after the TTL).
func Crash(s *Store) {
	s.closed.Store(true)
	s.c.shutdown()
}

// StopRenewing stops s's lease renewal, as a stalled server's: its
// leases expire after the TTL while s stays open.
func StopRenewing(s *Store) {
	s.c.stop()
	s.c.renewed.Wait()
}
