// The context engine: OpenClaw's ContextEngine contract (its plugin SDK,
// 2026.9.6, docs/concepts/context-engine.md) kept by `agentctx serve`.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentctxError, createAgentctxClient, ok, type AgentctxClient, type Schemas } from "agentctx-client";
import { fromAnthropic, toAnthropic, type AgentMessage } from "./messages.js";

/** The engine's id: the value of plugins.slots.contextEngine that selects it. */
export const engineId = "agentctx";

/** Options of {@link AgentctxContextEngine}: the plugin's config (openclaw.plugin.json). */
export interface AgentctxEngineOptions {
  /** The service's root, e.g. "http://127.0.0.1:8080". */
  url: string;
  /** A bearer token of the server's tokens file; none for a server on loopback without tokens. */
  token?: string;
  /**
   * The budget in tokens that the history is kept within, fixed when the
   * agentctx session is created. Default: the message budget OpenClaw
   * gives the session's first assembly (the model's context window less
   * the compaction reserve, the system prompt and the prompt).
   */
  budget?: number;
  /** The model the agentctx session counts tokens for. Default: the model of the session's first run. */
  model?: string;
  /** The agentctx session's id is this and OpenClaw's session id. Default "openclaw-". */
  sessionPrefix?: string;
  /**
   * A folder for the record that makes commitTurn idempotent (the last
   * turn committed per session). Default: none, the record is kept in
   * memory only (a retry by another process may add a turn twice).
   */
  stateDir?: string;
  /** The fetch to use (default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Called with each window assembled (tokens, budget, rows, compactions) and the agentctx session's id. */
  onRequest?: (req: Schemas["NextRequest"], sessionId: string) => void;
  /** Where warnings go. Default console.warn. */
  warn?: (message: string) => void;
}

/** OpenClaw's ContextEngineRuntimeSettings, the fields read here. */
interface RuntimeSettings {
  model?: { provider?: string | null; resolved?: string | null; requested?: string | null };
  limits?: { promptTokenBudget?: number | null };
}

/** The model and budget a new session is created with, from a lifecycle call's runtime settings. */
function hintOf(settings: RuntimeSettings | undefined, budget?: number): { model?: string; budget?: number } {
  return {
    model: settings?.model?.resolved ?? settings?.model?.requested ?? undefined,
    budget: budget ?? settings?.limits?.promptTokenBudget ?? undefined,
  };
}

/** What commitTurn recorded of a session's last turn: its key, and the session's entries before it. */
interface TurnRecord {
  key: string;
  before: number;
  done: boolean;
}

/**
 * A context engine of OpenClaw backed by an agentctx session per OpenClaw
 * session (id: sessionPrefix and OpenClaw's session id):
 *
 *   - ingest, ingestBatch, afterTurn and commitTurn add the turn's messages
 *     (Anthropic shapes, toAnthropic; what they cannot hold is carried
 *     whole) to the session;
 *   - assemble answers the service's next request, the history within the
 *     budget (compacted when over it), as OpenClaw messages (fromAnthropic);
 *     OpenClaw appends the turn in progress. A system prompt the service
 *     adds (reminders, working memory) is the systemPromptAddition;
 *   - compact runs the service's compaction.
 *
 * The engine owns compaction (info.ownsCompaction): OpenClaw's own
 * auto-compaction is off for its runs. It declares the durable-turn
 * semantics (current-turn fence, idempotent commitTurn), so OpenClaw's
 * embedded runs use it rather than degrading to the legacy engine.
 * Errors of the service are thrown as AgentctxError (OpenClaw then sends
 * its own history for that model call; see the README).
 */
export class AgentctxContextEngine {
  readonly info = {
    id: engineId,
    name: "agentctx",
    version: "0.1.0",
    ownsCompaction: true,
    transcriptSemantics: {
      currentTurnFence: "before-current-turn-entry-v1" as const,
      turnAdvancementIdempotency: "atomic-idempotent-v1" as const,
    },
  };
  /** The service's client (createAgentctxClient of agentctx-client). */
  readonly client: AgentctxClient;
  /** Messages carried whole so far (not an Anthropic shape). */
  carried = 0;

  private readonly opts: AgentctxEngineOptions;
  private readonly created = new Map<string, Promise<void>>();
  private readonly turns = new Map<string, TurnRecord>();

