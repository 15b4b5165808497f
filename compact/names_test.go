package compact_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/window"
)

// bashRound returns a shell tool call running command and its output.
func bashRound(id, command, output string) []chat.Message {
	args, _ := json.Marshal(map[string]string{"command": command})
	return []chat.Message{
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "Bash", Arguments: args}}},
		chat.NewToolResult(id, "Bash", output, false),
	}
}

const namesHeading = "Names seen in the removed tool outputs"

// noteNames returns the names section's lines of w's note.
func noteNames(t *testing.T, w *window.Window) []string {
	t.Helper()
	n := w.Note()
	if n < 0 {
		t.Fatal("no compaction note")
	}
	text := w.At(n).Text()
	i := strings.Index(text, namesHeading)
	if i < 0 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(text[i:], "\n")[1:] {
		if !strings.HasPrefix(l, "- ") {
			break
		}
		out = append(out, l)
	}
	return out
}

func TestL2NamesSection(t *testing.T) {
	t.Parallel()
	code := "package config\n\nfunc ParseConfig(path string) (*Config, error) {\n\treturn load_defaults(path)\n}\n" + lines(2000)
	testOut := "--- FAIL: TestParseConfig (0.00s)\n    internal/config/config_test.go:42: want nil, got error\n" +
		"token ghp_R8x2kQ9vLm4nP7tY1wZ3bC6dF0hJ5gK2sA8e leaked\n" + lines(2000)
	msgs := withIDs(concat(
		one(sys("system prompt")),
		one(user("fix the config loader")),
		round("r1", "Read", "pkg/config.go", code),            // m2 m3: removed, oldest
		bashRound("r2", "go test ./internal/config", testOut), // m4 m5: removed, newest
		round("r3", "Read", "x.go", lines(3000)),              // kept
		round("r4", "Read", "y.go", lines(3000)),              // kept
	))
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.85)
	run(t, &compact.Tiered{L2KeepRounds: 2}, w)
	got := noteNames(t, w)
	if len(got) != 2 {
		t.Fatalf("names lines = %q, want one per removed output", got)
	}
	// Newest output first, labelled by its command; then the file read.
	if !strings.HasPrefix(got[0], "- go test ./internal/config: ") || !strings.Contains(got[0], "TestParseConfig") ||
		!strings.Contains(got[0], "internal/config/config_test.go") {
		t.Errorf("first line %q: want the test run's names", got[0])
	}
	// The note's "files touched" gives the read's full path: its line is
	// labelled by the base name.
	if !strings.Contains(w.At(w.Note()).Text(), "files touched: pkg/config.go") {
		t.Errorf("the note does not give pkg/config.go:\n%s", w.At(w.Note()).Text())
	}
	if !strings.HasPrefix(got[1], "- config.go: ") || !strings.Contains(got[1], "ParseConfig") || !strings.Contains(got[1], "load_defaults") {
		t.Errorf("second line %q: want the read's names under config.go", got[1])
	}
	if strings.Contains(strings.Join(got, "\n"), "ghp_") {
		t.Errorf("a credential is listed as a name:\n%s", strings.Join(got, "\n"))
	}
	if !w.Fits() {
		t.Fatalf("window over budget after L2: %d > %d", w.Size(), w.Budget())
	}

	// The next L2 keeps the earlier names under the new ones.
	more := concat(round("r5", "Read", "z.go", "func NewZebraServer() {}\n"+lines(3000)), round("r6", "Read", "v.go", lines(3000)), round("r7", "Read", "u.go", lines(3000)))
	for i := range more {
		more[i].ID = "n" + string(rune('0'+i))
		if err := w.Add(more[i]); err != nil {
			t.Fatal(err)
		}
	}
	atRatio(w, 0.85)
	run(t, &compact.Tiered{L2KeepRounds: 2}, w)
	all := strings.Join(noteNames(t, w), "\n")
	for _, s := range []string{"NewZebraServer", "TestParseConfig", "load_defaults"} {
		if !strings.Contains(all, s) {
			t.Errorf("after a second L2 the names lack %q:\n%s", s, all)
		}
	}
	if i, j := strings.Index(all, "NewZebraServer"), strings.Index(all, "TestParseConfig"); i > j {
		t.Errorf("older names listed before newer ones:\n%s", all)
	}
	// Each name once.
	seen := map[string]bool{}
	for _, l := range noteNames(t, w) {
		_, names, _ := strings.Cut(l, ": ")
		for _, n := range strings.Split(names, ", ") {
			if seen[n] {
				t.Errorf("%q listed twice:\n%s", n, all)
			}
			seen[n] = true
		}
	}
}

