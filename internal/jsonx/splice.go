package jsonx

// SpliceArray returns raw with raw[start:end] replaced by the JSON array
// of items, in order, comma-separated: "[" item "," item … "]". Each
// item must be one JSON value; none is checked, so the result is valid
// JSON when raw[start:end] was a value's place and the items are values.
// The one place that builds a body from raw elements: the proxy puts a
// request's managed history back into the agent's body, and the provider
// adapters put the encoded messages into their SDK's params (package
// provider/internal/splice). start and end are byte offsets, 0 ≤ start ≤
// end ≤ len(raw); raw is not modified.
func SpliceArray[T ~[]byte](raw []byte, start, end int, items []T) []byte {
	n := len(raw) - (end - start) + 2 + max(len(items)-1, 0)
	for _, it := range items {
		n += len(it)
	}
	out := make([]byte, 0, n)
	out = append(out, raw[:start]...)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	out = append(out, ']')
	return append(out, raw[end:]...)
}
