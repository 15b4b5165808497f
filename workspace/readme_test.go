package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/token"
)

func TestReadme(t *testing.T) {
	t.Parallel()
	tenLines := ""
	for i := 1; i <= 10; i++ {
		tenLines += fmt.Sprintf("line %02d of the readme\n", i) // 22 bytes
	}
	tests := []struct {
		name        string
		files       map[string]string
		sub         string // the working directory below the root
		maxTokens   int
		wantOK      bool
		wantText    string
		wantSource  string
		wantTrunc   bool
		wantNotices []Notice
	}{
		{
			name:       "whole README",
			files:      map[string]string{"README.md": "# Title\n\nBody.\n\n\n"},
			maxTokens:  100,
			wantOK:     true,
			wantText:   "# Title\n\nBody.",
			wantSource: "README.md",
		},
		{
			name:       "case-insensitive, markdown preferred",
			files:      map[string]string{"Readme.MD": "md", "README.txt": "txt", "readme.rst": "rst"},
			maxTokens:  100,
			wantOK:     true,
			wantText:   "md",
			wantSource: "Readme.MD",
		},
		{
			name:       "plain README before .rst",
			files:      map[string]string{"README": "plain", "README.rst": "rst"},
			maxTokens:  100,
			wantOK:     true,
			wantText:   "plain",
			wantSource: "README",
		},
		{
			name:       "working directory first",
			files:      map[string]string{"README.md": "root", "sub/readme.md": "sub"},
			sub:        "sub",
			maxTokens:  100,
			wantOK:     true,
			wantText:   "sub",
			wantSource: "sub/readme.md",
		},
		{
			name:       "root when the working directory has none",
			files:      map[string]string{"README.md": "root", "sub/x.go": ""},
			sub:        "sub",
			maxTokens:  100,
			wantOK:     true,
			wantText:   "root",
			wantSource: "README.md",
		},
		{
			name:      "a folder named README is not one",
			files:     map[string]string{"README.md/x": ""},
			maxTokens: 100,
		},
		{
			name:      "none",
			files:     map[string]string{"x.go": ""},
			maxTokens: 100,
		},
		{
			name:      "empty",
			files:     map[string]string{"README.md": "\n \n"},
			maxTokens: 100,
		},
		{
			name:       "cut on a line boundary",
			files:      map[string]string{"README.md": tenLines},
			maxTokens:  30,
			wantOK:     true,
			wantText:   "line 01 of the readme\nline 02 of the readme\nline 03 of the readme\n[README cut: 3 of 10 lines shown]",
			wantSource: "README.md",
			wantTrunc:  true,
			wantNotices: []Notice{
				{Source: "README.md", Message: "README cut to 30 tokens: 3 of 10 lines shown"},
			},
		},
		{
			name:       "CRLF and byte order mark",
			files:      map[string]string{"README.md": "\uFEFFa\r\nb\r\n"},
			maxTokens:  100,
			wantOK:     true,
			wantText:   "a\nb",
			wantSource: "README.md",
		},
		{
			name:       "a long first line is cut on a rune boundary",
			files:      map[string]string{"README.md": strings.Repeat("é", 400) + "\nsecond\n"},
			maxTokens:  30,
			wantOK:     true,
			wantText:   strings.Repeat("é", 73) + "…\n[README cut: part of line 1 of 2 lines shown]",
			wantSource: "README.md",
			wantTrunc:  true,
			wantNotices: []Notice{
				{Source: "README.md", Message: "README cut to 30 tokens: part of line 1 of 2 lines shown"},
			},
		},
		{
			name:      "binary",
			files:     map[string]string{"README.md": "PK\x03\x04\x00\x00binary"},
			maxTokens: 100,
			wantNotices: []Notice{
				{Source: "README.md", Message: "binary content; README skipped"},
			},
		},
		{
			name:      "not UTF-8",
			files:     map[string]string{"README": "caf\xe9 cr\xe8me\n"},
			maxTokens: 100,
			wantNotices: []Notice{
				{Source: "README", Message: "not UTF-8 text; README skipped"},
			},
		},
		{
			name:      "cap too small for anything",
			files:     map[string]string{"README.md": tenLines},
			maxTokens: 3,
			wantNotices: []Notice{
				{Source: "README.md", Message: "README does not fit in 3 tokens; left out"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			mkTree(t, root, tt.files)
			dir := filepath.Join(root, filepath.FromSlash(tt.sub))
			b, ok, notes := readme(root, dir, token.Estimator{}, tt.maxTokens)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, block %+v, notices %v", ok, b, notes)
			}
			if diff := cmp.Diff(tt.wantNotices, notes); diff != "" {
				t.Errorf("notices (-want +got):\n%s", diff)
			}
			if !ok {
				return
			}
			want := Block{
				Name:      BlockReadme,
				Text:      tt.wantText,
				Tokens:    token.Estimator{}.Count(tt.wantText),
				Source:    tt.wantSource,
				Truncated: tt.wantTrunc,
			}
			if diff := cmp.Diff(want, b); diff != "" {
				t.Errorf("block (-want +got):\n%s", diff)
			}
			if b.Tokens > tt.maxTokens {
				t.Errorf("Tokens = %d > %d", b.Tokens, tt.maxTokens)
			}
		})
	}
}

// TestReadmeLarge checks a README longer than readmeBytes: the lines past
// the cap are counted, not read.
func TestReadmeLarge(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	n := readmeBytes/len(line) + 500
	body := strings.Repeat(line, n) + "no newline at the end"
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	b, ok, notes := readme(root, root, token.Estimator{}, 1_000_000)
	if !ok {
		t.Fatalf("no block; notices %v", notes)
	}
	held := readmeBytes / len(line)
	wantEnd := fmt.Sprintf("[README cut: %s of %s lines shown]", commas(held), commas(n+1))
	if !strings.HasSuffix(b.Text, wantEnd) || !b.Truncated {
		t.Errorf("text ends %q, want %q", b.Text[len(b.Text)-60:], wantEnd)
	}
	if !utf8.ValidString(b.Text) || b.Tokens != (token.Estimator{}).Count(b.Text) {
		t.Errorf("Tokens = %d, Count = %d", b.Tokens, (token.Estimator{}).Count(b.Text))
	}
}
