package session_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
)

// A transcript whose chain is broken in the middle and whose last line was
// torn by a crash: Check names each defect, Resolve still returns the
// whole conversation, and Repair writes a sound copy.
func ExampleCheck() {
	transcript := strings.Join([]string{
		`{"uuid":"a","parentUuid":null,"type":"user","message":{"role":"user","content":"fix the build"}}`,
		`{"uuid":"b","parentUuid":"a","type":"assistant","message":{"role":"assistant","id":"m1","content":"on it"}}`,
		`{"uuid":"c","parentUuid":"lost","type":"user","message":{"role":"user","content":"and the tests"}}`,
		`{"uuid":"d","parentUuid":"c","type":"assistant","message":{"role":"assistant","id":"m2","content":"done"}}`,
		`{"uuid":"e","parentUuid":"d","type":"us`,
	}, "\n")
	entries, problems, _ := session.Read(strings.NewReader(transcript), session.ReadOptions{File: "s.jsonl", FirstLine: 1})
	report := session.Check(entries, problems)
	report.SetFile("s.jsonl")
	for _, p := range report.Problems {
		fmt.Printf("%s:%d (byte %d): %s\n", p.File, p.Line, p.Offset, p.Kind)
	}
	conversation, _ := session.Resolve(entries)
	fmt.Println("conversation:", len(conversation), "entries,", report.Messages, "messages")

	fixed, fixes := session.Repair(entries)
	var out bytes.Buffer
	for _, e := range fixed {
		line, _ := session.MarshalLine(e)
		out.Write(append(line, '\n'))
	}
	again, problems, _ := session.Read(&out, session.ReadOptions{FirstLine: 1})
	fmt.Println(len(fixes), "fix; repaired copy OK:", session.Check(again, problems).OK())
	// Output:
	// s.jsonl:3 (byte 205): dangling-parent
	// s.jsonl:5 (byte 411): torn-line
	// conversation: 4 entries, 4 messages
	// 1 fix; repaired copy OK: true
}

// A Recorder writes each message added to a window and each compaction;
// Restore gives back the window.
func ExampleRestore() {
	ctx := context.Background()
	var store session.Store = newMemStore() // any Store: jsonlstore, …
	s, _ := store.Create(ctx, session.Session{Project: "/src/app"})
	rec := session.NewRecorder(store, s.ID)
	w, _ := window.New(window.Options{})
	for _, m := range []chat.Message{
		chat.NewText(chat.RoleSystem, "You are a coding agent."),
		chat.NewText(chat.RoleUser, "What is in main.go?"),
	} {
		_ = w.Add(m)
		_ = rec.Add(ctx, m)
	}
	tr, _ := store.Load(ctx, s.ID, session.LoadOptions{})
	restored, problems, _ := session.Restore(tr.Entries, window.Options{})
	fmt.Println(restored.Len(), "messages,", restored.Tokens() == w.Tokens(), len(problems))
	// Output: 2 messages, true 0
}
