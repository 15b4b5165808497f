package tooluse

import (
	"strings"
	"testing"
)

func BenchmarkClassifyBash(b *testing.B) {
	c := bash(`cd /repo && grep -rn "func Parse" --include='*.go' pkg/ | head -20`)
	b.ReportAllocs()
	for b.Loop() {
		Classify(c)
	}
}

// script2K is a 2 KB shell script of the kind agents write: a setup,
// loops, conditionals, here-documents, pipelines.
var script2K = func() string {
	var sb strings.Builder
	for sb.Len() < 2048 {
		sb.WriteString(`set -e
cd /repo/service
if [ ! -f config.yaml ]; then cp config.example.yaml config.yaml; fi
for f in $(find . -name '*.go' -not -path './vendor/*'); do
  gofmt -l "$f" >> /tmp/unformatted.txt
done
sed -i 's/old_name/new_name/g' internal/handler.go internal/handler_test.go
cat > internal/version.go <<'EOF'
package internal

const Version = "1.2.3"
EOF
go test ./... 2>&1 | tee test.log | grep -E '^(FAIL|ok)' || true
rg -n "TODO|FIXME" --glob '*.go' internal/ | sort | uniq -c | head -50
`)
	}
	return sb.String()
}()

func BenchmarkClassifyScript2K(b *testing.B) {
	c := bash(script2K)
	b.SetBytes(int64(len(script2K)))
	b.ReportAllocs()
	for b.Loop() {
		Classify(c)
	}
}
