package jsonlstore_test

import (
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/sessiontest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, policy := range []jsonlstore.SyncPolicy{jsonlstore.SyncTurn, jsonlstore.SyncNever} {
		t.Run(policy.String(), func(t *testing.T) {
			t.Parallel()
			sessiontest.Run(t, func(t *testing.T) session.Store {
				s, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: policy})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				return s
			})
		})
	}
}
