// An OpenAI Agents SDK Session kept by `agentctx serve`: the history lives
// in an agentctx session, and what the runner reads back before each run
// is the managed window (compacted to the session's budget), not the whole
// history.
import type { AgentInputItem, Session } from "@openai/agents";
import { AgentctxError, createAgentctxClient, ok, type AgentctxClient, type Schemas } from "agentctx-client";
import { fromChat, toChat, type ChatMessage } from "./items.js";

export { carriedPart, fromChat, toChat, type ChatMessage, type ChatToolCall } from "./items.js";

/** Options of {@link AgentctxSession}. */
export interface AgentctxSessionOptions {
  /** The service's root, e.g. "http://127.0.0.1:8080". */
  url: string;
  /** A bearer token of the server's tokens file; none for a server on loopback without tokens. */
  token?: string;
  /** The agentctx session's id; default a new one the service picks. An existing session is continued. */
  sessionId?: string;
  /** The model the session is for (its tokenizer and default budget); default the service's (gpt-4o). */
  model?: string;
  /** The prompt budget in tokens that the window is kept within; default the model's. */
  budget?: number;
  /**
   * The agent's instructions. The service counts them in the budget; the
   * window given back leaves them out (the runner sends them itself).
   */
  instructions?: string;
  /** The agent's tools (name, description, JSON Schema parameters), counted in the budget. */
  tools?: Schemas["ToolDef"][];
  /** Free-form labels stored with the session. */
  metadata?: Record<string, string>;
  /** The fetch to use (default the global one). */
  fetch?: typeof globalThis.fetch;
}

/**
 * A Session of the OpenAI Agents SDK (`run(agent, input, { session })`)
 * whose history is an agentctx session: addItems adds the items as
 * OpenAI Chat Completions messages (toChat; items the shape cannot hold
 * are carried whole), getItems answers the service's next request, the
 * window within the budget, as items (fromChat). The session is created on
 * first use. Errors of the service are thrown as AgentctxError (status and
 * problem code).
 */
export class AgentctxSession implements Session {
  /** The service's client (createAgentctxClient of agentctx-client). */
  readonly client: AgentctxClient;
  /** The last window getItems read: tokens, budget, rows, compactions. */
  lastRequest: Schemas["NextRequest"] | undefined;
  /** Items carried whole so far by addItems (not a Chat Completions shape). */
  carried = 0;

  private readonly opts: AgentctxSessionOptions;
  private id: Promise<string> | undefined;

  constructor(opts: AgentctxSessionOptions) {
    this.opts = opts;
    this.client = createAgentctxClient(opts.url, { token: opts.token, fetch: opts.fetch });
  }

  /** The agentctx session's id, creating the session (or finding it, when sessionId names one) on first call. */
  getSessionId(): Promise<string> {
    this.id ??= this.create().catch((err: unknown) => {
      this.id = undefined;
      throw err;
    });
    return this.id;
  }

  private async create(): Promise<string> {
    const o = this.opts;
    const body: Schemas["CreateSession"] = {};
    if (o.sessionId !== undefined) body.id = o.sessionId;
    if (o.model !== undefined) body.model = o.model;
    if (o.budget !== undefined) body.budget = o.budget;
    if (o.instructions !== undefined) body.system_prompt = o.instructions;
    if (o.tools !== undefined) body.tools = o.tools;
    body.metadata = { integration: "openai-agents", ...o.metadata };
    try {
      return (await ok(this.client.api.POST("/v1/sessions", { body }))).id;
    } catch (err) {
      if (err instanceof AgentctxError && err.code === "session-exists" && o.sessionId !== undefined) return o.sessionId;
      throw err;
    }
  }

  private async path() {
    return { params: { path: { id: await this.getSessionId() } } };
  }

  /**
   * The managed window as items, oldest first: the service's next request
   * (format openai) without the instructions. With limit, the last limit
   * items.
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items = await this.window();
    return limit === undefined ? items : limit <= 0 ? [] : items.slice(-limit);
  }

  private async window(): Promise<AgentInputItem[]> {
    const req = await ok(this.client.api.POST("/v1/sessions/{id}/request", { ...(await this.path()), body: { format: "openai" } }));
    this.lastRequest = req;
    const messages = ((req.body as { messages?: unknown[] }).messages ?? []).slice();
    // The instructions the session was created with lead the request.
    const first = messages[0] as ChatMessage | undefined;
    if (this.opts.instructions !== undefined && first?.role === "system" && first.content === this.opts.instructions) messages.shift();
    return fromChat(messages);
  }

  /** Adds items to the history (one call of the service). */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    const { messages, carried } = toChat(items);
    await ok(this.client.api.POST("/v1/sessions/{id}/messages", { ...(await this.path()), body: { format: "openai", messages } }));
    this.carried += carried;
  }

  /**
   * Removes the window's last item and returns it (undefined when the
   * window is empty): the service rewinds the window by one message (the
   * message stays in the store, see POST …/rewind), and when that message
   * held several items (an assistant text and its calls), the others are
   * added back.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    const path = await this.path();
    const s = await ok(this.client.api.GET("/v1/sessions/{id}", path));
    if (s.messages === 0) return undefined;
    const req = await ok(this.client.api.POST("/v1/sessions/{id}/request", { ...path, body: { format: "openai" } }));
    const messages = (req.body as { messages?: unknown[] }).messages ?? [];
    const last = messages[messages.length - 1];
    if (last === undefined) return undefined;
    const items = fromChat(messages).slice(-fromChat([last]).length);
    await ok(this.client.api.POST("/v1/sessions/{id}/rewind", { ...path, body: { to: s.messages - 1 } }));
    const popped = items.pop();
    if (items.length > 0) await this.addItems(items);
    return popped;
  }

  /** Deletes the agentctx session; the next call starts a new one (with the same sessionId, if given). */
  async clearSession(): Promise<void> {
    if (this.id === undefined) return;
    const path = await this.path();
    this.id = undefined;
    await ok(this.client.api.DELETE("/v1/sessions/{id}", path));
  }
}
