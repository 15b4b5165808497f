package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/mcpserver"
	"github.com/agentctx/agentctx/proxy"
	"github.com/agentctx/agentctx/session/storeurl"
)

// mcpAgents are the agents `agentctx mcp install` configures, and the wire
// each speaks (for the tool names their models see, proxy.MCPToolName).
var mcpAgents = []struct {
	name string
	wire proxy.Wire
}{{"claude-code", proxy.WireAnthropic}, {"codex", proxy.WireResponses}, {"gemini-cli", proxy.WireGemini}}

type mcpInstallFlags struct {
	write   bool
	file    string
	name    string
	command string
}

func newMCPInstallCmd(e *env, home *string) *cobra.Command {
	var f mcpInstallFlags
	cmd := &cobra.Command{
		Use:   "install claude-code|codex|gemini-cli",
		Short: "Print (or write, with --write) an agent's config entry for agentctx mcp",
		Long: `Install prints the entry that configures 'agentctx mcp' in an agent, or,
with --write, merges it into the agent's config file: the other servers
and settings stay as they are, an older agentctx entry is replaced.

  claude-code  .mcp.json in the current folder (project scope), key
               mcpServers.agentctx; for every project instead:
               claude mcp add-json --scope user agentctx '<the entry>'
  codex        $CODEX_HOME/config.toml (default ~/.codex/config.toml),
               table [mcp_servers.agentctx]
  gemini-cli   .gemini/settings.json in the current folder, key
               mcpServers.agentctx (~/.gemini/settings.json: --file)

The entry runs this agentctx ('agentctx' when it is on PATH, else its
absolute path; --command changes it) with the --store and --home given
here. The agent's model then sees the tools as mcp__agentctx__recall_output
(Claude Code, Codex) or mcp_agentctx_recall_output (Gemini CLI); run the
proxy with --mcp-name agentctx so that its cut notes name that tool.`,
		Example: `  agentctx mcp install claude-code
  agentctx mcp install codex --write
  agentctx --store sqlite: mcp install gemini-cli --write --file ~/.gemini/settings.json`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"claude-code", "codex", "gemini-cli"},
		RunE: func(_ *cobra.Command, args []string) error {
			return runMCPInstall(e, *home, args[0], f)
		},
	}
	cmd.Flags().BoolVar(&f.write, "write", false, "merge the entry into the agent's config file instead of printing it")
	cmd.Flags().StringVar(&f.file, "file", "", "the config file to write (default: the agent's, see above)")
	cmd.Flags().StringVar(&f.name, "name", mcpserver.Name, "the name the agent knows the server by (give the proxy the same --mcp-name)")
	cmd.Flags().StringVar(&f.command, "command", "", "the program the agent starts (default: agentctx when on PATH, else this binary's path)")
	return cmd
}

// mcpNameRe is what an MCP server name may hold: Claude Code accepts
// letters, digits, '-' and '_'; Gemini CLI splits its tool names at '_'
// but keeps the server's name whole.
var mcpNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

