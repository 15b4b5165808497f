package cli

import (
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/providers"
)

// newModel builds the model cfg selects.
func newModel(cfg provider.Config) (provider.Model, error) { return providers.New(cfg) }
