//go:build race

package jsonlstore_test

// raceEnabled scales TestHugeLine down under the race detector, which
// makes encoding/json about 12x slower.
const raceEnabled = true
