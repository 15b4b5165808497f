//go:build !linux

package cli

import "time"

// osSinceStart is unavailable outside Linux: processStart falls back to
// the package's initialization time.
func osSinceStart() (time.Duration, bool) { return 0, false }
