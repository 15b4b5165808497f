package session_test

import (
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// TestReminders: reminders are recorded on their own entries, round-trip
// through a store, and never become messages, so the restored window is
// the one without them.
func TestReminders(t *testing.T) {
	t.Parallel()
	st := newMemStore()
	id := newSession(t, st)
	rec := session.NewRecorder(st, id)
	ctx := t.Context()
	if err := rec.AddReminders(ctx); err != nil || st.appends != 0 {
		t.Fatalf("AddReminders() with none: err %v, %d appends", err, st.appends)
	}
	want := []session.Reminder{
		{Kind: "todo", Key: "todo:1", Text: "Your todo list changed."},
		{Kind: "security", Key: "security:aws:2", Text: "A tool result holds an AWS key."},
	}
	if err := rec.Add(ctx, user("fix it")); err != nil {
		t.Fatal(err)
	}
	if err := rec.AddReminders(ctx, want...); err != nil {
		t.Fatal(err)
	}
	if err := rec.Add(ctx, asst("done")); err != nil {
		t.Fatal(err)
	}
	tr, err := st.Load(ctx, id, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, session.Reminders(tr.Entries)); diff != "" {
		t.Errorf("Reminders (-want +got):\n%s", diff)
	}
	w := restored(t, st, id, window.Options{Counter: quarterCounter{}})
	if w.Len() != 2 || w.At(0).Text() != "fix it" || w.At(1).Text() != "done" {
		t.Errorf("restored window has %d messages (%v), want the 2 messages without the reminders", w.Len(), w.Messages())
	}
}

func TestPromptText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"<system-reminder>\nctx\n</system-reminder>\n<system-reminder>\nmore\n</system-reminder>\nfix the test", "fix the test"},
		{"<environment_context>\n  <cwd>/r</cwd>\n</environment_context>", ""},
		{"<uploaded_files>\n/repo\n</uploaded_files>\nI've uploaded a repository. Fix the bug.", "I've uploaded a repository. Fix the bug."},
		{"<command-name>/compact</command-name>\n<command-args></command-args>", ""},
		{"Use a <b>bold</b> tag and x < y", "Use a <b>bold</b> tag and x < y"},
		{"<unclosed>\nhello", "<unclosed>\nhello"},
		{"", ""},
	} {
		if got := session.PromptText(tt.in); got != tt.want {
			t.Errorf("PromptText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
