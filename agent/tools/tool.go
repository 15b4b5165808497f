package tools

import (
	"context"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent/sandbox"
	"github.com/agentctx/agentctx/chat"
)

// Access is what a tool does to the project, for the permission guard
// (seed 000's permissionGuard, Claude Code's permission modes): reads are
// free, writes and commands are asked.
type Access int

// The accesses a tool may have.
const (
	// AccessRead reads the project or the session: never asked.
	AccessRead Access = iota
	// AccessWrite changes files: asked unless allowed.
	AccessWrite
	// AccessExec runs commands: asked unless allowed.
	AccessExec
)

// Tool is one tool the agent offers the model. Implementations are safe
// for concurrent use.
type Tool interface {
	// Def is the definition sent to the model.
	Def() chat.ToolDef
	// Access says whether the permission guard must ask.
	Access() Access
	// Run runs call and returns its result: a failure the model should
	// see (a bad argument, a path outside the project, a non-zero exit
	// code) is a result with IsError set, never a Go error. Run honours
	// ctx: a cancelled call returns promptly with IsError set.
	Run(ctx context.Context, call chat.ToolCall) chat.ToolResult
}

// Env is what the tools work on.
type Env struct {
	// Root is the project directory, absolute. Required. Paths are
	// resolved against it and, unless AllowOutside, confined to it
	// (symlinks resolved).
	Root string
	// AllowOutside lets paths leave Root.
	AllowOutside bool
	// Sandbox confines run_command (package sandbox: writes only in the
	// project and a private /tmp, no network, home and secrets hidden).
	// Optional: nil runs commands unconfined, which the permission guard
	// must then ask about one by one. Credentials are removed from a
	// command's environment either way (sandbox.Environ).
	Sandbox *sandbox.Sandbox
	// Engine answers note_finding, todo_write's list and recall_output.
	// Optional: without it those tools are left out of [Default].
	Engine *agentctx.Engine
	// CommandTimeout bounds one run_command. Optional. Defaults to 2
	// minutes.
	CommandTimeout time.Duration
	// OutputBytes caps what run_command, read_file, search and list_files
	// return, in bytes.
	// Optional. Defaults to 100 KiB (the Engine's limiter cuts further
	// by the context window's usage).
	OutputBytes int
}
