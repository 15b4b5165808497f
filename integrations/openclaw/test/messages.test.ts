// toAnthropic and fromAnthropic without a server: OpenClaw's messages come
// back as they went in (less the replay metadata the file's comment lists),
// and what the mapping cannot hold is carried whole.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { carriedBlock, fieldsBlock, fromAnthropic, toAnthropic, type AgentMessage } from "../src/index.js";

const usage = { input: 120, output: 8, cacheRead: 0, cacheWrite: 0, totalTokens: 128, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const run = { provider: "scripted", model: "gpt-4o" };

const turn: AgentMessage[] = [
  { role: "user", content: "Read a.go", timestamp: 1 },
  {
    role: "assistant", content: [{ type: "text", text: "Reading." }, { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.go" } }],
    api: "openai-completions", provider: "scripted", model: "gpt-4o", responseId: "chatcmpl-1", usage, stopReason: "toolUse", timestamp: 2,
  },
  { role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: "package a\n" }], isError: false, timestamp: 3 },
  { role: "assistant", content: [{ type: "text", text: "One package." }], api: "openai-completions", provider: "scripted", model: "gpt-4o", usage, stopReason: "stop", timestamp: 4 },
];

test("a turn maps to Anthropic messages and back", () => {
  const { messages, carried } = toAnthropic(turn);
  assert.equal(carried, 0);
  assert.deepEqual(messages, [
    { role: "user", content: [{ type: "text", text: "Read a.go" }] },
    {
      role: "assistant", id: "chatcmpl-1", model: "gpt-4o",
      usage: { input_tokens: 120, output_tokens: 8, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      content: [{ type: "text", text: "Reading." }, { type: "tool_use", id: "call_1", name: "read", input: { path: "a.go" } }],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", tool_name: "read", content: [{ type: "text", text: "package a\n" }] }] },
    {
      role: "assistant", model: "gpt-4o",
      usage: { input_tokens: 120, output_tokens: 8, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      content: [{ type: "text", text: "One package." }],
    },
  ]);
  // What comes back lacks the timestamps and the api (replay metadata):
  // the rest is as it went in.
  const back = fromAnthropic(messages, run);
  assert.deepEqual(back, turn.map((m) => ({ ...m, timestamp: 0, ...(m.role === "assistant" ? { api: "unknown" } : {}) })));
});

test("the service's merged user message splits into tool results and the user's text", () => {
  // As the service answers: the result and the next prompt in one message.
  const back = fromAnthropic([
    { role: "assistant", content: [{ type: "tool_use", id: "c", name: "exec", input: { command: "ls" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "c", content: "a.go\nb.go", is_error: true }, { type: "text", text: "And now?" }] },
  ], run);
  assert.deepEqual(back.slice(1), [
    { role: "toolResult", toolCallId: "c", toolName: "exec", content: [{ type: "text", text: "a.go\nb.go" }], isError: true, timestamp: 0 },
    { role: "user", content: "And now?", timestamp: 0 },
  ]);
  assert.equal(back[0]!.stopReason, "toolUse");
});

test("thinking keeps its signature, and its message its api and provider", () => {
  const m: AgentMessage = {
    role: "assistant", api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-6", usage, stopReason: "stop", timestamp: 5,
    content: [{ type: "thinking", thinking: "Plan.", thinkingSignature: "sig" }, { type: "thinking", thinking: "", thinkingSignature: "enc", redacted: true }, { type: "text", text: "Done." }],
  };
  const { messages, carried } = toAnthropic([m]);
  assert.equal(carried, 0);
  assert.deepEqual(messages[0]!.content, [
    { type: "thinking", thinking: "Plan.", signature: "sig" },
    { type: "redacted_thinking", data: "enc" },
    { type: "text", text: "Done." },
    { type: fieldsBlock, fields: { api: "anthropic-messages", provider: "anthropic" } },
  ]);
  assert.deepEqual(fromAnthropic(JSON.parse(JSON.stringify(messages)) as unknown[], run), [{ ...m, timestamp: 0 }]);
});

test("fields the mapping does not know are carried beside the content", () => {
  const user: AgentMessage = { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1, idempotencyKey: "k:user", __openclaw: { senderIsOwner: true } };
  const { messages, carried } = toAnthropic([user]);
  assert.equal(carried, 0);
  assert.deepEqual(messages[0]!.content, [{ type: "text", text: "hi" }, { type: fieldsBlock, fields: { idempotencyKey: "k:user", __openclaw: { senderIsOwner: true } } }]);
  assert.deepEqual(fromAnthropic(messages, run), [{ role: "user", content: "hi", timestamp: 0, idempotencyKey: "k:user", __openclaw: { senderIsOwner: true } }]);
});

test("messages the shape cannot hold are carried whole and counted", () => {
  const odd: unknown[] = [
    { role: "compactionSummary", summary: "Earlier: read a.go.", tokensBefore: 9000, timestamp: 1 },
    { role: "custom", customType: "note", content: "x", display: true, timestamp: 2 },
    { role: "user", content: [{ type: "text", text: "see" }, { type: "image", data: "iVBOR", mimeType: "image/png" }], timestamp: 3 },
    { role: "assistant", content: [{ type: "text", text: "partial" }], stopReason: "error", errorMessage: "boom", timestamp: 4 },
    { role: "user", content: 7 },
    "not a message",
  ];
  const { messages, carried } = toAnthropic(odd);
  assert.equal(carried, odd.length);
  for (const [i, m] of messages.entries()) assert.deepEqual(m.content, [{ type: carriedBlock, message: odd[i] }]);
  assert.deepEqual(messages.map((m) => m.role), ["user", "user", "user", "assistant", "user", "user"]);
  // Back whole, except the one that was no object: it cannot be a message.
  const back = fromAnthropic(JSON.parse(JSON.stringify(messages)) as unknown[], run);
  assert.deepEqual(back.slice(0, 5), odd.slice(0, 5));
});

test("a tool result's unknown fields ride inside its tool_result", () => {
  const m: AgentMessage = { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "x" }], isError: false, timestamp: 0, __openclaw: { runId: "r" } };
  const { messages, carried } = toAnthropic([m]);
  assert.equal(carried, 0);
  assert.deepEqual(messages[0]!.content, [{ type: "tool_result", tool_use_id: "c", tool_name: "read", content: [{ type: "text", text: "x" }, { type: fieldsBlock, fields: { __openclaw: { runId: "r" } } }] }]);
  assert.deepEqual(fromAnthropic(messages, run), [m]);
});

test("a tool result's images go as Anthropic image blocks and come back", () => {
  const m: AgentMessage = { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "a picture" }, { type: "image", data: "iVBOR", mimeType: "image/png" }], isError: false, timestamp: 0 };
  const { messages } = toAnthropic([{ role: "assistant", content: [{ type: "toolCall", id: "c", name: "read", arguments: { path: "a.png" } }], stopReason: "toolUse" }, m]);
  assert.deepEqual(messages[1]!.content, [{ type: "tool_result", tool_use_id: "c", tool_name: "read", content: [{ type: "text", text: "a picture" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" } }] }]);
  assert.deepEqual(fromAnthropic(messages, run)[1], m);
});

test("what fromAnthropic cannot read is kept, never dropped", () => {
  const back = fromAnthropic([7, { role: "function", content: "x" }, { role: "assistant", content: [{ type: "server_tool_use", id: "s", name: "web_search", input: {} }] }], run);
  assert.deepEqual(back.map((m) => m.role), ["custom", "custom", "assistant"]);
  assert.equal(back[0]!.content, "7");
  assert.deepEqual(back[2]!.content, [{ type: "server_tool_use", id: "s", name: "web_search", input: {} }]);
});
