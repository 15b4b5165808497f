package cli

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// FuzzMergeMCPConfig: merging the agentctx entry into any config file
// either fails, or gives a file that parses, holds the entry, and keeps
// every other top-level key (JSON) or value (TOML) as it was.
func FuzzMergeMCPConfig(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"mcpServers":{"x":{"command":"y"}},"theme":"dark"}`, `{"mcpServers":{"agentctx":1}}`, `[1]`, `{"a":1}{`,
		"model = \"m\"\n[mcp_servers.agentctx]\ncommand = \"old\"\n[mcp_servers.agentctx.env]\nA = \"1\"\n\n[x]\ny = 2\n",
		"mcp_servers = { agentctx = { command = \"x\" } }\n", "[[a]]\nb = 1\n[mcp_servers.\"agentctx\"] # c\ncommand = \"q\"\n",
	} {
		f.Add([]byte(s))
	}
	e := mcpEntry{Command: "agentctx", Args: []string{"mcp", "--store", "sqlite:"}}
	f.Fuzz(func(t *testing.T, old []byte) {
		if out, err := mergeJSONServer(old, "agentctx", e); err == nil {
			var before, after map[string]json.RawMessage
			if err := json.Unmarshal(out, &after); err != nil {
				t.Fatalf("merged JSON does not parse: %v\n%s", err, out)
			}
			_ = json.Unmarshal(old, &before)
			for k, v := range before {
				if k == "mcpServers" {
					continue
				}
				if !jsonEqual(v, after[k]) {
					t.Fatalf("key %q changed: %s -> %s", k, v, after[k])
				}
			}
			var servers, oldServers map[string]json.RawMessage
			if err := json.Unmarshal(after["mcpServers"], &servers); err != nil {
				t.Fatalf("merged mcpServers %s: %v", after["mcpServers"], err)
			}
			var got mcpEntry
			if err := json.Unmarshal(servers["agentctx"], &got); err != nil || !reflect.DeepEqual(got, e) {
				t.Fatalf("merged entry %s (%v)", servers["agentctx"], err)
			}
			_ = json.Unmarshal(before["mcpServers"], &oldServers)
			for k, v := range oldServers {
				if k != "agentctx" && !jsonEqual(v, servers[k]) {
					t.Fatalf("server %q changed: %s -> %s", k, v, servers[k])
				}
			}
		}
		if out, err := mergeTOMLServer(old, "agentctx", e); err == nil {
			var before, after map[string]any
			if err := toml.Unmarshal(out, &after); err != nil {
				t.Fatalf("merged TOML does not parse: %v\n%s", err, out)
			}
			_ = toml.Unmarshal(old, &before)
			for k, v := range before {
				if k != "mcp_servers" && !reflect.DeepEqual(v, after[k]) {
					t.Fatalf("key %q changed: %v -> %v", k, v, after[k])
				}
			}
			s, _ := after["mcp_servers"].(map[string]any)
			a, _ := s["agentctx"].(map[string]any)
			if a["command"] != e.Command {
				t.Fatalf("merged table %v", a)
			}
		}
	})
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}
