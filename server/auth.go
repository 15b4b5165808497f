package server

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// DefaultTenant is the tenant of a token given without a tenant name.
const DefaultTenant = "default"

// MinTokenBytes is the shortest bearer token [ParseTokens] accepts, in
// bytes: 16, so that a token cannot be guessed by trying.
const MinTokenBytes = 16

// ErrTokens reports a tokens file [ParseTokens] cannot use: a token too
// short, a tenant name with characters other than letters, digits, '-',
// '_' and '.' (or starting with '.' or '-', or holding ".."), a line with more than two fields, or a token listed twice.
// The error names the line; fix it there.
var ErrTokens = errors.New("server: invalid tokens file")

// Tokens maps bearer tokens to tenants. The zero value (no tokens)
// disables authentication: every request is the anonymous tenant "", which
// [New] allows only behind a loopback listener (see the serve command).
// Safe for concurrent use once built.
type Tokens struct {
	// byHash maps the SHA-256 of each token to its tenant: lookups compare
	// hashes in constant time, and the tokens themselves are not kept.
	byHash map[[sha256.Size]byte]string
}

// Len returns the number of tokens.
func (t Tokens) Len() int { return len(t.byHash) }

// ParseTokens reads a tokens file: one token per line, optionally followed
// by white space and a tenant name (default [DefaultTenant]); blank lines
// and lines starting with '#' are skipped. Errors: [ErrTokens] naming the
// line, and r's.
func ParseTokens(r io.Reader) (Tokens, error) {
	t := Tokens{byHash: map[[sha256.Size]byte]string{}}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) > 2 {
			return Tokens{}, fmt.Errorf("%w: line %d: want a token and at most a tenant name, got %d fields", ErrTokens, n, len(f))
		}
		if len(f[0]) < MinTokenBytes {
			return Tokens{}, fmt.Errorf("%w: line %d: a token has at least %d bytes", ErrTokens, n, MinTokenBytes)
		}
		tenant := DefaultTenant
		if len(f) == 2 {
			tenant = f[1]
			if !validTenant(tenant) {
				return Tokens{}, fmt.Errorf("%w: line %d: tenant %q: use letters, digits, '-', '_' and '.' (at most 64, not first '.' or '-', no \"..\")", ErrTokens, n, tenant)
			}
		}
		h := sha256.Sum256([]byte(f[0]))
		if _, dup := t.byHash[h]; dup {
			return Tokens{}, fmt.Errorf("%w: line %d: the token is listed twice", ErrTokens, n)
		}
		t.byHash[h] = tenant
	}
	if err := sc.Err(); err != nil {
		return Tokens{}, fmt.Errorf("server: read tokens: %w", err)
	}
	return t, nil
}

// LoadTokens reads the tokens file at path with [ParseTokens]. Errors:
// the file's (fs.ErrNotExist…) and ParseTokens', each naming path.
func LoadTokens(path string) (Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return Tokens{}, fmt.Errorf("server: tokens: %w", err)
	}
	defer f.Close()
	t, err := ParseTokens(f)
	if err != nil {
		return Tokens{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// validTenant reports a tenant name ParseTokens takes: 1 to 64 letters,
// digits, '-', '_' and '.', not starting with '.' or '-' and without
// "..", since the name prefixes the tenant's store ids (storeID), which
// session.ValidateID checks.
func validTenant(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[0] == '-' || strings.Contains(s, "..") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// tenant returns the tenant of r's bearer token: "" without tokens
// configured, false for a missing or unknown token.
func (t Tokens) tenant(r *http.Request) (string, bool) {
	if len(t.byHash) == 0 {
		return "", true
	}
	auth := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	h := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	// The lookup is on a hash of the token: its timing says nothing
	// about the bytes of a valid token.
	tenant, ok := t.byHash[h]
	return tenant, ok
}

type tenantKey struct{}

// withTenant returns ctx carrying the request's tenant.
func withTenant(ctx context.Context, tenant string) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenant)
}

// tenantOf returns the tenant withTenant stored.
func tenantOf(ctx context.Context) string {
	s, _ := ctx.Value(tenantKey{}).(string)
	return s
}
