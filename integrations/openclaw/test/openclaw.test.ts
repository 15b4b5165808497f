// End to end with the real OpenClaw: one OpenClaw Gateway (`openclaw
// gateway run` on a free loopback port, token auth) with this plugin
// loaded from the package folder and selected as the context engine, and
// twenty turns of `openclaw agent` sent to it in one session (the
// Gateway's agent run, the same as --local's embedded one, without a cold
// start per turn), against a live `agentctx serve` ($AGENTCTX_URL,
// $AGENTCTX_TOKEN) and a scripted model on the OpenAI Chat Completions
// wire ($AGENTCTX_MODEL_URL, the base URL). OpenClaw is the pinned npm
// package in $AGENTCTX_OPENCLAW_DIR run by the Node.js 24 binary
// $AGENTCTX_NODE24 (it needs node:sqlite). Its home, state, workspace and
// log are a temporary folder; update checks, Bonjour, channels and cron
// are off. Each turn the model reads one or two files of the workspace
// with OpenClaw's own read tool and answers with their line counts, or
// answers a note without a tool. The Go test TestIntegrationsOpenClaw
// (internal/cli) starts the server and the model, and afterwards checks
// every request the model received. Skipped when the variables are unset.
import { strict as assert } from "node:assert";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createAgentctxClient, ok } from "agentctx-client";

const url = process.env.AGENTCTX_URL ?? "";
const modelURL = process.env.AGENTCTX_MODEL_URL ?? "";
const sessionId = process.env.AGENTCTX_SESSION ?? "";
const node24 = process.env.AGENTCTX_NODE24 ?? "";
const openclawDir = process.env.AGENTCTX_OPENCLAW_DIR ?? "";
const skip = url && modelURL && sessionId && node24 && openclawDir ? false :
  "AGENTCTX_URL, AGENTCTX_MODEL_URL, AGENTCTX_SESSION, AGENTCTX_NODE24 or AGENTCTX_OPENCLAW_DIR is not set";

/**
 * The scripted conversation: twenty turns of three kinds, each with the
 * answer OpenClaw must print. "what is in F?" is a call of OpenClaw's read
 * tool on F and its line count; "compare F and G." two read calls in one
 * assistant message and both counts; "note N." an answer without a tool.
 * The files are 20 to 60 lines (~500-1,500 tokens each), so the history
 * outgrows the budget of 4,000 tokens every few turns and is compacted
 * several times. The Go test's scripted model (openclawScript) follows
 * the same prompts.
 */
const turns: Array<{ prompt: string; answer: string }> = [];
const files = new Map<string, number>();
for (let i = 1; i <= 20; i++) {
  const file = (k: number) => {
    const name = `file${k}.go`;
    files.set(name, 20 + ((k * 7) % 41));
    return name;
  };
  if (i % 5 === 0) {
    turns.push({ prompt: `Turn ${i}: note ${i}.`, answer: `Noted ${i}.` });
  } else if (i % 4 === 3) {
    const [a, b] = [file(i), file(i + 100)];
    turns.push({ prompt: `Turn ${i}: compare ${a} and ${b}.`, answer: `${a} holds ${files.get(a)} lines. ${b} holds ${files.get(b)} lines.` });
  } else {
    const a = file(i);
    turns.push({ prompt: `Turn ${i}: what is in ${a}?`, answer: `${a} holds ${files.get(a)} lines.` });
  }
}
const budget = 4000;

/** The package's folder: OpenClaw loads the plugin from it (plugins.load.paths). */
const pluginDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A source file of n lines, ~25 tokens a line. */
function source(path: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `// ${path} line ${i + 1}: func step${i}() { return compute(${i}, "${path}") }\n`).join("");
}

/** A free loopback port for the Gateway. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.on("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => done(port));
    });
  });
}

/** Starts the OpenClaw CLI with args, its output collected. */
function start(args: string[], env: NodeJS.ProcessEnv): { proc: ChildProcess; out: { stdout: string; stderr: string } } {
  const proc = spawn(node24, [join(openclawDir, "node_modules", "openclaw", "openclaw.mjs"), ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  proc.stdout?.on("data", (b: Buffer) => (out.stdout += b.toString()));
  proc.stderr?.on("data", (b: Buffer) => (out.stderr += b.toString()));
  return { proc, out };
}

/** Runs the OpenClaw CLI with args; resolves with its exit code, stdout and stderr. */
function openclaw(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const { proc, out } = start(args, env);
    const timer = setTimeout(() => proc.kill("SIGKILL"), 240_000);
    proc.on("error", fail);
    proc.on("close", (code) => {
      clearTimeout(timer);
      done({ code, ...out });
    });
  });
}

