// OpenClaw's transcript messages (AgentMessage of its plugin SDK, 2026.9.6:
// user, assistant and toolResult messages, and its harness's own roles)
// to and from the Anthropic Messages shapes the agentctx service stores
// and answers in (format "anthropic"), chosen because Anthropic's blocks
// hold what OpenClaw's messages hold: text, thinking with its signature,
// tool calls with object arguments, tool results with an error flag.
//
// What maps one to one:
//   - user text → a user message of text blocks;
//   - assistant text, thinking (redacted thinking as "redacted_thinking")
//     and tool calls → an assistant message of text, thinking and tool_use
//     blocks, its responseId as "id", its model as "model" and its usage
//     as Anthropic usage (which agentctx anchors its counts on);
//   - a toolResult → a user message of one tool_result block (tool_use_id,
//     is_error, content: its text blocks, its images).
// Not kept, as replay metadata the model never reads: timestamps, an
// assistant's stopReason (told again from its blocks), responseModel,
// turnId and diagnostics, a tool result's details, and an assistant's api
// and provider unless it holds thinking (they decide whether OpenClaw
// replays a signature; without them the assistant is taken as the run's
// model's). Any other field of a message is carried in an extra block
// {"type": "openclaw_fields", "fields": {…}} (for a tool result, inside
// its tool_result's content) that the service keeps byte for byte and
// fromAnthropic merges back. A message of another role
// (custom, bashExecution, compactionSummary, branchSummary, a role to
// come), a user message with images, and anything else the mapping cannot
// hold is carried whole: a message of one block {"type":
// "openclaw_message", "message": …} that comes back as it was.

/** The block type that carries a whole message the mapping cannot hold. */
export const carriedBlock = "openclaw_message";

/** The block type that carries a message's fields the mapping does not know. */
export const fieldsBlock = "openclaw_fields";

/** One of OpenClaw's transcript messages: role and the fields of that role. */
export type AgentMessage = { role: string; [key: string]: unknown };

/** An Anthropic Messages message, as the service takes and gives them. */
export interface AnthropicMessage {
  role: string;
  content: string | Block[];
  id?: string;
  model?: string;
  usage?: Record<string, number>;
  [key: string]: unknown;
}

/** An Anthropic content block. */
export type Block = { type: string; [key: string]: unknown };

/** The run an assembled assistant message is replayed in: what the store does not keep. */
export interface Run {
  /** The provider id of the run's model (OpenClaw's runtimeSettings.model.provider). */
  provider?: string;
  /** The run's model id. */
  model?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// The fields of each role the mapping reads or drops as replay metadata;
// any other is carried in an openclaw_fields block.
const userKeys = new Set(["role", "content", "timestamp"]);
const assistantKeys = new Set(["role", "content", "api", "provider", "model", "responseModel", "responseId", "usage", "stopReason", "timestamp", "turnId", "diagnostics"]);
const toolResultKeys = new Set(["role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"]);

function extraFields(m: AgentMessage, known: Set<string>): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(m)) {
    if (!known.has(k) && v !== undefined) (extra ??= {})[k] = v;
  }
  return extra;
}

function carry(m: unknown): AnthropicMessage {
  const role = isObject(m) && m.role === "assistant" ? "assistant" : "user";
  return { role, content: [{ type: carriedBlock, message: m }] };
}

/** Anthropic usage of OpenClaw usage ({input, output, cacheRead, cacheWrite}); undefined when it has none. */
function usageOut(u: unknown): Record<string, number> | undefined {
  if (!isObject(u)) return undefined;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  const out = { input_tokens: n(u.input), output_tokens: n(u.output), cache_read_input_tokens: n(u.cacheRead), cache_creation_input_tokens: n(u.cacheWrite) };
  return out.input_tokens + out.output_tokens + out.cache_read_input_tokens + out.cache_creation_input_tokens > 0 ? out : undefined;
}

function userOut(m: AgentMessage): AnthropicMessage | undefined {
  const content = m.content;
  if (typeof content === "string") return { role: "user", content: [{ type: "text", text: content }] };
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const blocks: Block[] = [];
  for (const b of content) {
    if (!isObject(b) || b.type !== "text" || typeof b.text !== "string" || Object.keys(b).some((k) => k !== "type" && k !== "text")) return undefined;
    blocks.push({ type: "text", text: b.text });
  }
  return { role: "user", content: blocks };
}

