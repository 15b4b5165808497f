package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
)

// Permission rules follow Claude Code's documented syntax
// (https://code.claude.com/docs/en/permissions, "Permission rule
// syntax"): a rule is a tool name alone ("run_command": every call of the
// tool) or a tool name and a specifier in parentheses. For a command the
// specifier is the command itself, "prefix:*" (the prefix, then nothing
// or a space and anything) or a pattern where * matches any run of
// characters; for a file tool it is a path pattern relative to the
// project, * within one folder and ** across folders. The lists are
// checked deny first, then ask, then allow; the first match decides
// (the same page, "Manage permissions"). Claude Code's tool names are
// accepted for ours: Bash for run_command, Read for read_file, Write for
// write_file, Edit for edit_file and write_file (its Edit rules cover
// every tool that edits files).

// SettingsFile is where a project's settings are, relative to its root:
// {"permissions": {"allow": [...], "ask": [...], "deny": [...]}}, the
// shape of Claude Code's .claude/settings.json.
const SettingsFile = ".agentctx/settings.json"

// ErrBadRule reports a permission rule that does not parse: a tool name
// with characters other than letters, digits, _ and -, or a specifier not
// closed by ")". Fix the rule in the settings file.
var ErrBadRule = errors.New("agent: bad permission rule")

// Rule is one permission rule: Tool, and Spec when HasSpec ("Tool(Spec)").
type Rule struct {
	Tool    string
	Spec    string
	HasSpec bool
}

// ruleAliases maps Claude Code's tool names to the reference agent's.
var ruleAliases = map[string][]string{
	"Bash":  {"run_command"},
	"Read":  {"read_file"},
	"Write": {"write_file"},
	"Edit":  {"edit_file", "write_file"},
	"Grep":  {"search"},
	"Glob":  {"list_files"},
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ParseRule parses "Tool" or "Tool(spec)". Errors wrap [ErrBadRule].
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	name, spec, has := strings.Cut(s, "(")
	if has {
		if !strings.HasSuffix(spec, ")") {
			return Rule{}, fmt.Errorf("%w %q: the specifier is not closed by \")\"", ErrBadRule, s)
		}
		spec = strings.TrimSuffix(spec, ")")
	}
	if !toolNameRE.MatchString(name) {
		return Rule{}, fmt.Errorf("%w %q: the tool name must be letters, digits, _ or -", ErrBadRule, s)
	}
	return Rule{Tool: name, Spec: spec, HasSpec: has}, nil
}

// String returns the rule as written: "Tool" or "Tool(spec)".
func (r Rule) String() string {
	if !r.HasSpec {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

// covers reports whether the rule's tool names tool.
func (r Rule) covers(tool string) bool {
	if r.Tool == tool {
		return true
	}
	return slices.Contains(ruleAliases[r.Tool], tool)
}

// Match reports whether call is one the rule names; root is the project
// directory, absolute, that file paths are made relative to. A command
// specifier with "prefix:*" or * never matches a command that chains,
// pipes, redirects or substitutes (; & | ` $( < > or a newline): "go
// test:*" must not allow "go test && rm -rf ~". An empty or bare
// specifier ("Tool()") matches like the bare tool name.
func (r Rule) Match(call chat.ToolCall, root string) bool {
	if !r.covers(call.Name) {
		return false
	}
	if !r.HasSpec || r.Spec == "" || r.Spec == "*" {
		return true
	}
	u := tooluse.Classify(call)
	if u.Command != "" {
		return matchCommand(r.Spec, strings.TrimSpace(u.Command))
	}
	if len(u.Paths) == 0 {
		return false
	}
	for _, p := range u.Paths {
		if !matchPath(r.Spec, relPath(p, root)) {
			return false
		}
	}
	return true
}

// matchCommand matches a command against a rule's specifier.
func matchCommand(spec, cmd string) bool {
	if spec == cmd {
		return true
	}
	if chained(cmd) {
		return false
	}
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	if !strings.Contains(spec, "*") {
		return false
	}
	var re strings.Builder
	re.WriteString("^")
	for i, part := range strings.Split(spec, "*") {
		if i > 0 {
			re.WriteString(".*")
		}
		re.WriteString(regexp.QuoteMeta(part))
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), cmd)
	return ok
}

// chained reports whether a command line chains, pipes, redirects or
// substitutes: ; & | ` < > $( or a newline.
func chained(cmd string) bool {
	return strings.ContainsAny(cmd, ";&|`<>\n") || strings.Contains(cmd, "$(")
}

// matchPath matches a slash-separated path relative to the project
// against a pattern: ** any run of folders, * any run of characters but
// /, ? one character; a pattern ending in / or /** matches what is under
// the folder. A leading ./ or / is the project's root.
func matchPath(spec, p string) bool {
	spec = strings.TrimPrefix(strings.TrimPrefix(spec, "./"), "/")
	if strings.HasSuffix(spec, "/") {
		spec += "**"
	}
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(spec); i++ {
		switch c := spec[i]; {
		case strings.HasPrefix(spec[i:], "**/"):
			re.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(spec[i:], "**"):
			re.WriteString(".*")
			i++
		case c == '*':
			re.WriteString("[^/]*")
		case c == '?':
			re.WriteString("[^/]")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), p)
	return ok
}

// relPath returns p relative to root, with slashes; p as given (cleaned)
// when it is outside root.
func relPath(p, root string) string {
	if root != "" {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, abs)
		}
		if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path.Clean(p))
}

