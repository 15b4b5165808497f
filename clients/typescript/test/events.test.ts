// events()'s Server-Sent Events parsing, offline (an injected fetch): the
// stream split into chunks at every offset, a CRLF pair split across two
// chunks included, must give the same events; comments skipped, data lines
// joined, an event without its closing blank line not dispatched; a
// problem answer rejects with AgentctxError.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { AgentctxError, createAgentctxClient, type Event } from "../src/index.js";

function ev(seq: number, kind: Event["kind"], extra: Partial<Event> = {}): Event {
  return { seq, session: "s1", time: "2026-01-01T00:00:00Z", kind, ...extra };
}

const usage = ev(1, "usage", { usage: { prompt_tokens: 120 } });
const comp = JSON.stringify(ev(2, "compaction", { compaction: { levels: ["L1"], tokens_before: 9, tokens_after: 3 } }));
// Split between two JSON tokens: the data lines join with "\n", white space to JSON.
const cut = comp.indexOf(',"time"');
const text =
  ": agentctx events of session s1\n\n" +
  `id: 1\nevent: usage\ndata: ${JSON.stringify(usage)}\n\n` +
  ": keep-alive\r\n\r\n" +
  `id: 2\r\nevent: compaction\r\ndata:${comp.slice(0, cut)}\r\ndata: ${comp.slice(cut)}\r\nretry: 10\r\n\r\n` +
  `data: ${JSON.stringify(ev(3, "usage"))}\n`; // no blank line: not dispatched

function fakeFetch(chunks: string[], status = 200): typeof fetch {
  return async () => {
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const s of chunks) c.enqueue(enc.encode(s));
        c.close();
      },
    });
    return new Response(body, { status, headers: { "Content-Type": status === 200 ? "text/event-stream" : "application/problem+json" } });
  };
}

async function collect(chunks: string[]): Promise<Event[]> {
  const c = createAgentctxClient("http://agentctx.test", { fetch: fakeFetch(chunks) });
  const out: Event[] = [];
  for await (const e of await c.events("s1")) out.push(e);
  return out;
}

test("events parse the same at every chunk boundary", async () => {
  const whole = await collect([text]);
  assert.deepEqual(whole.map((e) => e.seq), [1, 2]);
  assert.deepEqual(whole[0], usage);
  assert.deepEqual(whole[1]?.compaction?.levels, ["L1"]);
  for (let i = 1; i < text.length; i++) {
    assert.deepEqual(await collect([text.slice(0, i), text.slice(i)]), whole, `split at ${i}`);
  }
});

test("a problem answer rejects with AgentctxError", async () => {
  const problem = { type: "about:blank", title: "Not Found", status: 404, code: "not-found", detail: "no session s1" };
  const c = createAgentctxClient("http://agentctx.test", { fetch: fakeFetch([JSON.stringify(problem)], 404) });
  await assert.rejects(c.events("s1"), (err: unknown) => {
    assert.ok(err instanceof AgentctxError);
    assert.deepEqual([err.status, err.code, err.problem.detail], [404, "not-found", "no session s1"]);
    return true;
  });
  const html = createAgentctxClient("http://agentctx.test", { fetch: fakeFetch(["<html>bad gateway</html>"], 502) });
  await assert.rejects(html.events("s1"), { status: 502, code: "" });
});
