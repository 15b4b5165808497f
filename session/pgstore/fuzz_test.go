package pgstore_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/agentctx/agentctx/session/pgstore"
)

// FuzzParseURL: ParseURL never panics; it fails only with
// ErrInvalidOptions, and what it accepts has a valid schema and a DSN
// that parses as a postgres URL without the store's parameters.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"postgres://u@db:5432/agentctx?sslmode=disable&schema=fleet&lease=20s",
		"postgresql:///test?host=/var/run/postgresql&lock_timeout=1s",
		"postgres://h/db?schema=Bad", "sqlite:/x", "postgres://%zz", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		o, err := pgstore.ParseURL(raw)
		if err != nil {
			if !errors.Is(err, pgstore.ErrInvalidOptions) {
				t.Fatalf("ParseURL(%q): %v, not ErrInvalidOptions", raw, err)
			}
			return
		}
		if o.LeaseTTL < 0 || o.LockTimeout < 0 {
			t.Fatalf("ParseURL(%q): negative durations %+v", raw, o)
		}
		u, err := url.Parse(o.DSN)
		if err != nil {
			t.Fatalf("ParseURL(%q): DSN %q does not parse: %v", raw, o.DSN, err)
		}
		q := u.Query()
		for _, p := range []string{pgstore.ParamSchema, pgstore.ParamLeaseTTL, pgstore.ParamLockTimeout} {
			if q.Has(p) {
				t.Fatalf("ParseURL(%q): DSN %q keeps %s", raw, o.DSN, p)
			}
		}
	})
}
