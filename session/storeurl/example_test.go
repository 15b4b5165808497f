package storeurl_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentctx/agentctx/session/storeurl"
)

// Example opens the store a --store flag names.
func Example() {
	dir, err := os.MkdirTemp("", "storeurl")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := storeurl.Open("sqlite:"+filepath.Join(dir, "sessions.db")+"?sync=always", storeurl.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	fmt.Printf("%T\n", st)
	// Output: *sqlitestore.Store
}
