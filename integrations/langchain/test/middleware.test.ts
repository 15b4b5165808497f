// End to end: a 20-turn conversation of the real createAgent with
// agentctxMiddleware against a live `agentctx serve` ($AGENTCTX_URL,
// $AGENTCTX_TOKEN) and a scripted model speaking the OpenAI Chat
// Completions wire ($AGENTCTX_MODEL_URL, the base URL) through
// @langchain/openai's ChatOpenAI. The Go test TestIntegrations
// (internal/cli/integrations_test.go) starts both, names the session
// ($AGENTCTX_SESSION) and, afterwards, checks every request the model
// received (valid, within the budget) and the session in
// `agentctx sessions list` and `agentctx report`. Skipped when the
// variables are unset.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { ChatOpenAI } from "@langchain/openai";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, tool } from "langchain";
import { z } from "zod";
import { agentctxMiddleware } from "../src/index.js";

const url = process.env.AGENTCTX_URL ?? "";
const modelURL = process.env.AGENTCTX_MODEL_URL ?? "";
const sessionId = process.env.AGENTCTX_SESSION ?? "";
const skip = url && modelURL && sessionId ? false : "AGENTCTX_URL, AGENTCTX_MODEL_URL or AGENTCTX_SESSION is not set";

const turns = 20;
const budget = 4000;
const systemPrompt = "You are a terse assistant. Read the file you are asked about, then say what it holds.";

/** A source file of about 40 lines: ~500 tokens, so 20 turns are ~10,000. */
function source(path: string): string {
  return Array.from({ length: 40 }, (_, i) => `// ${path} line ${i + 1}: func step${i}() { return compute(${i}, "${path}") }\n`).join("");
}

test("20 turns of createAgent send the model the managed window within the budget", { skip }, async () => {
  const readFile = tool(async ({ path }) => source(path), {
    name: "read_file",
    description: "Read a file of the project.",
    schema: z.object({ path: z.string() }),
  });
  const windows: number[] = [];
  const ctx = agentctxMiddleware({
    url,
    token: process.env.AGENTCTX_TOKEN,
    sessionId,
    model: "gpt-4o",
    budget,
    onRequest: (req) => {
      assert.equal(req.budget, budget);
      assert.ok(req.tokens <= req.budget, `a window of ${req.tokens} tokens, over ${req.budget}`);
      windows.push(req.tokens);
    },
  });
  const agent = createAgent({
    model: new ChatOpenAI({ model: "gpt-4o", apiKey: "sk-test", maxRetries: 0, configuration: { baseURL: modelURL } }),
    tools: [readFile],
    systemPrompt,
    middleware: [ctx],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "t1" } };
  for (let i = 1; i <= turns; i++) {
    const input = { messages: [{ role: "user", content: `Turn ${i}: what is in file${i}.go?` }] };
    let result;
    if (i % 5 === 0) {
      // Every fifth turn streams (the model's tokens as they come: a
      // streamed request). ChatOpenAI({ streaming: true }) is not used: it
      // estimates usage with a tokenizer it downloads.
      let chunks = 0;
      for await (const _ of await agent.stream(input, { ...config, streamMode: "messages" })) chunks++;
      assert.ok(chunks > 2, `${chunks} streamed chunks`);
      result = (await agent.graph.getState(config)).values as Awaited<ReturnType<typeof agent.invoke>>;
    } else {
      result = await agent.invoke(input, config);
    }
    const last = result.messages[result.messages.length - 1]!;
    // The model may see a long output cut by the service (its first lines and a note), so fewer lines.
    assert.match(String(last.content), new RegExp(`^file${i}\\.go holds \\d+ lines\\.$`));
    // LangChain's state keeps the whole conversation; agentctx only changed what the model was sent.
    assert.equal(result.messages.length, 4 * i);
    assert.equal(result.agentctxSynced, 4 * i);
  }
  assert.equal(windows.length, 2 * turns);
  assert.equal(ctx.carried(), 0);

  // The service holds the whole conversation, the last answer included.
  const path = { params: { path: { id: sessionId } } };
  const s = await ctx.client.api.GET("/v1/sessions/{id}", path);
  assert.ok((s.data?.compactions ?? 0) > 0, JSON.stringify(s.data));
  assert.equal(s.data?.metadata?.integration, "langchain");
  const exp = await ctx.client.api.GET("/v1/sessions/{id}/export", { ...path, parseAs: "text" });
  assert.ok(exp.data?.includes(`file${turns}.go holds `));
  const rec = await ctx.client.api.GET("/v1/sessions/{id}/outputs/{call_id}", { params: { path: { id: sessionId, call_id: `call_${turns}` } } });
  assert.ok(rec.data?.content.endsWith(source(`file${turns}.go`)), JSON.stringify(rec.data ?? rec.error));
  console.log(`# windows ${JSON.stringify(windows)}`);
});
