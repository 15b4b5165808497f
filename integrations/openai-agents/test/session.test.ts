// End to end: a 20-turn conversation of the real SDK's run() with an
// AgentctxSession against a live `agentctx serve` ($AGENTCTX_URL,
// $AGENTCTX_TOKEN) and a scripted model speaking the OpenAI Chat
// Completions wire ($AGENTCTX_MODEL_URL, the base URL). The Go test
// TestIntegrations (internal/cli/integrations_test.go) starts both, names
// the session ($AGENTCTX_SESSION) and, afterwards, checks every request the
// model received (valid, within the budget) and the session in
// `agentctx sessions list` and `agentctx report`. Skipped when the
// variables are unset.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { AgentctxSession } from "../src/index.js";

const url = process.env.AGENTCTX_URL ?? "";
const modelURL = process.env.AGENTCTX_MODEL_URL ?? "";
const sessionId = process.env.AGENTCTX_SESSION ?? "";
const skip = url && modelURL && sessionId ? false : "AGENTCTX_URL, AGENTCTX_MODEL_URL or AGENTCTX_SESSION is not set";

const turns = 20;
const budget = 4000;
const instructions = "You are a terse assistant. Read the file you are asked about, then say what it holds.";

/** A source file of about 40 lines: ~500 tokens, so 20 turns are ~10,000. */
function source(path: string): string {
  return Array.from({ length: 40 }, (_, i) => `// ${path} line ${i + 1}: func step${i}() { return compute(${i}, "${path}") }\n`).join("");
}

test("20 turns of run() keep their history in agentctx within the budget", { skip }, async () => {
  setTracingDisabled(true);
  const readFile = tool({
    name: "read_file",
    description: "Read a file of the project.",
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => source(path),
  });
  const session = new AgentctxSession({
    url,
    token: process.env.AGENTCTX_TOKEN,
    sessionId,
    model: "gpt-4o",
    budget,
    instructions,
    tools: [{ name: "read_file", description: "Read a file of the project.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }],
  });
  const client = new OpenAI({ baseURL: modelURL, apiKey: "sk-test", maxRetries: 0 });
  const agent = new Agent({ name: "reader", instructions, tools: [readFile], model: new OpenAIChatCompletionsModel(client, "gpt-4o") });

  const windows: number[] = [];
  for (let i = 1; i <= turns; i++) {
    const stream = i % 5 === 0; // every fifth turn streams
    const input = `Turn ${i}: what is in file${i}.go?`;
    let output: unknown;
    if (stream) {
      const result = await run(agent, input, { session, stream: true });
      await result.completed;
      output = result.finalOutput;
    } else {
      output = (await run(agent, input, { session })).finalOutput;
    }
    assert.equal(output, `file${i}.go holds 40 lines.`);
    const w = session.lastRequest!;
    windows.push(w.tokens);
    assert.equal(w.budget, budget);
    assert.ok(w.tokens <= w.budget, `turn ${i}: the window is ${w.tokens} tokens, over ${w.budget}`);
  }

  // The history is in agentctx: the window (compacted: it would be
  // ~10,000 tokens whole) ends with the last answer, and the first turn's
  // output has left it.
  const items = await session.getItems();
  assert.ok(session.lastRequest!.tokens <= budget);
  const last = items[items.length - 1];
  assert.deepEqual(last, { role: "assistant", status: "completed", content: [{ type: "output_text", text: `file${turns}.go holds 40 lines.` }] });
  assert.ok(!JSON.stringify(items).includes("file1.go line 1:"), "the first output is still in the window");
  assert.equal(session.carried, 0);
  // A cut or compacted output comes back whole from the service.
  const rec = await session.client.api.GET("/v1/sessions/{id}/outputs/{call_id}", { params: { path: { id: sessionId, call_id: `call_${turns}` } } });
  assert.ok(rec.data?.content.endsWith(source(`file${turns}.go`)), JSON.stringify(rec.data ?? rec.error));

  const s = await session.client.api.GET("/v1/sessions/{id}", { params: { path: { id: sessionId } } });
  assert.ok((s.data?.compactions ?? 0) > 0, JSON.stringify(s.data));
  assert.equal(s.data?.metadata?.integration, "openai-agents");

  // popItem takes the last item off the window.
  const popped = await session.popItem();
  assert.deepEqual(popped, last);
  const after = await session.getItems();
  assert.equal(after.length, items.length - 1);
  assert.ok(!JSON.stringify(after).includes(`file${turns}.go holds`));
  await session.addItems([popped!]);
  assert.deepEqual((await session.getItems(1))[0], last);
  console.log(`# windows ${JSON.stringify(windows)}`);
});
