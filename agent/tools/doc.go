// Package tools holds the tools of agentctx's reference coding agent
// (`agentctx chat`, package agent). [Default] returns them over an [Env]:
//
//   - read_file {path, start_line?, end_line?}: numbered lines (1-based,
//     like cat -n), capped at Env.OutputBytes with a note naming the
//     start_line to read on; directories, binary files (a NUL in the first
//     8 KiB) and files over [MaxReadBytes] without a range are refused;
//     a line over 2,000 bytes is cut, and read with a bounded buffer, so a
//     line of any length costs kilobytes.
//   - write_file {path, content}: parents created, written atomically
//     (temporary file and rename), an existing file's mode kept.
//   - edit_file {path, old_string, new_string, replace_all?}: exact
//     replacement; an absent or ambiguous old_string is refused, naming
//     the lines it matches.
//   - search {query, path?, glob?}: a regular expression, through ripgrep
//     when rg is on PATH, else a Go walk; .gitignore honoured, .git and
//     binary files skipped; path:line:text, at most [MaxSearchMatches].
//   - list_files {path?, depth?}: a tree honouring .gitignore, at most
//     [MaxListEntries] entries.
//   - run_command {command, timeout_seconds?}: bash -c (sh without bash)
//     in Root, inside Env.Sandbox when set (package sandbox), in its own
//     process group, killed whole on timeout or cancellation; stdout and
//     stderr interleaved, head and tail kept within Env.OutputBytes; the
//     text ends "Exit code N". Its environment is the agent's without
//     credentials (sandbox.Environ). Nothing it starts outlives it: when
//     the shell returns, its process group is killed, and so is every
//     process that carries its AGENTCTX_COMMAND_ID in its environment
//     (setsid, nohup, double forks); under a sandbox its PID namespace
//     ends with it as well.
//   - todo_write {todos: [{content, status}]}: the list as text; the
//     Engine reads it from the call (tooluse.Todos).
//   - note_finding {finding, evidence?, importance? 1-5, category?}: seed
//     002's scratchpad, through Engine.AddFinding.
//   - recall_output: agentctx.RecallTool, answered by Engine.HandleRecall.
//
// The names and arguments are those tooluse classifies as the seeds'
// (seed 000: read_file, search, run_command; 001: write_file) and the
// reference agent's.
//
// # Paths
//
// Every path argument is relative to Env.Root (an absolute path inside
// Root is accepted too). Unless Env.AllowOutside, a path that climbs out
// with "..", is absolute outside Root, or goes through a symlink whose
// target is outside Root is refused with [ErrOutside]'s message; symlinks
// are resolved before the check, so a link inside the project to /etc
// does not open it. Only regular files are read, and never with a
// blocking open: a FIFO, or a link to one or to /dev/stdin, is refused
// (read_file, edit_file) or skipped (search, and .gitignore files, which
// follow git's semantics). ripgrep, which waits on a FIFO .gitignore, is
// stopped after Env.CommandTimeout and the Go walk answers instead.
//
// # Failures
//
// A failure the model should see (a bad argument, a path outside the
// project, a non-zero exit code, a cancelled context) is a tool result
// with IsError set, never a Go error.
package tools
