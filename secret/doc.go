// Package secret finds credentials in text and redacts them. It imports
// only the standard library, so every package that writes text of its own
// (summaries, the tracker's state, working memory, reminders) can use it.
//
// # Finding
//
// [Find] returns the credential-like spans of a text, each with its kind
// ([KindAWSAccessKeyID], [KindGitHubToken], [KindGitLabToken], …): cloud
// and API keys by their providers' published prefixes (about 80 formats,
// [KindAPIToken] for the less common ones), webhook URLs, Azure
// connection strings, passwords in URLs, private key blocks, JWTs, and
// assignments of random-looking values to names such as password,
// api_key or a provider's name. It makes one pass over the text and is
// linear in its length: each anchor is found through a hash of its first
// three bytes, so a hundred anchors cost about what ten did.
//
// # Coverage
//
// TestGitleaksCoverage runs gitleaks' default rules (v8.30.1, a test-only
// dependency) on examples generated from their own expressions and
// checks that Find reports, and Redact removes, each secret gitleaks
// reports: 190 of the 209 rules whose example gitleaks detects. The
// misses are listed in the test, with their reasons.
//
// # Redacting
//
// [Redact] replaces each span with a marker naming its kind,
// "[REDACTED aws_access_key_id]". Raw tool outputs and messages are kept
// as recorded; what agentctx writes itself from them is redacted, so a
// secret the agent read once is not multiplied into summaries, the
// tracker's section and working memory, nor repeated on every request
// while a system reminder asks the model not to repeat it.
//
// # Tests
//
// Package [github.com/agentctx/agentctx/secret/secrettest] holds fake
// credentials of every kind, for tests that plant secrets.
package secret
