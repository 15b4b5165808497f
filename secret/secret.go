package secret

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Kinds of secret [Find] reports ([Span].Kind): the names the markers of
// [Redact] carry.
const (
	KindAWSAccessKeyID     = "aws_access_key_id"
	KindAWSSecretAccessKey = "aws_secret_access_key"
	KindPrivateKey         = "private_key"
	KindGitHubToken        = "github_token"
	KindAnthropicKey       = "anthropic_api_key"
	KindOpenAIKey          = "openai_api_key"
	KindSlackToken         = "slack_token"
	KindGoogleAPIKey       = "google_api_key"
	KindStripeKey          = "stripe_live_key"
	KindJWT                = "jwt"
	KindGeneric            = "generic_secret"
)

// Span is one credential-like span that [Find] found. Offset and Length
// are in bytes and delimit the secret value itself inside the scanned
// text (for an assignment such as `password = "…"`, the value between the
// quotes, not the name). It is plain data.
type Span struct {
	Kind   string `json:"kind"`
	Offset int    `json:"offset"`
	Length int    `json:"length"`
}

// secretPattern finds one kind of secret. The scan looks for the anchors
// (case-insensitively when lower is set; those anchors are lower case)
// and runs re, anchored at the anchor's position, or match, over a window
// of at most window bytes. group is the submatch of re that holds the
// secret (0: the whole match).
type secretPattern struct {
	kind    string
	anchors []string
	lower   bool
	re      *regexp.Regexp
	group   int
	window  int
	// boundary requires that the byte before the anchor is not a token
	// byte (letter, digit, '_' or '-'), so "task-…" holds no "sk-" key.
	boundary bool
	// tail requires that the byte after the secret is not a token byte,
	// for fixed-length keys.
	tail bool
	// assign marks a name followed by an assignment: the match starts
	// right after the anchor, which must end the name unless glued is
	// set (then the name may go on; the match skips the rest of it).
	assign, glued bool
	// check is an extra validation of the secret bytes.
	check func(s string) bool
	// match, when set, replaces re: it returns the secret's span in
	// text[start:limit].
	match func(text string, start, limit int) (lo, hi int, ok bool)
}

// The patterns in priority order: where two findings overlap, the one that
// starts first wins, and at the same start the earlier pattern wins (so a
// JWT assigned to `token = "…"` is reported as a JWT, not a generic
// secret). Each is an RE2 expression (package regexp) or a small
// hand-written scanner, linear in its window's length.
var secretPatterns = slices.Concat(keyPatterns, providerPatterns, tailPatterns)

