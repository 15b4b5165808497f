package pgstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session/pgstore"
)

func TestParseURL(t *testing.T) {
	t.Parallel()
	o, err := pgstore.ParseURL("postgres://u@db:5432/agentctx?sslmode=disable&schema=fleet&lease=20s&lock_timeout=2s&pool_max_conns=8")
	if err != nil {
		t.Fatal(err)
	}
	if o.Schema != "fleet" || o.LeaseTTL != 20*time.Second || o.LockTimeout != 2*time.Second {
		t.Errorf("ParseURL: %+v", o)
	}
	if want := "postgres://u@db:5432/agentctx?pool_max_conns=8&sslmode=disable"; o.DSN != want {
		t.Errorf("DSN = %q, want %q", o.DSN, want)
	}
	for _, bad := range []string{"sqlite:/x", "postgres://h/db?schema=Bad", "postgres://h/db?lease=soon", "postgres://h/db?lock_timeout=-1s", "postgres://%zz"} {
		if _, err := pgstore.ParseURL(bad); !errors.Is(err, pgstore.ErrInvalidOptions) {
			t.Errorf("ParseURL(%q): %v, want ErrInvalidOptions", bad, err)
		}
	}
	// The DSN opens the store.
	pgtest.Need(t)
	if !strings.HasPrefix(pgtest.DSN(), "postgres") {
		return // a key=value DSN in AGENTCTX_PG_DSN
	}
	sep := "?"
	if strings.Contains(pgtest.DSN(), "?") {
		sep = "&"
	}
	u, err := pgstore.ParseURL(pgtest.DSN() + sep + "schema=" + pgtest.Schema(t, "test_"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pgstore.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
}
