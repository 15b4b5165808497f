package session_test

import (
	"testing"

	"github.com/agentctx/agentctx/session"
)

// TestRequestText: a title is the request, not the harness's wrapper
// around it (imported sessions were titled "<uploaded_files>", "Here is
// a demonstration…" or nothing). Inputs are shaped after each harness's
// prompt template, with made-up tasks.
func TestRequestText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, in, want string }{
		{"typed", "fix the parser\nplease", "fix the parser\nplease"},
		{"context blocks around what was typed", "<system-reminder>\nbe careful\n</system-reminder>\nfix the parser", "fix the parser"},
		{"openhands", "<uploaded_files>\n/workspace/app\n</uploaded_files>\nI've uploaded a Go code repository in the directory app. Consider the following issue description:\n\n<issue_description>\nparser panics on empty input\nSteps: …\n</issue_description>\n\nCan you help me implement the necessary changes?", "parser panics on empty input\nSteps: …"},
		{"mini-swe-agent", "<pr_description>\nConsider the following PR description:\nto_json fails on invalid tags\n**Describe the bug**\n</pr_description>\n\n<instructions>\n# Task Instructions\n</instructions>", "to_json fails on invalid tags\n**Describe the bug**"},
		{"swe-agent instance", "We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nTimeDelta loses precision\nHi there!", "TimeDelta loses precision\nHi there!"},
		{"swe-agent demonstration", "Here is a demonstration of how to correctly accomplish this task.\nIt is included to show you how to correctly use the interface.\n--- DEMONSTRATION ---\nISSUE:\nsomething else", ""},
		{"a task tag inside a line is text", "see <task>x</task> here", "see <task>x</task> here"},
		{"only a wrapper", "<environment_context>\n<cwd>/w</cwd>\n</environment_context>", ""},
		{"only lead-ins", "Here is the task:\n\n", ""},
	} {
		if got := session.RequestText(tt.in); got != tt.want {
			t.Errorf("%s: RequestText(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
