package workspace

import (
	"context"
	"time"

	"github.com/agentctx/agentctx/token"
)

// Block names of the static context, as seed 004's getContext keys them.
// A prompt places each block as <context name="...">…</context>.
const (
	// BlockDirectory is the directory structure ([TreeOptions]).
	BlockDirectory = "directoryStructure"
	// BlockGit is the git status: branch, main branch, porcelain status,
	// recent commits and the user's own recent commits ([GitOptions]).
	BlockGit = "gitStatus"
	// BlockCodeStyle is the detected languages and formatter and linter
	// configurations.
	BlockCodeStyle = "codeStyle"
	// BlockReadme is the project's README, capped.
	BlockReadme = "readme"
)

// Block is one piece of static project context.
type Block struct {
	// Name is the block's name: one of the Block* constants, or a custom
	// block's name from [Options].Custom.
	Name string `json:"name"`
	// Text is the block's content, without the <context> wrapper.
	Text string `json:"text"`
	// Tokens is the size of Text in tokens, counted with [Options].Counter.
	Tokens int `json:"tokens"`
	// Source names where the block came from: a file path, "git", "walk"
	// or "config". Optional.
	Source string `json:"source,omitempty"`
	// Truncated reports that Text was cut to fit its cap; Text then ends
	// with a line that says what was left out.
	Truncated bool `json:"truncated,omitempty"`
}

// Scope says where an instruction file comes from.
type Scope string

// Scopes of instruction files, in the order a prompt lists them.
const (
	// ScopeUser is the user-level file ($XDG_CONFIG_HOME/agentctx/AGENTS.md).
	ScopeUser Scope = "user"
	// ScopeProject is a file checked into the project, from the
	// repository root down to the working directory.
	ScopeProject Scope = "project"
	// ScopeLocal is a personal, git-ignored file (CLAUDE.local.md).
	ScopeLocal Scope = "local"
)

// Instruction is one project instruction file (AGENTS.md, CLAUDE.md…),
// with its @imports resolved.
type Instruction struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
	// Rel is Path relative to the project root, or to the user folder for
	// [ScopeUser]; for display.
	Rel string `json:"rel"`
	// Scope is where the file comes from.
	Scope Scope `json:"scope"`
	// Text is the file's content with every accepted @import replaced by
	// the imported file's content (recursively), cut to the byte cap.
	Text string `json:"text"`
	// Bytes is len(Text), in bytes; Tokens its size in tokens.
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
	// Imports are the absolute paths of the files imported, in the order
	// they were first imported.
	Imports []string `json:"imports,omitempty"`
	// Truncated reports that Text was cut to fit the byte cap
	// ([InstructionOptions].MaxBytes, shared by all files in order).
	Truncated bool `json:"truncated,omitempty"`
}

// Notice is something Gather did not do as asked, reported rather than
// silent: an import refused or not found, a cycle, a cap reached, git
// missing. Gather never fails for these.
type Notice struct {
	// Source is the file or block concerned.
	Source string `json:"source"`
	// Message says what happened, in lower case.
	Message string `json:"message"`
}

// String formats the notice as "source: message".
func (n Notice) String() string { return n.Source + ": " + n.Message }

// Context is the static context of one project, gathered once per session
// (seed 004's memoized getContext).
type Context struct {
	// Dir is the working directory, absolute.
	Dir string `json:"dir"`
	// Root is the project root: the top of the git work tree holding Dir,
	// else Dir.
	Root string `json:"root"`
	// Repository reports whether Root is a git work tree.
	Repository bool `json:"repository"`
	// Instructions are the instruction files, user scope first, then from
	// the root down to Dir, each folder's files in [InstructionNames]
	// order.
	Instructions []Instruction `json:"instructions,omitempty"`
	// Blocks are the context blocks in order: directory structure, git
	// status, code style, README, then custom blocks. A disabled or empty
	// block is absent.
	Blocks []Block `json:"blocks"`
	// Notices lists what was refused, missing or cut.
	Notices []Notice `json:"notices,omitempty"`
	// Took is how long Gather took.
	Took time.Duration `json:"took_ns"`
}

// Tokens returns the total size in tokens of the instruction files and
// blocks (without the prompt's wrappers).
func (c *Context) Tokens() int {
	n := 0
	for _, in := range c.Instructions {
		n += in.Tokens
	}
	for _, b := range c.Blocks {
		n += b.Tokens
	}
	return n
}