func runMCPInstall(e *env, home, agent string, f mcpInstallFlags) error {
	var wire proxy.Wire
	for _, a := range mcpAgents {
		if a.name == agent {
			wire = a.wire
		}
	}
	if wire == "" {
		return usageError{fmt.Errorf("mcp install: unknown agent %q: want claude-code, codex or gemini-cli", agent)}
	}
	if !mcpNameRe.MatchString(f.name) {
		return usageError{fmt.Errorf("mcp install: --name %q: want letters, digits, '-' and '_'", f.name)}
	}
	command := f.command
	if command == "" {
		command = selfCommand()
	}
	args := []string{"mcp"}
	if e.store != "" {
		st, err := absStoreURL(e.store)
		if err != nil {
			return usageError{fmt.Errorf("mcp install: --store: %w", err)}
		}
		args = append(args, "--store", st)
	}
	if home != "" {
		abs, err := filepath.Abs(home)
		if err != nil {
			return err
		}
		args = append(args, "--home", abs)
	}
	entry := mcpEntry{Command: command, Args: args}
	if agent == "claude-code" {
		entry.Type = "stdio"
	}
	if !f.write {
		var out []byte
		if agent == "codex" {
			out = []byte(entry.toml(f.name))
		} else {
			raw, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]mcpEntry{f.name: entry}}, "", "  ")
			if err != nil {
				return err
			}
			out = append(raw, '\n')
		}
		_, err := e.stdout.Write(out)
		return err
	}
	path := f.file
	if path == "" {
		var err error
		if path, err = mcpConfigPath(agent); err != nil {
			return err
		}
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("mcp install: %w", err)
	}
	var merged []byte
	if agent == "codex" {
		merged, err = mergeTOMLServer(old, f.name, entry)
	} else {
		merged, err = mergeJSONServer(old, f.name, entry)
	}
	if err != nil {
		return fmt.Errorf("mcp install: %s: %w", path, err)
	}
	if bytes.Equal(old, merged) {
		fmt.Fprintf(e.stdout, "%s: %s is already configured\n", path, f.name)
		return nil
	}
	if err := writeFileAtomic(path, merged); err != nil {
		return fmt.Errorf("mcp install: %w", err)
	}
	fmt.Fprintf(e.stdout, "%s: %s configured; its model sees %s\n", path, f.name, proxy.MCPToolName(wire, f.name, mcpserver.ToolRecallOutput))
	return nil
}

// absStoreURL returns the store URL raw with a relative file path made
// absolute: the agent starts the server in its own folder. Network URLs
// and the default locations ("sqlite:") are returned as they are.
// Errors: the URL's (storeurl.Parse).
func absStoreURL(raw string) (string, error) {
	u, err := storeurl.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Path == "" || u.Path == u.Raw && strings.Contains(raw, "://") || filepath.IsAbs(u.Path) {
		return raw, nil
	}
	abs, err := filepath.Abs(u.Path)
	if err != nil {
		return "", err
	}
	if u.Path == u.Raw { // a folder, no scheme
		return abs, nil
	}
	out := raw[:strings.IndexByte(raw, ':')+1] + abs
	if _, q, ok := strings.Cut(raw, "?"); ok {
		out += "?" + q
	}
	return out, nil
}

// mcpEntry is one MCP server in an agent's config: Claude Code's and
// Gemini CLI's mcpServers entry, Codex's [mcp_servers.NAME] table.
type mcpEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// toml returns e as Codex's table for server name.
func (e mcpEntry) toml(name string) string {
	q := make([]string, len(e.Args))
	for i, a := range e.Args {
		q[i] = strconv.Quote(a)
	}
	return fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [%s]\n", name, strconv.Quote(e.Command), strings.Join(q, ", "))
}

