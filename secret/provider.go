package secret

import (
	"regexp"
	"strings"
)

// The kinds of secret added for providers whose tokens carry a published
// prefix or shape beyond the original set (see [Find]).
const (
	// KindGitLabToken is a GitLab token: glpat- (personal), gloas-,
	// gldt-, glrt-, glcbt-, glptt-, glft-, glimt-, glagent-, glsoat-,
	// glffct- followed by at least 20 bytes of [0-9A-Za-z_-] (GitLab's
	// "Token prefixes", docs.gitlab.com/security/tokens), GR1348941
	// runner registration tokens and _gitlab_session cookies.
	KindGitLabToken = "gitlab_token"
	// KindWebhookURL is the secret path of an incoming webhook URL:
	// Slack's hooks.slack.com/services/T…/B…/… (api.slack.com/messaging/webhooks)
	// and Microsoft Teams' webhook.office.com/webhookb2/….
	KindWebhookURL = "webhook_url"
	// KindAzureStorageKey is the AccountKey (or SharedAccessKey) of an
	// Azure connection string, 88 bytes of base64 for a storage account
	// (learn.microsoft.com/azure/storage/common/storage-configure-connection-string).
	KindAzureStorageKey = "azure_storage_key"
	// KindURLPassword is the password of a URL's user information,
	// scheme://user:password@host (RFC 3986, section 3.2.1).
	KindURLPassword = "url_password"
	// KindTwilioKey is a Twilio API key SID (SK) or account SID (AC):
	// the two letters and 32 lower-case hex digits (twilio.com/docs/iam/api-keys).
	KindTwilioKey = "twilio_key"
	// KindSendGridKey is a SendGrid API key: "SG.", 22 bytes, ".", 43
	// bytes of base64url (twilio.com/docs/sendgrid, API keys).
	KindSendGridKey = "sendgrid_api_key"
	// KindMailgunKey is a Mailgun private API key ("key-" and 32 hex
	// digits) or public validation key ("pubkey-" and 32 hex digits).
	KindMailgunKey = "mailgun_api_key"
	// KindHuggingFaceToken is a Hugging Face user access token ("hf_" and
	// 34 letters, huggingface.co/docs/hub/security-tokens) or a legacy
	// organization token ("api_org_" and 34 letters).
	KindHuggingFaceToken = "huggingface_token"
	// KindAPIToken is a token of another provider with a published prefix:
	// Grafana, DigitalOcean, npm, PyPI, Linear, Postman, Perplexity,
	// Notion, age, Shopify, Sentry, Databricks, Dynatrace, EasyPost,
	// Flutterwave, Duffel, PlanetScale, RubyGems, Pulumi, Heroku,
	// Atlassian, Doppler, Stripe prod keys (test keys are left: they move no money), 1Password, Clojars, Infracost,
	// New Relic, HashiCorp Vault, Alibaba, Artifactory, Frame.io,
	// OpenShift, 42, Harness, Amazon Bedrock, Fly.io, Octopus Deploy,
	// Cloudflare origin CA, Mapbox, Plaid, Brevo, Defined Networking,
	// SettleMint, Prefect, ReadMe, Scalingo, Shippo, Sourcegraph,
	// Typeform, Yandex, Square, Facebook, Twitter bearer, ClickHouse,
	// Adobe, Grafana API keys.
	KindAPIToken = "api_token"
)

// prefixed builds a pattern for tokens that start with one of anchors
// and match re (anchored, written from the provider's published format):
// not glued to a preceding or following token byte, and random looking
// after the prefix (at least distinct different bytes). Its window is
// 1 KiB, more than the longest of these tokens.
func prefixed(kind string, anchors []string, re string, distinct int) secretPattern {
	rx := regexp.MustCompile("^(?:" + re + ")")
	prefixLen := len(anchors[0])
	return secretPattern{
		kind:    kind,
		anchors: anchors,
		// A case-insensitive expression has lower-case anchors.
		lower:    strings.HasPrefix(re, "(?i)"),
		re:       rx,
		window:   1024,
		boundary: true,
		tail:     true,
		check: func(s string) bool {
			return looksRandom(s[min(prefixLen, len(s)):], distinct)
		},
	}
}