function assistantOut(m: AgentMessage): AnthropicMessage | undefined {
  if (!Array.isArray(m.content)) return undefined;
  const blocks: Block[] = [];
  let thinking = false;
  for (const b of m.content as unknown[]) {
    if (!isObject(b)) return undefined;
    if (b.type === "text" && typeof b.text === "string" && b.textSignature === undefined) {
      blocks.push({ type: "text", text: b.text });
    } else if (b.type === "thinking" && typeof b.thinking === "string") {
      thinking = true;
      if (b.redacted === true && typeof b.thinkingSignature === "string") blocks.push({ type: "redacted_thinking", data: b.thinkingSignature });
      else blocks.push({ type: "thinking", thinking: b.thinking, signature: typeof b.thinkingSignature === "string" ? b.thinkingSignature : "" });
    } else if (b.type === "toolCall" && typeof b.id === "string" && typeof b.name === "string" && isObject(b.arguments) &&
      Object.keys(b).every((k) => ["type", "id", "name", "arguments"].includes(k))) {
      blocks.push({ type: "tool_use", id: b.id, name: b.name, input: b.arguments });
    } else {
      return undefined;
    }
  }
  if (m.stopReason === "error" || m.stopReason === "aborted") return undefined;
  const out: AnthropicMessage = { role: "assistant", content: blocks };
  if (typeof m.responseId === "string" && m.responseId !== "") out.id = m.responseId;
  if (typeof m.model === "string" && m.model !== "") out.model = m.model;
  const usage = usageOut(m.usage);
  if (usage) out.usage = usage;
  const extra = extraFields(m, assistantKeys) ?? {};
  if (thinking) {
    if (m.api !== undefined) extra.api = m.api;
    if (m.provider !== undefined) extra.provider = m.provider;
  }
  if (Object.keys(extra).length > 0) blocks.push({ type: fieldsBlock, fields: extra });
  if (blocks.length === 0) return undefined;
  return out;
}

function toolResultOut(m: AgentMessage): AnthropicMessage | undefined {
  if (typeof m.toolCallId !== "string" || !Array.isArray(m.content)) return undefined;
  const content: Block[] = [];
  for (const b of m.content as unknown[]) {
    if (isObject(b) && b.type === "text" && typeof b.text === "string") content.push({ type: "text", text: b.text });
    else if (isObject(b) && b.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string") {
      content.push({ type: "image", source: { type: "base64", media_type: b.mimeType, data: b.data } });
    } else return undefined;
  }
  const block: Block = { type: "tool_result", tool_use_id: m.toolCallId, content };
  if (m.isError === true) block.is_error = true;
  if (typeof m.toolName === "string") block.tool_name = m.toolName;
  return { role: "user", content: [block] };
}

/**
 * The Anthropic messages of OpenClaw messages, one each, in order. Never
 * throws: a message it cannot map is carried whole (see the file's
 * comment) and counted in `carried`.
 */
export function toAnthropic(messages: readonly unknown[]): { messages: AnthropicMessage[]; carried: number } {
  const out: AnthropicMessage[] = [];
  let carried = 0;
  for (const raw of messages) {
    let m: AnthropicMessage | undefined;
    if (isObject(raw) && typeof raw.role === "string") {
      const msg = raw as AgentMessage;
      if (msg.role === "user") {
        m = userOut(msg);
        const extra = m && extraFields(msg, userKeys);
        if (m && extra) (m.content as Block[]).push({ type: fieldsBlock, fields: extra });
      } else if (msg.role === "assistant") {
        m = assistantOut(msg);
      } else if (msg.role === "toolResult") {
        m = toolResultOut(msg);
        // In the tool_result's content: beside it, the service would read
        // them as the user's text.
        const extra = m && extraFields(msg, toolResultKeys);
        if (m && extra) (((m.content as Block[])[0]!.content) as Block[]).push({ type: fieldsBlock, fields: extra });
      }
    }
    if (m === undefined) {
      carried++;
      m = carry(raw);
    }
    out.push(m);
  }
  return { messages: out, carried };
}

function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const b of content) {
    if (!isObject(b) || b.type !== "text" || typeof b.text !== "string") return undefined;
    texts.push(b.text);
  }
  return texts.join("\n");
}

