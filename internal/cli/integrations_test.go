package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

// integrationBudget and integrationTurns are the acceptance figures of the
// agent SDK integrations: a 20-turn conversation at a 4,000-token budget.
const (
	integrationBudget = 4000
	integrationTurns  = 20
)

// turnPrompt reads "Turn N: what is in fileN.go?", the user message each
// integration's suite sends per turn.
var turnPrompt = regexp.MustCompile(`^Turn (\d+): what is in (file\d+\.go)\?$`)

// reminderBlock is a reminder the service adds to a user message.
var reminderBlock = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)

// readerScript is the scripted model of the integration suites, on the
// OpenAI Chat Completions wire: to a turn's prompt it answers with a
// read_file call for the file named, to that call's output with the text
// "fileN.go holds L lines.", past the reminders the service may append.
// A request that ends otherwise fails the test
// and gets a 400, so the suite fails too. providertest refuses a request
// that breaks the wire's ordering rules (a tool call not answered, a tool
// result without its call) before the script sees it.
func readerScript(t *testing.T) providertest.Script {
	return func(req providertest.Request) providertest.Reply {
		if len(req.Messages) == 0 {
			t.Errorf("request %d: no messages", req.N)
			return providertest.Reply{Failure: new(providertest.WireOpenAI.BadRequest("messages", "no messages"))}
		}
		// The window may hold the service's reminders (working memory):
		// <system-reminder> blocks in a user message, or one of its own.
		msgs := req.Messages
		prompt := func(m chat.Message) string { return strings.TrimSpace(reminderBlock.ReplaceAllString(m.Text(), "")) }
		for len(msgs) > 1 && msgs[len(msgs)-1].Role == chat.RoleUser && prompt(msgs[len(msgs)-1]) == "" {
			msgs = msgs[:len(msgs)-1]
		}
		last := msgs[len(msgs)-1]
		if last.Role == chat.RoleUser {
			if m := turnPrompt.FindStringSubmatch(prompt(last)); m != nil {
				args, _ := json.Marshal(map[string]string{"path": m[2]})
				return providertest.Reply{ToolCalls: []chat.ToolCall{{ID: "call_" + m[1], Name: "read_file", Arguments: args}}}
			}
		}
		if res, ok := last.ToolResult(); ok && res.ToolCallID != "" {
			first, _, _ := strings.Cut(strings.TrimPrefix(res.Content, "// "), " ")
			return providertest.Reply{Text: fmt.Sprintf("%s holds %d lines.", first, strings.Count(res.Content, "\n"))}
		}
		t.Errorf("request %d ends with neither a turn's prompt nor a tool result: %+v", req.N, last)
		return providertest.Reply{Failure: new(providertest.WireOpenAI.BadRequest("messages", "unexpected last message"))}
	}
}

// startServe runs `agentctx serve` on loopback with one bearer token and
// the store given until the test ends, and returns its URL and the token.
func startServe(t *testing.T, store string) (url, token string) {
	t.Helper()
	token = "clients-token-0123456789"
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte(token+" clients\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envTokensFile, tokens)
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--store", store}, strings.NewReader(""), &out, &errb)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("serve: exit %d: %s", code, errb.String())
		}
	})
	return waitListening(t, &out, &errb, regexp.MustCompile(`listening on (http://\S+) \(1 bearer tokens\)`)), token
}

// needNodeModules skips the test when dir has no node_modules/probe (and
// fails it under CI=true, where .ci/run runs npm ci there).
func needNodeModules(t *testing.T, dir, probe string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", probe)); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s has no node_modules: .ci/run runs npm ci there: %v", dir, err)
		}
		t.Skipf("%s has no node_modules (npm ci --ignore-scripts there): %v", dir, err)
	}
}