// Options configures [Gather]. The zero value gathers everything with
// the defaults below, for the current directory.
type Options struct {
	// Dir is the working directory. Optional. Defaults to the current
	// directory.
	Dir string
	// UserDir is the folder of the user-level instruction file
	// (AGENTS.md). Optional. Defaults to $XDG_CONFIG_HOME/agentctx (when
	// absolute), else ~/.config/agentctx. Set it to "-" to
	// skip the user-level file.
	UserDir string
	// Counter counts each block's tokens and enforces token caps.
	// Optional. Defaults to [token.Estimator].
	Counter token.Counter
	// Tree configures the directory structure block.
	Tree TreeOptions
	// Git configures the git status block.
	Git GitOptions
	// Instructions configures the instruction files.
	Instructions InstructionOptions
	// ReadmeTokens caps the README block in tokens. Optional. Defaults to
	// [DefaultReadmeTokens]; negative disables the block.
	ReadmeTokens int
	// NoCodeStyle disables the code style block.
	NoCodeStyle bool
	// Custom are extra blocks from configuration (seed 004's
	// customContext), appended after the others in order. Their Tokens
	// are counted by Gather.
	Custom []Block
}

// DefaultReadmeTokens is the default cap of the README block, in tokens.
const DefaultReadmeTokens = 1500

// TreeOptions configures the directory structure block. The walk skips
// what .gitignore files (at every level, plus .git/info/exclude) ignore,
// with git's semantics, and [DefaultIgnore]. A .gitignore that is a
// symlink is not read, as git does not.
type TreeOptions struct {
	// Disabled turns the block off.
	Disabled bool
	// MaxEntries caps the entries (files and folders) listed. Optional.
	// Defaults to [DefaultTreeEntries]. Entries past the cap are counted
	// in "… N more" lines.
	MaxEntries int
	// MaxTokens caps the block in tokens. Optional. Defaults to
	// [DefaultTreeTokens].
	MaxTokens int
	// MaxFiles bounds the walk: after examining this many entries (files
	// and folders, ignored ones included), Gather stops walking and says
	// so in a notice. Optional. Defaults to [DefaultTreeWalk].
	MaxFiles int
	// Ignore adds gitignore-style patterns to skip, relative to the
	// project root. They take priority over every .gitignore: a "!"
	// pattern there cannot re-include them. Optional.
	Ignore []string
}

// Defaults of [TreeOptions].
const (
	DefaultTreeEntries = 400
	DefaultTreeTokens  = 3000
	DefaultTreeWalk    = 200_000
)

// DefaultIgnore are the folders skipped whatever .gitignore says: version
// control, dependencies and build outputs.
var DefaultIgnore = []string{
	".git", ".hg", ".svn", "node_modules", "vendor", "dist", "build", "target",
	"out", "bin", "obj", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache",
	".pytest_cache", ".ruff_cache", ".next", ".nuxt", ".gradle", ".idea",
	".cache", "coverage", ".terraform",
}

// GitOptions configures the git status block. Git is run as a
// subprocess (`git`); without git, or outside a repository, the block
// says so and Gather does not fail.
type GitOptions struct {
	// Disabled turns the block off.
	Disabled bool
	// Commits is how many recent commits, and how many of the user's own,
	// are listed. Optional. Defaults to 5.
	Commits int
	// MaxStatusLines caps the porcelain status lines. Optional. Defaults
	// to 50; the rest are counted.
	MaxStatusLines int
	// Timeout bounds each git command. Optional. Defaults to 5 seconds.
	Timeout time.Duration
}

// InstructionNames are the instruction file names looked for in each
// folder, in the order they are listed (the ecosystem's names: Codex and
// the AGENTS.md convention, Claude Code, Gemini CLI, crush, Cursor,
// GitHub Copilot).
var InstructionNames = []string{
	"AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", "CRUSH.md",
	".cursorrules", ".github/copilot-instructions.md",
}

// InstructionOptions configures instruction files.
type InstructionOptions struct {
	// Disabled turns instruction files off.
	Disabled bool
	// Names overrides [InstructionNames]. Optional.
	Names []string
	// MaxBytes caps the instruction files together, in bytes, imports
	// included. Optional. Defaults to [DefaultInstructionBytes] (Codex's
	// project_doc_max_bytes). The cut is reported in [Context].Notices and
	// marked in the text.
	MaxBytes int
	// MaxImportDepth is how deep @imports nest. Optional. Defaults to
	// [DefaultImportDepth] (Claude Code's limit).
	MaxImportDepth int
}

// Defaults of [InstructionOptions].
const (
	DefaultInstructionBytes = 32 << 10
	DefaultImportDepth      = 5
)

// Gather collects the static context of the project holding opts.Dir. It
// fails only when Dir does not exist or is not a folder, or ctx is
// cancelled; everything else that goes wrong is a [Notice]. It opens
// regular files only, without blocking, so that a FIFO or device in a
// cloned repository cannot hang it (it is skipped with a Notice), and
// reads the README, configuration files and project instruction files
// only when their real path (symlinks resolved) lies inside the project.
// It is safe to call concurrently.
func Gather(ctx context.Context, opts Options) (*Context, error) {
	return gather(ctx, opts)
}
