package jsonx

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync/atomic"

	fastjson "github.com/segmentio/encoding/json"
)

// MaxFastDepth is the deepest nesting of arrays and objects that the fast
// decoder is given to decode into an interface value (any, []any,
// map[string]any); deeper values are decoded by encoding/json alone (see
// the package documentation).
const MaxFastDepth = 64

// maxDepth is encoding/json's limit on nesting: a value nested deeper is
// an error.
const maxDepth = 10_000

// StdOnly makes [Unmarshal] and [Valid] use encoding/json alone while it
// is set. Only tests set it, to read an input both ways and compare; it
// changes nothing but the speed.
var StdOnly atomic.Bool

// Unmarshal decodes raw into v, a pointer to a zero value, with
// encoding/json's semantics: field names match case-insensitively, a
// later duplicate key wins, values of an unexpected type are skipped
// while the rest is filled and the first such error is returned, broken
// JSON is a *json.SyntaxError, a value nested deeper than 10,000 levels
// is an error.
//
// A json.RawMessage in v points into raw rather than holding a copy: a
// caller that keeps it past raw's life copies it.
//
// The fast decoder stops at the first value of an unexpected type where
// encoding/json goes on with the rest; on any error v is zeroed and
// decoded again by encoding/json, so that errors (rare in real data)
// cost a second pass and nothing else changes.
//
// A panic of the fast decoder (none is known; hostile input must never
// stop a reader) is taken as a failure like any other: encoding/json
// decodes the value, and a panic of the caller's own UnmarshalJSON
// methods, which run in both, still surfaces there.
func Unmarshal(raw []byte, v any) error {
	if !StdOnly.Load() && !deeper(raw, depthLimit(v)) && fastUnmarshal(raw, v) {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// depthLimit returns the deepest nesting the fast decoder is given to
// decode into v: [MaxFastDepth] for an interface value, where it re-scans
// each nested value, else encoding/json's limit.
func depthLimit(v any) int {
	switch v.(type) {
	case *any, *map[string]any, *[]any:
		return MaxFastDepth
	}
	return maxDepth
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

// TryStrict decodes raw into v, a pointer to a zero value, as an API
// decodes a request body: as a json.Decoder with DisallowUnknownFields
// decodes its one value, followed by nothing but JSON whitespace. It
// reports whether it did; when it did not (an unknown field, broken
// JSON, trailing data, a value of an unexpected type, nesting deeper
// than [MaxFastDepth] into an interface value), v is zero again and the
// caller decodes raw with encoding/json, whose error it reports: errors
// cost a second pass and nothing else changes. A json.RawMessage in v
// points into raw, as with [Unmarshal].
func TryStrict(raw []byte, v any) (ok bool) {
	if StdOnly.Load() || deeper(raw, depthLimit(v)) {
		return false
	}
	defer func() {
		if !ok {
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
				rv.Elem().SetZero()
			}
		}
	}()
	defer func() { _ = recover() }()
	rest, err := fastjson.Parse(raw, v, fastjson.DontCopyRawMessage|fastjson.DisallowUnknownFields)
	return err == nil && len(bytes.TrimLeft(rest, " \t\r\n")) == 0
}

// Valid reports whether data is one valid JSON value, as json.Valid
// does. A panic of the fast decoder is answered by json.Valid.
func Valid(data []byte) (ok bool) {
	if StdOnly.Load() || deeper(data, maxDepth) {
		return json.Valid(data)
	}
	defer func() {
		if recover() != nil {
			ok = json.Valid(data)
		}
	}()
	return fastjson.Valid(data)
}

// deeper reports whether data, read as JSON, nests arrays and objects
// more than limit levels deep. Brackets inside strings do not count. On
// valid JSON it is exact; on broken JSON it counts the brackets of the
// longest prefix that lexes as JSON strings and other bytes, which is
// all a decoder reads before it fails.
func deeper(data []byte, limit int) bool {
	// Fewer brackets than the limit cannot nest deeper: two counts of a
	// byte, much faster than the scan below.
	if bytes.Count(data, []byte{'{'})+bytes.Count(data, []byte{'['}) <= limit {
		return false
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		case '"':
			// Skip the string: to the next quote that an even number of
			// backslashes precedes (the opening quote stops the count).
			for {
				j := bytes.IndexByte(data[i+1:], '"')
				if j < 0 {
					return false
				}
				i += 1 + j
				k := i - 1
				for data[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		}
	}
	return false
}
