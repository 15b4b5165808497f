package reminder

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixed returns a generator that always proposes rs.
func fixed(rs ...Reminder) Generator {
	return GeneratorFunc(func(State) []Reminder { return rs })
}

func keys(rs []Reminder) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Key)
	}
	return out
}

func TestManagerDedup(t *testing.T) {
	t.Parallel()
	m := New(Options{Generators: []Generator{
		fixed(Reminder{Key: "a", Kind: "x", Text: "A"}, Reminder{Key: "a", Kind: "x", Text: "A again"}),
		fixed(Reminder{Key: "b", Kind: "x", Text: "B"}),
	}})
	if diff := cmp.Diff([]string{"a", "b"}, keys(m.Next(State{}))); diff != "" {
		t.Errorf("first request (-want +got):\n%s", diff)
	}
	for i := range 3 {
		if got := m.Next(State{}); got != nil {
			t.Errorf("request %d: got %v, want nothing (already sent)", i+2, keys(got))
		}
	}
	if got := m.Sent(); got != 2 {
		t.Errorf("Sent() = %d, want 2", got)
	}
}

func TestManagerPendingDoesNotMark(t *testing.T) {
	t.Parallel()
	m := New(Options{Generators: []Generator{fixed(
		Reminder{Key: "a", Kind: "x", Priority: 2, Text: "A"},
		Reminder{Key: "b", Kind: "x", Priority: 1, Text: "B"},
	)}})
	first := m.Pending(State{})
	if diff := cmp.Diff(first, m.Pending(State{})); diff != "" {
		t.Errorf("Pending changed between calls (-first +second):\n%s", diff)
	}
	// The engine sends only the first; the second stays pending.
	m.MarkSent(first[0])
	if diff := cmp.Diff([]string{"b"}, keys(m.Pending(State{}))); diff != "" {
		t.Errorf("after MarkSent(a) (-want +got):\n%s", diff)
	}
	if m.Sent() != 1 {
		t.Errorf("Sent() = %d, want 1", m.Sent())
	}
}

func TestManagerCaps(t *testing.T) {
	t.Parallel()
	five := []Reminder{
		{Key: "p10", Kind: "x", Priority: 10, Text: "t"},
		{Key: "p40", Kind: "x", Priority: 40, Text: "t"},
		{Key: "p20a", Kind: "x", Priority: 20, Text: "t"},
		{Key: "p30", Kind: "x", Priority: 30, Text: "t"},
		{Key: "p20b", Kind: "x", Priority: 20, Text: "t"},
	}
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"default per request cap keeps the 3 highest", Options{}, []string{"p40", "p30", "p20a"}},
		{"cap 4 stable on ties", Options{MaxPerRequest: 4}, []string{"p40", "p30", "p20a", "p20b"}},
		{"no cap", Options{MaxPerRequest: -1}, []string{"p40", "p30", "p20a", "p20b", "p10"}},
		{"session cap below request cap", Options{MaxPerSession: 2}, []string{"p40", "p30"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.opts.Generators = []Generator{fixed(five...)}
			if diff := cmp.Diff(tt.want, keys(New(tt.opts).Pending(State{}))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestManagerSessionCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opts      Options
		wantTotal int
	}{
		{"default 10", Options{}, 10},
		{"custom 4", Options{MaxPerSession: 4}, 4},
		{"no cap", Options{MaxPerSession: -1}, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := 0
			tt.opts.Generators = []Generator{GeneratorFunc(func(State) []Reminder {
				// Three new reminders every request.
				var out []Reminder
				for range 3 {
					n++
					out = append(out, Reminder{Key: fmt.Sprint("k", n), Kind: "x", Text: "t"})
				}
				return out
			})}
			m := New(tt.opts)
			total := 0
			for range 8 {
				got := m.Next(State{})
				if len(got) > 3 {
					t.Fatalf("request got %d reminders, over the per-request cap", len(got))
				}
				total += len(got)
			}
			if total != tt.wantTotal || m.Sent() != tt.wantTotal {
				t.Errorf("sent %d in total (Sent() = %d), want %d", total, m.Sent(), tt.wantTotal)
			}
		})
	}
}

