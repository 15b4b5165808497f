// LangChain messages to and from the OpenAI Chat Completions messages the
// agentctx service stores and answers in (format "openai").
//
// What maps one to one: human, system, AI (text and tool calls) and tool
// messages whose content is text (a string or text blocks). Any other
// message (images, reasoning blocks, a kind to come) is carried whole, as
// LangChain serializes it (mapChatMessagesToStoredMessages): a message of
// one content part {"type": "langchain_message", "message": …} that the
// service keeps byte for byte and fromChat gives back as it was.
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type BaseMessage,
  type StoredMessage,
} from "@langchain/core/messages";

/** The content part type that carries a message the Chat Completions shape cannot hold. */
export const carriedPart = "langchain_message";

/** An OpenAI Chat Completions message, as the service takes and gives them. */
export interface ChatMessage {
  role: string;
  content?: string | null | Array<Record<string, unknown>>;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A message content's text: a string, or text blocks joined; undefined for any other block. */
export function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text = "";
  for (const b of content) {
    if (!isObject(b) || b.type !== "text" || typeof b.text !== "string") return undefined;
    text += b.text;
  }
  return text;
}

function one(m: BaseMessage): ChatMessage | undefined {
  const type = m.getType();
  const text = contentText(m.content);
  if (text === undefined) return undefined;
  switch (type) {
    case "human":
      return { role: "user", content: text };
    case "system":
      return { role: "system", content: text };
    case "tool": {
      const t = m as ToolMessage;
      return t.status === "error" ? undefined : { role: "tool", tool_call_id: t.tool_call_id, content: text };
    }
    case "ai": {
      const a = m as AIMessage;
      if ((a.invalid_tool_calls?.length ?? 0) > 0) return undefined;
      const calls = (a.tool_calls ?? []).map((c) => ({
        id: c.id ?? "",
        type: "function" as const,
        function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
      }));
      if (calls.some((c) => c.id === "")) return undefined;
      return calls.length > 0 ? { role: "assistant", content: text === "" ? null : text, tool_calls: calls } : { role: "assistant", content: text };
    }
  }
  return undefined;
}

/**
 * The Chat Completions messages of LangChain messages, in order. Never
 * throws: a message it cannot map is carried (see the file's comment) and
 * counted in `carried`.
 */
export function toChat(messages: readonly BaseMessage[]): { messages: ChatMessage[]; carried: number } {
  let carried = 0;
  const out = messages.map((m): ChatMessage => {
    const c = one(m);
    if (c !== undefined) return c;
    carried++;
    const [stored] = mapChatMessagesToStoredMessages([m]);
    return { role: m.getType() === "human" ? "user" : "assistant", content: [{ type: carriedPart, message: stored }] };
  });
  return { messages: out, carried };
}

/**
 * The LangChain messages of Chat Completions messages (the body of the
 * service's next request), in order: the inverse of toChat. A message of a
 * role or shape it does not know is kept as a human message holding its
 * JSON, so that nothing the window holds is lost to the model.
 */
export function fromChat(messages: readonly unknown[]): BaseMessage[] {
  const names = new Map<string, string>();
  for (const m of messages) {
    if (isObject(m) && Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls) {
        if (isObject(c) && typeof c.id === "string" && isObject(c.function) && typeof c.function.name === "string") names.set(c.id, c.function.name);
      }
    }
  }
  return messages.map((m): BaseMessage => {
    if (!isObject(m) || typeof m.role !== "string") return new HumanMessage(JSON.stringify(m));
    const content = m.content;
    if (Array.isArray(content) && content.length === 1 && isObject(content[0]) && content[0].type === carriedPart && isObject(content[0].message)) {
      const [back] = mapStoredMessagesToChatMessages([content[0].message as unknown as StoredMessage]);
      if (back !== undefined) return back;
    }
    const text = contentText(content ?? "");
    if (text !== undefined) {
      switch (m.role) {
        case "system":
        case "developer":
          return new SystemMessage(text);
        case "user":
          return new HumanMessage(text);
        case "assistant": {
          const calls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).filter(isObject).map((c) => {
            const f = isObject(c.function) ? c.function : {};
            let args: Record<string, unknown> = {};
            try {
              const parsed: unknown = JSON.parse(typeof f.arguments === "string" ? f.arguments : "{}");
              if (isObject(parsed)) args = parsed;
            } catch {
              args = { arguments: f.arguments };
            }
            return { id: String(c.id ?? ""), name: String(f.name ?? ""), args, type: "tool_call" as const };
          });
          return new AIMessage({ content: text, tool_calls: calls });
        }
        case "tool":
          if (typeof m.tool_call_id === "string") return new ToolMessage({ content: text, tool_call_id: m.tool_call_id, name: names.get(m.tool_call_id) });
      }
    }
    return new HumanMessage(JSON.stringify(m));
  });
}
