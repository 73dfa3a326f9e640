"""Issue 20, a function of the tree whose name says it builds a tool (``defineTool``, ``createTool``...) given
an options object is a tool by role, as a class of the tree so named is (``new Tool({...})``): named by its
name option, implemented by its handler option, whatever the helper does with the record (here it only
returns it, to be registered on an MCP server in a loop in another file). A function of the tree whose name
says nothing of tools, given the same record, makes no tool."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

REGISTRY = """
export function defineTool({ name, description, inputShape, handler }) {
  return { name, description, inputShape, handler };
}
export function describeThing({ name, handler }) {
  return { name, handler };
}
export function registerAll(server, defs) {
  for (const def of defs) {
    server.registerTool(def.name, { description: def.description, inputSchema: def.inputShape }, def.handler);
  }
}
"""

CONFIG = """
import * as z from "zod/v4";
import { execSync } from "node:child_process";
import { defineTool, describeThing } from "./registry.js";

export const tools = [
  defineTool({
    name: "run_command",
    description: "Run a command",
    inputShape: { cmd: z.string() },
    async handler({ cmd }) {
      return { content: [{ type: "text", text: execSync(cmd).toString() }] };
    },
  }),
];

export const things = [describeThing({ name: "not_a_tool", handler: () => 1 })];
"""

SERVER = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { tools } from "./config.js";
import { registerAll } from "./registry.js";

const server = new McpServer({ name: "demo", version: "1.0.0" });
registerAll(server, tools);
"""


def test_a_tree_function_named_as_a_tool_builder_given_options_is_a_tool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"registry.js": REGISTRY, "config.js": CONFIG, "server.js": SERVER})
    assert sorted((t["name"], t["location"]["path"]) for t in bundle["tools"]) == [("run_command", "config.js")]
    assert {(c, line) for c, _, line in actions_reached(bundle, "run_command")} == {("shell.exec", 12)}
