package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

func TestEscapeTerm(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "hello, wörld ✓\tok\n", "hello, wörld ✓\tok\n"},
		{"clear screen", "a\x1b[2Jb", `a\u001b[2Jb`},
		{"window title (OSC 0, BEL)", "\x1b]0;pwned\x07", `\u001b]0;pwned\u0007`},
		{"OSC 52 clipboard, ST", "\x1b]52;c;aGk=\x1b\\", `\u001b]52;c;aGk=\u001b\`},
		{"bell", "\a", `\u0007`},
		{"backspace, NUL, DEL", "x\b\x00\x7f", `x\u0008\u0000\u007f`},
		{"C1 CSI and OSC", "\u009b2J\u009d0;t\u009c", `\u009b2J\u009d0;t\u009c`},
		{"CRLF kept, lone CR escaped", "a\r\nb\rc\r", "a\r\nb\\u000dc\\u000d"},
		{"invalid UTF-8", "a\x9bb\xc2", "a\ufffdb\ufffd"},
		{"U+00A0 and above stay", "\u00a0é", "\u00a0é"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := escapeTerm(tt.in)
			if got != tt.want {
				t.Errorf("escapeTerm(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := escapeTerm(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
			if bad := termControl(got); bad != "" {
				t.Errorf("escapeTerm(%q) = %q keeps %s", tt.in, got, bad)
			}
			var b bytes.Buffer
			if n, err := (&termWriter{&b}).Write([]byte(tt.in)); err != nil || n != len(tt.in) || b.String() != tt.want {
				t.Errorf("termWriter: wrote %q (n %d, %v), want %q", b.String(), n, err, tt.want)
			}
		})
	}
}

// TestEscapeTermJSON: JSON that encoding/json wrote, passed through the
// escaping writer, is still valid and decodes to the same values.
func TestEscapeTermJSON(t *testing.T) {
	t.Parallel()
	v := map[string]any{"s": "\x1b[2J\x07\u009b\u009d\x7f\r\n\t<&>", "raw": json.RawMessage(`{"k":"\u001b"}`)}
	var b bytes.Buffer
	if err := writeJSON(&termWriter{&b}, v); err != nil {
		t.Fatal(err)
	}
	if bad := termControl(b.String()); bad != "" {
		t.Fatalf("JSON output keeps %s: %q", bad, b.String())
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v: %q", err, b.String())
	}
	if got["s"] != v["s"] || got["raw"].(map[string]any)["k"] != "\x1b" {
		t.Errorf("decoded %q, want %q", got, v)
	}
}

// termControl names the first character of s a terminal acts on: a C0
// control but tab and newline (CR only before a newline), DEL, a C1
// control or a byte that is not UTF-8; "" when there is none.
func termControl(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd"):
			return fmt.Sprintf("byte %#x at %d", s[i], i)
		case r == '\t' || r == '\n' || (r == '\r' && strings.HasPrefix(s[i:], "\r\n")):
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return fmt.Sprintf("%U at %d", r, i)
		}
	}
	return ""
}

// hostile is text carrying terminal sequences: clear screen, a window
// title (OSC 0 ended by BEL), the bell, C1 CSI and OSC, a carriage return
// that would overwrite the line.
const hostile = "pwn \x1b[2J\x1b[H\x1b]0;owned\x07 \a \u009b31m \u009d0;t\u009c fake\rX"

// hostileSession writes a Claude Code transcript whose title, project,
// branch, text, tool call and tool result carry hostile, and a project
// folder with a hostile README, and returns both paths.
func hostileSession(t *testing.T) (file, project string) {
	t.Helper()
	dir := t.TempDir()
	project = filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte("# readme "+hostile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return claudeSession(t, dir, "5a1e0b7e-0000-4000-8000-000000000001", project, hostile), project
}

// claudeSession writes the Claude Code transcript <dir>/<sid>.jsonl of a
// session in project whose prompt, branch, answers, tool call (Bash) and
// tool result hold text, and returns its path.
func claudeSession(t *testing.T, dir, sid, project, text string) string {
	t.Helper()
	h, err := json.Marshal(text)
	if err != nil {
		t.Fatal(err)
	}
	hs := string(h)
	in := strings.Trim(hs, `"`)
	common := fmt.Sprintf(`"sessionId":%q,"cwd":%q,"gitBranch":%s,"version":"2.1.38","isSidechain":false,"userType":"external"`, sid, project, hs)
	lines := []string{
		`{"type":"user","uuid":"10000000-0000-4000-8000-000000000001","parentUuid":null,"timestamp":"2026-02-10T21:00:00Z",` + common + `,"message":{"role":"user","content":"fix it ` + in + `"}}`,
		`{"type":"assistant","uuid":"10000000-0000-4000-8000-000000000002","parentUuid":"10000000-0000-4000-8000-000000000001","timestamp":"2026-02-10T21:00:01Z",` + common + `,"message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":` + hs + `},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":` + hs + `}}],"usage":{"input_tokens":100,"output_tokens":10}}}`,
		`{"type":"user","uuid":"10000000-0000-4000-8000-000000000003","parentUuid":"10000000-0000-4000-8000-000000000002","timestamp":"2026-02-10T21:00:02Z",` + common + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + hs + `}]}}`,
		`{"type":"assistant","uuid":"10000000-0000-4000-8000-000000000004","parentUuid":"10000000-0000-4000-8000-000000000003","timestamp":"2026-02-10T21:00:03Z",` + common + `,"message":{"id":"m2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done ` + in + `"}],"usage":{"input_tokens":120,"output_tokens":10}}}`,
	}
	file := filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestCommandsEscapeTerminalSequences runs every command that prints a
// transcript's, a session's or a project's text on a transcript and a
// project carrying terminal sequences: the text output shows them
// escaped, never raw, and --json stays valid JSON that keeps them.
func TestCommandsEscapeTerminalSequences(t *testing.T) {
	t.Parallel()
	file, project := hostileSession(t)
	home := t.TempDir()
	out := mustRun(t, ExitOK, "sessions", "import", "--home", home, "--json", file)
	imported := jsonLines[importResult](t, out)
	if len(imported) != 1 || imported[0].ID == "" {
		t.Fatalf("import: %s", out)
	}
	id := imported[0].ID
	tests := []struct {
		args []string
		// shows is text the output must hold, escaped.
		shows string
	}{
		{[]string{"sessions", "import", "--home", t.TempDir(), file}, `fix it pwn \u001b[2J`},
		{[]string{"sessions", "list", "--home", home, "--all"}, `fix it pwn \u001b[2J`},
		{[]string{"sessions", "show", "--home", home, id}, `\u001b]0;owned\u0007 \u0007 \u009b31m \u009d0;t\u009c fake\u000dX`},
		{[]string{"sessions", "show", "--home", home, id, "--full"}, `→ Bash {"command":"pwn \u001b[2J`},
		{[]string{"sessions", "check", file}, file},
		{[]string{"inspect", "--home", home, id}, `fix it pwn \u001b[2J`},
		{[]string{"inspect", file}, file},
		{[]string{"replay", file, "-v"}, "model calls"},
		{[]string{"compact", file, "--dry-run", "--budget", "1000", "--summarizer", "extractive"}, `\u001b[2J`},
		{[]string{"context", project}, `# readme pwn \u001b[2J`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " "), func(t *testing.T) {
			t.Parallel()
			code, out, errOut := run(t, tt.args...)
			if code != ExitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for name, s := range map[string]string{"stdout": out, "stderr": errOut} {
				if bad := termControl(s); bad != "" {
					t.Errorf("%s prints %s raw:\n%q", name, bad, s)
				}
			}
			if !strings.Contains(out, tt.shows) {
				t.Errorf("stdout lacks %q:\n%s", tt.shows, out)
			}
			code, out, errOut = run(t, append(tt.args, "--json")...)
			if code != ExitOK {
				t.Fatalf("--json: exit %d\nstderr:\n%s", code, errOut)
			}
			if bad := termControl(out); bad != "" {
				t.Errorf("--json prints %s raw:\n%q", bad, out)
			}
			if objs := jsonLines[map[string]any](t, out); len(objs) == 0 {
				t.Errorf("--json printed nothing")
			}
			if strings.Contains(tt.shows, `\u001b`) && !strings.Contains(out, `\u001b[2J`) {
				t.Errorf("--json lost the text:\n%s", out)
			}
		})
	}
}

