package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
)

// TestCheckpointsRestore: the pre-image of each file is taken once per
// turn before the write; Restore(n) puts back what turns n and after
// changed (an edit undone, a created file removed), leaves alone a file
// changed since by someone else, forgets those turns, and a reopened
// log reads the same; a log line naming a file outside the project is
// refused, named by its line.
func TestCheckpointsRestore(t *testing.T) {
	root := t.TempDir()
	env := tools.Env{Root: root}
	cpDir := t.TempDir()
	log := filepath.Join(cpDir, "s.ckpt")
	c, err := OpenCheckpoints(env, log, filepath.Join(cpDir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	file := func(name string) string { return filepath.Join(root, name) }
	read := func(name string) string {
		b, err := os.ReadFile(file(name))
		if err != nil {
			return "(absent)"
		}
		return string(b)
	}
	write := func(name, body string) {
		// As the agent writes: pre-image, write, post-image.
		call := chat.ToolCall{Name: "write_file", Arguments: []byte(`{"path":"` + name + `","content":"x"}`)}
		if err := c.before(call); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file(name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := c.after(call); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file("a.txt"), []byte("a0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file("b.txt"), []byte("b0"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = c.begin("one")
	write("a.txt", "a1")
	_ = c.begin("two")
	write("a.txt", "a2")
	write("a.txt", "a3") // the same turn: the pre-image stays a1
	write("new.txt", "n2")
	write("b.txt", "b2")
	if err := os.WriteFile(file("b.txt"), []byte("b-user"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = c.begin("three")
	if got := len(c.Turns()); got != 3 {
		t.Fatalf("%d turns, want 3", got)
	}

	// A reopened log is the same log.
	c, err = OpenCheckpoints(env, log, filepath.Join(cpDir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.Restore(2)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Restored, ",") != "a.txt,new.txt" || strings.Join(rep.Kept, ",") != "b.txt" {
		t.Errorf("Restore(2) = %+v", rep)
	}
	if read("a.txt") != "a1" || read("new.txt") != "(absent)" || read("b.txt") != "b-user" {
		t.Errorf("after Restore(2): a %q, new %q, b %q", read("a.txt"), read("new.txt"), read("b.txt"))
	}
	if ts := c.Turns(); len(ts) != 1 || ts[0].Text != "one" {
		t.Errorf("turns after Restore(2): %+v", ts)
	}
	rep, err = c.Restore(1)
	if err != nil || strings.Join(rep.Restored, ",") != "a.txt" || read("a.txt") != "a0" {
		t.Errorf("Restore(1) = %+v, %v; a.txt %q", rep, err, read("a.txt"))
	}

	bad := filepath.Join(cpDir, "bad.ckpt")
	_ = os.WriteFile(bad, []byte(`{"turn":1,"kind":"turn","text":"x"}`+"\n"+`{"turn":1,"kind":"before","path":"../etc/passwd"}`+"\n"), 0o600)
	if _, err := OpenCheckpoints(env, bad, cpDir); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a relative path in the log: %v", err)
	}
	outside := filepath.Join(cpDir, "outside.ckpt")
	_ = os.WriteFile(outside, []byte(`{"turn":1,"kind":"turn","text":"x"}`+"\n"+`{"turn":1,"kind":"before","path":"`+log+`"}`+"\n"), 0o600)
	c, err = OpenCheckpoints(env, outside, cpDir)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := c.Restore(1); err != nil || len(rep.Kept) != 1 || len(rep.Restored) != 0 {
		t.Errorf("a path outside the project: %+v, %v", rep, err)
	}
	if _, err := os.Stat(log); err != nil {
		t.Errorf("Restore touched a file outside the project: %v", err)
	}
}

// FuzzOpenCheckpoints: any log is read or refused with an error, never
// a panic; a log read lists its turns.
func FuzzOpenCheckpoints(f *testing.F) {
	f.Add([]byte(`{"turn":1,"kind":"turn","text":"fix it"}` + "\n" + `{"turn":1,"kind":"before","path":"/p/a","existed":true,"before":"` + strings.Repeat("ab", 32) + `"}` + "\n"))
	f.Add([]byte(`{"turn":0,"kind":"x"}`))
	f.Add([]byte("not json\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		log := filepath.Join(dir, "f.ckpt")
		if err := os.WriteFile(log, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := OpenCheckpoints(tools.Env{Root: dir}, log, filepath.Join(dir, "blobs"))
		if err != nil {
			return
		}
		for _, tn := range c.Turns() {
			if tn.N < 1 {
				t.Errorf("turn %d read", tn.N)
			}
		}
	})
}
