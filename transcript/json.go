package transcript

import (
	"encoding/json"
	"reflect"
	"sync/atomic"

	fastjson "github.com/segmentio/encoding/json"
)

// The JSON decoding of every reader goes through unmarshal and validJSON:
// github.com/segmentio/encoding/json, which checks and decodes a value
// in one pass (encoding/json checks the whole value before decoding it,
// and again for each nested value handed to an UnmarshalJSON method),
// about three times as fast on transcripts. Its types are encoding/json's
// (RawMessage, SyntaxError, UnmarshalTypeError are aliases), and where it
// fails the value is decoded again by encoding/json, so that what a
// reader returns, including its errors and their byte offsets, is what
// encoding/json alone returns: FuzzStdEquivalence checks it.

// stdOnly makes unmarshal and validJSON use encoding/json alone. Only tests
// set it (FuzzStdEquivalence), to read an input both ways and compare;
// it changes nothing but the speed.
var stdOnly atomic.Bool

// unmarshal decodes raw into v, a pointer to a zero value, with
// encoding/json's semantics: field names match case-insensitively, a
// later duplicate key wins, values of an unexpected type are skipped
// while the rest is filled and the first such error is returned, broken
// JSON is a *json.SyntaxError.
//
// A json.RawMessage in v points into raw rather than holding a copy:
// raw is a line the lineReader reuses for the next line, or a document
// read whole, so a reader that keeps a RawMessage past the line copies
// it (parseArgs and toolDefs do).
//
// The fast decoder stops at the first value of an unexpected type where
// encoding/json goes on with the rest; on any error v is zeroed and
// decoded again by encoding/json, so that errors (rare: real transcripts
// have none) cost a second pass and nothing else changes.
//
// A panic of the fast decoder (none is known; hostile input must never
// stop a reader) is taken as a failure like any other: encoding/json
// decodes the value, and a panic of this package's own UnmarshalJSON
// methods, which run in both, still surfaces there.
func unmarshal(raw []byte, v any) error {
	if !stdOnly.Load() && fastUnmarshal(raw, v) {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// fastUnmarshal decodes raw into v with the fast decoder and reports
// whether it did; when it did not, v is zeroed again.
func fastUnmarshal(raw []byte, v any) (ok bool) {
	defer func() {
		if !ok {
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
				rv.Elem().SetZero()
			}
		}
	}()
	defer func() { _ = recover() }()
	rest, err := fastjson.Parse(raw, v, fastjson.DontCopyRawMessage)
	return err == nil && len(rest) == 0
}

// validJSON reports whether data is one valid JSON value, as json.Valid
// does. A panic of the fast decoder is answered by json.Valid.
func validJSON(data []byte) (ok bool) {
	if stdOnly.Load() {
		return json.Valid(data)
	}
	defer func() {
		if recover() != nil {
			ok = json.Valid(data)
		}
	}()
	return fastjson.Valid(data)
}
