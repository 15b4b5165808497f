package proxy

import (
	"strings"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
)

// MCPToolName returns the name under which an agent speaking wire presents
// to its model the tool tool of the MCP server it has configured as
// server:
//
//   - the Gemini API (Gemini CLI): "mcp_" + server + "_" + tool, every
//     character outside [A-Za-z0-9_.:-] replaced by '_', as Gemini CLI
//     0.61.0 names discovered MCP tools (packages/core/src/tools/mcp-tool.ts,
//     generateValidName: the fully qualified name is sent to the model
//     whatever the conflicts; names over 63 characters are cut in the
//     middle there, which this does not imitate);
//   - every other wire: "mcp__" + server + "__" + tool, Claude Code's
//     naming (its permission rules and tool list use mcp__server__tool)
//     and Codex CLI's ("standard MCP identifiers such as mcp__server__tool",
//     in the prompt of Codex 0.169.0).
//
// An empty server or tool gives "".
func MCPToolName(wire Wire, server, tool string) string {
	if server == "" || tool == "" {
		return ""
	}
	if wire == WireGemini {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == '.' || r == ':' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
				return r
			}
			return '_'
		}, "mcp_"+server+"_"+tool)
	}
	return "mcp__" + server + "__" + tool
}

// recallToolName is the name the limiter's notes give the recall tool in a
// session of wire whose agent sends tools: [Options].MCPServer's
// recall_output as the agent names it, else an MCP recall_output the agent
// declares itself (mcp__NAME__recall_output or mcp_NAME_recall_output:
// an `agentctx mcp` it has configured, whose tools it sent), else "" (the
// Engine names recall_output when the agent has that tool).
func (p *Proxy) recallToolName(wire Wire, tools []chat.ToolDef) string {
	if n := MCPToolName(wire, p.opts.MCPServer, agentctx.RecallToolName); n != "" {
		return n
	}
	for _, t := range tools {
		rest, ok := strings.CutPrefix(t.Name, "mcp_")
		if !ok {
			continue
		}
		if strings.HasSuffix(rest, "__"+agentctx.RecallToolName) && strings.HasPrefix(rest, "_") ||
			strings.HasSuffix(rest, "_"+agentctx.RecallToolName) && wire == WireGemini {
			return t.Name
		}
	}
	return ""
}
