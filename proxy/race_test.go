//go:build race

package proxy

// raceEnabled thins the real-transcript replay under the race detector,
// which makes it about ten times slower.
const raceEnabled = true
