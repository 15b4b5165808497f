// Package ignore parses and matches gitignore patterns with git's own
// semantics (gitignore(5) and git's wildmatch), for the walks that show a
// project the way git sees it: the workspace's directory structure and
// the agent's list and search tools.
//
// # Semantics
//
// A pattern without a slash, other than a trailing one, matches an
// entry's name at any depth below the folder of the file that holds it; a
// pattern with a slash matches the entry's path relative to that folder
// (a leading slash only anchors). A trailing slash matches folders only;
// a leading "!" re-includes; a backslash escapes the next character
// ("\#", "\!", "\ "); trailing spaces are dropped unless escaped. In the
// wildcards, "*" and "?" do not match a slash, "[...]" is a set with
// ranges, POSIX classes ("[[:digit:]]") and negation by "!" or "^"; "**"
// between slashes, at the start before a slash or at the end after one
// matches any number of folders, elsewhere it is "*".
//
// Matching an entry does not consider its parent folders: as git does,
// the caller does not descend into an ignored folder, so that nothing
// below it can be re-included.
//
// The differences from go-git's plumbing/format/gitignore, which this
// package replaces: "[!a]" is a negated set (go-git follows
// path/filepath.Match, where it is not), "foo/**" does not match foo
// itself, "a/**/b" backtracks ("a/b/x/b" matches), and "**" inside a
// name is "*".
package ignore
