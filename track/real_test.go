package track

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/transcript"
)

// expected is what a raw trajectory file holds by simple per-format rules
// that share no code with the tracker.
type expected struct {
	reads    []string // paths read successfully
	failures []string // failed shell commands, cut to 100 runes
	searches []string // search queries, one per search call
}

var (
	catRe    = regexp.MustCompile(`^cat\s+([\w./-]+)$`)
	searchRe = regexp.MustCompile(`^(?:grep|find|rg)\s`)
)

// noMatchRe matches a command line whose last command is grep, rg, git
// grep, diff or cmp: its exit code 1 answers "no match" or "differ".
var noMatchRe = regexp.MustCompile(`(?:^|&&|\|\||\||;)\s*(?:grep|egrep|rg|git grep|diff|cmp)\s[^|;&]*$`)

func cut100(s string) string { return string([]rune(s)[:min(100, len([]rune(s)))]) }

// rawExpected reads path with one rule per format.
func rawExpected(t *testing.T, path string) expected {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	shell := func(cmd string, code int, hasCode bool) {
		cmd = strings.TrimSpace(cmd)
		if hasCode && code != 0 && !(code == 1 && noMatchRe.MatchString(cmd)) {
			e.failures = append(e.failures, cut100(cmd))
		}
		if m := catRe.FindStringSubmatch(cmd); m != nil && hasCode && code == 0 {
			e.reads = append(e.reads, m[1])
		}
		if searchRe.MatchString(cmd) && !strings.ContainsAny(cmd, "|;&\n") {
			e.searches = append(e.searches, cmd)
		}
	}
	switch {
	case strings.Contains(path, "/claude-code/"):
		type block struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
		}
		calls := map[string]block{}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var line struct {
				Type    string `json:"type"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			var blocks []block
			if json.Unmarshal(line.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				var in struct {
					FilePath string `json:"file_path"`
					Command  string `json:"command"`
					Pattern  string `json:"pattern"`
				}
				switch b.Type {
				case "tool_use":
					calls[b.ID] = b
					_ = json.Unmarshal(b.Input, &in)
					if b.Name == "Grep" || b.Name == "Glob" {
						e.searches = append(e.searches, in.Pattern)
					}
				case "tool_result":
					c := calls[b.ToolUseID]
					_ = json.Unmarshal(c.Input, &in)
					if c.Name == "Read" && !b.IsError {
						e.reads = append(e.reads, in.FilePath)
					}
					if c.Name == "Bash" && b.IsError {
						e.failures = append(e.failures, cut100(in.Command))
					}
				}
			}
		}
	case strings.Contains(path, "/mini-swe-agent/"):
		var f struct {
			Messages []struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct{ Arguments string }
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
				Extra      struct {
					Returncode *int `json:"returncode"`
				} `json:"extra"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		cmds := map[string]string{}
		for _, m := range f.Messages {
			for _, c := range m.ToolCalls {
				var a struct{ Command string }
				_ = json.Unmarshal([]byte(c.Function.Arguments), &a)
				cmds[c.ID] = a.Command
			}
			if m.Role == "tool" && m.Extra.Returncode != nil {
				shell(cmds[m.ToolCallID], *m.Extra.Returncode, true)
			}
		}
	case strings.Contains(path, "/openhands/"):
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, 1<<27)
		for sc.Scan() {
			var line struct {
				History []struct {
					Action      string `json:"action"`
					Observation string `json:"observation"`
					Meta        *struct {
						FunctionName string `json:"function_name"`
						ToolCallID   string `json:"tool_call_id"`
					} `json:"tool_call_metadata"`
					Args struct {
						Command string `json:"command"`
						Path    string `json:"path"`
					} `json:"args"`
					Extras struct {
						Metadata struct {
							ExitCode *int `json:"exit_code"`
						} `json:"metadata"`
					} `json:"extras"`
				} `json:"history"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			type act struct{ fn, cmd, path string }
			acts := map[string]act{}
			for _, ev := range line.History {
				if ev.Meta == nil {
					continue
				}
				if ev.Action != "" {
					acts[ev.Meta.ToolCallID] = act{ev.Meta.FunctionName, ev.Args.Command, ev.Args.Path}
					continue
				}
				a := acts[ev.Meta.ToolCallID]
				switch {
				case a.fn == "execute_bash" && ev.Extras.Metadata.ExitCode != nil:
					shell(a.cmd, *ev.Extras.Metadata.ExitCode, true)
				case a.fn == "str_replace_editor" && a.cmd == "view" && ev.Observation == "read":
					e.reads = append(e.reads, a.path)
				}
			}
		}
	case strings.Contains(path, "/swe-agent/"):
		var f struct {
			History []struct {
				Role   string `json:"role"`
				Action string `json:"action"`
			} `json:"history"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		for _, m := range f.History {
			w := strings.Fields(m.Action)
			if m.Role != "assistant" || len(w) == 0 {
				continue
			}
			switch w[0] {
			case "open":
				if len(w) > 1 {
					e.reads = append(e.reads, strings.Trim(w[1], `"`))
				}
			case "find_file", "search_dir", "search_file":
				e.searches = append(e.searches, m.Action)
			}
		}
	}
	return e
}

func TestRealTrajectories(t *testing.T) {
	t.Parallel()
	exact, err := token.ForEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range sharedtest.Files(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			trs, err := transcript.ReadFile(path, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := rawExpected(t, path)
			reads, fails := map[string]bool{}, map[string]bool{}
			var searches []string
			for _, tr := range trs {
				all := New(Options{Stat: noStat, MaxFiles: -1, MaxCommands: -1, MaxSearches: -1, MaxTokens: -1})
				capped := New(Options{Stat: noStat, Counter: exact})
				feed(tr.Messages, all, capped)
				st := all.State()
				for _, f := range st.Files {
					reads[f.Path] = true
				}
				for _, c := range st.Commands {
					fails[c.Command] = true
				}
				for _, s := range st.Searches {
					searches = append(searches, s.Query)
				}
				if n := exact.Count(capped.Section()); n > DefaultMaxTokens {
					t.Errorf("section of %s #%d has %d tokens, cap %d", path, tr.Index, n, DefaultMaxTokens)
				}
			}
			for _, p := range want.reads {
				if !reads[p] {
					t.Errorf("file read %q not tracked", p)
				}
			}
			for _, c := range want.failures {
				if !fails[c] {
					t.Errorf("failed command %q not tracked", c)
				}
			}
			for _, q := range want.searches {
				q = strings.TrimSpace(q)
				i := -1
				for j, s := range searches {
					if s == tooluse.HeadRunes(q, QueryRunes) || s != "" && strings.Contains(q, s) {
						i = j
						break
					}
				}
				if i < 0 {
					t.Errorf("search %q not tracked", q)
					continue
				}
				searches = append(searches[:i], searches[i+1:]...)
			}
			t.Logf("%d reads, %d failures, %d searches checked", len(want.reads), len(want.failures), len(want.searches))
		})
	}
}

// feed records every tool call of msgs with its result into each tracker.
func feed(msgs []chat.Message, trackers ...*Tracker) {
	p := chat.Pair(msgs)
	for i, m := range msgs {
		r, ok := m.ToolResult()
		if !ok || p.CallOf[i] < 0 {
			continue
		}
		for _, c := range msgs[p.CallOf[i]].ToolCalls() {
			if c.ID == r.ToolCallID {
				for _, t := range trackers {
					t.Record(c, r)
				}
				break
			}
		}
	}
}
