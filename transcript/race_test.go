//go:build race

package transcript_test

// raceEnabled scales the huge-input tests down under the race detector,
// which makes encoding/json about 12x slower.
const raceEnabled = true
