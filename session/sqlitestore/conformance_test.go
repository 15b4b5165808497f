package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/sessiontest"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

func TestConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return open(t, sqlitestore.Options{Path: filepath.Join(t.TempDir(), "sessions.db")})
	})
}