  constructor(opts: AgentctxEngineOptions) {
    if (!opts.url) throw new Error("agentctx context engine: no url in the plugin's config (plugins.entries.agentctx.config.url)");
    this.opts = opts;
    this.client = createAgentctxClient(opts.url, { token: opts.token, fetch: opts.fetch });
  }

  /** The agentctx session id of an OpenClaw session id. */
  sessionFor(sessionId: string): string {
    return (this.opts.sessionPrefix ?? "openclaw-") + sessionId;
  }

  private warn(message: string): void {
    (this.opts.warn ?? console.warn)(`[agentctx] ${message}`);
  }

  /** Creates the agentctx session once per engine (an existing one is continued). */
  private ensure(sessionId: string, hint: { model?: string; budget?: number } = {}): Promise<void> {
    const id = this.sessionFor(sessionId);
    let once = this.created.get(id);
    if (once === undefined) {
      once = this.create(id, hint);
      this.created.set(id, once);
      once.catch(() => this.created.delete(id));
    }
    return once;
  }

  private async create(id: string, hint: { model?: string; budget?: number }): Promise<void> {
    const body: Schemas["CreateSession"] = { id, metadata: { integration: "openclaw" } };
    const model = this.opts.model ?? hint.model;
    if (model) body.model = model;
    const budget = this.opts.budget ?? hint.budget;
    if (budget !== undefined && budget > 0) body.budget = Math.floor(budget);
    try {
      await ok(this.client.api.POST("/v1/sessions", { body }));
    } catch (err) {
      if (!(err instanceof AgentctxError && err.code === "session-exists")) throw err;
    }
  }

  private async add(sessionId: string, messages: readonly unknown[]): Promise<number> {
    if (messages.length === 0) return 0;
    const { messages: wire, carried } = toAnthropic(messages);
    await ok(this.client.api.POST("/v1/sessions/{id}/messages", {
      params: { path: { id: this.sessionFor(sessionId) } },
      body: { format: "anthropic", messages: wire },
    }));
    this.carried += carried;
    return messages.length;
  }

  /** Adds one message to the session. */
  async ingest(params: { sessionId: string; message: AgentMessage }): Promise<{ ingested: boolean }> {
    await this.ensure(params.sessionId);
    return { ingested: (await this.add(params.sessionId, [params.message])) > 0 };
  }

  /** Adds a completed turn's messages to the session in one call. */
  async ingestBatch(params: { sessionId: string; messages: AgentMessage[] }): Promise<{ ingestedCount: number }> {
    await this.ensure(params.sessionId);
    return { ingestedCount: await this.add(params.sessionId, params.messages) };
  }

  /** For hosts without durable turns: adds the run's new messages (those after prePromptMessageCount). */
  async afterTurn(params: { sessionId: string; messages: AgentMessage[]; prePromptMessageCount: number; tokenBudget?: number; runtimeSettings?: RuntimeSettings }): Promise<void> {
    await this.ensure(params.sessionId, hintOf(params.runtimeSettings, params.tokenBudget));
    await this.add(params.sessionId, params.messages.slice(Math.max(0, params.prePromptMessageCount)));
  }

  /**
   * Adds one accepted turn (the admitted user message through the terminal
   * one) in a single call of the service, which the store writes as one
   * append (all or nothing). Idempotent by advancementKey: before adding,
   * it records the key and the session's entry count; a retry of that key
   * finds the turn added when the count has grown since, and answers
   * "duplicate".
   */
  async commitTurn(params: { advancementKey: string; sessionId: string; messages: AgentMessage[]; runtimeSettings?: RuntimeSettings }): Promise<{ status: "committed" | "duplicate" }> {
    await this.ensure(params.sessionId, hintOf(params.runtimeSettings));
    const id = this.sessionFor(params.sessionId);
    const prev = await this.readTurn(id);
    if (prev?.key === params.advancementKey) {
      if (prev.done) return { status: "duplicate" };
      const s = await ok(this.client.api.GET("/v1/sessions/{id}", { params: { path: { id } } }));
      if (s.entries > prev.before) {
        await this.writeTurn(id, { ...prev, done: true });
        return { status: "duplicate" };
      }
    }
    const s = await ok(this.client.api.GET("/v1/sessions/{id}", { params: { path: { id } } }));
    const rec: TurnRecord = { key: params.advancementKey, before: s.entries, done: false };
    await this.writeTurn(id, rec);
    await this.add(params.sessionId, params.messages);
    await this.writeTurn(id, { ...rec, done: true });
    return { status: "committed" };
  }

