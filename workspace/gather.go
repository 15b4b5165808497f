package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentctx/agentctx/token"
)

// gather is Gather: the directory walk and the git commands run
// concurrently; the rest is cheap. Project files are opened only when
// they are regular files (package safefile), so that a FIFO or a device
// under a name Gather reads (Makefile, go.mod, .gitignore, .git…) cannot
// block it.
func gather(ctx context.Context, opts Options) (*Context, error) {
	start := time.Now()
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace: %s is not a folder", abs)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	counter := opts.Counter
	if counter == nil {
		counter = token.Estimator{}
	}
	root, repo := findRoot(abs)
	c := &Context{Dir: abs, Root: root, Repository: repo}

	var (
		wg        sync.WaitGroup
		git       Block
		gitNotes  []Notice
		gitOK     bool
		treeBlock Block
		stats     treeStats
		treeNotes []Notice
		treeErr   error
	)
	if !opts.Git.Disabled {
		wg.Add(1)
		go func() {
			defer wg.Done()
			git, gitNotes = gitStatus(ctx, abs, repo, counter, opts.Git)
			gitOK = git.Text != ""
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		treeBlock, stats, treeNotes, treeErr = walkTree(ctx, root, abs, counter, opts.Tree)
	}()
	var userNotes []Notice
	if !opts.Instructions.Disabled {
		ud := opts.UserDir
		if ud == "" {
			ud = defaultUserDir()
		}
		if ud == "-" {
			ud = ""
		}
		c.Instructions, userNotes = loadInstructions(root, abs, ud, counter, opts.Instructions)
	}
	wg.Wait()
	if treeErr != nil {
		return nil, fmt.Errorf("workspace: %w", treeErr)
	}
	// Every file is opened without blocking (package safefile), so the
	// rest is quick; a cancelled ctx still ends Gather here.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	c.Notices = append(c.Notices, userNotes...)
	if !opts.Tree.Disabled && treeBlock.Text != "" {
		c.Blocks = append(c.Blocks, treeBlock)
	}
	c.Notices = append(c.Notices, treeNotes...)
	if gitOK {
		c.Blocks = append(c.Blocks, git)
	}
	c.Notices = append(c.Notices, gitNotes...)
	if !opts.NoCodeStyle {
		b, ok, notes := codeStyle(root, stats, counter)
		if ok {
			c.Blocks = append(c.Blocks, b)
		}
		c.Notices = append(c.Notices, notes...)
	}
	if opts.ReadmeTokens >= 0 {
		limit := opts.ReadmeTokens
		if limit == 0 {
			limit = DefaultReadmeTokens
		}
		b, ok, notes := readme(root, abs, counter, limit)
		if ok {
			c.Blocks = append(c.Blocks, b)
		}
		c.Notices = append(c.Notices, notes...)
	}
	for _, b := range opts.Custom {
		if b.Name == "" || b.Text == "" {
			continue
		}
		b.Tokens = counter.Count(b.Text)
		if b.Source == "" {
			b.Source = "config"
		}
		c.Blocks = append(c.Blocks, b)
	}
	c.Took = time.Since(start)
	return c, nil
}
