// A typed client of `agentctx serve`: the operations come from
// openapi-fetch over the types openapi-typescript generated from the
// server's OpenAPI document (src/schema.d.ts; `npm run generate` after the
// document changes, test/schema.test.ts fails until then). This file adds
// what a generated client does not give: problem answers as a thrown
// AgentctxError, and the Server-Sent Events of a session as an async
// iterable.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, paths } from "./schema.js";

/** The schemas of the document, by name: `Schemas["NextRequest"]`… */
export type Schemas = components["schemas"];
/** An RFC 9457 problem object: status and a stable code. */
export type Problem = Schemas["Problem"];
/** One Server-Sent Event of a session (compaction, reminder or usage). */
export type Event = Schemas["Event"];

/**
 * A call the server answered with a problem (HTTP status ≥ 400). status and
 * code come from the problem object; when the body was not one (a proxy's
 * error page), code is "" and detail holds the text.
 */
export class AgentctxError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Partial<Problem>;

  constructor(status: number, problem: Partial<Problem>) {
    super(`agentctx: ${status} ${problem.code ?? ""}: ${problem.detail ?? problem.title ?? ""}`);
    this.name = "AgentctxError";
    this.status = problem.status ?? status;
    this.code = problem.code ?? "";
    this.problem = problem;
  }
}

/** Options of {@link createAgentctxClient}. */
export interface Options {
  /** A bearer token of the server's tokens file; none for a server on loopback without tokens. */
  token?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

/** The client: `api` for the typed operations, `events` for a session's stream. */
export interface AgentctxClient {
  /** openapi-fetch's client over the document's paths: `api.POST("/v1/sessions", { body })`. */
  api: Client<paths>;
  /**
   * Opens GET /v1/sessions/{id}/events; the stream is subscribed when the
   * promise resolves, so events of calls made afterwards arrive. Iterate it
   * for Event values; close() (or the signal) ends it. A problem answer
   * rejects with AgentctxError.
   */
  events(id: string, signal?: AbortSignal): Promise<EventStream>;
}

/** A session's open event stream. */
export interface EventStream extends AsyncIterable<Event> {
  close(): void;
}

/**
 * The data of an openapi-fetch result, or an AgentctxError thrown with the
 * problem the server answered: `const s = await ok(api.POST("/v1/sessions", { body: {} }))`.
 */
export async function ok<T>(result: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await result;
  if (!response.ok || error !== undefined) {
    throw new AgentctxError(response.status, toProblem(error));
  }
  return data as T;
}

function toProblem(error: unknown): Partial<Problem> {
  if (error !== null && typeof error === "object") {
    return error as Partial<Problem>;
  }
  return { detail: typeof error === "string" ? error : String(error) };
}

/** A client of the server at baseUrl (e.g. "http://127.0.0.1:8080"). */
export function createAgentctxClient(baseUrl: string, opts: Options = {}): AgentctxClient {
  const base = baseUrl.replace(/\/+$/, "");
  const headers: Record<string, string> = opts.token ? { Authorization: `Bearer ${opts.token}` } : {};
  const doFetch = opts.fetch ?? globalThis.fetch;
  const api = createClient<paths>({ baseUrl: base, headers, fetch: doFetch });
  return {
    api,
    async events(id: string, signal?: AbortSignal): Promise<EventStream> {
      const ctrl = new AbortController();
      signal?.addEventListener("abort", () => ctrl.abort(signal.reason), { once: true });
      const res = await doFetch(`${base}/v1/sessions/${encodeURIComponent(id)}/events`, {
        headers: { ...headers, Accept: "text/event-stream" },
        signal: ctrl.signal,
      });
      if (!res.ok || res.body === null) {
        const text = await res.text();
        let problem: Partial<Problem>;
        try {
          problem = JSON.parse(text) as Partial<Problem>;
        } catch {
          problem = { detail: text };
        }
        throw new AgentctxError(res.status, problem);
      }
      const body = res.body;
      return {
        close: () => ctrl.abort(),
        [Symbol.asyncIterator]: () => parseSSE(body, ctrl),
      };
    },
  };
}

/**
 * The events of an SSE body: a blank line dispatches the data lines read
 * since the last one (WHATWG HTML, "Server-sent events", interpreting an
 * event stream); comments (":" lines, the keep-alives) are skipped, and
 * the "event" and "id" fields repeat the JSON's kind and seq.
 */
async function* parseSSE(body: ReadableStream<Uint8Array>, ctrl: AbortController): AsyncGenerator<Event> {
  const decoder = new TextDecoder();
  let buf = "";
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (ctrl.signal.aborted) return;
        throw err;
      }
      if (chunk.done) return;
      buf += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        if (buf[nl] === "\r" && nl === buf.length - 1) break; // a "\n" may follow
        const line = buf.slice(0, nl);
        buf = buf.slice(buf[nl] === "\r" && buf[nl + 1] === "\n" ? nl + 2 : nl + 1);
        if (line === "") {
          if (data.length > 0) yield JSON.parse(data.join("\n")) as Event;
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (name === "data") data.push(value);
      }
    }
  } finally {
    ctrl.abort();
    reader.releaseLock();
  }
}