func TestManagerDropsBlankAndCuts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 50)
	m := New(Options{MaxRunes: 10, Generators: []Generator{fixed(
		Reminder{Key: "blank", Kind: "x", Text: " \n\t"},
		Reminder{Key: "empty", Kind: "x"},
		Reminder{Key: "long", Kind: "x", Text: long},
		Reminder{Kind: "custom", Text: "no key"},
	)}})
	got := m.Next(State{})
	want := []Reminder{
		{Key: "long", Kind: "x", Text: strings.Repeat("é", 9) + "…"},
		{Key: "custom:" + digest("no key"), Kind: "custom", Text: "no key"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := m.Next(State{}); got != nil {
		t.Errorf("keyless reminder re-sent: %v", got)
	}
}

func TestManagerTodo(t *testing.T) {
	t.Parallel()
	a := []Todo{{ID: "1", Content: "write the parser", Status: TodoInProgress, Priority: "high"}, {ID: "2", Content: "test it", Status: TodoPending}}
	b := []Todo{{ID: "1", Content: "write the parser", Status: TodoCompleted, Priority: "high"}, {ID: "2", Content: "test it", Status: TodoInProgress}}
	emptyKnown := State{TodosKnown: true}
	steps := []struct {
		name  string
		state State
		want  []string
	}{
		{"empty list once", emptyKnown, []string{KeyTodoEmpty}},
		{"empty list not again", emptyKnown, nil},
		{"list a", State{TodosKnown: true, Todos: a}, []string{"todo:" + TodoHash(a)}},
		{"a unchanged 1", State{TodosKnown: true, Todos: a}, nil},
		{"a unchanged 2", State{TodosKnown: true, Todos: a}, nil},
		{"a unchanged 3", State{TodosKnown: true, Todos: a}, nil},
		{"a unchanged 4", State{TodosKnown: true, Todos: a}, nil},
		{"a unchanged 5", State{TodosKnown: true, Todos: a}, nil},
		{"changed to b", State{TodosKnown: true, Todos: b}, []string{"todo:" + TodoHash(b)}},
		{"b unchanged", State{TodosKnown: true, Todos: b}, nil},
		{"back to a", State{TodosKnown: true, Todos: a}, []string{"todo:" + TodoHash(a)}},
		{"a unchanged again", State{TodosKnown: true, Todos: a}, nil},
		{"emptied: empty reminder already sent", emptyKnown, nil},
		{"a after empty is news", State{TodosKnown: true, Todos: a}, []string{"todo:" + TodoHash(a)}},
	}
	m := New(Options{MaxPerSession: -1})
	for _, st := range steps {
		if diff := cmp.Diff(st.want, keys(m.Next(st.state)), cmpNilEmpty); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
	}
}

var cmpNilEmpty = cmp.Transformer("nilEmpty", func(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
})

func TestManagerChangedFiles(t *testing.T) {
	t.Parallel()
	m := New(Options{MaxPerSession: -1})
	ab := []string{"a.go", "b.go"}
	steps := []struct {
		files []string
		want  bool
	}{
		{ab, true},
		{ab, false},
		{[]string{"b.go", "a.go"}, false}, // same set, other order
		{[]string{"a.go"}, true},
		{nil, false}, // re-read: the state goes away
		{[]string{"a.go"}, true},
	}
	for i, st := range steps {
		got := m.Next(State{ChangedFiles: st.files})
		if (len(got) == 1) != st.want {
			t.Errorf("step %d (%v): got %v, want sent=%v", i, st.files, keys(got), st.want)
		}
	}
}

func TestManagerPressure(t *testing.T) {
	t.Parallel()
	m := New(Options{MaxPerSession: -1})
	s := func(ratio float64, compactions int) State {
		return State{Ratio: ratio, Threshold: 0.8, Budget: 16000, Tokens: int(ratio * 16000), Compactions: compactions}
	}
	steps := []struct {
		state State
		want  string
	}{
		{s(0.50, 0), ""},
		{s(0.67, 0), ""},
		{s(0.68, 0), "context_pressure:0:65"},
		{s(0.69, 0), ""},
		{s(0.71, 0), "context_pressure:0:70"},
		{s(0.72, 0), ""},
		{s(0.74, 0), ""},
		{s(0.76, 0), "context_pressure:0:75"},
		{s(0.40, 1), ""},
		{s(0.71, 1), "context_pressure:1:70"},
		{s(0.71, 1), ""},
	}
	for i, st := range steps {
		got := strings.Join(keys(m.Next(st.state)), ",")
		if got != st.want {
			t.Errorf("step %d (ratio %.2f, compactions %d): got %q, want %q", i, st.state.Ratio, st.state.Compactions, got, st.want)
		}
	}
}

func TestManagerPressureRatioOption(t *testing.T) {
	t.Parallel()
	st := State{Ratio: 0.45, Threshold: 0.8, Budget: 1000, Tokens: 450}
	if got := New(Options{}).Pending(st); got != nil {
		t.Errorf("default ratio fired at 45 %%: %v", keys(got))
	}
	if got := keys(New(Options{PressureRatio: 0.5}).Pending(st)); len(got) != 1 || got[0] != "context_pressure:0:45" {
		t.Errorf("PressureRatio 0.5 at 45 %% usage: got %v", got)
	}
}

func TestManagerStateRoundTrip(t *testing.T) {
	t.Parallel()
	a := []Todo{{Content: "x", Status: TodoPending}}
	m := New(Options{})
	m.Next(State{TodosKnown: true})
	m.Next(State{TodosKnown: true, Todos: a, ChangedFiles: []string{"f.go"}, Ratio: 0.9, Threshold: 0.8, Budget: 100, Tokens: 90})
	st := m.State()
	want := ManagerState{
		Sent:  []string{KeyTodoEmpty, "context_pressure:0:90"},
		Count: 4,
		Latest: map[string]string{
			KindTodo:         "todo:" + TodoHash(a),
			KindChangedFiles: "changed_files:" + digest("f.go"),
		},
	}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Fatalf("State() (-want +got):\n%s", diff)
	}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"sent":[`) || !strings.Contains(string(data), `"count":4`) || !strings.Contains(string(data), `"latest":{`) {
		t.Errorf("JSON form not snake_case: %s", data)
	}
	var back ManagerState
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	m2 := New(Options{})
	m2.SetState(back)
	if diff := cmp.Diff(st, m2.State()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// The restored manager behaves like the original: nothing to resend.
	if got := m2.Next(State{TodosKnown: true, Todos: a, ChangedFiles: []string{"f.go"}, Ratio: 0.9, Threshold: 0.8, Budget: 100, Tokens: 90}); got != nil {
		t.Errorf("restored manager re-sent %v", keys(got))
	}

	// A fresh manager's state round-trips through JSON too.
	fresh := New(Options{}).State()
	data, _ = json.Marshal(fresh)
	if string(data) != `{"sent":[],"count":0}` {
		t.Errorf("fresh state JSON = %s", data)
	}
	var fb ManagerState
	if err := json.Unmarshal(data, &fb); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fresh, fb); diff != "" {
		t.Errorf("fresh round trip (-want +got):\n%s", diff)
	}
}

func TestManagerSetStateSessionCap(t *testing.T) {
	t.Parallel()
	m := New(Options{Generators: []Generator{fixed(Reminder{Key: "a", Kind: "x", Text: "t"}, Reminder{Key: "b", Kind: "x", Text: "t"})}})
	m.SetState(ManagerState{Sent: []string{"z", "z"}, Count: 9})
	if diff := cmp.Diff([]string{"a"}, keys(m.Next(State{}))); diff != "" {
		t.Errorf("one left under the session cap (-want +got):\n%s", diff)
	}
	if got := m.State().Sent; !cmp.Equal(got, []string{"z", "a"}) {
		t.Errorf("Sent = %v, want [z a]", got)
	}
}

func TestManagerConcurrent(t *testing.T) {
	t.Parallel()
	n := 0
	var mu sync.Mutex
	m := New(Options{MaxPerSession: -1, MaxPerRequest: -1, Generators: []Generator{GeneratorFunc(func(State) []Reminder {
		mu.Lock()
		defer mu.Unlock()
		n++
		return []Reminder{{Key: fmt.Sprint(n % 50), Kind: "x", Text: "t"}}
	})}})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				m.Next(State{})
				m.State()
			}
		})
	}
	wg.Wait()
	if got := len(m.State().Sent); got > 50 || got != m.Sent() {
		t.Errorf("%d keys, Sent() = %d: want equal and at most 50", got, m.Sent())
	}
}

// TestSecurityExemptFromSessionCap: once the session cap is used up,
// other reminders stop but a security warning still goes out, and does
// not count.
func TestSecurityExemptFromSessionCap(t *testing.T) {
	t.Parallel()
	i := 0
	gen := GeneratorFunc(func(State) []Reminder {
		i++
		return []Reminder{
			{Key: fmt.Sprintf("note:%d", i), Kind: "note", Text: "note"},
			{Key: fmt.Sprintf("security:aws:%d", i), Kind: KindSecurity, Priority: PrioritySecurity, Text: "a key"},
		}
	})
	m := New(Options{MaxPerSession: 2, Generators: []Generator{gen}})
	kinds := func(rs []Reminder) string {
		var ks []string
		for _, r := range rs {
			ks = append(ks, r.Kind)
		}
		return strings.Join(ks, ",")
	}
	want := []string{"security,note", "security,note", "security", "security"}
	for turn, w := range want {
		if got := kinds(m.Next(State{})); got != w {
			t.Errorf("turn %d: sent %q, want %q", turn, got, w)
		}
	}
	if m.Sent() != 2 {
		t.Errorf("Sent() = %d, want 2 (security warnings do not count)", m.Sent())
	}
}