// providerPatterns are the patterns of KindGitLabToken … KindAPIToken,
// between the original key patterns and the JWT and generic ones.
var providerPatterns = []secretPattern{
	prefixed(KindGitLabToken, []string{"glpat-", "gloas-", "gldt-", "glrt-", "glcbt-", "glptt-", "glft-", "glimt-", "glagent-", "glsoat-", "glffct-"},
		`gl[a-z]{2,6}-[0-9A-Za-z_-]{20,}(?:\.[0-9A-Za-z_-]+)*`, 10),
	prefixed(KindGitLabToken, []string{"GR1348941"}, `GR1348941[0-9A-Za-z_-]{20,}`, 10),
	{
		kind:    KindGitLabToken,
		anchors: []string{"_gitlab_session="},
		re:      regexp.MustCompile(`^_gitlab_session=([0-9a-z]{32})`),
		group:   1,
		window:  64,
		tail:    true,
		check:   func(s string) bool { return looksRandom(s, 8) },
	},
	{
		kind:    KindWebhookURL,
		anchors: []string{"hooks.slack.com/"},
		re:      regexp.MustCompile(`^hooks\.slack\.com/((?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,})`),
		group:   1,
		window:  300,
		check:   func(s string) bool { return looksRandom(s, 10) },
	},
	{
		kind:    KindWebhookURL,
		anchors: []string{"webhook.office.com/webhookb2/"},
		re:      regexp.MustCompile(`^webhook\.office\.com/webhookb2/([A-Za-z0-9@/_-]{40,})`),
		group:   1,
		window:  400,
		check:   func(s string) bool { return looksRandom(s, 10) },
	},
	{
		kind:    KindAzureStorageKey,
		anchors: []string{"accountkey=", "sharedaccesskey="},
		lower:   true,
		re:      regexp.MustCompile(`^(?i:accountkey|sharedaccesskey)=([A-Za-z0-9+/]{40,}={0,2})`),
		group:   1,
		window:  160,
		check:   func(s string) bool { return looksRandom(s, 14) },
	},
	{
		kind:    KindURLPassword,
		anchors: []string{"://"},
		match:   urlPassword,
		window:  400,
		check:   plausibleURLPassword,
	},
	prefixed(KindTwilioKey, followedBy([]string{"SK", "AC"}, "0123456789abcdefABCDEF"), `(?:SK|AC)[0-9a-fA-F]{32}`, 10),
	prefixed(KindSendGridKey, []string{"SG."}, `SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`, 12),
	{
		kind:     KindMailgunKey,
		anchors:  []string{"key-", "pubkey-"},
		lower:    true,
		re:       regexp.MustCompile(`^(?i:(?:pub)?key)-[0-9a-fA-F]{32}`),
		window:   40,
		boundary: true,
		tail:     true,
		check:    func(s string) bool { return looksRandom(s[strings.IndexByte(s, '-')+1:], 10) },
	},
	prefixed(KindHuggingFaceToken, []string{"hf_"}, `hf_[A-Za-z]{34}`, 12),
	prefixed(KindHuggingFaceToken, []string{"api_org_"}, `api_org_[A-Za-z]{34}`, 12),
	prefixed(KindSlackToken, []string{"xapp-"}, `xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`, 8),
	prefixed(KindSlackToken, []string{"xoxe"}, `xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,}`, 12),
	prefixed(KindAPIToken, []string{"glsa_"}, `(?i)glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`, 10),
	prefixed(KindAPIToken, []string{"glc_"}, `(?i)glc_[A-Za-z0-9+/]{32,400}={0,2}`, 10),
	prefixed(KindAPIToken, []string{"dop_v1_", "doo_v1_", "dor_v1_"}, `(?i)do[opr]_v1_[a-f0-9]{64}`, 10),
	prefixed(KindAPIToken, []string{"npm_"}, `(?i)npm_[A-Za-z0-9]{36}`, 12),
	prefixed(KindAPIToken, []string{"pypi-AgEIcHlwaS5vcmc"}, `pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`, 12),
	prefixed(KindAPIToken, []string{"lin_api_"}, `(?i)lin_api_[A-Za-z0-9]{40}`, 12),
	prefixed(KindAPIToken, []string{"pmak-"}, `(?i)pmak-[a-f0-9]{24}-[a-f0-9]{34}`, 10),
	prefixed(KindAPIToken, []string{"pplx-"}, `pplx-[A-Za-z0-9]{48}`, 12),
	prefixed(KindAPIToken, []string{"ntn_"}, `ntn_[0-9]{11}[A-Za-z0-9]{35}`, 12),
	prefixed(KindAPIToken, []string{"AGE-SECRET-KEY-1"}, `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, 12),
	prefixed(KindAPIToken, []string{"shpat_", "shpca_", "shppa_", "shpss_"}, `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, 10),
	prefixed(KindAPIToken, []string{"sntrys_eyJ"}, `sntrys_eyJ[A-Za-z0-9+/=_-]{40,}`, 12),
	prefixed(KindAPIToken, []string{"sntryu_"}, `sntryu_[a-f0-9]{64}`, 10),
	prefixed(KindAPIToken, []string{"dapi"}, `dapi[a-f0-9]{32}(?:-\d)?`, 10),
	prefixed(KindAPIToken, []string{"dt0c01."}, `dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`, 12),
	prefixed(KindAPIToken, []string{"EZAK", "EZTK"}, `EZ[AT]K[A-Za-z0-9]{54}`, 12),
	prefixed(KindAPIToken, []string{"FLWSECK", "FLWPUBK"}, `FLW(?:SEC|PUB)K(?:_TEST)?-[A-Za-z0-9]{12,}(?:-X)?`, 8),
	prefixed(KindAPIToken, []string{"duffel_live_", "duffel_test_"}, `duffel_(?:test|live)_[A-Za-z0-9_=-]{43}`, 12),
	prefixed(KindAPIToken, []string{"pscale_tkn_", "pscale_oauth_", "pscale_pw_"}, `(?i)pscale_(?:tkn|oauth|pw)_[A-Za-z0-9=._-]{32,64}`, 10),
	prefixed(KindAPIToken, []string{"rubygems_"}, `rubygems_[a-f0-9]{48}`, 10),
	prefixed(KindAPIToken, []string{"pul-"}, `pul-[a-f0-9]{40}`, 10),
	prefixed(KindAPIToken, []string{"HRKU-AA"}, `HRKU-AA[0-9A-Za-z_-]{58}`, 12),
	prefixed(KindAPIToken, []string{"ATATT3"}, `ATATT3[A-Za-z0-9_=-]{180,}`, 12),
	prefixed(KindAPIToken, []string{"dp.pt."}, `(?i)dp\.pt\.[a-z0-9]{43}`, 12),
	prefixed(KindAPIToken, []string{"sk_prod_", "rk_prod_"}, `[sr]k_prod_[A-Za-z0-9]{10,99}`, 8),
	prefixed(KindAPIToken, []string{"ops_eyJ"}, `ops_eyJ[A-Za-z0-9+/]{250,}={0,3}`, 12),
	prefixed(KindAPIToken, []string{"A3-"}, `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`, 10),
	prefixed(KindAPIToken, []string{"clojars_"}, `(?i)clojars_[a-z0-9]{60}`, 12),
	prefixed(KindAPIToken, []string{"ico-"}, `ico-[A-Za-z0-9]{32}`, 12),
	prefixed(KindAPIToken, []string{"NRAK-", "NRII-", "NRJS-"}, `NRAK-[A-Za-z0-9]{27}|NRII-[A-Za-z0-9-]{32}|NRJS-[a-fA-F0-9]{19}`, 8),
	prefixed(KindAPIToken, []string{"hvs.", "hvb."}, `hv[sb]\.[A-Za-z0-9_-]{90,}`, 12),
	prefixed(KindAPIToken, []string{"LTAI"}, `LTAI[A-Za-z0-9]{20}`, 10),
	prefixed(KindAPIToken, []string{"AKCp"}, `AKCp[A-Za-z0-9]{69}`, 12),
	prefixed(KindAPIToken, []string{"cmVmd"}, `cmVmd[A-Za-z0-9]{59}`, 12),
	prefixed(KindAPIToken, []string{"fio-u-"}, `fio-u-[A-Za-z0-9_=-]{64}`, 12),
	prefixed(KindAPIToken, []string{"sha256~"}, `sha256~[A-Za-z0-9_-]{43}`, 12),
	prefixed(KindAPIToken, []string{"s-s4t2ud-", "s-s4t2af-"}, `s-s4t2(?:ud|af)-[a-fA-F0-9]{64}`, 10),
	prefixed(KindAPIToken, []string{"pat.", "sat."}, `[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`, 12),
	prefixed(KindAPIToken, []string{"ABSK"}, `ABSK[A-Za-z0-9+/]{109,269}={0,2}`, 12),
	prefixed(KindAPIToken, []string{"bedrock-api-key-"}, `bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*`, 8),
	prefixed(KindAPIToken, []string{"fm2_", "fm1a_", "fm1r_", "fo1_"}, `(?:fm2|fm1[ar]|fo1)_[A-Za-z0-9+/]{100,}={0,3}`, 12),
	prefixed(KindAPIToken, []string{"API-"}, `API-[A-Z0-9]{26}`, 10),
	prefixed(KindAPIToken, []string{"v1.0-"}, `v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`, 10),
	prefixed(KindAPIToken, []string{"pk.", "sk."}, `(?i)[ps]k\.[A-Za-z0-9]{60}\.[A-Za-z0-9]{22}`, 12),
	prefixed(KindAPIToken, []string{"access-sandbox-", "access-development-", "access-production-"},
		`(?i)access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, 8),
	prefixed(KindAPIToken, []string{"xkeysib-"}, `xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`, 10),
	prefixed(KindAPIToken, []string{"dnkey-"}, `(?i)dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}`, 12),
	prefixed(KindAPIToken, []string{"sm_pat_", "sm_aat_", "sm_sat_"}, `sm_[aps]at_[A-Za-z0-9]{16}`, 8),
	prefixed(KindAPIToken, []string{"pnu_"}, `pnu_[A-Za-z0-9]{36}`, 12),
	prefixed(KindAPIToken, []string{"rdme_"}, `rdme_[a-z0-9]{70}`, 12),
	prefixed(KindAPIToken, []string{"tk-us-"}, `tk-us-[A-Za-z0-9_-]{48}`, 12),
	prefixed(KindAPIToken, []string{"shippo_live_", "shippo_test_"}, `shippo_(?:live|test)_[a-fA-F0-9]{40}`, 10),
	prefixed(KindAPIToken, []string{"sgp_"}, `sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}`, 10),
	prefixed(KindAPIToken, []string{"tfp_"}, `tfp_[A-Za-z0-9_.=-]{59}`, 12),
	prefixed(KindAPIToken, []string{"t1."}, `t1\.[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]{86}=*`, 12),
	prefixed(KindAPIToken, followedBy([]string{"YC"}, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"), `YC[A-Za-z0-9_-]{38}`, 12),
	prefixed(KindAPIToken, []string{"AQVN"}, `AQVN[A-Za-z0-9_-]{35,38}`, 12),
	prefixed(KindAPIToken, []string{"EAAA", "sq0atp-", "sq0csp-"}, `(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_-]{22,60}`, 10),
	prefixed(KindAPIToken, []string{"EAAM", "EAAC"}, `EAA[MC][A-Za-z0-9]{100,}`, 12),
	prefixed(KindAPIToken, []string{"AAAAAAAAAAAAAAAAAAAAA"}, `A{22}[A-Za-z0-9%]{80,100}`, 0),
	prefixed(KindAPIToken, []string{"4b1d"}, `4b1d[A-Za-z0-9]{38}`, 12),
	prefixed(KindAPIToken, []string{"p8e-"}, `p8e-[A-Za-z0-9]{32}`, 12),
	prefixed(KindAPIToken, []string{"eyJrIjoi"}, `eyJrIjoi[A-Za-z0-9]{70,400}={0,3}`, 12),
}

// followedBy returns each prefix followed by each byte of next: anchors
// are at least three bytes long (see anchorBuckets).
func followedBy(prefixes []string, next string) []string {
	var out []string
	for _, p := range prefixes {
		for i := 0; i < len(next); i++ {
			out = append(out, p+next[i:i+1])
		}
	}
	return out
}

// urlPassword matches, at text[start:limit] right after "://", the user
// information of a URL, user:password@host, and returns the password's
// span: a user of 1-64 bytes without ':', '/', '@' or spaces, ':', a
// password of 1-128 bytes without '/', '@' or spaces, '@' and a host
// byte (a letter, digit, '[' or '.').
func urlPassword(text string, start, limit int) (lo, hi int, ok bool) {
	i := start + len("://")
	u := i
	for i < limit && i-u <= 64 && urlUserByte(text[i]) && text[i] != ':' {
		i++
	}
	if i == u || i >= limit || text[i] != ':' {
		return 0, 0, false
	}
	lo = i + 1
	j := lo
	for j < limit && j-lo <= 128 && urlUserByte(text[j]) {
		j++
	}
	if j == lo || j+1 >= limit || text[j] != '@' {
		return 0, 0, false
	}
	if c := text[j+1]; !(tokenByte(c) || c == '[' || c == '.') {
		return 0, 0, false
	}
	return lo, j, true
}

// urlUserByte reports whether c may stand in a URL's user information
// as agents print it (RFC 3986's unreserved, sub-delims and
// percent-encoding, and ':'), excluding quotes and brackets that end a
// URL in prose or code.
func urlUserByte(c byte) bool {
	return c > ' ' && c < 0x7f && strings.IndexByte("/@?#\"'`<>()[]{}\\|", c) < 0
}

