// A LangChain (v1, createAgent) middleware that keeps the conversation in
// `agentctx serve` and sends the model the managed window: before each
// model call it adds the messages the service has not seen to an agentctx
// session and passes on the service's next request (compacted to the
// session's budget) in place of the agent's whole history. It sits where
// LangChain's summarizationMiddleware sits, and replaces it.
import { randomUUID } from "node:crypto";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { AgentctxError, createAgentctxClient, ok, type AgentctxClient, type Schemas } from "agentctx-client";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { contentText, fromChat, toChat, type ChatMessage } from "./messages.js";

export { carriedPart, contentText, fromChat, toChat, type ChatMessage } from "./messages.js";

/** Options of {@link agentctxMiddleware}. */
export interface AgentctxMiddlewareOptions {
  /** The service's root, e.g. "http://127.0.0.1:8080". */
  url: string;
  /** A bearer token of the server's tokens file; none for a server on loopback without tokens. */
  token?: string;
  /**
   * The agentctx session's id. Default: "langchain-" and the run's
   * thread_id when it has one (a checkpointer's thread), else one new id
   * per middleware.
   */
  sessionId?: string;
  /** The model the session is for (its tokenizer and default budget); default the service's (gpt-4o). */
  model?: string;
  /** The prompt budget in tokens that every model call is kept within; default the model's. */
  budget?: number;
  /** Free-form labels stored with the session. */
  metadata?: Record<string, string>;
  /** The fetch to use (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Called with each window the model is sent (tokens, budget, rows, compactions). */
  onRequest?: (req: Schemas["NextRequest"], sessionId: string) => void;
}

/** What the middleware adds to the agent's state: how many of state.messages the service holds. */
const stateSchema = z.object({ agentctxSynced: z.number().optional() });

/**
 * The middleware (createAgent({ …, middleware: [agentctxMiddleware(opts)] })).
 * The session is created at the first model call, with the agent's system
 * prompt and tools so that the service counts them in the budget; the
 * window passed on leaves the system prompt out (the agent sends it). The
 * state's messages stay whole: agentctx only changes what the model is
 * sent. Messages that the Chat Completions shape cannot hold are carried
 * whole (toChat). Errors of the service are thrown as AgentctxError.
 */
export function agentctxMiddleware(opts: AgentctxMiddlewareOptions) {
  const client: AgentctxClient = createAgentctxClient(opts.url, { token: opts.token, fetch: opts.fetch });
  const fallbackId = `langchain-${randomUUID()}`;
  const created = new Map<string, Promise<void>>();
  // Per session: how many of state.messages it held after the last model call.
  const synced = new Map<string, number>();
  let carried = 0;

  function sessionId(runtime: { configurable?: { thread_id?: string } }): string {
    if (opts.sessionId !== undefined) return opts.sessionId;
    const thread = runtime.configurable?.thread_id;
    return thread !== undefined ? `langchain-${thread}` : fallbackId;
  }

  async function create(id: string, system: string, tools: Schemas["ToolDef"][]): Promise<void> {
    const body: Schemas["CreateSession"] = { id, metadata: { integration: "langchain", ...opts.metadata } };
    if (opts.model !== undefined) body.model = opts.model;
    if (opts.budget !== undefined) body.budget = opts.budget;
    if (system !== "") body.system_prompt = system;
    if (tools.length > 0) body.tools = tools;
    try {
      await ok(client.api.POST("/v1/sessions", { body }));
    } catch (err) {
      if (!(err instanceof AgentctxError && err.code === "session-exists")) throw err;
    }
  }

  async function add(id: string, messages: Parameters<typeof toChat>[0]): Promise<void> {
    if (messages.length === 0) return;
    const c = toChat(messages);
    await ok(client.api.POST("/v1/sessions/{id}/messages", { params: { path: { id } }, body: { format: "openai", messages: c.messages } }));
    carried += c.carried;
  }

  const middleware = createMiddleware({
    name: "AgentctxMiddleware",
    stateSchema,
    wrapModelCall: async (request, handler) => {
      const id = sessionId(request.runtime);
      const system = contentText(request.systemMessage.content) ?? request.systemPrompt;
      let once = created.get(id);
      if (once === undefined) {
        const tools = request.tools.map((t) => {
          const f = convertToOpenAITool(t as Parameters<typeof convertToOpenAITool>[0]).function;
          return { name: f.name, description: f.description ?? "", parameters: (f.parameters ?? { type: "object" }) as Record<string, unknown> };
        });
        once = create(id, system, tools);
        created.set(id, once);
        once.catch(() => created.delete(id));
      }
      await once;
      const messages = request.state.messages;
      const from = request.state.agentctxSynced ?? 0;
      if (from > messages.length) {
        throw new Error(`agentctx middleware: the state holds ${messages.length} messages, fewer than the ${from} already added to session ${id}: another middleware removed messages (drop it: this one compacts)`);
      }
      // The messages since the last call and the next request in one
      // round trip: the request's "add" is a messages body.
      const fresh = messages.slice(from);
      const c = fresh.length > 0 ? toChat(fresh) : undefined;
      const req = await ok(
        client.api.POST("/v1/sessions/{id}/request", {
          params: { path: { id } },
          body: c === undefined ? { format: "openai" } : { format: "openai", add: { format: "openai", messages: c.messages } },
        }),
      );
      if (c !== undefined) carried += c.carried;
      synced.set(id, messages.length);
      opts.onRequest?.(req, id);
      const window = ((req.body as { messages?: unknown[] }).messages ?? []).slice();
      const first = window[0] as ChatMessage | undefined;
      if (system !== "" && first?.role === "system" && first.content === system) window.shift();
      return handler({ ...request, messages: fromChat(window) });
    },
    afterModel: async (_state, runtime) => {
      const n = synced.get(sessionId(runtime));
      return n === undefined ? undefined : { agentctxSynced: n };
    },
    afterAgent: async (state, runtime) => {
      // The last answer of the run: the service holds the whole conversation.
      const id = sessionId(runtime);
      if (!created.has(id)) return undefined;
      const from = state.agentctxSynced ?? 0;
      await add(id, state.messages.slice(from));
      synced.set(id, state.messages.length);
      return { agentctxSynced: state.messages.length };
    },
  });
  return Object.assign(middleware, {
    /** The service's client (createAgentctxClient of agentctx-client). */
    client,
    /** Messages carried whole so far (not a Chat Completions shape). */
    carried: () => carried,
  });
}
