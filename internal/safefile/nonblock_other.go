//go:build !unix

package safefile

// oNonblock is 0 where FIFOs do not block an open (or do not exist).
const oNonblock = 0