// urlPasswordWords are the words documentation writes where a URL's
// password goes.
var urlPasswordWords = []string{"pass", "password", "passwd", "pwd", "secret", "token", "x-oauth-basic"}

// plausibleURLPassword rejects documentation passwords and template
// variables: "user:password@", "user:$PASSWORD@", "user:%s@", and
// passwords of fewer than 6 bytes or of letters and '_' only: [Redact]
// replaces a found value wherever it stands, and such a value could
// stand inside words and markers ("[REDACTED url_password]").
func plausibleURLPassword(v string) bool {
	if len(v) < 6 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "" {
		return false
	}
	l := strings.ToLower(v)
	for _, w := range urlPasswordWords {
		if l == w {
			return false
		}
	}
	if strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%") || strings.Trim(v, "*.x") == "" {
		return false
	}
	return true
}

// providerNames are the names gitleaks' semi-generic rules, and the
// providers' own documentation, write next to a provider's key when the
// key has no prefix of its own (`HEROKU_API_KEY=…`, `"datadog_app": "…"`).
var providerNames = []string{
	"adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian", "confluence", "jira",
	"beamer", "bitbucket", "bittrex", "cloudflare", "codecov", "coinbase", "confluent", "contentful",
	"datadog", "discord", "droneci", "dropbox", "etsy", "facebook", "fastly", "finicity", "finnhub",
	"flickr", "freshbooks", "gitter", "gocardless", "heroku", "hubspot", "intercom", "jfrog",
	"artifactory", "xray", "kraken", "kucoin", "launchdarkly", "linear", "linkedin", "linked_in",
	"lob", "looker", "mailchimp", "mailgun", "mapbox", "mattermost", "messagebird", "message_bird",
	"netlify", "new_relic", "newrelic", "nytimes", "newyorktimes", "okta", "plaid", "sendinblue",
	"sentry", "shippo", "sidekiq", "contribsys", "sonar", "sourcegraph", "squarespace", "sumo",
	"telegr", "travis", "twitch", "twitter", "typeform", "yandex", "zendesk", "meraki", "cohere",
	"co_api_key", "dnkey", "privateai", "private_ai", "private-ai", "rapidapi", "scalingo", "sendbird",
	"settlemint", "snyk", "trello", "twilio", "sendgrid", "huggingface", "azure",
}

