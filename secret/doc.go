// Package secret finds credentials in text and redacts them. It imports
// only the standard library, so every package that writes text of its own
// (summaries, the tracker's state, working memory, reminders) can use it.
//
// # Finding
//
// [Find] returns the credential-like spans of a text, each with its kind
// ([KindAWSAccessKeyID], [KindGitHubToken], …): cloud and API keys by
// their providers' published prefixes, private key blocks, JWTs, and
// assignments of random-looking values to names such as password or
// api_key. It makes one pass over the text and is linear in its length.
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
