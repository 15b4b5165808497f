// toChat and fromChat without a server: the items the SDK stores come back
// as they went in, and an item the Chat Completions shape cannot hold is
// carried whole.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import type { AgentInputItem } from "@openai/agents";
import { carriedPart, fromChat, toChat } from "../src/index.js";

const items = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Read a.go" },
  { role: "assistant", status: "completed", content: [{ type: "output_text", text: "Reading." }] },
  { type: "function_call", callId: "call_1", name: "read_file", arguments: '{"path":"a.go"}', status: "completed" },
  { type: "function_call", callId: "call_2", name: "read_file", arguments: '{"path":"b.go"}', status: "completed" },
  { type: "function_call_result", callId: "call_1", name: "read_file", status: "completed", output: { type: "text", text: "package a\n" } },
  { type: "function_call_result", callId: "call_2", name: "read_file", status: "completed", output: { type: "text", text: "package b\n" } },
  { role: "assistant", status: "completed", content: [{ type: "output_text", text: "Two packages." }] },
] as AgentInputItem[];

test("items round-trip through Chat Completions messages", () => {
  const { messages, carried } = toChat(items);
  assert.equal(carried, 0);
  assert.deepEqual(messages, [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Read a.go" },
    {
      role: "assistant", content: "Reading.", tool_calls: [
        { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.go"}' } },
        { id: "call_2", type: "function", function: { name: "read_file", arguments: '{"path":"b.go"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "package a\n" },
    { role: "tool", tool_call_id: "call_2", content: "package b\n" },
    { role: "assistant", content: "Two packages." },
  ]);
  assert.deepEqual(fromChat(messages), items);
});

test("user text parts are joined; a string output reads back as a text output", () => {
  const { messages } = toChat([
    { role: "user", content: [{ type: "input_text", text: "a" }, { type: "input_text", text: "b" }] },
    { type: "function_call", callId: "c", name: "f", arguments: "{}" },
    { type: "function_call_result", callId: "c", name: "f", status: "completed", output: "done" },
  ] as AgentInputItem[]);
  assert.deepEqual(messages[0], { role: "user", content: "ab" });
  assert.deepEqual(fromChat(messages)[2], { type: "function_call_result", callId: "c", name: "f", status: "completed", output: { type: "text", text: "done" } });
});

test("items the shape cannot hold are carried whole and counted", () => {
  const reasoning = { type: "reasoning", id: "rs_1", content: [], providerData: { encrypted_content: "gAAA" } };
  const image = { role: "user", content: [{ type: "input_text", text: "see" }, { type: "input_image", image: "data:image/png;base64,iVBOR" }] };
  const hosted = { type: "hosted_tool_call", name: "web_search_call", status: "completed", providerData: { action: { query: "x" } } };
  const { messages, carried } = toChat([reasoning, image, hosted] as AgentInputItem[]);
  assert.equal(carried, 3);
  assert.deepEqual(messages.map((m) => [m.role, (m.content as Array<{ type: string }>)[0]!.type]), [["assistant", carriedPart], ["user", carriedPart], ["assistant", carriedPart]]);
  assert.deepEqual(fromChat(JSON.parse(JSON.stringify(messages)) as unknown[]), [reasoning, image, hosted]);
});

test("a message fromChat cannot read is an unknown item holding it", () => {
  const odd = { role: "function", name: "f", content: "x" };
  assert.deepEqual(fromChat([odd, 7]), [{ type: "unknown", providerData: { message: odd } }, { type: "unknown", providerData: { message: 7 } }]);
});

test("replay metadata of messages and calls is not kept", () => {
  const { messages, carried } = toChat([
    { id: "chatcmpl-1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Hi.", providerData: { annotations: [] } }] },
    { id: "fc_1", type: "function_call", callId: "c", name: "f", arguments: "{}", status: "completed", providerData: { x: 1 } },
  ] as AgentInputItem[]);
  assert.equal(carried, 0);
  assert.deepEqual(messages, [{ role: "assistant", content: "Hi.", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }]);
});
