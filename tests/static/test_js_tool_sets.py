"""Tools handed over as a set, and what a code tool, a library's tool factory and a hook's matcher make of
them (issue 20's dev misses, fixed by what makes the thing so): a code tool's model writes code that calls
the tools it wraps, so it reaches what they reach; a library's factory gives the tool the library names;
a PreToolUse hook gates the tools its matcher names; SQL assembled only from fragments the code spells
out is classified by its statement."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

TOOL_SET = """
import { tool } from "ai";
import { z } from "zod";
export function createTools(sql: SqlStorage) {
  return {
    addNote: tool({
      description: "Add a note",
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => sql.exec("INSERT INTO notes (text) VALUES (?)", text),
    }),
    listNotes: tool({
      description: "List notes",
      inputSchema: z.object({}),
      execute: async () => sql.exec("SELECT * FROM notes").toArray(),
    }),
  };
}
"""

CODE_AGENT = """
import { createCodeTool } from "@cloudflare/codemode/ai";
import { DynamicWorkerExecutor } from "@cloudflare/codemode";
import { streamText } from "ai";
import { createTools } from "./tools";
export class Notes {
  declare tools: ReturnType<typeof createTools>;
  async onStart() {
    this.tools = createTools(this.ctx.storage.sql);
  }
  async onChatMessage() {
    const executor = new DynamicWorkerExecutor({ loader: this.env.LOADER });
    const extra = this.mcp.getAITools();
    const allTools = { ...this.tools, ...extra };
    const codemode = createCodeTool({ tools: allTools, executor });
    return streamText({ model: this.model, tools: { codemode } });
  }
}
"""


def test_a_code_tool_reaches_what_the_tools_its_code_can_call_reach(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.ts": TOOL_SET, "server.ts": CODE_AGENT})
    reached = actions_reached(bundle, "codemode")
    assert ("code.exec", "server.ts", 15) in reached
    assert ("db.write", "tools.ts", 9) in reached  # the set a function of another file returns
    assert ("db.read", "tools.ts", 14) in reached
    # The tools listed at run time stay visible as what analysis cannot enumerate, by what they are.
    frontier = [f["detail"] for f in bundle["frontier"] if f["kind"] == "runtime_registered_tools"]
    assert len(frontier) == 1 and "this.mcp.getAITools()" in frontier[0]


def test_a_code_tool_over_tools_it_can_all_name_leaves_nothing_unenumerated(tmp_path: Path) -> None:
    agent = """
import { createCodeTool } from "@cloudflare/codemode/ai";
import { createTools } from "./tools";
export function chat(sql: SqlStorage, executor: any) {
  const tools = createTools(sql);
  const codemode = createCodeTool({ tools, executor });
  return codemode;
}
"""
    bundle = scan_files(tmp_path, {"tools.ts": TOOL_SET, "agent.ts": agent})
    assert ("db.write", "tools.ts", 9) in actions_reached(bundle, "codemode")
    assert [f for f in bundle["frontier"] if f["kind"] == "runtime_registered_tools"] == []


UPDATE_TOOL = """
import { tool } from "ai";
import { z } from "zod";
export function createTools(sql: SqlStorage) {
  return {
    updateTask: tool({
      description: "Update a task",
      inputSchema: z.object({ id: z.string(), title: z.string().optional(), column: z.string() }),
      execute: async ({ id, column, ...fields }) => {
        const fieldToColumn: Record<string, string> = { title: "title", sprintId: "sprint_id" };
        const sets: string[] = [];
        const params: unknown[] = [];
        for (const [key, value] of Object.entries(fields)) {
          const col = fieldToColumn[key];
          if (col && value !== undefined) {
            sets.push(`${col} = ?`);
            params.push(value);
          }
        }
        sets.push("updated_at = datetime('now')");
        sql.exec(`UPDATE tasks SET ${sets.join(", ")} WHERE id = ?`, ...params, id);
        const loose: string[] = [];
        loose.push(`${column} = ?`);
        sql.exec(`UPDATE tasks SET ${loose.join(", ")} WHERE id = ?`, id);
      },
    }),
  };
}
"""


def test_sql_assembled_from_fragments_the_code_spells_out_is_classified_by_its_statement(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.ts": UPDATE_TOOL})
    by_line = {a["location"]["line"]: a["actionClass"] for a in bundle["actions"]}
    assert by_line[21] == "db.write"  # columns looked up in a table of literals: an UPDATE
    assert by_line[24] == "sql.exec"  # a column the model names: text executed verbatim


def test_a_library_tool_factory_gives_the_tool_the_library_names_with_its_effect(tmp_path: Path) -> None:
    source = """