/** Waits until the Gateway on port answers /readyz with 200, or fails after timeoutMs (with its output). */
async function ready(port: number, gateway: { proc: ChildProcess; out: { stdout: string; stderr: string } }, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gateway.proc.exitCode !== null) throw new Error(`the Gateway exited ${gateway.proc.exitCode}:\n${gateway.out.stderr}\n${gateway.out.stdout}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the Gateway is not ready after ${timeoutMs} ms:\n${gateway.out.stderr}\n${gateway.out.stdout}`);
}

test("twenty turns of the real OpenClaw Gateway keep their history in agentctx", { skip, timeout: 1_500_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), "agentctx-openclaw-"));
  let gateway: { proc: ChildProcess; out: { stdout: string; stderr: string } } | undefined;
  try {
    const home = join(root, "home");
    const state = join(root, "state");
    const workspace = join(root, "workspace");
    for (const d of [home, state, workspace]) await mkdir(d, { recursive: true });
    for (const [name, n] of files) await writeFile(join(workspace, name), source(name, n));
    const port = await freePort();
    const logFile = join(root, "openclaw.log");
    const gatewayToken = randomBytes(16).toString("hex");
    const config = {
      update: { checkOnStart: false },
      logging: { file: logFile },
      discovery: { mdns: { mode: "off" } },
      gateway: { mode: "local", port, bind: "loopback", auth: { mode: "token", token: gatewayToken } },
      models: {
        // No hosted model catalog (the Gateway would fetch
        // catalog.openclaw.ai at startup).
        catalogRefresh: { enabled: false },
        mode: "replace",
        providers: {
          scripted: {
            baseUrl: modelURL,
            apiKey: "sk-test",
            api: "openai-completions",
            models: [{ id: "gpt-4o", name: "scripted", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }],
          },
        },
      },
      agents: { defaults: { model: { primary: "scripted/gpt-4o" }, workspace } },
      plugins: {
        load: { paths: [pluginDir] },
        slots: { contextEngine: "agentctx" },
        entries: { agentctx: { enabled: true, config: { url, budget } } },
      },
    };
    const configPath = join(root, "openclaw.json");
    await writeFile(configPath, JSON.stringify(config, null, 2));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      OPENCLAW_STATE_DIR: state,
      OPENCLAW_CONFIG_PATH: configPath,
      OPENCLAW_NO_AUTO_UPDATE: "1",
      OPENCLAW_OFFLINE: "1",
      OPENCLAW_DISABLE_BONJOUR: "1",
      OPENCLAW_SKIP_CHANNELS: "1",
      OPENCLAW_SKIP_CRON: "1",
      OPENCLAW_GATEWAY_TOKEN: gatewayToken,
      AGENTCTX_TOKEN: process.env.AGENTCTX_TOKEN,
    };

    // One Gateway (it loads the plugin once); each turn is `openclaw
    // agent` sent to it, the same agent run as --local without a cold
    // start of the embedded agent.
    const t0 = Date.now();
    gateway = start(["gateway", "run", "--port", String(port), "--bind", "loopback"], env);
    await ready(port, gateway, 180_000);
    console.log(`# the Gateway ready in ${Date.now() - t0} ms`);
    for (const [n, turn] of turns.entries()) {
      const t1 = Date.now();
      const r = await openclaw(["agent", "--session-id", sessionId, "--json", "--timeout", "180", "-m", turn.prompt], env);
      assert.equal(r.code, 0, `turn ${n + 1}: exit ${r.code}\n${r.stderr}\n${r.stdout.slice(0, 2000)}`);
      assert.doesNotMatch(r.stderr, /context engine .*failed|degraded to|quarantin|agentctx\]/i, `turn ${n + 1}: ${r.stderr}`);
      // The Gateway's reply: the run's status and its result, the
      // payloads OpenClaw would deliver.
      const out = JSON.parse(r.stdout) as { status?: string; result?: { payloads?: Array<{ text?: string }>; meta?: { agentMeta?: { sessionId?: string } } } };
      assert.equal(out.status, "ok", r.stdout.slice(0, 2000));
      assert.deepEqual(out.result?.payloads?.map((p) => p.text), [turn.answer], r.stdout.slice(0, 2000));
      assert.equal(out.result?.meta?.agentMeta?.sessionId, sessionId);
      console.log(`# turn ${n + 1}: ${Date.now() - t1} ms`);
    }
    // OpenClaw falls back to its legacy engine, and says so, when an
    // engine fails: then the model was not sent the managed window.
    const log = await readFile(logFile, "utf8");
    // The Gateway's log (console and file): the plugin loaded, no engine
    // failure.
    assert.match(log, /plugins: [^)]*\bagentctx\b/, "the Gateway's log does not list the plugin");
    assert.doesNotMatch(gateway.out.stderr + gateway.out.stdout + log, /context engine .*failed|degraded to|quarantin|agentctx\]/i);

    // The session in agentctx was compacted to the budget, and its store
    // holds every turn whole: the prompt, the read calls, their results
    // (the files' lines) and the answer.
    const client = createAgentctxClient(url, { token: process.env.AGENTCTX_TOKEN });
    const id = `openclaw-${sessionId}`;
    const s = await ok(client.api.GET("/v1/sessions/{id}", { params: { path: { id } } }));
    assert.equal(s.metadata?.integration, "openclaw");
    assert.ok((s.compactions ?? 0) >= 3, JSON.stringify(s));
    const exported = await client.api.GET("/v1/sessions/{id}/export", { params: { path: { id } }, parseAs: "text" });
    // The store's entries, in order (compactions add their own after them).
    const entries = String(exported.data).trim().split("\n").map((l) => JSON.parse(l) as {
      type: string;
      message?: { role: string; parts?: Array<{ type: string; text?: string; name?: string; arguments?: { path?: string } }> };
      toolResult?: { id: string; name: string; output: string };
    });
    for (const [n, turn] of turns.entries()) {
      const prompt = entries.findIndex((e) => e.type === "user" && e.message?.parts?.some((p) => p.text === turn.prompt));
      assert.ok(prompt >= 0, `the store has no prompt of turn ${n + 1}`);
      const next = entries.findIndex((e, j) => j > prompt && e.type === "user");
      const own = entries.slice(prompt + 1, next < 0 ? undefined : next).filter((e) => e.type === "assistant" || e.type === "tool_result");
      const read = [...turn.prompt.matchAll(/file\d+\.go/g)].map((m) => m[0]);
      const calls = own.flatMap((e) => e.message?.parts?.filter((p) => p.type === "tool_call").map((p) => [p.name, p.arguments?.path]) ?? []);
      assert.deepEqual(calls, read.map((f) => ["read", f]), `turn ${n + 1}: ${JSON.stringify(own).slice(0, 1500)}`);
      for (const file of read) {
        const last = `${file} line ${files.get(file)}:`;
        // The whole output: on the result, or beside it when the service's
        // limiter cut the result the window holds.
        assert.ok(entries.some((e) => (e.type === "tool_result" || e.type === "agentctx_tool_output") && e.toolResult?.name === "read" && JSON.stringify(e.toolResult).includes(last)), `the store lacks ${last}`);
      }
      const answer = own.at(-1);
      assert.deepEqual(answer?.message?.parts?.filter((p) => p.type === "text").map((p) => p.text), [turn.answer], JSON.stringify(answer));
    }
    const req = await ok(client.api.POST("/v1/sessions/{id}/request", { params: { path: { id } }, body: { format: "anthropic" } }));
    assert.equal(req.budget, budget);
    assert.ok(req.tokens <= budget, `the window is ${req.tokens} tokens, over ${budget}`);
    const window = JSON.stringify(req.body);
    assert.ok(window.includes(turns.at(-1)!.answer), window.slice(-2000));
    assert.ok(!window.includes(`file1.go line ${files.get("file1.go")}:`), "the first turn's whole output is still in the window");
    console.log(`# window ${req.tokens} tokens of ${req.budget}, ${s.compactions} compactions`);
  } finally {
    if (gateway && gateway.proc.exitCode === null) {
      const exited = new Promise((r) => gateway!.proc.on("close", r));
      gateway.proc.kill("SIGTERM");
      const timer = setTimeout(() => gateway!.proc.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(root, { recursive: true, force: true });
  }
});