/** OpenClaw usage of Anthropic usage (costs unknown: zero). */
function usageIn(u: unknown): Record<string, unknown> {
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const input = isObject(u) ? n(u.input_tokens) : 0;
  const output = isObject(u) ? n(u.output_tokens) : 0;
  const cacheRead = isObject(u) ? n(u.cache_read_input_tokens) : 0;
  const cacheWrite = isObject(u) ? n(u.cache_creation_input_tokens) : 0;
  return {
    input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

function toolResultIn(b: Block, names: Map<string, string>): AgentMessage {
  const content: Block[] = [];
  let fields: Record<string, unknown> | undefined;
  if (typeof b.content === "string") {
    content.push({ type: "text", text: b.content });
  } else if (Array.isArray(b.content)) {
    for (const c of b.content) {
      if (!isObject(c)) continue;
      if (c.type === fieldsBlock && isObject(c.fields)) fields = { ...fields, ...c.fields };
      else if (c.type === "text" && typeof c.text === "string") content.push({ type: "text", text: c.text });
      else if (c.type === "image" && isObject(c.source) && c.source.type === "base64") {
        content.push({ type: "image", data: String(c.source.data ?? ""), mimeType: String(c.source.media_type ?? "") });
      } else content.push(c as Block);
    }
  }
  const id = String(b.tool_use_id ?? "");
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: typeof b.tool_name === "string" ? b.tool_name : names.get(id) ?? "",
    content,
    isError: b.is_error === true,
    timestamp: 0,
    ...fields,
  };
}

/**
 * The OpenClaw messages of an Anthropic request body's messages (the
 * service's next request), in order: the inverse of toAnthropic. A user
 * message's tool_result blocks become toolResult messages (its name from
 * the block's tool_name, else from the call it answers) and its other
 * blocks one user message; an assistant message gets back the fields it
 * carried, the run's provider and model where it carried none, and a stop
 * reason told from its blocks. A message or block it cannot read is kept:
 * a block in place, a message as a carried one whole.
 */
export function fromAnthropic(messages: readonly unknown[], run: Run = {}): AgentMessage[] {
  const names = new Map<string, string>();
  const out: AgentMessage[] = [];
  for (const raw of messages) {
    if (!isObject(raw) || typeof raw.role !== "string") {
      out.push({ role: "custom", customType: "agentctx-unreadable", content: JSON.stringify(raw), display: false, timestamp: 0 });
      continue;
    }
    const blocks: Block[] = typeof raw.content === "string" ? [{ type: "text", text: raw.content }] :
      Array.isArray(raw.content) ? raw.content.filter(isObject) as Block[] : [];
    if (raw.role === "assistant") {
      const content: Block[] = [];
      let fields: Record<string, unknown> = {};
      let calls = false;
      for (const b of blocks) {
        if (b.type === carriedBlock && isObject(b.message)) {
          out.push(b.message as AgentMessage);
          continue;
        }
        switch (b.type) {
          case "text":
            content.push({ type: "text", text: String(b.text ?? "") });
            break;
          case "thinking":
            content.push(b.signature ? { type: "thinking", thinking: String(b.thinking ?? ""), thinkingSignature: String(b.signature) } : { type: "thinking", thinking: String(b.thinking ?? "") });
            break;
          case "redacted_thinking":
            content.push({ type: "thinking", thinking: "", thinkingSignature: String(b.data ?? ""), redacted: true });
            break;
          case "tool_use":
            calls = true;
            names.set(String(b.id), String(b.name ?? ""));
            content.push({ type: "toolCall", id: String(b.id ?? ""), name: String(b.name ?? ""), arguments: isObject(b.input) ? b.input : {} });
            break;
          case fieldsBlock:
            if (isObject(b.fields)) fields = { ...fields, ...b.fields };
            break;
          default:
            content.push(b);
        }
      }
      if (content.length === 0 && Object.keys(fields).length === 0) continue;
      const m: AgentMessage = {
        role: "assistant",
        content,
        api: "unknown",
        provider: run.provider ?? "unknown",
        model: typeof raw.model === "string" ? raw.model : run.model ?? "unknown",
        usage: usageIn(raw.usage),
        stopReason: calls ? "toolUse" : "stop",
        timestamp: 0,
      };
      if (typeof raw.id === "string") m.responseId = raw.id;
      out.push({ ...m, ...fields });
      continue;
    }
    if (raw.role === "user") {
      const content: Block[] = [];
      let fields: Record<string, unknown> | undefined;
      for (const b of blocks) {
        if (b.type === "tool_result") out.push(toolResultIn(b, names));
        else if (b.type === carriedBlock && isObject(b.message)) out.push(b.message as AgentMessage);
        else if (b.type === fieldsBlock && isObject(b.fields)) fields = { ...fields, ...b.fields };
        else content.push(b.type === "text" ? { type: "text", text: String(b.text ?? "") } : b);
      }
      if (content.length > 0) {
        const text = textOf(content);
        out.push({ role: "user", content: text !== undefined && content.length === 1 ? text : content, timestamp: 0, ...fields });
      }
      continue;
    }
    // A role the Anthropic shape does not have (the service gives none).
    out.push({ role: "custom", customType: "agentctx-unreadable", content: JSON.stringify(raw), display: false, timestamp: 0 });
  }
  return out;
}