// keyPatterns are the original key patterns: private keys, AWS, Anthropic,
// OpenAI, GitHub, Slack, Google, Stripe.
var keyPatterns = []secretPattern{
	{
		kind:    KindPrivateKey,
		anchors: []string{"-----BEGIN "},
		// The header, a line break (real or JSON-escaped), optional
		// RFC 1421 header lines (Proc-Type, Version), then at least 40
		// base64 bytes; through the END line when there is one.
		re: regexp.MustCompile(`^-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----` +
			`(?:\\r|\\n|[\r\n \t])+` +
			`(?:[A-Za-z-]+: [^\r\n\\]*(?:\\r|\\n|[\r\n])+)*(?:\\r|\\n|[\r\n \t])*` +
			`[A-Za-z0-9+/=]{40,}` +
			`(?:[A-Za-z0-9+/=\r\n\t \\]*-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----` +
			`|(?:(?:\\r|\\n|[\r\n])+[A-Za-z0-9+/=]{16,})*)`),
		window: 32 << 10,
	},
	{
		kind:     KindAWSAccessKeyID,
		anchors:  []string{"AKIA", "ASIA"},
		re:       regexp.MustCompile(`^(?:AKIA|ASIA)[A-Z0-9]{16}`),
		window:   20,
		boundary: true,
		tail:     true,
		check:    func(s string) bool { return looksRandom(s[4:], 8) },
	},
	{
		kind:    KindAWSSecretAccessKey,
		anchors: []string{"aws_secret_access_key", "aws_secret_key", "awssecretaccesskey"},
		lower:   true,
		re: regexp.MustCompile(`^(?i:aws_?secret(?:_?access)?_?key)\\?["']?\s*(?::=|=>|=|:)\s*\\?["']?` +
			`([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		group:  1,
		window: 160,
		check:  func(s string) bool { return looksRandom(s, 14) },
	},
	{
		kind:     KindAnthropicKey,
		anchors:  []string{"sk-ant-"},
		re:       regexp.MustCompile(`^sk-ant-[A-Za-z0-9_-]{32,}`),
		window:   310,
		boundary: true,
		check:    func(s string) bool { return looksRandom(s[len("sk-ant-"):], 12) },
	},
	{
		kind:     KindOpenAIKey,
		anchors:  []string{"sk-"},
		re:       regexp.MustCompile(`^sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,}`),
		window:   320,
		boundary: true,
		check: func(s string) bool {
			body := strings.TrimPrefix(s, "sk-")
			for _, p := range []string{"proj-", "svcacct-", "admin-"} {
				body = strings.TrimPrefix(body, p)
			}
			return classes(body) >= 3 && looksRandom(body, 12)
		},
	},
	{
		kind:     KindGitHubToken,
		anchors:  []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		re:       regexp.MustCompile(`^gh[pousr]_[A-Za-z0-9]{36,}`),
		window:   260,
		boundary: true,
		tail:     true,
		check:    func(s string) bool { return looksRandom(s[4:], 12) },
	},
	{
		kind:     KindGitHubToken,
		anchors:  []string{"github_pat_"},
		re:       regexp.MustCompile(`^github_pat_[A-Za-z0-9_]{22,}`),
		window:   260,
		boundary: true,
		tail:     true,
		check:    func(s string) bool { return looksRandom(s[len("github_pat_"):], 12) },
	},
	{
		kind:     KindSlackToken,
		anchors:  []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"},
		re:       regexp.MustCompile(`^xox[abprs]-[0-9]{6,}-[0-9A-Za-z-]{10,}`),
		window:   300,
		boundary: true,
		check:    func(s string) bool { return looksRandom(s[5:], 8) },
	},
	{
		kind:     KindGoogleAPIKey,
		anchors:  []string{"AIza"},
		re:       regexp.MustCompile(`^AIza[0-9A-Za-z_-]{35}`),
		window:   40,
		boundary: true,
		tail:     true,
		check:    func(s string) bool { return looksRandom(s[4:], 12) },
	},
	{
		kind:     KindStripeKey,
		anchors:  []string{"sk_live_", "rk_live_"},
		re:       regexp.MustCompile(`^[sr]k_live_[0-9A-Za-z]{20,}`),
		window:   260,
		boundary: true,
		tail:     true,
		check:    func(s string) bool { return looksRandom(s[len("sk_live_"):], 10) },
	},
}

// tailPatterns come last: JWTs, then assignments to names.
var tailPatterns = []secretPattern{
	{
		kind:     KindJWT,
		anchors:  []string{"eyJ"},
		match:    jwtSpan,
		window:   64 << 10,
		boundary: true,
		tail:     true,
		check:    jwtHeader,
	},
	{
		kind: KindGeneric,
		// The anchor is the end of the name: the name must end with one
		// of these words, then the assignment follows.
		anchors: []string{"password", "passwd", "secret", "token", "api_key", "apikey", "api-key",
			"access_key", "accesskey", "private_key", "credential"},
		lower:  true,
		assign: true,
		match:  assignment,
		window: 300,
		check:  plausiblePassword,
	},
	{
		kind:    KindGeneric,
		anchors: providerNames,
		lower:   true,
		assign:  true,
		glued:   true,
		match:   namedAssignment,
		window:  330,
		check:   plausibleProviderKey,
	},
}

// Find returns the credential-like spans in text, sorted by offset
// and not overlapping: cloud and API keys by their published prefixes
// (AWS AKIA/ASIA key ids and aws_secret_access_key assignments, GitHub
// ghp_/gho_/ghu_/ghs_/ghr_/github_pat_, OpenAI sk- and sk-proj-, Anthropic
// sk-ant-, Slack xox[abprs]-, Google AIza, Stripe sk_live_/rk_live_;
// GitLab gl…-, Twilio SK/AC, SendGrid SG., Mailgun key-, Hugging Face hf_
// and the 60-odd formats of [KindAPIToken]), the secret paths of Slack
// and Teams webhook URLs, Azure connection strings' AccountKey, the
// password of a URL (scheme://user:password@host), PEM and PGP private
// key blocks, JWTs (three base64url segments whose header decodes to
// JSON with "alg"), and assignments of a long, random looking value to a
// name ending in password, secret, token, api_key, access_key,
// private_key or credential (`password = "…"`, `TOKEN=…`, `"api_key":
// "…"`) or to a name holding a provider's name (`HEROKU_KEY=…`,
// `datadog_app: …`). An unquoted value may hold '#' (`PASSWORD=ab#cd…`:
// in a .env file a comment starts at a '#' after a blank).
//
// TestGitleaksCoverage measures these against gitleaks' default rules:
// Find reports the secret of 190 of the 209 rules whose generated
// example gitleaks itself detects (it reported 14 before the provider
// formats were added).
//
// Placeholders are not reported: values holding "example", "xxxx",
// "your_", "changeme", "<…>", "${…}", "{{…}}", "***" or "redacted", values
// with too few distinct characters, and generic values without a digit or
// that look like identifiers or paths. That trades a few missed weak
// passwords for few false alarms (Claude Code and Kode have no secret
// detection; the prefixes are the providers' published key formats).
//
// The scan makes one pass over text looking for the prefixes and runs an
// anchored RE2 expression or a small scanner at each, over a bounded
// window, so it is linear in len(text) (about 200 MB/s on mixed tool
// output: BenchmarkFind). It never panics, does not allocate in
// proportion to text, and is safe for concurrent use. nil when nothing is
// found.
//
// The spans of the last 32 texts of at least 512 bytes are remembered
// (recent), so that the parts of an agent that scan the same tool output
// (its working memory's redaction, the security reminder) scan it once.
func Find(text string) []Span {
	if len(text) < 8 {
		return nil
	}
	if len(text) >= recentMinBytes {
		if spans, ok := recent.get(text); ok {
			return spans
		}
		spans := find(text)
		recent.put(text, spans)
		return slices.Clone(spans)
	}
	return find(text)
}

// find is Find without the memory of recent texts.
func find(text string) []Span {
	type found struct {
		Span
		prio int
	}
	var all []found
	// k holds the pair of bytes at at and at+1, shifted in one byte at a
	// time (one load per byte, no bounds check).
	k := uint16(text[0])
	for i, c := range []byte(text[1:]) {
		at := i
		k = k<<8 | uint16(c)
		if anchorPairs[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		var c2 byte
		if at+2 < len(text) {
			c2 = text[at+2]
		}
		h := hash3(text[at], c, c2)
		if anchorTriples[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, ref := range anchorBuckets[h] {
			p := &secretPatterns[ref.prio]
			if !hasPrefix(text[at:], ref.anchor, p.lower) {
				continue
			}
			start := at
			if p.assign {
				// The name (any identifier ending with the anchor) must
				// end at the anchor, unless glued; the match starts
				// after it, at the assignment.
				start = at + len(ref.anchor)
				if !p.glued && start < len(text) && tokenByte(text[start]) {
					continue
				}
			} else if p.boundary && at > 0 && tokenByte(text[at-1]) {
				continue
			}
			if s, ok := matchAt(p, text, start); ok {
				all = append(all, found{s, ref.prio})
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Offset != all[j].Offset {
			return all[i].Offset < all[j].Offset
		}
		return all[i].prio < all[j].prio
	})
	out := make([]Span, 0, len(all))
	end := -1
	for _, f := range all {
		if f.Offset < end {
			continue
		}
		out = append(out, f.Span)
		end = f.Offset + f.Length
	}
	return out
}

// anchorRef is one anchor of the pattern secretPatterns[prio].
type anchorRef struct {
	prio   int
	anchor string
}

// anchorBuckets lists the anchors by a hash of their first three bytes
// (every case combination of them for the case-insensitive patterns), so
// [Find] makes one pass over the text instead of one substring search per
// anchor, and tries at each position only the few anchors whose first
// three bytes hash like the text's: with a hundred provider names and
// prefixes, a table by first byte made it try dozens at every "co" or
// "in". Every anchor is at least three bytes long.
var anchorBuckets = func() (t [1 << bucketBits][]anchorRef) {
	for prio, p := range secretPatterns {
		for _, a := range p.anchors {
			if len(a) < 3 {
				panic("secret: anchor " + a + " is shorter than three bytes")
			}
			for _, c0 := range caseVariants(a[0], p.lower) {
				for _, c1 := range caseVariants(a[1], p.lower) {
					for _, c2 := range caseVariants(a[2], p.lower) {
						h := hash3(c0, c1, c2)
						t[h] = append(t[h], anchorRef{prio, a})
					}
				}
			}
		}
	}
	return t
}()

// bucketBits is the size of anchorBuckets' hash, in bits.
const bucketBits = 12

// anchorTriples is a bit set of the hashes of anchorBuckets' non-empty
// buckets: 512 bytes that stay in the L1 cache, where the buckets take
// 96 KiB.
var anchorTriples = func() (set [1 << bucketBits / 64]uint64) {
	for h, b := range anchorBuckets {
		if len(b) > 0 {
			set[h>>6] |= 1 << (h & 63)
		}
	}
	return set
}()

// hash3 hashes three bytes to an index of anchorBuckets.
func hash3(c0, c1, c2 byte) uint32 {
	return (uint32(c0)<<16 | uint32(c1)<<8 | uint32(c2)) * 2654435761 >> (32 - bucketBits)
}

// caseVariants returns c, and its upper case too when fold is set and c
// is a lower-case ASCII letter.
func caseVariants(c byte, fold bool) []byte {
	if fold && c >= 'a' && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// anchorPairs is a bit set of the first two bytes of every anchor (in
// every case combination for case-insensitive ones): most positions of a
// text are ruled out by one lookup.
var anchorPairs = func() (set [1 << 16 / 64]uint64) {
	for _, p := range secretPatterns {
		for _, a := range p.anchors {
			for _, c0 := range caseVariants(a[0], p.lower) {
				for _, c1 := range caseVariants(a[1], p.lower) {
					k := uint16(c0)<<8 | uint16(c1)
					set[k>>6] |= 1 << (k & 63)
				}
			}
		}
	}
	return set
}()

// hasPrefix reports whether s starts with prefix; with fold, ASCII letters
// of s match prefix's lower-case letters in either case.
func hasPrefix(s, prefix string, fold bool) bool {
	if len(s) < len(prefix) {
		return false
	}
	if !fold {
		return s[:len(prefix)] == prefix
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// matchAt runs p's anchored expression at text[start:] over at most
// p.window bytes and returns the secret it finds.
func matchAt(p *secretPattern, text string, start int) (Span, bool) {
	limit := min(len(text), start+p.window)
	var lo, hi int
	if p.match != nil {
		var ok bool
		if lo, hi, ok = p.match(text, start, limit); !ok {
			return Span{}, false
		}
	} else {
		m := p.re.FindStringSubmatchIndex(text[start:limit])
		if m == nil {
			return Span{}, false
		}
		lo, hi = start+m[2*p.group], start+m[2*p.group+1]
	}
	if lo < 0 || hi <= lo {
		return Span{}, false
	}
	if p.tail && hi < len(text) && tokenByte(text[hi]) {
		return Span{}, false
	}
	v := text[lo:hi]
	if placeholder(v) || (p.check != nil && !p.check(v)) {
		return Span{}, false
	}
	return Span{Kind: p.kind, Offset: lo, Length: hi - lo}, true
}

// assignment matches, at text[start:limit] right after a name, an
// assignment of a literal: optional closing quote of the name (possibly
// backslash-escaped, as in JSON inside a string), spaces, one of ":=",
// "=>", "=" or ":", spaces, then a value of 8-200 bytes quoted with ", '
// or ` (no spaces or backslashes inside), or an unquoted value of 12-200
// bytes without spaces, quotes or brackets ('#' included: dotenv starts
// a comment only at a '#' after a blank), followed by a space, ',', ';'
// or the end of the text. Spaces are blanks and tabs, never line breaks.
// It returns the value's span. A hand-written scanner: this runs at every
// "password", "token"… of the text, where a regular expression cost
// microseconds each.
func assignment(text string, start, limit int) (lo, hi int, ok bool) {
	i := start
	if i < limit && text[i] == '\\' {
		i++
	}
	if i < limit && (text[i] == '"' || text[i] == '\'' || text[i] == '`') {
		i++
	}
	i = skipBlanks(text, i, limit)
	switch {
	case strings.HasPrefix(text[i:limit], ":="), strings.HasPrefix(text[i:limit], "=>"):
		i += 2
	case i < limit && (text[i] == '=' || text[i] == ':'):
		i++
	default:
		return 0, 0, false
	}
	i = skipBlanks(text, i, limit)
	if i >= limit {
		return 0, 0, false
	}
	escaped := text[i] == '\\'
	if escaped {
		i++
		if i >= limit || (text[i] != '"' && text[i] != '\'') {
			return 0, 0, false
		}
	}
	switch q := text[i]; q {
	case '"', '\'', '`':
		lo = i + 1
		j := lo
		for j < min(limit, lo+201) && text[j] != q && !asciiSpace(text[j]) && (q == '`' || text[j] != '\\') {
			j++
		}
		n := j - lo
		if n < 8 || n > 200 || j >= limit {
			return 0, 0, false
		}
		if text[j] == '\\' && q != '`' {
			// An escaped closing quote: \" inside a JSON string.
			if j+1 >= limit || text[j+1] != q {
				return 0, 0, false
			}
		} else if text[j] != q {
			return 0, 0, false
		}
		return lo, j, true
	}
	lo = i
	j := lo
	for j < min(limit, lo+201) && !asciiSpace(text[j]) && strings.IndexByte("\"'`,;(){}[]<>", text[j]) < 0 {
		j++
	}
	n := j - lo
	if n < 12 || n > 200 {
		return 0, 0, false
	}
	if j < len(text) && !asciiSpace(text[j]) && text[j] != ',' && text[j] != ';' {
		return 0, 0, false
	}
	return lo, j, true
}

func skipBlanks(text string, i, limit int) int {
	for i < limit && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// asciiSpace reports whether c is ASCII white space.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// tokenByte reports whether c can be part of a key or token.
func tokenByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// asciiLower lower-cases ASCII letters only, so byte offsets are kept.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// placeholderWords mark documentation values, not credentials.
var placeholderWords = []string{
	"example", "xxxx", "your_", "your-", "yourkey", "changeme", "change_me", "placeholder",
	"redacted", "dummy", "sample", "****", "....", "<", ">", "${", "{{", "$(", "%s", "%(",
	"insert", "replace", "fake", "abcdefgh", "12345678",
}

// placeholder reports whether v looks like a placeholder value.
func placeholder(v string) bool {
	l := asciiLower(v)
	for _, w := range placeholderWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// looksRandom reports whether s has at least minDistinct distinct bytes
// and no byte makes up more than a third of it: random keys do, runs like
// "aaaaaaaa…" and "0000…" do not.
func looksRandom(s string, minDistinct int) bool {
	var counts [256]int
	distinct, maxCount := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if counts[c] == 0 {
			distinct++
		}
		counts[c]++
		maxCount = max(maxCount, counts[c])
	}
	return distinct >= min(minDistinct, len(s)) && maxCount*3 <= len(s)+2
}

// classes counts the character classes in s: lower, upper, digit, other.
func classes(s string) int {
	var lower, upper, digit, other int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower = 1
		case c >= 'A' && c <= 'Z':
			upper = 1
		case c >= '0' && c <= '9':
			digit = 1
		default:
			other = 1
		}
	}
	return lower + upper + digit + other
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// identifier matches values that are code, not credentials:
// config.api_key, os.environ, GITHUB_TOKEN, some-name.
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*(?:\.[A-Za-z_$][A-Za-z0-9_$-]*)*$`)

// plausiblePassword is the "entropy-ish" check of generic assignments: at
// least one digit and one letter, two character classes, 6 distinct
// bytes, 2.5 bits of entropy per byte, not an identifier path (unless it
// mixes in digits with both cases), not a path or URL.
func plausiblePassword(v string) bool {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "~/") ||
		strings.Contains(v, "://") || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") {
		return false
	}
	hasDigit, hasLetter := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		hasDigit = hasDigit || c >= '0' && c <= '9'
		hasLetter = hasLetter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if !hasDigit || !hasLetter || classes(v) < 2 {
		return false
	}
	if identifier.MatchString(v) && strings.Contains(v, ".") {
		return false
	}
	return looksRandom(v, 6) && entropy(v) >= 2.5
}

// jwtSpan matches a JWT's shape at text[start:limit], where "eyJ" is:
// three base64url segments separated by dots, the first two starting with
// "eyJ" (base64 of `{"`), of at least 11, 7 and 16 bytes. Hand-written
// for speed; each byte is scanned by at most three anchors, since an
// anchor must follow a non-token byte.
func jwtSpan(text string, start, limit int) (lo, hi int, ok bool) {
	i := b64urlRun(text, start+3, limit)
	if i-start < 11 || i >= limit || text[i] != '.' || !strings.HasPrefix(text[i+1:limit], "eyJ") {
		return 0, 0, false
	}
	j := b64urlRun(text, i+4, limit)
	if j-(i+1) < 7 || j >= limit || text[j] != '.' {
		return 0, 0, false
	}
	k := b64urlRun(text, j+1, limit)
	if k-(j+1) < 16 {
		return 0, 0, false
	}
	return start, k, true
}

// b64urlRun returns the end of the run of base64url bytes at text[i:limit].
func b64urlRun(text string, i, limit int) int {
	for i < limit && tokenByte(text[i]) {
		i++
	}
	return i
}

// jwtHeader reports whether the first segment of the JWT-shaped s decodes
// to a JSON object with an "alg" member.
func jwtHeader(s string) bool {
	head, _, _ := strings.Cut(s, ".")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(head, "="))
	if err != nil {
		return false
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	_, ok := h["alg"]
	return ok
}

// recentMinBytes is the least length of a text whose spans Find
// remembers, in bytes: shorter ones are scanned again faster than they
// are looked up.
const recentMinBytes = 512

// recent remembers Find's last few results.
var recent recentSpans

// recentSpans is a ring of the last texts Find scanned, with their spans.
// The texts are compared whole, in O(1) when they are the same string
// (the runtime compares the data pointers first).
type recentSpans struct {
	mu   sync.Mutex
	next int
	ring [32]struct {
		text  string
		spans []Span
	}
}

// get returns a copy of the spans of text when it is remembered.
func (r *recentSpans) get(text string) ([]Span, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.ring {
		if e := &r.ring[i]; len(e.text) == len(text) && e.text == text {
			return slices.Clone(e.spans), true
		}
	}
	return nil, false
}

// put remembers text's spans, forgetting the oldest text.
func (r *recentSpans) put(text string, spans []Span) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ring[r.next].text, r.ring[r.next].spans = text, spans
	r.next = (r.next + 1) % len(r.ring)
}
