// Package tooluse is agentctx's one reading of a coding agent's tool calls:
// what a call does ([Kind]), which files it reads and writes, what it
// searches for, the todo list it sets, how results pair with calls, and
// the small text helpers every reader of tool output needs.
//
// # Classifying a call
//
// [Classify] looks a call's name up in one table per agent (Claude Code,
// Codex, OpenHands, SWE-agent, mini-swe-agent, the seeds' own tools and
// the reference agent's; see [Agents]) and reads its arguments the way
// that agent's tool defines them. Shell commands (Claude Code Bash, Codex
// shell and exec_command, OpenHands execute_bash, SWE-agent and
// mini-swe-agent bash, the seeds' run_command) are parsed with
// mvdan.cc/sh/v3/syntax and every simple command in them is read: see
// [Use.Reads], [Use.Writes] and [Use.Searches]. A name no table holds is
// looked up again lower-cased without '_' and '-' ("web_search" is
// Claude Code's WebSearch), then in a table of common aliases; failing
// that it is [KindOther] with the paths of its path-like arguments.
//
// # Other readings
//
//   - [Todos] returns the todo list a TodoWrite, update_plan, todo_write or
//     task_tracker call sets.
//   - [Pairer] pairs tool results with calls by id, the way the window
//     does: a repeated id pairs with the most recent unanswered call.
//   - [Hazards] reads a shell command for what an agent must ask about
//     even when every command is allowed: rm -r outside the project,
//     find -delete, pipes into a shell, writes to devices, mkfs, fork
//     bombs and the like, seen through bash -c, eval, sudo and xargs.
//   - [ErrorLine] finds the line of a failed command's output that names
//     the error; [CutRunes] and [HeadRunes] cut text on rune boundaries.
//
// # What it replaces
//
// Before this package, agentctx read tool calls in several places, each
// with its own rules; tooluse holds their union, and the differences it
// makes are deliberate:
//
//   - tool tables: track/kind.go (read, write, search, shell, editor),
//     workmem/observe.go (result types by lower-cased name),
//     compact/limit.go (search and file tools), compact/facts.go (shell
//     tools, writing tools by name substring, editors): now [Agents]. A
//     web search is [KindWeb], no longer a code search.
//   - paths: window.ArgumentPaths (path-like argument names, apply_patch
//     headers), track's analysis (per-kind argument names, patch headers
//     with operations), compact's facts (str_replace_editor commands,
//     SWE-agent open/create/edit, shell reads and writes): now
//     [Use.Reads] and [Use.Writes]. A search tool's directory is a
//     searched path ([Search.Paths]), not a file.
//   - shell commands: two tokenizers (track's shellSplit kept each
//     command's source and skipped descriptors, but dropped every
//     backslash inside double quotes; compact's ignored backslashes, so
//     "a \"b\"" ended early, and split "2>&1" at its &): now a bash
//     parser, with a tokenizer that quotes as the shell does as its
//     fallback. cat and friends read any literal
//     operand (compact wanted a slash or an extension); sed without -i
//     reads its files (track wanted -n); grep reading a pipe is a filter,
//     not a search; a cd changes the directory of later paths.
//   - todo tools: the root's todoTools, reminder.TodosFromCall and
//     compact's openTodos: now [Todos], with reminder's rules.
//   - call/result pairing: chat.Pair, window.Add, compact's facts and
//     the transcript readers each keep a map of open ids: now [Pairer].
//   - errorLine (track, compact), cutRunes (workmem, reminder, window,
//     track) and cutPlain (compact): now [ErrorLine], [CutRunes] and
//     [HeadRunes].
//
// Everything here is a pure function of its input, never panics and is
// safe for concurrent use, except a [Pairer], which is not.
package tooluse
