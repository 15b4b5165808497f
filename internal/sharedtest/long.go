package sharedtest

import (
	"os"
	"testing"
)

// LongEnv is the environment variable that turns the long tests on: the
// real-agent matrix, the live loop at full length, the soak and load
// tests (descriptor limits, huge lines, the load generator's fleets) and
// the real-terminal chat tests. Set to 1 it runs them; .ci/run sets it,
// so CI runs the whole suite while a developer's `go test ./...` stays
// within minutes.
const LongEnv = "AGENTCTX_LONG_TESTS"

// Long reports whether the long tests run: $AGENTCTX_LONG_TESTS is 1 and
// the suite is not -short. When CI=true, the switch is unset and the
// suite is not -short, it fails t instead (and reports false), so that CI
// never leaves the long tests out silently.
func Long(t testing.TB) bool {
	t.Helper()
	if testing.Short() {
		return false
	}
	if os.Getenv(LongEnv) == "1" {
		return true
	}
	if os.Getenv("CI") == "true" {
		t.Errorf("CI=true runs the long tests: set %s=1 (.ci/run does)", LongEnv)
	}
	return false
}

// SkipUnlessLong skips t unless the long tests run ([Long]), naming the
// switch that runs it.
func SkipUnlessLong(t testing.TB) {
	t.Helper()
	if !Long(t) {
		t.Skipf("a long test: runs with %s=1 (as in CI), not with -short", LongEnv)
	}
}
