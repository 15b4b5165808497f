package compact_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/tooluse"
)

// callID is as long as an Anthropic tool_use id.
const callID = "toolu_01A09q90qw90lq917835lq9Z"

func bigJSONObject() string {
	m := map[string]any{}
	for i := range 300 {
		m[fmt.Sprintf("key%03d", i)] = map[string]any{"path": fmt.Sprintf("src/f%d.go", i), "lines": []int{i, i + 1, i + 2}, "text": strings.Repeat("ünïcode ", 20)}
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return string(b)
}

func bigJSONArray() string {
	var a []any
	for i := range 400 {
		a = append(a, map[string]any{"file": fmt.Sprintf("src/f%d.go", i), "line": i, "match": strings.Repeat("x", 80)})
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// Every tool name tooluse knows (the limiter's and the tracker's among
// them), given a large JSON
// result, gets valid JSON back with the note in it: the content decides
// before the name (a JSON read_file or search_project_code result used to
// be cut as lines into invalid JSON).
func TestLimitJSONWhateverTheTool(t *testing.T) {
	t.Parallel()
	names := []string{"", "Bash", "mcp__github__list_issues", "str_replace_editor"}
	for _, at := range tooluse.Agents() {
		for n := range at.Tools {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		for _, payload := range []struct{ kind, content string }{{"object", bigJSONObject()}, {"array", bigJSONArray()}} {
			for _, recallTool := range []string{"", "recall_output"} {
				for _, isErr := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%s/recall=%q/error=%v", name, payload.kind, recallTool, isErr), func(t *testing.T) {
						t.Parallel()
						r := chat.ToolResult{ToolCallID: callID, ToolName: name, Content: payload.content, IsError: isErr}
						for _, ratio := range []float64{0, 0.9} {
							got, info := compact.LimitToolResultWith(r, "", ratio, compact.LimitOptions{RecallTool: recallTool})
							if info.Kind != compact.LimitJSON || !info.Cut {
								t.Fatalf("ratio %v: kind %v, cut %v; want json, cut", ratio, info.Kind, info.Cut)
							}
							if !json.Valid([]byte(got.Content)) {
								t.Fatalf("ratio %v: invalid JSON:\n%s", ratio, got.Content)
							}
							if !strings.Contains(got.Content, "the full result") || !strings.Contains(got.Content, strconv.Itoa(info.Bytes)) {
								t.Fatalf("ratio %v: no note of the cut:\n%s", ratio, got.Content)
							}
							if recallTool != "" {
								if n := utf8.RuneCountInString(jsonNote(t, got.Content)); n >= 200 || !strings.Contains(got.Content, recallTool) {
									t.Fatalf("ratio %v: the note (%d runes) does not name %s, or is 200 runes or more:\n%s", ratio, n, recallTool, got.Content)
								}
							}
						}
					})
				}
			}
		}
	}
}

// jsonNote returns the limiter's note in a cut JSON document: its
// top-level "agentctx_cut" key, or its last element.
func jsonNote(t *testing.T, doc string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	switch v := v.(type) {
	case map[string]any:
		s, _ := v["agentctx_cut"].(string)
		return s
	case []any:
		if len(v) > 0 {
			s, _ := v[len(v)-1].(string)
			return s
		}
	}
	t.Fatalf("no note in %.200s", doc)
	return ""
}

var linesNote = regexp.MustCompile(`lines (\d+)-(\d+) of (\d+) omitted`)

// noteOf returns the limiter's note in out: the line that starts with
// "…[agentctx:".
func noteOf(t *testing.T, out string) string {
	t.Helper()
	for l := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(l, "…[agentctx:") {
			return l
		}
	}
	t.Fatalf("no note in:\n%s", out)
	return ""
}

