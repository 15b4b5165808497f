// toChat and fromChat without a server: messages come back as they went
// in, and a message the Chat Completions shape cannot hold is carried whole.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { carriedPart, fromChat, toChat } from "../src/index.js";

function plain(ms: BaseMessage[]) {
  return ms.map((m) => ({
    type: m.getType(),
    content: m.content,
    tool_calls: (m as AIMessage).tool_calls?.map((c) => ({ id: c.id, name: c.name, args: c.args })),
    tool_call_id: (m as ToolMessage).tool_call_id,
  }));
}

test("messages round-trip through Chat Completions messages", () => {
  const ms = [
    new SystemMessage("Be brief."),
    new HumanMessage("Read a.go"),
    new AIMessage({ content: "Reading.", tool_calls: [{ id: "call_1", name: "read_file", args: { path: "a.go" }, type: "tool_call" }] }),
    new ToolMessage({ content: "package a\n", tool_call_id: "call_1", name: "read_file" }),
    new AIMessage("One package."),
  ];
  const { messages, carried } = toChat(ms);
  assert.equal(carried, 0);
  assert.deepEqual(messages, [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Read a.go" },
    { role: "assistant", content: "Reading.", tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.go"}' } }] },
    { role: "tool", tool_call_id: "call_1", content: "package a\n" },
    { role: "assistant", content: "One package." },
  ]);
  const back = fromChat(messages);
  assert.deepEqual(plain(back), plain(ms));
  assert.equal((back[3] as ToolMessage).name, "read_file");
});

test("a message with an image is carried whole and comes back", () => {
  const img = new HumanMessage({ content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBOR" } }] });
  const { messages, carried } = toChat([img]);
  assert.equal(carried, 1);
  assert.equal((messages[0]!.content as Array<{ type: string }>)[0]!.type, carriedPart);
  const back = fromChat(JSON.parse(JSON.stringify(messages)) as unknown[]);
  assert.deepEqual(plain(back), plain([img]));
});

test("a message fromChat cannot read is kept as a human message holding its JSON", () => {
  const back = fromChat([{ role: "function", name: "f", content: "x" }]);
  assert.equal(back[0]!.getType(), "human");
  assert.equal(back[0]!.content, '{"role":"function","name":"f","content":"x"}');
});
