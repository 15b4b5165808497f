package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/transcript"
)

// Shell completion of flag values and arguments (cobra's completion
// command): the compaction strategies, the transcript formats and the
// stored sessions' ids.

// completeWords returns a completion function offering words (those
// starting with what was typed), and no file names.
func completeWords(words func() []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, w := range words() {
			if strings.HasPrefix(w, toComplete) {
				out = append(out, w)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// strategyNames are the registered compaction strategies (compact.Names).
func strategyNames() []string { return compact.Names() }

// formatList are the transcript formats (transcript.Formats).
func formatList() []string {
	var out []string
	for _, f := range transcript.Formats() {
		out = append(out, string(f))
	}
	return out
}

// completeFlag registers completion of flag name of cmd with fn, when cmd
// has the flag.
func completeFlag(cmd *cobra.Command, name string, fn cobra.CompletionFunc) {
	if cmd.Flags().Lookup(name) == nil {
		return
	}
	// Registering twice is the only error, a bug in the command's
	// construction.
	if err := cmd.RegisterFlagCompletionFunc(name, fn); err != nil {
		panic(err)
	}
}

// completeEngineFlags completes the flags of addEngineFlags: --strategy
// with the registered strategies, --format with the transcript formats.
func completeEngineFlags(cmd *cobra.Command) {
	completeFlag(cmd, "strategy", completeWords(strategyNames))
	completeFlag(cmd, "format", completeWords(formatList))
}

// completeSessions returns the completion of a session id argument: the
// stored sessions of the store --store and --home (*home) name, each with
// its title, the most recently active first. maxArgs is how many arguments
// the command takes (0: any number); files says the argument may be a
// file too (ID|FILE), so the shell offers file names as well.
func completeSessions(e *env, home *string, maxArgs int, files bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		dir := cobra.ShellCompDirectiveNoFileComp
		if files {
			dir = cobra.ShellCompDirectiveDefault
		}
		if maxArgs > 0 && len(args) >= maxArgs {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Second)
		defer cancel()
		ids, err := sessionIDs(ctx, e, *home)
		if err != nil {
			return nil, dir
		}
		var out []string
		for _, s := range ids {
			if strings.HasPrefix(s.ID, toComplete) {
				out = append(out, s.ID+"\t"+strings.ReplaceAll(cut(s.Title, 60), "\t", " "))
			}
		}
		return out, dir
	}
}

// sessionIDs lists the stored sessions, every project's.
func sessionIDs(ctx context.Context, e *env, home string) (out []session.Session, err error) {
	st, err := openSessions(e, home)
	if err != nil {
		return nil, err
	}
	defer closeStore(st, &err)
	return st.List(ctx, session.ListOptions{})
}