// With RecallTool, the note names the call id and the lines left out,
// exactly: every line before them and after them is in the output, so
// asking for those lines gives back everything missing.
func TestLimitRecallNote(t *testing.T) {
	t.Parallel()
	var text strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&text, "line %d of the build log: ok ✅ %s\n", i, strings.Repeat("·", i%40))
	}
	minified := strings.Repeat("abcdefghij", 2000)
	for _, c := range []struct {
		name, tool, content string
		ratio               float64
		kind                compact.LimitKind
		byBytes             bool
	}{
		{"text", "Bash", text.String(), 0.9, compact.LimitText, false},
		{"text at 50%", "exec_command", text.String(), 0.5, compact.LimitText, false},
		{"one long line", "Bash", minified, 0.9, compact.LimitText, true},
		{"file", "Read", numberedFile(1000), 0.9, compact.LimitFile, false},
		{"file, one long line", "Read", minified, 0.9, compact.LimitFile, true},
		{"search", "Grep", grepOutput(200), 0.9, compact.LimitSearch, false},
		{"search, context", "search_dir", strings.Repeat("a.go:1:match\n"+strings.Repeat("a.go-2-context\n", 12)+"--\n", 30), 0.5, compact.LimitSearch, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := chat.ToolResult{ToolCallID: callID, ToolName: c.tool, Content: c.content}
			plain, _ := compact.LimitToolResult(r, "", c.ratio)
			got, info := compact.LimitToolResultWith(r, "", c.ratio, compact.LimitOptions{RecallTool: "recall_output"})
			if info.Kind != c.kind || !info.Cut {
				t.Fatalf("kind %v cut %v, want %v cut", info.Kind, info.Cut, c.kind)
			}
			note := noteOf(t, got.Content)
			if n := utf8.RuneCountInString(note); n >= 200 {
				t.Errorf("note of %d runes, want under 200: %s", n, note)
			}
			if !strings.Contains(note, `call_id="`+callID+`"`) || !strings.Contains(note, "recall_output") {
				t.Errorf("note does not say how to read the rest back: %s", note)
			}
			// The kept content is the limiter's, whatever the note.
			if strip(got.Content) != strip(plain.Content) {
				t.Errorf("kept content differs from the plain limiter's:\n%s\n---\n%s", got.Content, plain.Content)
			}
			if c.byBytes {
				m := regexp.MustCompile(`offset=(\d+), length=(\d+)`).FindStringSubmatch(note)
				if m == nil {
					t.Fatalf("note names no byte range: %s", note)
				}
				off, _ := strconv.Atoi(m[1])
				n, _ := strconv.Atoi(m[2])
				if !strings.HasPrefix(got.Content, c.content[:off]) || off+n > len(c.content) || !strings.HasSuffix(strings.TrimSuffix(got.Content, "\n"+note), c.content[off+n:]) {
					t.Errorf("bytes %d+%d are not exactly what is missing: %s", off, n, note)
				}
				return
			}
			m := linesNote.FindStringSubmatch(note)
			if m == nil {
				t.Fatalf("note names no line range: %s", note)
			}
			first, _ := strconv.Atoi(m[1])
			last, _ := strconv.Atoi(m[2])
			total, _ := strconv.Atoi(m[3])
			lines := strings.SplitAfter(c.content, "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			if total != len(lines) || first < 1 || last < first || last > total {
				t.Fatalf("lines %d-%d of %d; the content has %d", first, last, total, len(lines))
			}
			before := strings.Join(lines[:first-1], "")
			after := strings.Join(lines[last:], "")
			if c.kind == compact.LimitSearch {
				// Kept matches may be cut; the omitted ones start at a
				// match and run to the end.
				if after != "" {
					t.Fatalf("search: lines after the omitted range: %q", after)
				}
				if !strings.HasPrefix(lines[first-1], "a.go:1:") && !strings.HasPrefix(lines[first-1], "src/pkg") {
					t.Fatalf("search: the omitted range starts inside a match: %q", lines[first-1])
				}
				return
			}
			if !strings.HasPrefix(got.Content, before) {
				t.Errorf("lines 1-%d are not all in the output", first-1)
			}
			if !strings.HasSuffix(got.Content, after) {
				t.Errorf("lines %d-%d are not all in the output", last+1, total)
			}
		})
	}
}

// strip removes the limiter's note lines, to compare what was kept.
func strip(s string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if !strings.HasPrefix(l, "…[agentctx:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// With RecallTool empty, or a result without a call id, the output is the
// plain limiter's, byte for byte.
func TestLimitRecallOff(t *testing.T) {
	t.Parallel()
	for _, content := range []string{grepOutput(200), numberedFile(1000), bigJSONObject(), lines(3000), strings.Repeat("é", 9000)} {
		for _, tool := range []string{"Grep", "Read", "Bash", ""} {
			for _, ratio := range []float64{0, 0.5, 0.9} {
				r := chat.ToolResult{ToolCallID: callID, ToolName: tool, Content: content}
				want, wantInfo := compact.LimitToolResult(r, "", ratio)
				got, gotInfo := compact.LimitToolResultWith(r, "", ratio, compact.LimitOptions{})
				if got != want || gotInfo != wantInfo {
					t.Fatalf("%s at %v: zero options differ from LimitToolResult", tool, ratio)
				}
				r.ToolCallID = ""
				want, _ = compact.LimitToolResult(r, "", ratio)
				got, _ = compact.LimitToolResultWith(r, "", ratio, compact.LimitOptions{RecallTool: "recall_output"})
				if got != want {
					t.Fatalf("%s at %v: a result without a call id got a recall note", tool, ratio)
				}
			}
		}
	}
}
