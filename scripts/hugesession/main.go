// Command hugesession writes a Claude Code session of at least SIZE MiB,
// made of renumbered copies of the shared data's largest session
// (sharedtest.WriteHuge), for measuring memory and time on huge sessions:
//
//	go run ./scripts/hugesession 1024 > /tmp/huge.jsonl
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hugesession SIZE_MIB > FILE")
		os.Exit(2)
	}
	mib, err := strconv.Atoi(os.Args[1])
	if err != nil || mib <= 0 {
		fmt.Fprintln(os.Stderr, "hugesession: SIZE_MIB must be a positive number")
		os.Exit(2)
	}
	root := sharedtest.Root()
	if root == "" {
		fmt.Fprintln(os.Stderr, "hugesession: the shared data folder ../shared/data is absent")
		os.Exit(1)
	}
	template, err := os.ReadFile(filepath.Join(root, sharedtest.BigClaudeCode))
	if err != nil {
		fmt.Fprintln(os.Stderr, "hugesession:", err)
		os.Exit(1)
	}
	if _, err := sharedtest.WriteHuge(os.Stdout, template, "8463c716-a2ea-4c14-9efa-87158ebd9f20", int64(mib)<<20); err != nil {
		fmt.Fprintln(os.Stderr, "hugesession:", err)
		os.Exit(1)
	}
}
