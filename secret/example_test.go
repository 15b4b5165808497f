package secret_test

import (
	"fmt"

	"github.com/agentctx/agentctx/secret"
)

func ExampleFind() {
	text := "DB_HOST=db.internal\nDB_PASSWORD=\"kP9x2Lm7Qv4Z\"\nmax_tokens = 4096\n"
	for _, s := range secret.Find(text) {
		fmt.Println(s.Kind, s.Offset, s.Length)
	}
	// Output:
	// generic_secret 33 12
}

func ExampleRedact() {
	fmt.Println(secret.Redact("DB_HOST=db.internal DB_PASSWORD=\"kP9x2Lm7Qv4Z\" max_tokens=4096"))
	// Output:
	// DB_HOST=db.internal DB_PASSWORD="[REDACTED generic_secret]" max_tokens=4096
}
