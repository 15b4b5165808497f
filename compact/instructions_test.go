package compact_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/secret/secrettest"
)

func TestInstructionSentences(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"rule among a request", "Fix the failing test in parser.go. Never edit the generated files in gen/. Thanks!",
			[]string{"Never edit the generated files in gen/."}},
		{"correction", "No, use the v2 client for this",
			[]string{"No, use the v2 client for this"}},
		{"word boundary", "This is commonly done in the parser module here", nil},
		{"curly apostrophe", "Please don’t touch the migrations folder at all",
			[]string{"Please don’t touch the migrations folder at all"}},
		{"list items", "Rules:\n- always run go test with -race\n- keep the public API stable\n",
			[]string{"always run go test with -race", "keep the public API stable"}},
		{"code fence skipped", "Run this:\n```\n# never do this in production\nrm -rf build\n```\n", nil},
		{"reminder skipped", "<system-reminder>You must always answer in French.</system-reminder>\nWhat does main do?", nil},
		{"too short", "Never.", nil},
		{"secret redacted", "Always use the key " + secrettest.Anthropic + " for staging",
			nil}, // checked below: present, redacted
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := compact.InstructionSentences(tt.text)
			if tt.name == "secret redacted" {
				if len(got) != 1 || got[0] == tt.text || !strings.HasPrefix(got[0], "Always use the key ") {
					t.Fatalf("got %q, want the sentence with its key redacted", got)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("InstructionSentences(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestInstructions(t *testing.T) {
	msgs := []chat.Message{
		chat.NewText(chat.RoleSystem, "You must always be concise in every answer."),
		chat.NewText(chat.RoleUser, "Add a --json flag. Only change cmd/list.go please."),
		chat.NewText(chat.RoleAssistant, "I will never touch other files, promise."),
		chat.NewText(chat.RoleUser, "Only change cmd/list.go please."),
		chat.NewText(chat.RoleUser, "Actually, also update the README table."),
	}
	got := compact.Instructions(msgs)
	want := []compact.Instruction{
		{Text: "Only change cmd/list.go please.", Message: 1},
		{Text: "Actually, also update the README table.", Message: 4},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Instructions = %+v, want %+v", got, want)
	}
}

func FuzzInstructionSentences(f *testing.F) {
	f.Add("Never edit gen/. No, use v2 instead! ```\nalways\n``` <system-reminder>must")
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range compact.InstructionSentences(text) {
			if s == "" {
				t.Fatalf("empty instruction from %q", text)
			}
		}
	})
}
