"""Tools written as classes (issue 20): a class of the tree that names itself (a ``name`` field, a ``getName()``
method, ``this.name = ...`` or ``super({ name })`` in its constructor) whose instances are gathered and served
to a model, by a lookup by name inside a CallTool handler or by a listing of ``this.name`` in the class or a
base of it, is a tool of that name run by the method the dispatch calls. A class with a name nothing gathers,
and a table of handlers no model is served, make no tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.static.scanned import actions_reached, scan_files

_BASE = """export abstract class ShellBase {
  abstract name: string;
  abstract inputSchema: object;
  abstract execute(args: any): Promise<unknown>;
  protected ok(text: string) { return { content: [{ type: "text", text }] }; }
}
"""

_RUN = """import { execSync } from "child_process";
import { ShellBase } from "./base.js";
export class RunTool extends ShellBase {
  name = "run_command";
  description = "Run a shell command";
  inputSchema = { type: "object", properties: { cmd: { type: "string" } } };
  async execute(args: any) {
    return this.ok(execSync(args.cmd).toString());
  }
}
"""

_WRITE = """import { writeFileSync } from "fs";
import { ShellBase } from "./base.js";
export class WriteTool extends ShellBase {
  name = "write_file";
  description = "Write a file";
  inputSchema = { type: "object", properties: { path: { type: "string" } } };
  async execute(args: any) {
    writeFileSync(args.path, args.text);
    return this.ok("done");
  }
}
"""

_REGISTRY = """import { RunTool } from "./run.js";
import { WriteTool } from "./write.js";
export class Registry {
  private tools = new Map<string, any>();
  constructor() {
    const all = [new RunTool(), new WriteTool()];
    for (const tool of all) this.tools.set(tool.name, tool);
  }
  get(name: string) { return this.tools.get(name); }
  list() { return Array.from(this.tools.values()); }
}
"""

_SERVER = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Registry } from "./registry.js";
const registry = new Registry();
const server = new Server({ name: "shell", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: registry.list().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const tool = registry.get(request.params.name);
  if (!tool) throw new Error("unknown tool");
  return tool.execute(request.params.arguments);
});
"""


def _tree(server: str = _SERVER, registry: str = _REGISTRY) -> dict[str, str]:
    return {"base.ts": _BASE, "run.ts": _RUN, "write.ts": _WRITE, "registry.ts": registry, "server.ts": server}


def _tools(bundle: dict[str, Any]) -> dict[str, tuple[str, int]]:
    return {t["name"]: (t["location"]["path"], t["location"]["line"]) for t in bundle["tools"]}


def test_classes_gathered_and_dispatched_by_a_call_tool_handler_are_tools(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, _tree())
    assert _tools(bundle) == {"run_command": ("run.ts", 4), "write_file": ("write.ts", 4)}
    assert actions_reached(bundle, "run_command") == {("shell.exec", "run.ts", 8)}
    assert actions_reached(bundle, "write_file") == {("file.write", "write.ts", 8)}


def test_a_class_named_by_a_method_is_named_by_what_the_method_returns(tmp_path: Path) -> None:
    """``getName() { return "..." }`` beside ``listItem()`` / ``handle()``: the method the lookup calls runs it."""
    tool = """import { readFileSync } from "fs";
export class ReadTool {
  getName(): string {
    return "read_file";
  }
  listItem() { return { name: this.getName(), description: "Read", inputSchema: { type: "object" } }; }
  async handle(args: any) { return readFileSync(args.path, "utf-8"); }
}
"""
    server = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ReadTool } from "./read.js";
const map = new Map();
for (const t of [new ReadTool()]) map.set(t.getName(), t);
const server = new Server({ name: "r", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...map.values()].map((t) => t.listItem()) }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  const found = map.get(name);
  return found.handle(args);
});
"""
    bundle = scan_files(tmp_path, {"read.ts": tool, "server.ts": server})
    assert _tools(bundle) == {"read_file": ("read.ts", 4)}
    assert actions_reached(bundle, "read_file") == {("file.read", "read.ts", 7)}


def test_under_a_library_base_the_own_method_the_dispatched_one_calls_runs_the_tool(tmp_path: Path) -> None:
    """``extends BaseToolHandler`` of a package: its ``execute`` runs the class's ``doExecute``."""
    tool = """import { BaseToolHandler } from "mcp-shared";
export class RenderHandler extends BaseToolHandler<any> {
  readonly name = "render";
  readonly description = "Render a diagram";
  readonly inputSchema = { type: "object" };
  protected async doExecute(args: any) {
    return fetch("https://kroki.io/" + args.kind, { method: "POST", body: args.diagram });
  }
}
"""
    server = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ToolRegistry } from "mcp-shared";
