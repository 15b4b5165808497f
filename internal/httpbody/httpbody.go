// Package httpbody reads request bodies into one buffer of their
// announced length: the service's and the proxy's requests carry an
// agent's whole conversation, and io.ReadAll, which starts at 512 bytes
// and grows by doubling, allocates two to four times such a body.
package httpbody

import "io"

// ReadAll returns what io.ReadAll(r) returns, errors included, reading
// into a buffer of length+1 bytes when length (a Content-Length; -1 when
// unknown) is positive and at most presizeLimit, in bytes: an announced
// length the body does not hold costs at most presizeLimit bytes, and a
// body longer than announced grows the buffer as io.ReadAll would.
func ReadAll(r io.Reader, length, presizeLimit int64) ([]byte, error) {
	if length <= 0 || length > presizeLimit {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, length+1) // one more: the end is read without growing
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // more than announced: grow
		}
	}
}