  /**
   * The session's next request as OpenClaw messages. The first assembly of
   * a session the service does not hold yet creates it and adds the
   * history OpenClaw passes (a conversation begun under another engine).
   */
  async assemble(params: {
    sessionId: string;
    messages: AgentMessage[];
    tokenBudget?: number;
    model?: string;
    runtimeSettings?: RuntimeSettings;
  }): Promise<{ messages: AgentMessage[]; estimatedTokens: number; systemPromptAddition?: string }> {
    const model = params.runtimeSettings?.model?.resolved ?? params.model;
    await this.ensure(params.sessionId, { ...hintOf(params.runtimeSettings, params.tokenBudget), model: model ?? undefined });
    const id = this.sessionFor(params.sessionId);
    const path = { params: { path: { id } } };
    const s = await ok(this.client.api.GET("/v1/sessions/{id}", path));
    if (s.messages === 0) {
      // The service has no request to give for an empty history.
      if (params.messages.length === 0) return { messages: [], estimatedTokens: 0 };
      await this.add(params.sessionId, params.messages);
    }
    const req = await ok(this.client.api.POST("/v1/sessions/{id}/request", { ...path, body: { format: "anthropic" } }));
    this.opts.onRequest?.(req, id);
    const body = req.body as { system?: unknown; messages?: unknown[] };
    const messages = fromAnthropic(body.messages ?? [], { provider: params.runtimeSettings?.model?.provider ?? undefined, model: model ?? undefined });
    const out: { messages: AgentMessage[]; estimatedTokens: number; systemPromptAddition?: string } = { messages, estimatedTokens: req.tokens };
    const system = systemText(body.system);
    if (system) out.systemPromptAddition = system;
    return out;
  }

  /** Compacts the session now (the service's strategy, with customInstructions for a summary). */
  async compact(params: { sessionId: string; customInstructions?: string; force?: boolean }): Promise<{
    ok: boolean;
    compacted: boolean;
    reason?: string;
    result?: { tokensBefore: number; tokensAfter?: number; details?: unknown };
  }> {
    await this.ensure(params.sessionId);
    const body: Schemas["CompactOptions"] = {};
    if (params.customInstructions) body.instructions = params.customInstructions;
    const res = await ok(this.client.api.POST("/v1/sessions/{id}/compact", { params: { path: { id: this.sessionFor(params.sessionId) } }, body }));
    const first = res.compactions[0];
    if (first === undefined) return { ok: true, compacted: false, reason: "the history is within the budget", result: { tokensBefore: res.tokens, tokensAfter: res.tokens } };
    return { ok: true, compacted: true, result: { tokensBefore: first.tokens_before, tokensAfter: res.tokens, details: { compactions: res.compactions } } };
  }

  private turnFile(id: string): string | undefined {
    return this.opts.stateDir === undefined ? undefined : join(this.opts.stateDir, `${encodeURIComponent(id)}.json`);
  }

  private async readTurn(id: string): Promise<TurnRecord | undefined> {
    const file = this.turnFile(id);
    if (file === undefined) return this.turns.get(id);
    try {
      const v = JSON.parse(await readFile(file, "utf8")) as TurnRecord;
      return typeof v.key === "string" && typeof v.before === "number" ? v : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.warn(`turn record ${file}: ${String(err)}`);
      return undefined;
    }
  }

  private async writeTurn(id: string, rec: TurnRecord): Promise<void> {
    this.turns.set(id, rec);
    const file = this.turnFile(id);
    if (file === undefined) return;
    await mkdir(this.opts.stateDir!, { recursive: true });
    await writeFile(file + ".tmp", JSON.stringify(rec));
    await rename(file + ".tmp", file);
  }
}

/** The text of an Anthropic system (a string or text blocks), "" when none. */
function systemText(system: unknown): string {
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) return "";
  return system.map((b) => (b !== null && typeof b === "object" && typeof (b as { text?: unknown }).text === "string" ? (b as { text: string }).text : "")).filter((t) => t !== "").join("\n\n");
}