// Rules are a project's permission rules: each list is checked in order,
// Deny first, then Ask, then Allow. The zero value has none. Not safe for
// concurrent use; [Guard] locks around its own.
type Rules struct {
	Allow, Ask, Deny []Rule
}

// RuleVerdict is what the rules say of a call.
type RuleVerdict int

// The verdicts.
const (
	// RuleNone: no rule matches.
	RuleNone RuleVerdict = iota
	// RuleAllow, RuleAsk, RuleDeny: a rule of that list matches.
	RuleAllow
	RuleAsk
	RuleDeny
)

// Decide returns what the rules say of call and the rule that decided;
// root is the project's directory (see [Rule.Match]).
func (rs *Rules) Decide(call chat.ToolCall, root string) (RuleVerdict, Rule) {
	if rs == nil {
		return RuleNone, Rule{}
	}
	for _, l := range []struct {
		rules []Rule
		v     RuleVerdict
	}{{rs.Deny, RuleDeny}, {rs.Ask, RuleAsk}, {rs.Allow, RuleAllow}} {
		for _, r := range l.rules {
			if r.Match(call, root) {
				return l.v, r
			}
		}
	}
	return RuleNone, Rule{}
}

// AlwaysRule is the allow rule an "always" answer to call records: for a
// command, its program and, when the second word is a subcommand (letters
// only: "go test", "npm run"), that word, as "run_command(go test:*)",
// or the whole command when it chains, pipes, redirects or substitutes;
// for any other tool its name alone. The hazard check still asks about a
// hazardous command such a rule matches.
func AlwaysRule(call chat.ToolCall) Rule {
	line := strings.TrimSpace(tooluse.Classify(call).Command)
	cmd := strings.Fields(line)
	if len(cmd) == 0 {
		return Rule{Tool: call.Name}
	}
	if chained(line) {
		// No prefix rule matches a chained command: the command itself.
		return Rule{Tool: call.Name, Spec: line, HasSpec: true}
	}
	prefix := cmd[0]
	if len(cmd) > 1 && regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(cmd[1]) {
		prefix += " " + cmd[1]
	}
	return Rule{Tool: call.Name, Spec: prefix + ":*", HasSpec: true}
}

// settingsJSON is the settings file's shape; other keys are kept as they
// are when a rule is added.
type settingsJSON struct {
	Permissions struct {
		Allow []string `json:"allow"`
		Ask   []string `json:"ask"`
		Deny  []string `json:"deny"`
	} `json:"permissions"`
}

// LoadRules reads the permission rules of the settings file at file. A
// missing file is no rules and no error. Errors name the file and, for a
// rule that does not parse, its list and index (wrapping [ErrBadRule]).
func LoadRules(file string) (Rules, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Rules{}, nil
	}
	if err != nil {
		return Rules{}, err
	}
	return ParseSettings(file, b)
}

// ParseSettings parses the permission rules of a settings file's
// content b; name is the file's name for errors.
func ParseSettings(name string, b []byte) (Rules, error) {
	var s settingsJSON
	if err := json.Unmarshal(b, &s); err != nil {
		return Rules{}, fmt.Errorf("%s: %w", name, err)
	}
	var rs Rules
	for _, l := range []struct {
		key string
		in  []string
		out *[]Rule
	}{{"allow", s.Permissions.Allow, &rs.Allow}, {"ask", s.Permissions.Ask, &rs.Ask}, {"deny", s.Permissions.Deny, &rs.Deny}} {
		for i, x := range l.in {
			r, err := ParseRule(x)
			if err != nil {
				return Rules{}, fmt.Errorf("%s: permissions.%s[%d]: %w", name, l.key, i, err)
			}
			*l.out = append(*l.out, r)
		}
	}
	return rs, nil
}

// AddAllowRule adds r to the allow list of the settings file at file,
// creating the file and its folder when missing, keeping the file's other
// keys; a rule already there is not added twice. Errors name the file.
func AddAllowRule(file string, r Rule) error {
	doc := map[string]json.RawMessage{}
	b, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	perms := map[string]json.RawMessage{}
	if raw, ok := doc["permissions"]; ok {
		if err := json.Unmarshal(raw, &perms); err != nil {
			return fmt.Errorf("%s: permissions: %w", file, err)
		}
	}
	var allow []string
	if raw, ok := perms["allow"]; ok {
		if err := json.Unmarshal(raw, &allow); err != nil {
			return fmt.Errorf("%s: permissions.allow: %w", file, err)
		}
	}
	if slices.Contains(allow, r.String()) {
		return nil
	}
	allow = append(allow, r.String())
	perms["allow"], _ = json.Marshal(allow)
	doc["permissions"], _ = json.Marshal(perms)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}
