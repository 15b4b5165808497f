// End to end against a live `agentctx serve` at $AGENTCTX_URL (bearer
// token $AGENTCTX_TOKEN if the server has tokens); skipped when unset. The
// Go test TestClients (internal/cli/clients_test.go) starts a server and
// runs `npm test` with it.
import { strict as assert } from "node:assert";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { AgentctxError, createAgentctxClient, ok, type Event, type Schemas } from "../src/index.js";

const url = process.env.AGENTCTX_URL ?? "";
const skip = url ? false : "AGENTCTX_URL is not set";

const readFile: Schemas["ToolDef"] = {
  name: "read_file",
  description: "Read a file.",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const output = Array.from({ length: 40 }, (_, i) => `line ${i + 1}: package main\n`).join("");

function completion(n: number, message: Record<string, unknown>, promptTokens: number) {
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    model: "gpt-4o",
    choices: [{ index: 0, message, finish_reason: "tool_calls" in message ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 },
  };
}

describe("agentctx client", { skip }, () => {
  const c = createAgentctxClient(url, { token: process.env.AGENTCTX_TOKEN });
  const { api } = c;

  async function newSession(body: Schemas["CreateSession"]) {
    return ok(api.POST("/v1/sessions", { body: { id: `ts-${randomUUID().slice(0, 12)}`, tools: [readFile], ...body } }));
  }

  test("health", async () => {
    assert.equal((await ok(api.GET("/healthz"))).status, "ok");
  });

  test("an OpenAI turn: request, reply, events, recall, export", async () => {
    const s = await newSession({ model: "gpt-4o", system_prompt: "You are terse.", metadata: { client: "typescript" } });
    const path = { params: { path: { id: s.id } } };
    try {
      assert.equal(s.model, "gpt-4o");
      assert.ok((s.budget ?? 0) > 0);
      const stream = await c.events(s.id);
      try {
        const added = await ok(api.POST("/v1/sessions/{id}/messages", { ...path, body: { messages: [{ role: "user", content: "What is in main.go?" }] } }));
        assert.deepEqual([added.added, added.format], [1, "openai"]);

        const req = await ok(api.POST("/v1/sessions/{id}/request", { ...path, body: { format: "openai" } }));
        assert.equal(req.format, "openai");
        assert.ok(req.tokens <= req.budget);
        assert.equal(req.rows.reduce((n, r) => n + r.tokens, 0), req.tokens);
        const body = JSON.stringify(req.body);
        assert.ok(body.includes("What is in main.go?") && body.includes("You are terse."), body);

        const call = { id: "call_1", type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: "main.go" }) } };
        const turn = await ok(api.POST("/v1/sessions/{id}/reply", { ...path, body: completion(1, { role: "assistant", content: null, tool_calls: [call] }, 120) }));
        assert.deepEqual(turn.tool_calls, [{ id: "call_1", name: "read_file", arguments: { path: "main.go" } }]);
        assert.equal(turn.usage?.input_tokens, 120);

        // The reply's usage arrives as a Server-Sent Event.
        let usage: Event | undefined;
        for await (const ev of stream) {
          assert.equal(ev.session, s.id);
          assert.ok(ev.seq >= 1);
          if (ev.kind === "usage") {
            usage = ev;
            break;
          }
        }
        assert.equal(usage?.usage?.prompt_tokens, 120);
        assert.equal(usage?.usage?.output_tokens, 20);
      } finally {
        stream.close();
      }

      await ok(api.POST("/v1/sessions/{id}/messages", { ...path, body: { messages: [{ role: "tool", tool_call_id: "call_1", content: output }] } }));
      const req = await ok(api.POST("/v1/sessions/{id}/request", path));
      assert.ok(JSON.stringify(req.body).includes('"tool_call_id":"call_1"'));
      const turn = await ok(api.POST("/v1/sessions/{id}/reply", { ...path, body: completion(2, { role: "assistant", content: "main.go is 40 lines." }, 400) }));
      assert.equal(turn.text, "main.go is 40 lines.");
      assert.equal(turn.tool_calls, undefined);

      // Recall: the whole output (headed by the lines it holds), and one line.
      const out = { params: { path: { id: s.id, call_id: "call_1" } } };
      const rec = await ok(api.GET("/v1/sessions/{id}/outputs/{call_id}", out));
      assert.equal(rec.call_id, "call_1");
      assert.ok(rec.content.endsWith(output), rec.content);
      const one = await ok(api.GET("/v1/sessions/{id}/outputs/{call_id}", { params: { ...out.params, query: { start_line: 2, end_line: 2 } } }));
      assert.ok(one.content.includes("line 2: package main") && !one.content.includes("line 3:"), one.content);

      // Export: JSON Lines, every entry of this session.
      const text = await ok(api.GET("/v1/sessions/{id}/export", { ...path, parseAs: "text" }));
      const entries = text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as { sessionId: string });
      assert.deepEqual([...new Set(entries.map((e) => e.sessionId))], [s.id]);
      assert.ok(text.includes("main.go is 40 lines."));
      const got = await ok(api.GET("/v1/sessions/{id}", path));
      assert.equal(got.messages, 4);
      assert.equal(got.metadata?.client, "typescript");
      const list = await ok(api.GET("/v1/sessions", { params: { query: { limit: 100 } } }));
      assert.ok(list.sessions.some((x) => x.id === s.id));
    } finally {
      await api.DELETE("/v1/sessions/{id}", path);
    }
  });

  test("an Anthropic turn, then a chat-shaped reply", async () => {
    const s = await newSession({ model: "claude-sonnet-4-5" });
    const path = { params: { path: { id: s.id } } };
    try {
      await ok(api.POST("/v1/sessions/{id}/messages", { ...path, body: { format: "anthropic", system: "Be brief.", messages: [{ role: "user", content: [{ type: "text", text: "Read a.go" }] }] } }));
      const req = await ok(api.POST("/v1/sessions/{id}/request", { ...path, body: { format: "anthropic" } }));
      assert.equal(req.format, "anthropic");
      assert.ok(JSON.stringify(req.body).includes("Read a.go"));
      const turn = await ok(api.POST("/v1/sessions/{id}/reply", {
        ...path,
        body: {
          id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
          content: [{ type: "text", text: "reading" }, { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.go" } }],
          stop_reason: "tool_use", usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 7 },
        },
      }));
      assert.deepEqual([turn.format, turn.text, turn.tool_calls?.[0]?.id], ["anthropic", "reading", "toolu_1"]);
      await ok(api.POST("/v1/sessions/{id}/messages", { ...path, body: { format: "anthropic", messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "package a\n" }] }] } }));
      const rec = await ok(api.GET("/v1/sessions/{id}/outputs/{call_id}", { params: { path: { id: s.id, call_id: "toolu_1" } } }));
      assert.ok(rec.content.endsWith("package a\n"));
      const chat = await ok(api.POST("/v1/sessions/{id}/reply", { ...path, params: { ...path.params, query: { format: "chat" } }, body: { role: "assistant", parts: [{ type: "text", text: "done" }] } }));
      assert.deepEqual([chat.format, chat.text], ["chat", "done"]);
    } finally {
      await api.DELETE("/v1/sessions/{id}", path);
    }
  });

  test("problems are AgentctxError with status and code", async () => {
    await assert.rejects(ok(api.GET("/v1/sessions/{id}", { params: { path: { id: `no-such-${randomUUID()}` } } })), (err: unknown) => {
      assert.ok(err instanceof AgentctxError);
      assert.deepEqual([err.status, err.code], [404, "not-found"]);
      return true;
    });
    const s = await newSession({});
    try {
      await assert.rejects(ok(api.POST("/v1/sessions", { body: { id: s.id } })), { status: 409, code: "session-exists" });
      await assert.rejects(ok(api.POST("/v1/sessions/{id}/messages", { params: { path: { id: s.id } }, body: { messages: [] } })), { status: 400, code: "bad-request" });
      await assert.rejects(c.events(`no-such-${randomUUID()}`), { status: 404, code: "not-found" });
    } finally {
      await api.DELETE("/v1/sessions/{id}", { params: { path: { id: s.id } } });
    }
  });
});
