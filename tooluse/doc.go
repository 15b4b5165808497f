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
//   - [ErrorLine] finds the line of a failed command's output that names
//     the error; [CutRunes] and [HeadRunes] cut text on rune boundaries.
//
// Everything here is a pure function of its input, never panics and is
// safe for concurrent use, except a [Pairer], which is not.
package tooluse
