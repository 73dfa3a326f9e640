"""Tool objects handed to a registration (issue 20): FastMCP (TypeScript) ``server.addTool({ name, parameters,
execute })``, the object written inline, bound in the file or exported from another module; and a Claude Agent SDK
``query`` a tool's code runs, whose built-ins the tool then reaches (agent-as-tool)."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

SERVER = """
import { FastMCP } from "fastmcp";
import { z } from "zod";
import { execSync } from "child_process";
import { deleteTool } from "./tools/delete.js";

const server = new FastMCP({ name: "ops", version: "1.0.0" });

server.addTool({
  name: "run_command",
  description: "Run a shell command",
  parameters: z.object({ cmd: z.string() }),
  execute: async (args) => execSync(args.cmd).toString(),
});

const listTool = {
  name: "list_dir",
  description: "List a directory",
  parameters: z.object({ dir: z.string() }),
  execute: async ({ dir }: { dir: string }) => JSON.stringify(await readdirOf(dir)),
};

server.addTool(listTool);
server.addTool(deleteTool);
server.start({ transportType: "stdio" });

async function readdirOf(dir: string) {
  const fs = await import("fs/promises");
  return fs.readdir(dir);
}
"""
DELETE = """
import { z } from "zod";
import { store } from "../services/store.js";

export const deleteTool = {
  name: "delete_file",
  description: "Delete a file",
  parameters: z.object({ path: z.string() }),
  execute: async (args: { path: string }) => store.erase(args.path),
};
"""
STORE = """
import { rm } from "fs/promises";

class Store {
  async erase(path: string) {
    await rm(path);
    return "deleted";
  }
}

export const store = new Store();
"""
UNUSED = """
import { z } from "zod";
import { execSync } from "child_process";

export const unusedTool = {
  name: "never_registered",
  parameters: z.object({ cmd: z.string() }),
  execute: async (args: { cmd: string }) => execSync(args.cmd).toString(),
};
"""


def test_tool_objects_given_to_add_tool_are_tools_wherever_they_are_written(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "src/server.ts": SERVER,
            "src/tools/delete.ts": DELETE,
            "src/services/store.ts": STORE,
            "src/tools/unused.ts": UNUSED,
        },
    )
    tools = {t["name"]: t["location"] for t in bundle["tools"]}
    # Named by the name field, located at the definition; an object nothing registers is no tool.
    assert set(tools) == {"run_command", "list_dir", "delete_file"}
    assert (tools["delete_file"]["path"], tools["delete_file"]["line"]) == ("src/tools/delete.ts", 6)
    assert ("shell.exec", "src/server.ts", 13) in actions_reached(bundle, "run_command")
    assert ("file.delete", "src/services/store.ts", 6) in actions_reached(bundle, "delete_file")
    assert not [f for f in bundle["frontier"] if f["kind"] == "runtime_registered_tools"]


def test_a_registration_given_what_analysis_cannot_follow_is_a_frontier_item(tmp_path: Path) -> None:
    source = """
import { FastMCP } from "fastmcp";
import { loadTools } from "./registry.js";
const server = new FastMCP({ name: "ops", version: "1.0.0" });
for (const tool of loadTools()) {
  server.addTool(tool);
}
"""
    bundle = scan_files(tmp_path, {"src/server.ts": source})
    assert bundle["tools"] == []
    details = [f["detail"] for f in bundle["frontier"] if f["kind"] == "runtime_registered_tools"]
    assert any("FastMCP.addTool through tool" in d for d in details), details


AGENT = """
import { query } from "@anthropic-ai/claude-agent-sdk";

export class ImageAgent {
  async generate(brief: string): Promise<string> {
    let out = "";
    for await (const message of query({
      prompt: brief,
      options: {
        allowedTools: ["Read", "Bash", "Write"],
        hooks: {
          PreToolUse: [{ matcher: "Write", hooks: [async (input: any) => {
            if (!input.tool_input.file_path.startsWith("/tmp/")) {
              return { decision: "block", stopReason: "write under /tmp only" };
            }
            return { continue: true };
          }] }],
        },
      },
    })) {
      if (message.type === "result") out = String(message.result);
    }
    return out;
  }
}

export const imageAgent = new ImageAgent();
"""
TOOL = """
import { FastMCP } from "fastmcp";
import { z } from "zod";
import { imageAgent } from "./agent.js";
const server = new FastMCP({ name: "ads", version: "1.0.0" });
server.addTool({
  name: "generate_images",
  parameters: z.object({ brief: z.string() }),
  execute: async ({ brief }) => imageAgent.generate(brief),
});
"""


def test_a_tool_running_a_claude_agent_reaches_what_its_built_ins_do_under_their_hooks(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"src/agent.ts": AGENT, "src/server.ts": TOOL})
    reached = actions_reached(bundle, "generate_images")
    assert {
        ("file.read", "src/agent.ts", 10),
        ("shell.exec", "src/agent.ts", 10),
        ("file.write", "src/agent.ts", 10),
    } <= reached
    (gate,) = [g for g in bundle["gates"] if g["kind"] == "permission_check"]
    tool_id = next(t["id"] for t in bundle["tools"] if t["name"] == "generate_images")
    gated = {
        a["target"]: gate["id"] in a["gateIds"]
        for a in bundle["actions"]
        if any(p["toolId"] == tool_id for p in a["reachedFrom"]) and a["target"].startswith("claude-code.")
    }
    # The hook refuses writes whoever started the agent; it does not stand before Bash or Read.
    assert gated == {"claude-code.Read": False, "claude-code.Bash": False, "claude-code.Write": True}
