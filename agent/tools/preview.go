package tools

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/safefile"
)

// Change is what a write_file or edit_file call would do to one file:
// its path as the tools show it (relative to the project) and its text
// before and after. Before is "" and Created set for a new file.
type Change struct {
	Path          string
	Before, After string
	Created       bool
}

// Preview returns the change call would make, without making it, for a
// user to see before allowing it (the chat's diff). Only write_file and
// edit_file preview; for another tool ok is false. err says why the call
// would fail (bad arguments, a path outside the project, old_string not
// found), in the words the tool would use.
func Preview(env Env, call chat.ToolCall) (c Change, ok bool, err error) {
	var a struct {
		Path       string  `json:"path"`
		Content    *string `json:"content"`
		OldString  string  `json:"old_string"`
		NewString  *string `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
	}
	if call.Name != "write_file" && call.Name != "edit_file" {
		return c, false, nil
	}
	if err := decode(call, &a); err != nil {
		return c, true, err
	}
	if a.Path == "" {
		return c, true, errors.New("path is required")
	}
	p, err := resolve(env, a.Path)
	if err != nil {
		return c, true, err
	}
	c.Path = display(env, p)
	data, _, rerr := safefile.ReadFile(p, MaxReadBytes+1, safefile.Options{})
	switch {
	case errors.Is(rerr, os.ErrNotExist):
		c.Created = true
	case rerr != nil:
		return c, true, fmt.Errorf("%s: %w", a.Path, errors.Unwrap(rerr))
	case len(data) > MaxReadBytes:
		return c, true, fmt.Errorf("%s is over %d bytes", a.Path, MaxReadBytes)
	}
	c.Before = string(data)
	if call.Name == "write_file" {
		if a.Content == nil {
			return c, true, errors.New("content is required")
		}
		c.After = *a.Content
		return c, true, nil
	}
	switch n := len(matchLines(c.Before, a.OldString)); {
	case c.Created:
		return c, true, fmt.Errorf("%s does not exist", a.Path)
	case a.OldString == "" || a.NewString == nil:
		return c, true, errors.New("old_string and new_string are required")
	case n == 0:
		return c, true, fmt.Errorf("old_string not found in %s", a.Path)
	case n > 1 && !a.ReplaceAll:
		return c, true, fmt.Errorf("old_string matches %d times in %s", n, a.Path)
	}
	c.After = strings.ReplaceAll(c.Before, a.OldString, *a.NewString)
	return c, true, nil
}

// WritePath returns the file a write_file or edit_file call would
// change: absolute, symlinks resolved, confined as the tools confine it.
// For another tool ok is false. err says why the call would fail to
// name a file (bad arguments, no path, a path outside the project).
func WritePath(env Env, call chat.ToolCall) (path string, ok bool, err error) {
	if call.Name != "write_file" && call.Name != "edit_file" {
		return "", false, nil
	}
	var a struct {
		Path string `json:"path"`
	}
	if err := decode(call, &a); err != nil {
		return "", true, err
	}
	if a.Path == "" {
		return "", true, errors.New("path is required")
	}
	p, err := resolve(env, a.Path)
	return p, true, err
}
