// An OpenClaw plugin (its native plugin format: openclaw.plugin.json beside
// package.json, whose "openclaw.extensions" names this module) that
// registers the "agentctx" context engine: OpenClaw keeps its transcript,
// agentctx serve keeps the model's history and hands back, before each
// model call, the window within the budget.
import { join } from "node:path";
import { AgentctxContextEngine, engineId, type AgentctxEngineOptions } from "./engine.js";

export { AgentctxContextEngine, engineId, type AgentctxEngineOptions } from "./engine.js";
export { carriedBlock, fieldsBlock, fromAnthropic, toAnthropic, type AgentMessage, type AnthropicMessage, type Block, type Run } from "./messages.js";

/** The part of OpenClaw's plugin API (OpenClawPluginApi) the plugin uses. */
export interface PluginApi {
  pluginConfig?: Record<string, unknown>;
  runtime?: { state?: { resolveStateDir?: () => string } };
  logger?: { warn?: (message: string) => void };
  registerContextEngine: (id: string, factory: () => AgentctxContextEngine) => void;
}

/** The engine's options from the plugin's config (plugins.entries.agentctx.config) and $AGENTCTX_TOKEN. */
export function optionsFromConfig(config: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv = process.env): AgentctxEngineOptions {
  const c = config ?? {};
  const str = (k: string) => (typeof c[k] === "string" && c[k] !== "" ? (c[k] as string) : undefined);
  const opts: AgentctxEngineOptions = { url: str("url") ?? env.AGENTCTX_URL ?? "" };
  const token = str("token") ?? env.AGENTCTX_TOKEN;
  if (token) opts.token = token;
  if (typeof c.budget === "number" && c.budget > 0) opts.budget = c.budget;
  const model = str("model");
  if (model) opts.model = model;
  const prefix = str("sessionPrefix");
  if (prefix !== undefined) opts.sessionPrefix = prefix;
  return opts;
}

/** The plugin: OpenClaw loads it and calls register once per process. */
const plugin = {
  id: engineId,
  name: "agentctx",
  description: "Context engine backed by agentctx serve",
  register(api: PluginApi): void {
    api.registerContextEngine(engineId, () => {
      const opts = optionsFromConfig(api.pluginConfig);
      const state = api.runtime?.state?.resolveStateDir?.();
      if (state) opts.stateDir = join(state, "agentctx", "turns");
      const warn = api.logger?.warn;
      if (warn) opts.warn = (m) => warn(m);
      return new AgentctxContextEngine(opts);
    });
  },
};

export default plugin;
