package secret_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/lucasjones/reggen"
	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/agentctx/agentctx/secret"
)

// gitleaksKnownMisses are the gitleaks default rules whose generated
// examples gitleaks detects and Find does not: client ids of digits only
// (Asana, Discord: ids, not secrets), upper-cased prefixes that
// providers issue in lower case (XAPP-, SGP_, EYJRIJOI), shorter or
// differently shaped values than the providers' formats (xoxs-7-185-…,
// SendGrid with '='), JWTs whose header is not JSON and base64 of JWTs,
// Stripe test keys (left out on purpose), curl arguments, gitleaks'
// generic-api-key (a name such as "access" and a short value), private
// key headers without a body, and formats with no prefix at all (Azure
// AD client secrets, MaxMind, Terraform's ….atlasv1.…, Authress). Each
// is reported by TestGitleaksCoverage; a rule missed and not listed here
// fails it, and so does a rule listed here that Find now covers.
var gitleaksKnownMisses = map[string]bool{
	"asana-client-id":                    true,
	"authress-service-client-access-key": true,
	"azure-ad-client-secret":             true,
	"curl-auth-header":                   true,
	"curl-auth-user":                     true,
	"discord-client-id":                  true,
	"generic-api-key":                    true,
	"grafana-api-key":                    true,
	"hashicorp-tf-api-token":             true,
	"jwt":                                true,
	"jwt-base64":                         true,
	"maxmind-license-key":                true,
	"private-key":                        true,
	"sendgrid-api-token":                 true,
	"slack-app-token":                    true,
	"slack-legacy-token":                 true,
	"slack-legacy-workspace-token":       true,
	"sourcegraph-access-token":           true,
	"stripe-access-token":                true,
}

// TestGitleaksCoverage measures Find against gitleaks' own default rules
// (github.com/zricethezav/gitleaks/v8, its embedded gitleaks.toml): for
// each rule, examples are generated from the rule's regular expression
// (gitleaks' own generator, reggen, which its rules use to build their
// true positives), and the first one that gitleaks' detector reports
// under that rule is the rule's example. Find must report, and Redact
// remove, the secret gitleaks reports in it.
func TestGitleaksCoverage(t *testing.T) {
	t.Parallel()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatalf("gitleaks default config: %v", err)
	}
	rules := d.Config.GetOrderedRules()
	var detected, covered int
	var missed, fixed []string
	for _, r := range rules {
		if r.Regex == nil {
			continue
		}
		example, want, ok := gitleaksExample(t, d, r.RuleID, r.Regex.String())
		if !ok {
			continue
		}
		detected++
		out := secret.Redact(example)
		if len(secret.Find(example)) > 0 && !strings.Contains(out, want) {
			covered++
			if gitleaksKnownMisses[r.RuleID] {
				fixed = append(fixed, r.RuleID)
			}
			continue
		}
		missed = append(missed, r.RuleID)
		if !gitleaksKnownMisses[r.RuleID] {
			t.Errorf("gitleaks rule %s: its secret %q is not redacted in %q: got %q (%v)", r.RuleID, want, example, out, secret.Find(example))
		}
	}
	sort.Strings(missed)
	t.Logf("coverage: %d of the %d gitleaks default rules whose generated example gitleaks detects (%d rules in all)", covered, detected, len(rules))
	t.Logf("missed: %s", strings.Join(missed, " "))
	if len(fixed) > 0 {
		t.Errorf("rules covered now, to remove from gitleaksKnownMisses: %s", strings.Join(fixed, " "))
	}
	if detected < len(rules)/2 {
		t.Errorf("gitleaks detects the generated examples of only %d of its %d rules", detected, len(rules))
	}
}

// gitleaksExample generates examples from the expression re of the gitleaks
// rule id and returns the first that gitleaks detects under that rule, with
// the secret it reports. Only ASCII examples are kept.
func gitleaksExample(t *testing.T, d *detect.Detector, id, re string) (example, secret string, ok bool) {
	g, err := reggen.NewGenerator(re)
	if err != nil {
		t.Logf("gitleaks rule %s: no generator: %v", id, err)
		return "", "", false
	}
	for seed := int64(1); seed <= 32; seed++ {
		g.SetSeed(seed)
		text := fmt.Sprintf("%s\n", g.Generate(3))
		if !ascii(text) {
			// Case folding in reggen writes 'ſ' for s and the Kelvin
			// sign for K: no provider issues those.
			continue
		}
		for _, f := range d.DetectString(text) {
			if f.RuleID == id && f.Secret != "" {
				return text, f.Secret, true
			}
		}
	}
	return "", "", false
}

// ascii reports whether s holds only ASCII bytes.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
