package transcript_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, f := range transcript.Formats() {
		got, err := transcript.ParseFormat(" " + strings.ToUpper(string(f)) + " ")
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	for in, want := range map[string]transcript.Format{"claude": transcript.FormatClaudeCode, "tau-bench": transcript.FormatOpenAI, "mini_swe_agent": transcript.FormatMiniSWEAgent,
		"roo-code": transcript.FormatCline, "gemini": transcript.FormatGeminiCLI, "copilot": transcript.FormatCopilotCLI} {
		if got, err := transcript.ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "cursor"} {
		if _, err := transcript.ParseFormat(in); !errors.Is(err, transcript.ErrUnknownFormat) {
			t.Errorf("ParseFormat(%q) error = %v, want ErrUnknownFormat", in, err)
		}
	}
	if len(transcript.Formats()) != 11 {
		t.Errorf("Formats() = %v", transcript.Formats())
	}
}

func TestParseError(t *testing.T) {
	t.Parallel()
	cause := errors.New("boom")
	e := &transcript.ParseError{File: "a.jsonl", Line: 3, Offset: 120, Reason: "invalid JSON", Err: cause}
	if got, want := e.Error(), "transcript: a.jsonl:3 (byte 120): invalid JSON: boom"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, transcript.ErrMalformed) || !errors.Is(e, cause) {
		t.Errorf("ParseError does not unwrap to ErrMalformed and its cause")
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		format transcript.Format
		input  string
	}{
		{"empty", "", ""},
		{"empty with format", transcript.FormatCodex, "\n\n"},
		{"codex reader on other records", transcript.FormatCodex, lines(`{"a":1}`)},
		{"openhands reader on other records", transcript.FormatOpenHands, lines(`{"a":1}`, `{"b":1}`)},
		{"swe-agent without history", transcript.FormatSWEAgent, `{"info":{}}`},
		{"mini without messages", transcript.FormatMiniSWEAgent, `{"info":{}}`},
		{"openai empty array", transcript.FormatOpenAI, `[]`},
		{"claude all garbage", transcript.FormatClaudeCode, "x\ny\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := transcript.Read(strings.NewReader(tc.input), "in", transcript.Options{Format: tc.format})
			var pe *transcript.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.File != "in" {
				t.Errorf("err = %v, want a *ParseError naming the file and a line", err)
			}
		})
	}
	if _, err := transcript.Read(strings.NewReader("{}"), "in", transcript.Options{Format: "nope"}); !errors.Is(err, transcript.ErrUnknownFormat) {
		t.Errorf("unknown Options.Format: err = %v", err)
	}
	if _, err := transcript.ReadFile(filepath.Join(t.TempDir(), "missing.jsonl"), transcript.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v", err)
	}
}

// TestReadDocumentWays reads JSON documents of known size (read whole
// into one buffer after a first look at their first line), of unknown
// size and one byte at a time (read through the head as JSONL is), and
// with the format given: every way reads the same trajectories. The
// documents open with a BOM, blank lines, a first line longer than the
// first look, or all on one line; a JSONL input is read the same too.
func TestReadDocumentWays(t *testing.T) {
	t.Parallel()
	mini := `{"trajectory_format":"mini-swe-agent-1.1","info":{"config":{"model":{"model_name":"m"}}},` +
		`"messages":[{"role":"user","content":"u"},{"role":"assistant","content":"a\n` + "```bash\\nls\\n```" + `"},{"role":"user","content":"r"}]}`
	pretty := strings.Replace(mini, `"messages":`, "\n  \"messages\":", 1)
	docs := map[string]string{
		"one line":          mini,
		"pretty":            "{\n" + strings.TrimPrefix(pretty, "{"),
		"bom, blank lines":  "\xef\xbb\xbf\n \n\t{\n" + strings.TrimPrefix(pretty, "{"),
		"long first line":   "{" + strings.Repeat(" ", 600) + "\n" + strings.TrimPrefix(pretty, "{"),
		"array, pretty":     "[\n" + `{"role":"user","content":"u"},` + "\n" + `{"role":"assistant","content":"a"}` + "\n]",
		"not JSON":          "hello\n{}\n",
		"broken document":   "{\n\"messages\": [\n",
		"only a brace line": "{\n",
		"claude code jsonl": lines(ccSnap, ccUser1),
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, f := range []transcript.Format{"", transcript.FormatMiniSWEAgent, transcript.FormatOpenAI} {
				want, wantErr := transcript.Read(struct{ io.Reader }{strings.NewReader(doc)}, "in", transcript.Options{Format: f})
				for way, r := range map[string]io.Reader{
					"known size":              strings.NewReader(doc),
					"known size, short reads": shortReads{strings.NewReader(doc)},
					"byte a read":             iotest.OneByteReader(strings.NewReader(doc)),
				} {
					got, err := transcript.Read(r, "in", transcript.Options{Format: f})
					if errText(err) != errText(wantErr) {
						t.Fatalf("format %q, %s: error %v, want %v", f, way, err, wantErr)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("format %q, %s: trajectories (-unknown size +%s):\n%s", f, way, way, diff)
					}
				}
			}
		})
	}
}

