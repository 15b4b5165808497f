package cli

import (
	"encoding/json"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestHasConfig: hasConfig finds a state entry that records the engine's
// configuration, streaming a jsonlstore session's file (show and compact
// no longer load every entry of a long session to learn it).
func TestHasConfig(t *testing.T) {
	t.Parallel()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msg, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, `a "agentctx_state" lookalike`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id    string
		state string // "" for no state entry
		want  bool
	}{
		{"none", "", false},
		{"no-config", `{"config":null}`, false},
		{"config", `{"config":{"budget":8000}}`, true},
	} {
		if _, err := st.Create(t.Context(), session.Session{ID: tc.id, Project: "/p"}); err != nil {
			t.Fatal(err)
		}
		es := []session.Entry{msg}
		if tc.state != "" {
			es = append(es, session.Entry{Type: session.TypeState, State: json.RawMessage(tc.state)})
		}
		es = append(es, msg)
		if _, err := st.Append(t.Context(), tc.id, es...); err != nil {
			t.Fatal(err)
		}
		got, err := hasConfig(t.Context(), st, tc.id)
		if err != nil || got != tc.want {
			t.Errorf("%s: hasConfig = %v, %v; want %v", tc.id, got, err, tc.want)
		}
	}
}
