package agent_test

import (
	"context"
	"fmt"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/provider/providertest"
)

// Example runs one turn of the agent against a fake OpenAI server that
// answers "ok", printing the events' kinds as they come.
func Example() {
	srv := providertest.NewOpenAI(providertest.Options{})
	defer srv.Close()
	model, err := openai.New(openai.Options{APIKey: "k", BaseURL: srv.BaseURL, Model: "gpt-4o"})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	e, err := agentctx.Open(ctx, agentctx.Options{Model: "gpt-4o", NoWorkspace: true})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	a, err := agent.New(agent.Options{
		Engine:     e,
		Model:      model,
		Permission: &agent.Guard{Yes: true},
		Events:     func(ev agent.Event) { fmt.Println(ev.Kind) },
	})
	if err != nil {
		panic(err)
	}
	res, err := a.Run(ctx, "Say ok.")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q after %d model call(s): %s\n", res.Text, res.ModelCalls, res.StopReason)
	// Output:
	// text_delta
	// usage
	// turn_end
	// "ok" after 1 model call(s): done
}
