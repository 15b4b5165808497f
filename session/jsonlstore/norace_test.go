//go:build !race

package jsonlstore_test

const raceEnabled = false
