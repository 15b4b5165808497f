// Drives `agentctx mcp` with the official TypeScript MCP SDK's client
// (@modelcontextprotocol/sdk, pinned in .ci/run), for TestMCPConformanceTS.
// Usage: node mcp-conformance.cjs SDK_DIR stdio COMMAND ARG...
//        node mcp-conformance.cjs SDK_DIR http URL
// It lists the tools, calls recall_output twice and context once, and
// prints what it got as one JSON object; the Go test asserts on it.
"use strict";
const path = require("node:path");
const { createRequire } = require("node:module");

async function main() {
  const [sdkDir, mode, ...rest] = process.argv.slice(2);
  const req = createRequire(path.join(sdkDir, "package.json"));
  const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "agentctx-conformance", version: "1.0.0" });
  let transport;
  if (mode === "stdio") {
    const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");
    transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "inherit" });
  } else {
    const { StreamableHTTPClientTransport } = req("@modelcontextprotocol/sdk/client/streamableHttp.js");
    transport = new StreamableHTTPClientTransport(new URL(rest[0]));
  }
  await client.connect(transport);
  const out = { server: client.getServerVersion(), protocol: transport.protocolVersion ?? null };
  const { tools } = await client.listTools();
  out.tools = tools.map((t) => ({ name: t.name, required: t.inputSchema.required ?? [], properties: Object.keys(t.inputSchema.properties ?? {}) }));
  const text = (r) => ({ isError: !!r.isError, text: r.content.filter((c) => c.type === "text").map((c) => c.text).join("") });
  out.query = text(await client.callTool({ name: "recall_output", arguments: { call_id: "toolu_log1", query: "FAIL" } }));
  out.lines = text(await client.callTool({ name: "recall_output", arguments: { call_id: "toolu_log1", start_line: 10, end_line: 12 } }));
  out.unknown = text(await client.callTool({ name: "recall_output", arguments: { call_id: "toolu_nope" } }));
  const ctx = await client.callTool({ name: "context", arguments: {} });
  out.context = { isError: !!ctx.isError, structured: ctx.structuredContent ?? null };
  await client.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
  process.exit(1);
});