// npmTest runs `npm test` in dir with env and checks node --test's summary:
// no failure, skip or cancellation, at least one pass. It returns the output.
func npmTest(t *testing.T, dir string, env []string) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), npm, "test")
	cmd.Dir = dir
	cmd.Env = env
	var buf lockedBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	got := buf.String()
	if err != nil {
		t.Fatalf("npm test in %s: %v\n%s", dir, err, got)
	}
	for _, want := range []string{"# fail 0", "# skipped 0", "# cancelled 0"} {
		if !strings.Contains(string(got), want) {
			t.Fatalf("npm test in %s: no %q in:\n%s", dir, want, got)
		}
	}
	if m := regexp.MustCompile(`# pass (\d+)`).FindStringSubmatch(string(got)); m == nil || m[1] == "0" {
		t.Fatalf("npm test in %s passed no test:\n%s", dir, got)
	}
	return string(got)
}

// TestIntegrations runs the agent SDK integrations of integrations/ with
// the real npm packages (pinned in each package-lock.json) against a real
// agentctx serve and a scripted model on the OpenAI Chat Completions wire
// (providertest, which refuses a request that breaks the wire's ordering
// rules): each suite holds a 20-turn conversation at a 4,000-token budget.
// Then every request the model received is checked (the prompt, counted by
// the model server, within the budget; two requests per turn) and the
// session is found by `agentctx sessions list` and reported by
// `agentctx report`. A package without node_modules skips (fails under
// CI=true: .ci/run runs npm ci in each).
func TestIntegrations(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []struct{ name, probe string }{
		{"openai-agents", filepath.Join("@openai", "agents", "package.json")},
		{"langchain", filepath.Join("langchain", "package.json")},
	} {
		t.Run(pkg.name, func(t *testing.T) {
			dir := filepath.Join(root, "integrations", pkg.name)
			needNodeModules(t, dir, pkg.probe)
			needNodeModules(t, filepath.Join(root, "clients", "typescript"), filepath.Join("openapi-fetch", "package.json"))
			storeDir := t.TempDir()
			store := "jsonl:" + storeDir
			url, token := startServe(t, store)
			model := providertest.NewOpenAI(providertest.Options{Script: readerScript(t)})
			defer model.Close()
			id := "integ-" + pkg.name
			out := npmTest(t, dir, append(os.Environ(), "AGENTCTX_URL="+url, "AGENTCTX_TOKEN="+token,
				"AGENTCTX_MODEL_URL="+model.BaseURL, "AGENTCTX_SESSION="+id))
			if m := regexp.MustCompile(`# windows (\[.*\])`).FindStringSubmatch(out); m != nil {
				t.Logf("the windows the service gave, in tokens: %s", m[1])
			}

			reqs := model.Requests()
			if len(reqs) != 2*integrationTurns {
				t.Errorf("the model received %d requests, want %d (a call and an answer per turn)", len(reqs), 2*integrationTurns)
			}
			largest, streamed := 0, 0
			for _, r := range reqs {
				if r.Stream {
					streamed++
				}
				largest = max(largest, r.PromptTokens)
				if r.PromptTokens > integrationBudget {
					t.Errorf("request %d: %d prompt tokens, over the budget %d", r.N, r.PromptTokens, integrationBudget)
				}
			}
			// Every fifth turn streams: its two requests.
			if want := 2 * integrationTurns / 5; streamed != want {
				t.Errorf("%d streamed requests, want %d", streamed, want)
			}
			t.Logf("%d requests (%d streamed), the largest prompt %d tokens (budget %d)", len(reqs), streamed, largest, integrationBudget)

			// The session is in the store: sessions list and report find it.
			list := mustRun(t, ExitOK, "sessions", "list", "--all", "--json", "--store", store)
			var found map[string]any
			for sc := bufio.NewScanner(strings.NewReader(list)); sc.Scan(); {
				var s map[string]any
				if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
					t.Fatalf("sessions list --json: %v: %s", err, sc.Text())
				}
				if sid, _ := s["id"].(string); strings.HasSuffix(sid, id) {
					found = s
				}
			}
			if found == nil {
				t.Fatalf("sessions list has no %s:\n%s", id, list)
			}
			t.Logf("sessions list: %v", found)
			html := filepath.Join(t.TempDir(), "report.html")
			mustRun(t, ExitOK, "report", found["id"].(string), "-o", html, "--store", store)
			page, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(page), "uPlot") || !strings.Contains(string(page), "file20.go") {
				t.Fatalf("report of %s: %d bytes, without the chart or the last turn", id, len(page))
			}
		})
	}
}