import { wiki } from "@llamaindex/tools";
import { agent } from "@llamaindex/workflow";
import { VectorStoreIndex } from "llamaindex";
export async function main(documents: any[]) {
  const index = await VectorStoreIndex.fromDocuments(documents);
  return agent({ tools: [wiki(), index.queryTool({ metadata: { name: "facts" } })] });
}
"""
    bundle = scan_files(tmp_path, {"agent.ts": source})
    assert {t["name"] for t in bundle["tools"]} == {"wikipedia", "facts"}
    assert actions_reached(bundle, "wikipedia") == {("network.egress", "agent.ts", 7)}
    assert actions_reached(bundle, "facts") == {("db.read", "agent.ts", 7)}
    assert [f for f in bundle["frontier"] if f["kind"] == "runtime_registered_tools"] == []


def test_a_pre_tool_use_hook_gates_the_tools_its_matcher_names_and_no_other(tmp_path: Path) -> None:
    source = """
import { query } from "@anthropic-ai/claude-agent-sdk";
const options = {
  allowedTools: ["Bash", "Write", "Read"],
  hooks: {
    PreToolUse: [{ matcher: "Write|Edit", hooks: [async (input: any) => {
      if (!input.tool_input.file_path.startsWith("/work/")) {
        return { decision: "block", stopReason: "write under /work only" };
      }
      return { continue: true };
    }] }],
  },
};
export const run = (prompt: string) => query({ prompt, options });
"""
    bundle = scan_files(tmp_path, {"agent.ts": source})
    (gate,) = [g for g in bundle["gates"] if g["kind"] == "permission_check"]
    gated = {
        t["name"]: gate["id"] in a["gateIds"]
        for a in bundle["actions"]
        for t in bundle["tools"]
        if any(p["toolId"] == t["id"] for p in a["reachedFrom"])
    }
    assert gated == {"Bash": False, "Write": True, "Read": False}


def test_host_and_origin_validation_in_front_of_a_server_is_an_allowlist(tmp_path: Path) -> None:
    source = """
import { createServer } from "node:http";
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from "@modelcontextprotocol/node";
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
export const start = (handler: any) =>
  createServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    void toNodeHandler(handler)(req, res);
  });
"""
    bundle = scan_files(tmp_path, {"server.ts": source})
    assert {(g["kind"], g["location"]["line"]) for g in bundle["gates"]} >= {("allowlist", 8)}


DOCKER_TYPES = """
import Docker from "dockerode";
export interface ToolContext {
  docker: Docker;
}
"""

DOCKER_TOOLS = """
import type { ToolContext } from "./types.js";
async function run(docker: any, id: string, command: string) {
  const container = docker.getContainer(id);
  await container.inspect();
  const exec = await container.exec({ Cmd: ["/bin/bash", "-c", command] });
  return exec;
}
async function handler(params: { id: string; command: string }, context: ToolContext) {
  const { docker } = context;
  await docker.listContainers({ all: true });
  return run(docker, params.id, params.command);
}
export const execCommand = { name: "exec", description: "Run a command", inputSchema, handler };
"""

DOCKER_SERVER = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import Docker from "dockerode";
import { execCommand } from "./tools.js";
const server = new McpServer({ name: "docker", version: "1" });
const context = { docker: new Docker() };
[execCommand].forEach((def) => server.tool(def.name, def.description, {}, async (p: any) => def.handler(p, context)));
"""


def test_a_client_reached_through_an_interface_of_another_file_and_an_untyped_parameter(tmp_path: Path) -> None:
    # ``context: ToolContext`` (``docker: Docker`` in another file) and ``run(docker: any, ...)``, called with
    # that member: the dockerode calls are what they are, reached from the tool whose definition names them.
    bundle = scan_files(tmp_path, {"types.ts": DOCKER_TYPES, "tools.ts": DOCKER_TOOLS, "server.ts": DOCKER_SERVER})
    reached = actions_reached(bundle, "exec")
    assert {
        ("network.egress", "tools.ts", 5),  # await container.inspect()
        ("shell.exec", "tools.ts", 6),  # container.exec({ Cmd: [...] }) in the container
        ("network.egress", "tools.ts", 11),  # await docker.listContainers()
    } <= reached
    assert ("network.egress", "tools.ts", 4) not in reached  # getContainer(id) makes a handle, asks nothing
    (action,) = [a for a in bundle["actions"] if a["actionClass"] == "shell.exec"]
    kinds = {g["id"]: g["kind"] for g in bundle["gates"]}
    assert "sandbox" in {kinds[g] for g in action["gateIds"]}
    assert [f["actionClass"] for f in bundle["taintFlows"] if f["actionClass"] == "shell.exec"] == ["shell.exec"]
