package cli

import (
	"context"
	"os"
	"testing"
)

// asMainEnv, set to 1 in a test binary's environment, makes the binary
// run the command line (Main) with its arguments instead of the tests:
// a test starts it as the agentctx program (TestMCPConformanceTS, whose
// TypeScript client starts `agentctx mcp` as an agent would).
const asMainEnv = "AGENTCTX_CLI_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
