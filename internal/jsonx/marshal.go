package jsonx

import (
	"bytes"
	"encoding/json"
	"sync"
)

// MarshalNoEscape returns v as encoding/json's json.Marshal writes it,
// without its HTML escapes ("<", ">" and "&" stay as they are: code and
// system reminders hold them and stay readable) and without a final new
// line; its errors are encoding/json's. The value is encoded into a
// pooled buffer and copied out at its size: encoding/json's buffer grows
// by doubling, so a fresh one allocated about twice the result (issue 29:
// the messages' and entries' encodings were a tenth of the service's
// allocations under load).
func MarshalNoEscape(v any) ([]byte, error) {
	buf, _ := encodeBuffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	var out []byte
	if err == nil {
		out = bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	if buf.Cap() <= maxPooledBuffer {
		encodeBuffers.Put(buf)
	}
	return out, err
}

// encodeBuffers are MarshalNoEscape's buffers.
var encodeBuffers sync.Pool

// maxPooledBuffer is the largest buffer, in bytes, MarshalNoEscape keeps
// for the next call: one huge value does not hold its memory for every
// later one.
const maxPooledBuffer = 1 << 20
