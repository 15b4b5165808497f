// Package jsonx decodes JSON as encoding/json does, faster: the one fast
// path of the module, used by the transcript readers, tooluse's reading
// of tool-call arguments, chat's reading of its message JSON and of the
// providers' wire shapes (Anthropic content, Chat Completions content,
// Responses API items), session's reading of entries (metadata,
// messages), the service's reading of request bodies and messages in
// every format, the proxy's reading of each message and item, and the
// load generator's reading of answers.
//
// # Fast path and fallback
//
// [Unmarshal] and [Valid] go through github.com/segmentio/encoding/json,
// which checks and decodes a value in one pass (encoding/json checks the
// whole value before decoding it, and again for each nested value handed
// to an UnmarshalJSON method), about three times as fast. Its types are
// encoding/json's (RawMessage, SyntaxError, UnmarshalTypeError are
// aliases). Where it fails, or panics, the value is decoded again by
// encoding/json, so that what a caller gets, errors and their byte
// offsets included, is what encoding/json alone returns.
//
// A value nested deeper than encoding/json's limit of 10,000 arrays and
// objects, which encoding/json rejects and the fast decoder accepts, goes
// to encoding/json directly; so does one decoded into an interface (any,
// []any, map[string]any) nested deeper than [MaxFastDepth]: the fast
// decoder re-scans every nested value it decodes into an interface, in
// time depth × size (2.4 s for 10,000 nested arrays). A struct with an
// interface field is not guarded so: decode such values into a
// map[string]any or an any.
//
// # Tests
//
// [StdOnly] makes both functions use encoding/json alone, so that a test
// can read an input both ways and compare (transcript's
// FuzzStdEquivalence, this package's FuzzUnmarshal).
//
// # Splicing
//
// [SpliceArray] puts already-encoded elements into an encoded body as
// one array, without decoding either: the proxy's managed history and
// the provider adapters' request bodies.
//
// # Concurrency
//
// The functions hold no state and are safe for concurrent use.
package jsonx