import { RenderHandler } from "./render.js";
const registry = new ToolRegistry();
registry.register(new RenderHandler());
const server = new Server({ name: "k", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const handler = registry.getHandler(request.params.name);
  return handler.execute(request.params.arguments);
});
"""
    bundle = scan_files(tmp_path, {"render.ts": tool, "server.ts": server})
    assert _tools(bundle) == {"render": ("render.ts", 3)}
    assert actions_reached(bundle, "render") == {("network.egress", "render.ts", 7)}


_AGENT_BASE = """export abstract class BaseTool {
  name!: string;
  description!: string;
  parameters?: Record<string, any>;
  abstract execute(params?: any): Promise<any>;
  toParam() {
    return { type: "function", function: { name: this.name, description: this.description, parameters: this.parameters } };
  }
}
"""

_AGENT_TOOLS = """import { spawn } from "node:child_process";
import { BaseTool } from "./base.js";
export class Bash extends BaseTool {
  constructor() {
    super();
    this.name = "bash";
  }
  async execute(params: any) { return spawn("sh", ["-c", params.command]); }
}
export class PythonRun extends BaseTool {
  name = "python_run";
  async execute(params: any) { return spawn("python3", ["-c", params.code]); }
}
"""

_AGENT = """import OpenAI from "openai";
import { Bash, PythonRun } from "./tools.js";
export class Collection {
  tools: any[];
  constructor(...tools: any[]) { this.tools = tools; }
  toParams() { return this.tools.map((t) => t.toParam()); }
  async run(name: string, input: any) {
    const tool = this.tools.find((t) => t.name === name);
    return tool.execute(input);
  }
}
const client = new OpenAI();
export async function loop(prompt: string) {
  const tools = new Collection(new Bash());
  const reply = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: prompt }], tools: tools.toParams() as any });
  const call = reply.choices[0].message.tool_calls![0];
  return tools.run(call.function.name, JSON.parse(call.function.arguments));
}
const selfTest = new PythonRun();
"""


def test_an_agent_frameworks_tool_classes_listed_by_their_base_are_tools(tmp_path: Path) -> None:
    """``toParam()`` of the base lists ``this.name``; the collection dispatches by name. ``PythonRun`` is
    only ever bound to a variable: never gathered for a model, no tool."""
    bundle = scan_files(tmp_path, {"base.ts": _AGENT_BASE, "tools.ts": _AGENT_TOOLS, "agent.ts": _AGENT})
    assert _tools(bundle) == {"bash": ("tools.ts", 6)}
    assert actions_reached(bundle, "bash") == {("shell.exec", "tools.ts", 8)}


def test_a_base_class_registering_this_name_makes_each_registered_subclass_a_tool(tmp_path: Path) -> None:
    base = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
export abstract class BaseTool {
  abstract name: string;
  abstract description: string;
  abstract schema: any;
  register(server: McpServer) {
    server.tool(this.name, this.description, this.schema.shape, this.execute.bind(this));
  }
  abstract execute(args: any): Promise<any>;
}
"""
    tool = """import { BaseTool } from "./base.js";
const NAME = "fetch_page";
export class FetchTool extends BaseTool {
  name = NAME;
  description = "Fetch a page";
  schema = {};
  async execute(args: any) { return fetch(args.url); }
}
"""
    main = """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { FetchTool } from "./fetch.js";
const server = new McpServer({ name: "m", version: "1" });
new FetchTool().register(server);
"""
    bundle = scan_files(tmp_path, {"base.ts": base, "fetch.ts": tool, "main.ts": main})
    assert _tools(bundle) == {"fetch_page": ("fetch.ts", 4)}
    assert actions_reached(bundle, "fetch_page") == {("network.egress", "fetch.ts", 7)}


def test_a_named_class_nothing_gathers_is_no_tool(tmp_path: Path) -> None:
    """The server dispatches by name, but ``WriteTool`` is only built into a variable of its own."""
    registry = _REGISTRY.replace("const all = [new RunTool(), new WriteTool()];", "const all = [new RunTool()];")
    registry += "export const spare = new WriteTool();\n"
    bundle = scan_files(tmp_path, _tree(registry=registry))
    assert _tools(bundle) == {"run_command": ("run.ts", 4)}


def test_a_table_of_handlers_no_model_is_served_makes_no_tool(tmp_path: Path) -> None:
    """Commands gathered in a Map and dispatched by name from the command line: no CallTool handler, no
    listing of their names to a model."""
    cli = """import { RunTool } from "./run.js";
import { WriteTool } from "./write.js";
const commands = new Map();
for (const c of [new RunTool(), new WriteTool()]) commands.set(c.name, c);
export async function main(argv: string[]) {
  const commandName = argv[2];
  const command = commands.get(commandName);
  return command.execute({ cmd: argv[3] });
}
"""
    bundle = scan_files(tmp_path, {"base.ts": _BASE, "run.ts": _RUN, "write.ts": _WRITE, "cli.ts": cli})
    assert _tools(bundle) == {}


def test_a_named_data_class_without_methods_is_no_tool(tmp_path: Path) -> None:
    data = """export class Setting {
  name = "theme";
  description = "The colour theme";
  inputSchema = { type: "object" };
}
"""
    server = _SERVER.replace(
        'import { Registry } from "./registry.js";',
        'import { Registry } from "./registry.js";\nimport { Setting } from "./setting.js";\nexport const settings = [new Setting()];',
    )
    bundle = scan_files(tmp_path, {**_tree(server), "setting.ts": data})
    assert set(_tools(bundle)) == {"run_command", "write_file"}
