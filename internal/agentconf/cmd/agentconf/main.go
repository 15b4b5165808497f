// Command agentconf serves the conformance suite's scripted model (all
// three wires) on a loopback port for a manual run of an agent: it writes
// the task's repository, prints the server's URL, and on SIGINT or SIGTERM
// writes every recorded request to the -out folder (NNN.json: the body;
// NNN.txt: method, path, headers, status, tokens, step, violation).
//
//	go run ./internal/agentconf/cmd/agentconf -repo /tmp/task -out /tmp/reqs
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/agentctx/agentctx/internal/agentconf"
)

func main() {
	repo := flag.String("repo", "", "empty folder to write the task's git repository into (required)")
	out := flag.String("out", "", "folder to write the recorded requests into on exit (required)")
	key := flag.String("key", "", "signing key of thinking blocks and reasoning items (default: random); the same key lets a second server check what an agent resumes")
	flag.Parse()
	if *repo == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "agentconf: -repo and -out are required")
		os.Exit(2)
	}
	if err := run(*repo, *out, *key); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(repo, out, key string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return fmt.Errorf("agentconf: %w", err)
	}
	task, err := agentconf.NewTask(ctx, repo)
	if err != nil {
		return err
	}
	srv, err := agentconf.Start(agentconf.Options{Task: task, SigningKey: []byte(key)})
	if err != nil {
		return err
	}
	fmt.Println(srv.URL)
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("agentconf: %w", err)
	}
	for i, r := range srv.Requests() {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s\nstatus %d tokens %d bytes %d main %v step %s\nviolation %s\n", r.Method, r.Path, r.Status, r.Tokens, len(r.Body), r.Main, r.Step, r.Violation)
		keys := make([]string, 0, len(r.Header))
		for k := range r.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := strings.Join(r.Header[k], ", ")
			if strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "X-Api-Key") || strings.EqualFold(k, "X-Goog-Api-Key") {
				v = "[redacted]"
			}
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
		base := filepath.Join(out, fmt.Sprintf("%03d", i))
		if err := os.WriteFile(base+".txt", []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("agentconf: %w", err)
		}
		if err := os.WriteFile(base+".json", r.Body, 0o644); err != nil {
			return fmt.Errorf("agentconf: %w", err)
		}
	}
	return nil
}