// hostileScript is a model whose text, tool call and error carry terminal
// sequences: it reads a file named hostile, then answers with hostile.
func hostileScript(r providertest.Request) providertest.Reply {
	for _, m := range r.Messages {
		if _, ok := m.ToolResult(); ok {
			return providertest.Reply{Text: "done " + hostile}
		}
	}
	args, _ := json.Marshal(map[string]string{"path": hostile})
	return providertest.Reply{Text: hostile, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read_file", Arguments: args}}}
}

// TestChatEscapesTerminalSequences: the chat, interactive and in print
// mode, prints the model's text, its tool calls and their results with
// the terminal sequences escaped.
func TestChatEscapesTerminalSequences(t *testing.T) {
	useScriptedModel(t, hostileScript)
	t.Setenv("AGENTCTX_HOME", t.TempDir())
	for _, tt := range []struct {
		name, stdin string
		args        []string
	}{
		{"interactive", "read it\n/sessions\n/exit\n", []string{"chat", t.TempDir()}},
		{"print", "", []string{"chat", t.TempDir(), "-p", "read it", "--yes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runIn(t, tt.stdin, tt.args...)
			if code != ExitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for name, s := range map[string]string{"stdout": out, "stderr": errOut} {
				if bad := termControl(s); bad != "" {
					t.Errorf("%s prints %s raw:\n%q", name, bad, s)
				}
			}
			if !strings.Contains(out, `done pwn \u001b[2J`) {
				t.Errorf("stdout lacks the escaped answer:\n%s", out)
			}
		})
	}
}

// BenchmarkTermWriter measures the escaping writer every command's output
// goes through, in bytes per second: plain text (the common case, written
// as it is) and text full of control characters.
func BenchmarkTermWriter(b *testing.B) {
	for _, bc := range []struct{ name, line string }{
		{"plain", "  → Bash {\"command\":\"go test ./...\"} ok  \tgithub.com/agentctx/agentctx/window\t0.412s — ✓ passed\n"},
		{"hostile", hostile + "\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := []byte(strings.Repeat(bc.line, 64<<10/len(bc.line)))
			w := &termWriter{io.Discard}
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				if _, err := w.Write(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
