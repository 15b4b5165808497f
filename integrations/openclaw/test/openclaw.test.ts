// End to end with the real OpenClaw: three turns of `openclaw agent
// --local` (its embedded agent, one process per turn, one session) with
// this plugin loaded from the package folder and selected as the context
// engine, against a live `agentctx serve` ($AGENTCTX_URL, $AGENTCTX_TOKEN)
// and a scripted model on the OpenAI Chat Completions wire
// ($AGENTCTX_MODEL_URL, the base URL). OpenClaw is the pinned npm package
// in $AGENTCTX_OPENCLAW_DIR run by the Node.js 24 binary $AGENTCTX_NODE24
// (it needs node:sqlite). Its home, state and workspace are a temporary
// folder; update checks are off. Each turn the model calls OpenClaw's own
// read tool on fileN.go of the workspace and answers with its line count.
// The Go test TestIntegrationsOpenClaw (internal/cli) starts the server
// and the model, and afterwards checks every request the model received.
// Skipped when the variables are unset.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
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
 * The turns and the history's budget: a turn is ~1,080 tokens, so the
 * second turn's history (the first) fits, the third's (two turns) is
 * compacted.
 */
const turns = 3;
const budget = 2000;

/** The package's folder: OpenClaw loads the plugin from it (plugins.load.paths). */
const pluginDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A source file of 40 lines, ~1,000 tokens. */
function source(path: string): string {
  return Array.from({ length: 40 }, (_, i) => `// ${path} line ${i + 1}: func step${i}() { return compute(${i}, "${path}") }\n`).join("");
}

/** Runs the OpenClaw CLI with args; resolves with its exit code, stdout and stderr. */
function openclaw(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const p = spawn(node24, [join(openclawDir, "node_modules", "openclaw", "openclaw.mjs"), ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    p.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => p.kill("SIGKILL"), 240_000);
    p.on("error", fail);
    p.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

test("three turns of the real OpenClaw keep their history in agentctx", { skip, timeout: 900_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), "agentctx-openclaw-"));
  try {
    const home = join(root, "home");
    const state = join(root, "state");
    const workspace = join(root, "workspace");
    for (const d of [home, state, workspace]) await mkdir(d, { recursive: true });
    for (let i = 1; i <= turns; i++) await writeFile(join(workspace, `file${i}.go`), source(`file${i}.go`));
    const config = {
      update: { checkOnStart: false },
      models: {
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
      AGENTCTX_TOKEN: process.env.AGENTCTX_TOKEN,
    };

    for (let i = 1; i <= turns; i++) {
      const r = await openclaw(["agent", "--local", "--session-id", sessionId, "--json", "-m", `Turn ${i}: what is in file${i}.go?`], env);
      assert.equal(r.code, 0, `turn ${i}: exit ${r.code}\n${r.stderr}`);
      // OpenClaw falls back to its legacy engine, and says so, when an
      // engine fails: then the model was not sent the managed window.
      assert.doesNotMatch(r.stderr, /context engine .*failed|degraded to|quarantin|agentctx\]/i, `turn ${i}: ${r.stderr}`);
      const out = JSON.parse(r.stdout) as { payloads: Array<{ text?: string }>; meta: { agentMeta?: { sessionId?: string } } };
      assert.deepEqual(out.payloads.map((p) => p.text), [`file${i}.go holds 40 lines.`], r.stdout.slice(0, 2000));
      assert.equal(out.meta.agentMeta?.sessionId, sessionId);
    }

    // The session in agentctx was compacted to the budget, and its store
    // holds every turn whole: the prompt, the read call, its result (the
    // file's 40 lines) and the answer.
    const client = createAgentctxClient(url, { token: process.env.AGENTCTX_TOKEN });
    const id = `openclaw-${sessionId}`;
    const s = await ok(client.api.GET("/v1/sessions/{id}", { params: { path: { id } } }));
    assert.equal(s.metadata?.integration, "openclaw");
    assert.ok((s.compactions ?? 0) > 0, JSON.stringify(s));
    const exported = await client.api.GET("/v1/sessions/{id}/export", { params: { path: { id } }, parseAs: "text" });
    // The store's entries, in order (compactions add their own after them).
    const entries = String(exported.data).trim().split("\n").map((l) => JSON.parse(l) as {
      type: string;
      message?: { role: string; parts?: Array<{ type: string; text?: string; name?: string; arguments?: { path?: string } }> };
      toolResult?: { id: string; name: string; output: string };
    });
    for (let i = 1; i <= turns; i++) {
      const file = `file${i}.go`;
      const prompt = entries.findIndex((e) => e.type === "user" && e.message?.parts?.some((p) => p.text === `Turn ${i}: what is in ${file}?`));
      assert.ok(prompt >= 0, `the store has no prompt of turn ${i}`);
      const [call, result, answer] = entries.slice(prompt + 1).filter((e) => e.type === "assistant" || e.type === "tool_result");
      assert.deepEqual(call?.message?.parts?.filter((p) => p.type === "tool_call").map((p) => [p.name, p.arguments?.path]), [["read", file]], JSON.stringify(call));
      assert.equal(result?.toolResult?.name, "read", JSON.stringify(result).slice(0, 1000));
      // The whole output: on the result, or beside it when the service's
      // limiter cut the result the window holds.
      const outputs = entries.filter((e) => (e.type === "tool_result" || e.type === "agentctx_tool_output") && e.toolResult?.id === result?.toolResult?.id);
      assert.ok(outputs.some((e) => JSON.stringify(e.toolResult).includes(`${file} line 40:`)), JSON.stringify(outputs).slice(0, 1500));
      assert.deepEqual(answer?.message?.parts?.filter((p) => p.type === "text").map((p) => p.text), [`${file} holds 40 lines.`]);
    }
    const req = await ok(client.api.POST("/v1/sessions/{id}/request", { params: { path: { id } }, body: { format: "anthropic" } }));
    assert.equal(req.budget, budget);
    assert.ok(req.tokens <= budget, `the window is ${req.tokens} tokens, over ${budget}`);
    const window = JSON.stringify(req.body);
    assert.ok(window.includes(`file${turns}.go holds 40 lines.`), window.slice(-2000));
    assert.ok(!window.includes("file1.go line 40:"), "the first turn's whole output is still in the window");
    console.log(`# window ${req.tokens} tokens of ${req.budget}, ${s.compactions} compactions`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
