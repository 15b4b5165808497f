package tooluse

import (
	"encoding/json"
	"testing"

	"github.com/agentctx/agentctx/chat"
)

// TestIssue28Names: the tool names agents use today that the tables
// missed (issue 28): Cline's, Gemini CLI's read_file/write_file with
// file_path, Codex's shell_command. One Cline task's file writes gave 0
// files changed.
func TestIssue28Names(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		kind       Kind
		read, cmd  string
		write      string
	}{
		{"write_to_file", `{"path":"src/a.ts","content":"x"}`, KindWrite, "", "", "src/a.ts"},
		{"replace_in_file", `{"path":"src/a.ts","diff":"------- SEARCH\na\n=======\nb\n+++++++ REPLACE"}`, KindEdit, "", "", "src/a.ts"},
		{"execute_command", `{"command":"npm test","requires_approval":false}`, KindShell, "", "npm test", ""},
		{"search_files", `{"path":"src","regex":"TODO","file_pattern":"*.ts"}`, KindSearch, "", "", ""},
		{"list_files", `{"path":"src","recursive":true}`, KindList, "", "", ""},
		{"read_file", `{"file_path":"/w/main.go"}`, KindRead, "/w/main.go", "", ""},
		{"write_file", `{"file_path":"/w/out.txt","content":"x"}`, KindWrite, "", "", "/w/out.txt"},
		{"shell_command", `{"command":"ls -la","workdir":"/w"}`, KindShell, "", "ls -la", ""},
	} {
		u := Classify(chat.ToolCall{ID: "c", Name: tc.name, Arguments: json.RawMessage(tc.args)})
		if u.Kind != tc.kind {
			t.Errorf("%s: kind %v, want %v", tc.name, u.Kind, tc.kind)
		}
		if tc.read != "" && (len(u.Reads) != 1 || u.Reads[0] != tc.read) {
			t.Errorf("%s: reads %q, want %q", tc.name, u.Reads, tc.read)
		}
		if tc.write != "" && (len(u.Writes) != 1 || u.Writes[0].Path != tc.write) {
			t.Errorf("%s: writes %+v, want %q", tc.name, u.Writes, tc.write)
		}
		if tc.cmd != "" && u.Command != tc.cmd {
			t.Errorf("%s: command %q, want %q", tc.name, u.Command, tc.cmd)
		}
	}
}
