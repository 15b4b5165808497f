package providertest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/providertest"
)

// A fake Anthropic server whose window is full on the second request: the
// adapter reports ErrContextOverflow with the provider's numbers.
func Example() {
	overflow := providertest.WireAnthropic.Overflow(200000, 208310)
	s := providertest.NewAnthropic(providertest.Options{Script: func(r providertest.Request) providertest.Reply {
		if r.N == 2 {
			return providertest.Reply{Failure: &overflow}
		}
		return providertest.Reply{Text: "Hello."}
	}})
	defer s.Close()
	m, err := anthropic.New(anthropic.Options{APIKey: "test", BaseURL: s.BaseURL})
	if err != nil {
		panic(err)
	}
	req := provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Hi")}}
	r, err := m.Send(context.Background(), req)
	fmt.Println(r.Message.Text(), err)
	_, err = m.Send(context.Background(), req)
	var apiErr *provider.APIError
	if errors.Is(err, provider.ErrContextOverflow) && errors.As(err, &apiErr) {
		fmt.Println("overflow:", apiErr.PromptTokens, ">", apiErr.Limit)
	}
	fmt.Println(len(s.Requests()), "requests")
	// Output:
	// Hello. <nil>
	// overflow: 208310 > 200000
	// 2 requests
}

// ValidateOpenAI checks a body without a server.
func ExampleValidateOpenAI() {
	err := providertest.ValidateOpenAI([]byte(`{"model":"m","messages":[{"role":"user","content":"go"},{"role":"tool","tool_call_id":"call_1","content":"done"}]}`))
	fmt.Println(err)
	// Output:
	// providertest: openai: Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.
}
