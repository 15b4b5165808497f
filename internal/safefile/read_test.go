package safefile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/internal/safefile"
)

func TestReadFileCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, size, err := safefile.ReadFile(p, 4, safefile.Options{})
	if err != nil || string(data) != "0123" || size != 10 {
		t.Fatalf("ReadFile = %q, %d, %v; want 0123, 10, nil", data, size, err)
	}
	data, size, err = safefile.ReadFile(p, 100, safefile.Options{})
	if err != nil || string(data) != "0123456789" || size != 10 {
		t.Fatalf("ReadFile = %q, %d, %v; want all, 10, nil", data, size, err)
	}
}
