//go:build race

package session_test

// raceEnabled scales the property test down under the race detector,
// which makes JSON decoding about 10x slower.
const raceEnabled = true