// shortReads is a reader of known size (its Len) that reads at most 7
// bytes at a time.
type shortReads struct{ *strings.Reader }

func (r shortReads) Read(p []byte) (int, error) {
	return r.Reader.Read(p[:min(len(p), 7)])
}

func TestReadLargeLines(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20) // a 1 MB observation, over bufio.Scanner's limit
	input := lines(
		ccUser1,
		`{"type":"assistant","uuid":"a","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}`,
		`{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"`+big+`"}]}}`,
	)
	tr := readOne(t, "", input)
	if r, ok := tr.Messages[2].ToolResult(); !ok || len(r.Content) != len(big) {
		t.Errorf("large tool result not read whole")
	}
}

// TestCollect: a folder's files are found by content as well as by name
// (issue 28: *.aider.chat.history.md, *-crush.db and *-opencode.db were
// passed over); what is skipped is said, with why.
func TestCollect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sqlite := "SQLite format 3\x00" + strings.Repeat("\x00", 84)
	aider := "# aider chat started at 2025-01-31 10:20:30\n\n#### hi\n"
	for p, text := range map[string]string{
		"b.jsonl": "{}", "a.traj": "{}", "notes.md": "# Notes\n", "sub/c.json": "{}", "sub/deep/d.JSONL": "{}",
		".hidden/e.jsonl": "{}", "sub/f.txt": "plain text", "sub/run.log": `{"type":"user"}` + "\n",
		".aider.chat.history.md": aider, "proj.aider.chat.history.md": aider, ".aider.llm.history": "TO LLM 2025-01-31T10:20:30\n",
		".crush/crush.db": sqlite, "old-crush.db": sqlite, "x-opencode.db": sqlite, "empty.dat": "", ".git/x.json": "{}",
	} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, skipped, err := transcript.Scan([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var skip []string
	for _, s := range skipped {
		rel, _ := filepath.Rel(dir, s.Path)
		skip = append(skip, rel+": "+s.Reason)
	}
	wantSkip := []string{"empty.dat: empty", "notes.md: not a transcript by its name or content (not JSON, JSONL, SQLite or an aider history)",
		"sub/f.txt: not a transcript by its name or content (not JSON, JSONL, SQLite or an aider history)"}
	if diff := cmp.Diff(wantSkip, skip); diff != "" {
		t.Errorf("Scan skipped (-want +got):\n%s", diff)
	}
	explicit := filepath.Join(dir, "sub", "f.txt")
	got, err := transcript.Collect([]string{dir, explicit, filepath.Join(dir, "b.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(dir, got[i])
	}
	want := []string{".aider.chat.history.md", ".aider.llm.history", ".crush/crush.db", "a.traj", "b.jsonl", "old-crush.db", "proj.aider.chat.history.md",
		"sub/c.json", "sub/deep/d.JSONL", "sub/f.txt", "sub/run.log", "x-opencode.db"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Collect (-want +got):\n%s", diff)
	}
	if _, err := transcript.Collect([]string{filepath.Join(dir, "nope")}); err == nil {
		t.Errorf("Collect(missing) succeeded")
	}
	// A missing path does not hide the others' files.
	got, err = transcript.Collect([]string{filepath.Join(dir, "nope"), explicit, filepath.Join(dir, "gone")})
	if err == nil || !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "gone") {
		t.Errorf("Collect(missing, file, missing): err = %v, want one naming both missing paths", err)
	}
	if len(got) != 1 || got[0] != explicit {
		t.Errorf("Collect(missing, file, missing) = %q, want the file", got)
	}
}
