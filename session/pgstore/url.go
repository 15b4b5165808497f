package pgstore

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// URL query parameters that [ParseURL] takes for the store rather than
// for the connection.
const (
	// ParamSchema sets Options.Schema.
	ParamSchema = "schema"
	// ParamLeaseTTL sets Options.LeaseTTL, a Go duration ("15s").
	ParamLeaseTTL = "lease"
	// ParamLockTimeout sets Options.LockTimeout, a Go duration ("2s").
	ParamLockTimeout = "lock_timeout"
)

// ParseURL returns the Options of a store URL, as `agentctx serve
// --store` takes it: a postgres:// or postgresql:// URL whose query may
// hold schema, lease and lock_timeout besides pgx's own parameters
// (sslmode, pool_max_conns, …):
//
//	postgres://agentctx@db.internal:5432/agentctx?sslmode=require&schema=fleet&lease=15s
//
// The store's parameters are removed from Options.DSN, which keeps the
// rest as given (pgx would send unknown parameters to the server as
// settings). Errors: ErrInvalidOptions naming the parameter, or a URL
// that does not parse or is not postgres://.
func ParseURL(raw string) (Options, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Options{}, fmt.Errorf("%w: store URL: %w", ErrInvalidOptions, err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return Options{}, fmt.Errorf("%w: store URL scheme %q, want postgres", ErrInvalidOptions, u.Scheme)
	}
	q := u.Query()
	var o Options
	o.Schema = q.Get(ParamSchema)
	for _, p := range []struct {
		name string
		dst  *time.Duration
	}{{ParamLeaseTTL, &o.LeaseTTL}, {ParamLockTimeout, &o.LockTimeout}} {
		if v := q.Get(p.name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return Options{}, fmt.Errorf("%w: store URL parameter %s=%q: want a duration such as 15s", ErrInvalidOptions, p.name, v)
			}
			*p.dst = d
		}
	}
	if o.Schema != "" {
		if err := checkSchema(o.Schema); err != nil {
			return Options{}, err
		}
	}
	for _, n := range []string{ParamSchema, ParamLeaseTTL, ParamLockTimeout} {
		q.Del(n)
	}
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	o.DSN = u.String()
	return o, nil
}