// namedAssignment matches, at text[start:limit] right after a provider's
// name, the rest of a name (at most 24 bytes of [A-Za-z0-9_.-]), up to
// three blanks, line breaks, quotes or backslashes (a closing quote,
// escaped in JSON), an operator of the languages agents read (":=",
// "::=", ":::=", "=>", "?=", "||", "=", ":", ">", ","), up to five
// blanks, quotes, backslashes or '=', and a value of 12-200 bytes of
// [A-Za-z0-9_.+/=~:-] ended by the end of the text, a space, a quote, a
// backslash or one of ";,)]}". It returns the value's span.
func namedAssignment(text string, start, limit int) (lo, hi int, ok bool) {
	i := start
	for i < limit && i-start < 24 && (tokenByte(text[i]) || text[i] == '.') {
		i++
	}
	for n := 0; n < 3 && i < limit && (asciiSpace(text[i]) || strings.IndexByte("\"'\\", text[i]) >= 0); n++ {
		i++
	}
	op := -1
	for _, o := range namedOperators {
		if strings.HasPrefix(text[i:limit], o) {
			op = len(o)
			break
		}
	}
	if op < 0 {
		return 0, 0, false
	}
	i += op
	for n := 0; n < 5 && i < limit && (asciiSpace(text[i]) || strings.IndexByte("\"'`=\\", text[i]) >= 0); n++ {
		i++
	}
	lo = i
	for i < limit && i-lo <= 200 && (tokenByte(text[i]) || strings.IndexByte(".+/=~:", text[i]) >= 0) {
		i++
	}
	if n := i - lo; n < 12 || n > 200 {
		return 0, 0, false
	}
	if i < len(text) && !asciiSpace(text[i]) && strings.IndexByte("\"'`\\;,)]}", text[i]) < 0 {
		return 0, 0, false
	}
	return lo, i, true
}

// namedOperators are the assignment operators namedAssignment reads,
// longest first.
var namedOperators = []string{":::=", "::=", ":=", "=>", "?=", "||", "=", ":", ">", ","}

// plausibleProviderKey is the check of values assigned to a provider's
// name: at least 12 bytes that pass [plausiblePassword], not a version
// ("7.45.0-rc.1"), and either mixing upper case, lower case and digits
// or at least 20 bytes with 10 distinct ones: names such as
// "heroku_app: my-app-staging-42" or "azure_location: westeurope2" hold
// names, not keys, and keys are random in both cases or long.
func plausibleProviderKey(v string) bool {
	if len(v) < 12 || !plausiblePassword(v) || version.MatchString(v) {
		return false
	}
	var upper, lower, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		upper = upper || c >= 'A' && c <= 'Z'
		lower = lower || c >= 'a' && c <= 'z'
		digit = digit || c >= '0' && c <= '9'
	}
	return upper && lower && digit || len(v) >= 20 && looksRandom(v, 10)
}

// version matches version numbers: 1.2, v0.27.0, 7.45.0-rc.1.
var version = regexp.MustCompile(`^v?[0-9]+(?:\.[0-9]+)+`)
