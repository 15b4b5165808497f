package sharedtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Chromium returns the path of a headless-capable Chromium, skipping the
// test when there is none (failing it when CI=true: .ci/run installs
// Debian's chromium).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH, and CI=true requires it (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH: skipping the browser test")
	return ""
}

// Browse runs headless Chromium (bin, from [Chromium]) on url at
// 1280x900 with args, in a new profile and without its background
// traffic, and returns its standard output (after the page's scripts ran,
// within a virtual time budget of 10 s). It fails the test after 2
// minutes.
func Browse(t testing.TB, bin, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	full := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--window-size=1280,900", "--virtual-time-budget=10000",
		"--user-data-dir=" + filepath.Join(t.TempDir(), "profile"),
	}, args...)
	full = append(full, url)
	cmd := exec.CommandContext(ctx, bin, full...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errb.Bytes())
	}
	return out.Bytes()
}
