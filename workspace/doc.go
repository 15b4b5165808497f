// Package workspace gathers the static context of a project once per
// session (seed 004's getContext): the directory structure, the git
// status, the code style, the README, custom blocks, and the project's
// instruction files (AGENTS.md, CLAUDE.md, …) with their @imports.
//
// A prompt places the instruction files and the blocks in its static
// system prompt, which stays byte-identical for the whole session so
// that provider prompt caches hit (package prompt).
package workspace
