// The engine against a live `agentctx serve` ($AGENTCTX_URL,
// $AGENTCTX_TOKEN), called as OpenClaw calls it: commitTurn is idempotent
// by its key (also across processes, through the turn record), assemble
// imports a history begun under another engine and gives back what was
// carried as it was, compact runs the service's compaction, and afterTurn,
// ingest and ingestBatch (hosts without durable turns) add what is new,
// the session taking the first call's budget and model. The Go test
// TestIntegrationsOpenClaw starts the server. Skipped when AGENTCTX_URL is
// unset.
import { strict as assert } from "node:assert";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { AgentctxContextEngine, type AgentMessage } from "../src/index.js";

const url = process.env.AGENTCTX_URL ?? "";
const token = process.env.AGENTCTX_TOKEN;
const skip = url ? false : "AGENTCTX_URL is not set";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

function turn(i: number, output = `package p${i}\n`): AgentMessage[] {
  return [
    { role: "user", content: `Turn ${i}: read p${i}.go`, timestamp: 0 },
    { role: "assistant", content: [{ type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `p${i}.go` } }], api: "unknown", provider: "scripted", model: "gpt-4o", usage, stopReason: "toolUse", timestamp: 0 },
    { role: "toolResult", toolCallId: `call_${i}`, toolName: "read", content: [{ type: "text", text: output }], isError: false, timestamp: 0 },
    { role: "assistant", content: [{ type: "text", text: `p${i}.go is package p${i}.` }], api: "unknown", provider: "scripted", model: "gpt-4o", usage, stopReason: "stop", timestamp: 0 },
  ];
}

const run = { model: "gpt-4o", runtimeSettings: { model: { provider: "scripted", resolved: "gpt-4o" } } };

test("commitTurn adds a turn once per key, across processes too", { skip }, async () => {
  const state = await mkdtemp(join(tmpdir(), "agentctx-openclaw-turns-"));
  try {
    const sessionId = `commit-${process.pid}`;
    const engine = new AgentctxContextEngine({ url, token, budget: 8000, stateDir: state });
    assert.deepEqual(await engine.assemble({ sessionId, messages: [], ...run }), { messages: [], estimatedTokens: 0 });
    assert.deepEqual(await engine.commitTurn({ advancementKey: "t1", sessionId, messages: turn(1) }), { status: "committed" });
    assert.deepEqual(await engine.commitTurn({ advancementKey: "t1", sessionId, messages: turn(1) }), { status: "duplicate" });
    // Another process (a new engine on the same record) retries it.
    const again = new AgentctxContextEngine({ url, token, budget: 8000, stateDir: state });
    assert.deepEqual(await again.commitTurn({ advancementKey: "t1", sessionId, messages: turn(1) }), { status: "duplicate" });
    assert.deepEqual(await again.commitTurn({ advancementKey: "t2", sessionId, messages: turn(2) }), { status: "committed" });
    const got = await again.assemble({ sessionId, messages: [], ...run });
    assert.deepEqual(got.messages, [...turn(1), ...turn(2)]);
    assert.ok(got.estimatedTokens > 0);
  } finally {
    await rm(state, { recursive: true, force: true });
  }
});

test("assemble imports the history of a session new to agentctx, carried messages included", { skip }, async () => {
  const sessionId = `import-${process.pid}`;
  const engine = new AgentctxContextEngine({ url, token, budget: 8000 });
  const summary: AgentMessage = { role: "compactionSummary", summary: "Earlier: the user read p0.go.", tokensBefore: 9000, timestamp: 7 };
  const history = [summary, ...turn(1)];
  const got = await engine.assemble({ sessionId, messages: history, ...run });
  assert.deepEqual(got.messages, history);
  assert.equal(engine.carried, 1);
  // Once the service holds the session, OpenClaw's history is not added again.
  const next = await engine.assemble({ sessionId, messages: history, ...run });
  assert.deepEqual(next.messages, history);
});

test("over the budget the window is compacted; compact reports it", { skip }, async () => {
  const sessionId = `compact-${process.pid}`;
  const budget = 1500;
  const windows: number[] = [];
  const engine = new AgentctxContextEngine({ url, token, budget, onRequest: (r) => windows.push(r.tokens) });
  const big = (i: number) => Array.from({ length: 40 }, (_, k) => `// p${i}.go line ${k + 1}: func step${k}() { return compute(${k}) }\n`).join("");
  for (let i = 1; i <= 4; i++) {
    await engine.assemble({ sessionId, messages: [], ...run });
    await engine.commitTurn({ advancementKey: `k${i}`, sessionId, messages: turn(i, big(i)) });
  }
  const got = await engine.assemble({ sessionId, messages: [], ...run });
  assert.ok(got.estimatedTokens <= budget, `${got.estimatedTokens} tokens, over ${budget}`);
  assert.ok(windows.every((w) => w <= budget), JSON.stringify(windows));
  assert.ok(!JSON.stringify(got.messages).includes("p1.go line 40:"), "the first output is still whole in the window");
  assert.deepEqual(got.messages[got.messages.length - 1], turn(4)[3]);
  const res = await engine.compact({ sessionId, sessionKey: "k", force: true } as Parameters<typeof engine.compact>[0]);
  assert.equal(res.ok, true);
  assert.ok(res.result!.tokensAfter! <= budget, JSON.stringify(res));
});

test("without durable turns, afterTurn adds the run's new messages and ingest one more", { skip }, async () => {
  const sessionId = `after-${process.pid}`;
  const engine = new AgentctxContextEngine({ url, token });
  const first = turn(1);
  await engine.afterTurn({ sessionId, messages: first, prePromptMessageCount: 0, tokenBudget: 7000, runtimeSettings: run.runtimeSettings });
  const second = turn(2);
  // OpenClaw passes the whole transcript: only what follows the count is new.
  await engine.afterTurn({ sessionId, messages: [...first, ...second.slice(0, 2)], prePromptMessageCount: first.length });
  assert.deepEqual(await engine.ingest({ sessionId, message: second[2]! }), { ingested: true });
  assert.deepEqual(await engine.ingestBatch({ sessionId, messages: [second[3]!] }), { ingestedCount: 1 });
  const got = await engine.assemble({ sessionId, messages: [], ...run });
  assert.deepEqual(got.messages, [...first, ...second]);
  // The session was created with the budget and model of the first call.
  const inspect = await engine.client.api.GET("/v1/sessions/{id}/inspect", { params: { path: { id: engine.sessionFor(sessionId) } } });
  assert.equal(inspect.data?.budget, 7000, JSON.stringify(inspect.error));
  assert.equal(inspect.data?.model, "gpt-4o");
});
