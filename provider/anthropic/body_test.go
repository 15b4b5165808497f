package anthropic

import (
	"cmp"
	"encoding/json"
	"testing"

	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/internal/splicetest"
)

// sdkBody is Body as the SDK alone writes it: json.Marshal of the whole
// params, the messages compacted again by each level (the oracle of the
// spliced encoding).
func sdkBody(req provider.Request) ([]byte, error) {
	m := &Model{model: DefaultModel, maxTokens: provider.DefaultMaxTokens}
	p, err := m.params(req, cmp.Or(req.Model, m.model))
	if err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// TestBodyIsTheSDKs checks that Body, which encodes the messages once,
// writes the very bytes json.Marshal writes for the SDK's params.
func TestBodyIsTheSDKs(t *testing.T) { splicetest.Odd(t, Body, sdkBody) }

// TestBodyIsTheSDKsOnRealTrajectories is TestBodyIsTheSDKs on every
// trajectory in ../shared/data.
func TestBodyIsTheSDKsOnRealTrajectories(t *testing.T) { splicetest.Real(t, Body, sdkBody) }

// FuzzBody is TestBodyIsTheSDKs on arbitrary text.
func FuzzBody(f *testing.F) { splicetest.Fuzz(f, Body, sdkBody) }

// BenchmarkBody measures Body on 100 rounds against the SDK's
// json.Marshal of the same params, which scans the messages three times.
func BenchmarkBody(b *testing.B) { splicetest.Bench(b, Body, sdkBody) }