// selfCommand is the program an agent starts: "agentctx" when that is on
// PATH, else this binary's absolute path.
func selfCommand() string {
	if _, err := exec.LookPath("agentctx"); err == nil {
		return "agentctx"
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "agentctx"
}

// mcpConfigPath is the config file agent reads MCP servers from, by
// default.
func mcpConfigPath(agent string) (string, error) {
	switch agent {
	case "claude-code":
		return filepath.Abs(".mcp.json")
	case "gemini-cli":
		return filepath.Abs(filepath.Join(".gemini", "settings.json"))
	}
	if d := os.Getenv("CODEX_HOME"); d != "" {
		return filepath.Join(d, "config.toml"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("mcp install: no home folder for ~/.codex/config.toml (give --file): %w", err)
	}
	return filepath.Join(h, ".codex", "config.toml"), nil
}

// mergeJSONServer returns the JSON config old (empty: none) with
// mcpServers[name] set to e, every other key kept with its value's bytes
// and in its order. Errors: old is not a JSON object (a settings file
// with comments, for instance: add the entry by hand), or its
// mcpServers is not one.
func mergeJSONServer(old []byte, name string, e mcpEntry) ([]byte, error) {
	top, err := orderedObject(old)
	if err != nil {
		return nil, err
	}
	var servers []member
	i := top.index("mcpServers")
	if i >= 0 {
		if servers, err = orderedObject(top[i].value); err != nil {
			return nil, fmt.Errorf("mcpServers: %w", err)
		}
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	servers = memberList(servers).set(name, raw)
	obj := memberList(servers).marshal()
	top = top.set("mcpServers", obj)
	var b bytes.Buffer
	if err := json.Indent(&b, top.marshal(), "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// member is one key of a JSON object and its value's bytes.
type member struct {
	key   string
	value json.RawMessage
}

type memberList []member

// orderedObject reads the JSON object data (empty or blank: no members)
// keeping its keys' order.
func orderedObject(data []byte) (memberList, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object (offset %d)", dec.InputOffset())
	}
	var out memberList
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("offset %d: %w", dec.InputOffset(), err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("offset %d: %w", dec.InputOffset(), err)
		}
		out = out.set(t.(string), v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("offset %d: %w", dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("offset %d: data after the object", dec.InputOffset())
	}
	return out, nil
}

func (l memberList) index(key string) int {
	for i, m := range l {
		if m.key == key {
			return i
		}
	}
	return -1
}

// set replaces key's value, or appends it.
func (l memberList) set(key string, v json.RawMessage) memberList {
	if i := l.index(key); i >= 0 {
		l[i].value = v
		return l
	}
	return append(l, member{key, v})
}

// marshal writes l as a compact JSON object.
func (l memberList) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// mergeTOMLServer returns Codex's config old with the table
// [mcp_servers.NAME] (and its sub-tables) replaced by e's, or e's table
// appended; every other line is kept as it is. Errors: old is not valid
// TOML, or defines the server in a form this does not edit (an inline
// table): add it by hand.
func mergeTOMLServer(old []byte, name string, e mcpEntry) ([]byte, error) {
	var parsed map[string]any
	if err := toml.Unmarshal(old, &parsed); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	table := e.toml(name)
	header := regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*(` + regexp.QuoteMeta(name) + `|"` + regexp.QuoteMeta(name) + `")\s*(\.[^\]]*)?\]\s*(#.*)?$`)
	lines := strings.SplitAfter(string(old), "\n")
	var out strings.Builder
	in, done, blank := false, false, false
	for _, l := range lines {
		trim := strings.TrimSpace(l)
		if strings.HasPrefix(trim, "[") {
			switch {
			case header.MatchString(strings.TrimRight(l, "\r\n")):
				if !done {
					out.WriteString(table)
					done = true
				}
				in = true
				continue
			case in:
				// The blank line that ended the replaced table
				// separates it from this one still.
				if blank {
					out.WriteString("\n")
				}
				in = false
			}
		}
		if !in {
			out.WriteString(l)
		}
		blank = trim == ""
	}
	if !done {
		if servers, ok := parsed["mcp_servers"].(map[string]any); ok && servers[name] != nil {
			return nil, fmt.Errorf("mcp_servers.%s is not a [mcp_servers.%s] table; replace it by hand with:\n%s", name, name, table)
		}
		s := out.String()
		if s != "" && !strings.HasSuffix(s, "\n") {
			out.WriteString("\n")
		}
		if s != "" {
			out.WriteString("\n")
		}
		out.WriteString(table)
	}
	res := []byte(out.String())
	var check struct {
		Servers map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(res, &check); err != nil {
		return nil, fmt.Errorf("could not merge the [mcp_servers.%s] table (%w); add it by hand:\n%s", name, err, table)
	}
	if check.Servers[name].Command != e.Command {
		return nil, fmt.Errorf("could not merge the [mcp_servers.%s] table; add it by hand:\n%s", name, table)
	}
	return res, nil
}

// writeFileAtomic writes data to path through a temporary file in its
// folder (created when missing), keeping an existing file's mode.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
