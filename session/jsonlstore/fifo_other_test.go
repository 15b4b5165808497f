//go:build !unix

package jsonlstore_test

import "testing"

// mkfifo skips the test: there are no FIFOs here.
func mkfifo(t *testing.T, _ string) {
	t.Helper()
	t.Skip("no FIFOs")
}