func TestL2NamesRatio(t *testing.T) {
	t.Parallel()
	var outputs []chat.Message
	for i := range 6 {
		var b strings.Builder
		for k := range 200 {
			b.WriteString("func Handler")
			b.WriteByte(byte('A' + i))
			b.WriteString(strings.Repeat("x", k%7))
			b.WriteString("Name() {}\n")
		}
		outputs = append(outputs, bashRound("c"+string(rune('0'+i)), "cat f.go", b.String())...)
	}
	msgs := concat(one(sys("s")), one(user("go")), outputs, round("k1", "Read", "k.go", lines(3000)), round("k2", "Read", "l.go", lines(3000)))
	for _, tc := range []struct {
		ratio   float64
		section bool
	}{{-1, false}, {0, true}, {0.02, true}} {
		w := newWindow(t, window.Options{}, msgs...)
		atRatio(w, 0.85)
		run(t, &compact.Tiered{NamesRatio: tc.ratio}, w)
		text := w.At(w.Note()).Text()
		if has := strings.Contains(text, namesHeading); has != tc.section {
			t.Errorf("ratio %v: names section %v, want %v", tc.ratio, has, tc.section)
		}
		if !tc.section {
			continue
		}
		ratio := tc.ratio
		if ratio == 0 {
			ratio = compact.DefaultNamesRatio
		}
		i := strings.Index(text, namesHeading)
		end := strings.Index(text, "The messages after this note")
		if got, limit := w.Counter().Count(text[i:end]), int(ratio*float64(w.Budget())); got > limit+len(noteNames(t, w)) {
			t.Errorf("ratio %v: names section %d tokens, limit %d", ratio, got, limit)
		}
		if !w.Fits() {
			t.Errorf("ratio %v: over budget", ratio)
		}
	}
}

// TestL2NamesKeepRoom: an L2 that removes little (one small round) keeps
// the names section the note held: it took the room already, and only the
// names of what this drop removed are held to a third of the room it
// made. When the whole section was held to a third of the room freed,
// each such drop cut two thirds of it, and a listing's paths were gone
// after three.
func TestL2NamesKeepRoom(t *testing.T) {
	t.Parallel()
	var listing strings.Builder
	for i := range 200 {
		fmt.Fprintf(&listing, "./internal/pkg%03d/handler_%03d.go\n", i, i)
	}
	msgs := concat(one(sys(lines(2000))), one(user("go")),
		bashRound("ls", "find . -name '*.go'", listing.String()),
		round("k1", "Read", "a.go", lines(1600)), round("k2", "Read", "b.go", lines(1600)),
		round("k3", "Read", "c.go", lines(1600)), round("k4", "Read", "d.go", lines(1600)))
	w := newWindow(t, window.Options{}, msgs...)
	atRatio(w, 0.85)
	tiered := &compact.Tiered{L2KeepRounds: 2, NamesRatio: 0.3}
	if lvl := tiered.LevelFor(w.Ratio()); lvl != compact.LevelL2 {
		t.Fatalf("set-up: ratio %.2f is at %s, want L2", w.Ratio(), lvl)
	}
	run(t, tiered, w)
	first := noteNames(t, w)
	var paths []string
	for _, l := range first {
		for _, name := range strings.Split(l[strings.LastIndex(l, ": ")+2:], ", ") {
			if strings.Contains(name, "handler_") {
				paths = append(paths, name)
			}
		}
	}
	if len(paths) < 50 {
		t.Fatalf("the first L2 lists %d of the listing's paths, want at least 50:\n%s", len(paths), strings.Join(first, "\n"))
	}
	// Four more L2s, each removing a few rounds of 400 tokens that name
	// nothing: less than twice what the section takes.
	for k := range 4 {
		for w.Ratio() < 0.70 {
			id := fmt.Sprintf("m%d-%d", k, w.Len())
			for _, m := range round(id, "Read", id+".go", lines(1600)) {
				if err := w.Add(m); err != nil {
					t.Fatal(err)
				}
			}
		}
		if lvl := levels(run(t, tiered, w)); len(lvl) != 1 || lvl[0] != compact.LevelL2 {
			t.Fatalf("drop %d: levels %v, want L2 alone", k+2, lvl)
		}
		if !w.Fits() {
			t.Fatalf("drop %d: over budget", k+2)
		}
	}
	last := strings.Join(noteNames(t, w), "\n")
	for _, p := range paths {
		if !strings.Contains(last, p) {
			t.Errorf("after four more L2s the names section lost %q (and maybe more):\n%s", p, last)
			break
		}
	}
}
