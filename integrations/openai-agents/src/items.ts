// The OpenAI Agents SDK's history items (AgentInputItem, the Responses
// API's shapes) to and from the OpenAI Chat Completions messages the
// agentctx service stores and answers in (format "openai").
//
// What maps one to one: user and system messages with text, assistant
// messages with output_text, function calls (an assistant message's
// tool_calls; consecutive calls share one message) and their results (a
// "tool" message). Their replay metadata (the item's id, status, phase and
// providerData, a part's providerData: what the model's reply said of
// them, such as annotations) is not kept: the window comes back as plain
// items, as a Chat Completions model takes them. Any other item (reasoning, hosted tool calls, images,
// a kind to come) is carried whole: a message of one content part
// {"type": "agents_item", "item": …} that the service keeps byte for byte
// and fromChat gives back as the item it was.
import type { AgentInputItem } from "@openai/agents";

/** The content part type that carries an item the Chat Completions shape cannot hold. */
export const carriedPart = "agents_item";

/** An OpenAI Chat Completions message, as the service takes and gives them. */
export interface ChatMessage {
  role: string;
  content?: string | null | Array<Record<string, unknown>>;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** One tool call of an assistant message. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

type Item = Record<string, unknown>;

function isObject(v: unknown): v is Item {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The text of a user or system item when all its content is text, else undefined. */
function plainText(content: unknown, partType: string): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  let text = "";
  for (const p of content) {
    if (!isObject(p) || p.type !== partType || typeof p.text !== "string") return undefined;
    text += p.text;
  }
  return text;
}

/** The text of a function_call_result's output when it is text, else undefined. */
function outputText(output: unknown): string | undefined {
  if (typeof output === "string") return output;
  if (isObject(output) && output.type === "text" && typeof output.text === "string") return output.text;
  return undefined;
}

function carry(role: string, item: unknown): ChatMessage {
  return { role, content: [{ type: carriedPart, item }] };
}

/**
 * The Chat Completions messages of items, in order. Never throws: an item
 * it cannot map is carried (see the file's comment) and counted in
 * `carried`.
 */
export function toChat(items: readonly AgentInputItem[]): { messages: ChatMessage[]; carried: number } {
  const messages: ChatMessage[] = [];
  let carried = 0;
  // The assistant message that consecutive function calls join.
  let open: ChatMessage | undefined;
  for (const raw of items as readonly unknown[]) {
    const item = isObject(raw) ? raw : undefined;
    const type = item?.type ?? (item?.role !== undefined ? "message" : undefined);
    if (item !== undefined && type === "function_call" && typeof item.callId === "string" && typeof item.name === "string" &&
      typeof item.arguments === "string" && item.namespace === undefined) {
      const call: ChatToolCall = { id: item.callId, type: "function", function: { name: item.name, arguments: item.arguments } };
      if (open === undefined) {
        open = { role: "assistant", content: null };
        messages.push(open);
      }
      (open.tool_calls ??= []).push(call);
      continue;
    }
    open = undefined;
    if (item !== undefined && type === "function_call_result" && typeof item.callId === "string") {
      const text = outputText(item.output);
      if (text !== undefined) {
        messages.push({ role: "tool", tool_call_id: item.callId, content: text });
        continue;
      }
    }
    if (item !== undefined && type === "message") {
      if (item.role === "user" || item.role === "system") {
        const text = plainText(item.content, "input_text");
        if (text !== undefined) {
          messages.push({ role: item.role, content: text });
          continue;
        }
      } else if (item.role === "assistant") {
        const text = plainText(item.content, "output_text");
        if (text !== undefined) {
          // A text reply that calls tools next: the calls join it.
          open = { role: "assistant", content: text };
          messages.push(open);
          continue;
        }
      }
    }
    carried++;
    messages.push(carry(item?.role === "user" ? "user" : "assistant", raw));
  }
  return { messages, carried };
}

/**
 * The items of Chat Completions messages (the body of the service's next
 * request), in order: the inverse of toChat. A tool result takes its
 * call's name from the call in the messages ("" when the call is not
 * there). A message of a role or shape it does not know is kept as an
 * item of type "unknown" holding the message in providerData.
 */
export function fromChat(messages: readonly unknown[]): AgentInputItem[] {
  const names = new Map<string, string>();
  for (const m of messages) {
    if (isObject(m) && Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls) {
        if (isObject(c) && typeof c.id === "string" && isObject(c.function) && typeof c.function.name === "string") names.set(c.id, c.function.name);
      }
    }
  }
  const items: Item[] = [];
  for (const m of messages) {
    if (!isObject(m) || typeof m.role !== "string") {
      items.push({ type: "unknown", providerData: { message: m } });
      continue;
    }
    const content = m.content;
    if (Array.isArray(content) && content.length === 1 && isObject(content[0]) && content[0].type === carriedPart && isObject(content[0].item)) {
      items.push(content[0].item);
      continue;
    }
    switch (m.role) {
      case "system":
      case "developer":
      case "user": {
        const text = chatText(content);
        if (text === undefined) break;
        items.push({ role: m.role === "user" ? "user" : "system", content: text });
        continue;
      }
      case "assistant": {
        const text = chatText(content ?? "");
        if (text === undefined) break;
        if (text !== "") items.push({ role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
        for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
          if (!isObject(c) || typeof c.id !== "string" || !isObject(c.function)) continue;
          items.push({ type: "function_call", callId: c.id, name: String(c.function.name ?? ""), arguments: String(c.function.arguments ?? "{}"), status: "completed" });
        }
        continue;
      }
      case "tool": {
        const text = chatText(content);
        if (text === undefined || typeof m.tool_call_id !== "string") break;
        items.push({ type: "function_call_result", callId: m.tool_call_id, name: names.get(m.tool_call_id) ?? "", status: "completed", output: { type: "text", text } });
        continue;
      }
    }
    items.push({ type: "unknown", providerData: { message: m } });
  }
  return items as unknown as AgentInputItem[];
}

/** A Chat Completions content's text: a string, or text parts joined; undefined for other parts. */
function chatText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text = "";
  for (const p of content) {
    if (!isObject(p) || p.type !== "text" || typeof p.text !== "string") return undefined;
    text += p.text;
  }
  return text;
}
