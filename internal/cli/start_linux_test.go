package cli

import "testing"

func TestStatStartTime(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		stat string
		want uint64
		ok   bool
	}{
		{"27820 (cat) R 27815 27815 8211 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 172492 3133440 390 1844674", 172492, true},
		{"7 (a) b (c d) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 1 2", 99, true},
		{"7 (cat) R 1 2 3", 0, false},
		{"no parenthesis", 0, false},
		{"7 (cat) R 27815 27815 8211 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 x 3", 0, false},
	} {
		got, ok := statStartTime([]byte(c.stat))
		if got != c.want || ok != c.ok {
			t.Errorf("statStartTime(%q) = %d, %v; want %d, %v", c.stat, got, ok, c.want, c.ok)
		}
	}
}
