"""TypeScript gaps of issue 20: a definition that is not a tool (a Genkit flow) is not taken for an MCP
tool literal; a low-level MCP server whose name switch only prepares a command run after the switch
reaches that command from each tool; an AI SDK ``tool({ needsApproval })`` is gated; Genkit retrieval
and indexing are database reads and writes."""

from __future__ import annotations

from pathlib import Path

from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import EvidenceBundle


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _reach(bundle: EvidenceBundle) -> set[tuple[str, str, int, tuple[str, ...]]]:
    names = {t.id: t.name for t in bundle.tools}
    return {
        (a.actionClass, a.location.path, a.location.line, tuple(sorted(names[p.toolId] for p in a.reachedFrom)))
        for a in bundle.actions
    }


_GENKIT = """import { genkit, z } from "genkit";
import { googleAI } from "@genkit-ai/google-genai";
import { PrismaClient } from "@prisma/client";
const ai = genkit({ plugins: [googleAI()] });
const prisma = new PrismaClient();
export const lookup = ai.defineTool(
  { name: "lookupOrder", description: "Find an order", inputSchema: z.object({ id: z.number() }) },
  async ({ id }) => prisma.order.findUnique({ where: { id } }),
);
export const triage = ai.defineFlow(
  { name: "triageFlow", inputSchema: z.object({ body: z.string() }), outputSchema: z.string() },
  async (input) => {
    await prisma.escalation.create({ data: { body: input.body } });
    const { text } = await ai.generate({ prompt: input.body, tools: [lookup] });
    return text;
  },
);
"""


def test_a_flow_is_not_a_tool_and_its_effects_are_reached_from_no_tool(tmp_path: Path) -> None:
    bundle = scan_tree(_tree(tmp_path, {"src/flows.ts": _GENKIT}))
    assert [(t.name, t.location.line) for t in bundle.tools] == [("lookupOrder", 6)]
    assert _reach(bundle) == {
        ("db.read", "src/flows.ts", 8, ("lookupOrder",)),
        ("db.write", "src/flows.ts", 13, ()),
    }


def test_an_mcp_tool_literal_handed_to_a_registering_call_is_still_a_tool(tmp_path: Path) -> None:
    source = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
const tools = [];
function addTool(def, handler) { tools.push(def); }
addTool({ name: "ping", description: "Ping", inputSchema: { type: "object", properties: {} } }, async () => "pong");
"""
    bundle = scan_tree(_tree(tmp_path, {"src/server.ts": source}))
    assert [t.name for t in bundle.tools] == ["ping"]


_TOOLS = """import type { Tool } from "@modelcontextprotocol/sdk/types.js";
export function createToolDefinitions() {
  return [
    { name: "ng_add", description: "Add a package", inputSchema: { type: "object", properties: { package: { type: "string" } } } },
    { name: "ng_run", description: "Run a target", inputSchema: { type: "object", properties: { target: { type: "string" } } } },
    { name: "ng_version", description: "Version", inputSchema: { type: "object", properties: {} } },
  ] as const satisfies Tool[];
}
"""
_HANDLERS = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema, CallToolRequestSchema, Tool } from "@modelcontextprotocol/sdk/types.js";
import { handleToolCall } from "./toolHandler.js";
export function setupRequestHandlers(server: Server, tools: Tool[]) {
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    handleToolCall(request.params.name, request.params.arguments ?? {})
  );
}
"""
_DISPATCH = """import { spawn } from "child_process";
import { readFileSync } from "fs";
export async function handleToolCall(name: string, args: any) {
  let commandArgs: string[] = [];
  switch (name) {
    case "ng_add": {
      commandArgs = ["ng", "add", args.package];
      break;
    }
    case "ng_run":
      commandArgs = ["ng", "run", args.target];
      break;
    case "ng_version":
      return readFileSync("package.json", "utf8");
    default:
      return "Unknown tool";
  }
  const proc = spawn("npx", commandArgs, { shell: true });
  return String(proc.pid);
}
"""
_INDEX = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { createToolDefinitions } from "./tools.js";
import { setupRequestHandlers } from "./requestHandler.js";
const server = new Server({ name: "ng", version: "1" }, { capabilities: { tools: {} } });
setupRequestHandlers(server, createToolDefinitions());
"""


def test_a_name_switch_that_prepares_a_command_reaches_it_from_each_tool_that_breaks_out(tmp_path: Path) -> None:
    files = {"tools.ts": _TOOLS, "requestHandler.ts": _HANDLERS, "toolHandler.ts": _DISPATCH, "index.ts": _INDEX}
    bundle = scan_tree(_tree(tmp_path, files))
    assert sorted(t.name for t in bundle.tools) == ["ng_add", "ng_run", "ng_version"]
    assert _reach(bundle) == {
        ("shell.exec", "toolHandler.ts", 18, ("ng_add", "ng_run")),
        ("file.read", "toolHandler.ts", 14, ("ng_version",)),
    }
    assert {(f.actionClass, f.sink.line) for f in bundle.taintFlows} == {("shell.exec", 18)}


def test_code_after_a_switch_whose_default_falls_out_still_belongs_to_the_function(tmp_path: Path) -> None:
    source = """import { execSync } from "child_process";
export function run(name: string, args: any) {
  let cmd = "true";
  switch (name) {
    case "build":
      cmd = "make " + args.target;
      break;
    default:
      cmd = "echo unknown";
  }
  execSync(cmd);
}
"""
    bundle = scan_tree(_tree(tmp_path, {"run.ts": source}))
    assert [(a.actionClass, a.location.line) for a in bundle.actions] == [("shell.exec", 11)]


def test_ai_sdk_tool_needs_approval_gates_its_execute(tmp_path: Path) -> None:
    source = """import { streamText, tool } from "ai";
import { openai } from "@ai-sdk/openai";
import { z } from "zod";
import { exec } from "child_process";
const runCommand = tool({
  description: "Run a shell command",
  inputSchema: z.object({ command: z.string() }),
  needsApproval: async ({ command }) => !command.startsWith("ls"),
  execute: async ({ command }) => exec(command),
});
const listFiles = tool({
  description: "List files",
  inputSchema: z.object({ dir: z.string() }),
  needsApproval: false,
  execute: async ({ dir }) => exec("ls " + dir),
});
export const result = streamText({ model: openai("gpt-4o"), tools: { runCommand, listFiles }, prompt: "x" });
"""
    bundle = scan_tree(_tree(tmp_path, {"route.ts": source}))
    gates = {g.id: (g.kind, g.location.line) for g in bundle.gates}
    by_line = {a.location.line: [gates[i] for i in a.gateIds] for a in bundle.actions}
    assert by_line == {9: [("human_approval", 8)], 15: []}


def test_genkit_retrieval_and_indexing_inside_a_tool_are_reads_and_writes(tmp_path: Path) -> None:
    source = """import { genkit, z } from "genkit";
import { googleAI } from "@genkit-ai/google-genai";
import { devLocalRetrieverRef, devLocalIndexerRef } from "@genkit-ai/dev-local-vectorstore";
const ai = genkit({ plugins: [googleAI()] });
const retriever = devLocalRetrieverRef("menu");
export const searchMenu = ai.defineTool(
  { name: "searchMenu", description: "Search the menu", inputSchema: z.object({ q: z.string() }) },
  async ({ q }) => {
    const docs = await ai.retrieve({ retriever, query: q });
    await ai.index({ indexer: devLocalIndexerRef("seen"), documents: docs });
    return docs.map((d) => d.text).join("\\n");
  },
);
"""
    bundle = scan_tree(_tree(tmp_path, {"menu.ts": source}))
    assert _reach(bundle) == {
        ("db.read", "menu.ts", 9, ("searchMenu",)),
        ("db.write", "menu.ts", 10, ("searchMenu",)),
    }


_SLACK_TOOLS = """import { Tool } from "@modelcontextprotocol/sdk/types.js";
export const listChannelsTool: Tool = {
  name: "list_channels",
  description: "List channels",
  inputSchema: { type: "object", properties: { limit: { type: "number" } } },
};
export const postMessageTool: Tool = {
  name: "post_message",
  description: "Post a message",
  inputSchema: { type: "object", properties: { channel: { type: "string" }, text: { type: "string" } } },
};
export const readHistoryTool: Tool = {
  name: "read_history",
  description: "Read a channel's history",
  inputSchema: { type: "object", properties: { channel: { type: "string" } } },
};
"""
_SLACK_NAMES = """export enum ToolName { POST = "post_message" }
export const TOOLS = { HISTORY: "read_history" } as const;
"""
_SLACK_BARREL = 'export * from "./names.js";\n'
_SLACK_CLIENT = """export class ChatClient {
  constructor(private token: string) {}
  async channels(limit: number) {
    return (await fetch(`https://chat.example.com/api/channels?limit=${limit}`)).json();
  }
  async post(channel: string, text: string) {
    return fetch("https://chat.example.com/api/post", { method: "POST", body: JSON.stringify({ channel, text }) });
  }
  async history(channel: string) {
    return (await fetch(`https://chat.example.com/api/history?c=${channel}`)).json();
  }
}
"""
_SLACK_INDEX = """import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { listChannelsTool, postMessageTool, readHistoryTool } from "./tools.js";
import * as names from "./barrel.js";
import { ChatClient } from "./client.js";
const server = new Server({ name: "chat", version: "1" }, { capabilities: { tools: {} } });
const client = new ChatClient("t");
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [listChannelsTool, postMessageTool, readHistoryTool],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments as any;
  if (request.params.name === names.TOOLS.HISTORY) {
    return { content: [{ type: "text", text: JSON.stringify(await client.history(args.channel)) }] };
  }
  switch (request.params.name) {
    case listChannelsTool.name:
      return { content: [{ type: "text", text: JSON.stringify(await client.channels(args.limit)) }] };
    case names.ToolName.POST:
      await client.post(args.channel, args.text);
      return { content: [{ type: "text", text: "sent" }] };
    default:
      throw new Error("unknown tool");
  }
});
"""


def test_dispatch_labels_that_are_constants_of_other_files_name_their_tools(tmp_path: Path) -> None:
    files = {
        "src/tools.ts": _SLACK_TOOLS,
        "src/names.ts": _SLACK_NAMES,
        "src/barrel.ts": _SLACK_BARREL,
        "src/client.ts": _SLACK_CLIENT,
        "src/index.ts": _SLACK_INDEX,
    }
    bundle = scan_tree(_tree(tmp_path, files))
    assert sorted(t.name for t in bundle.tools) == ["list_channels", "post_message", "read_history"]
    assert _reach(bundle) == {
        ("network.egress", "src/client.ts", 4, ("list_channels",)),
        ("network.egress", "src/client.ts", 7, ("post_message",)),
        ("network.egress", "src/client.ts", 10, ("read_history",)),
    }
    assert not [f for f in bundle.frontier if f.kind == "dynamic_dispatch"]


def test_a_model_named_by_a_vendor_packages_constant_is_a_model_use(tmp_path: Path) -> None:
    source = """import { gemini, GEMINI_MODEL } from "@llamaindex/google";
import { genkit } from "genkit";
import { googleAI, gemini20Flash } from "@genkit-ai/googleai";
export const llm = gemini({ model: GEMINI_MODEL.GEMINI_PRO });
export const ai = genkit({ plugins: [googleAI()], model: gemini20Flash });
export const bare = genkit({ plugins: [googleAI()] });
export function pick(name: string) { return gemini({ model: name }); }
"""
    bundle = scan_tree(_tree(tmp_path, {"models.ts": source}))
    assert sorted((m.location.line, m.provider, m.model) for m in bundle.models) == [
        (4, "google", None),
        (5, "google", None),
    ]


def test_a_generation_naming_a_vendor_packages_model_is_a_model_use_wherever_its_genkit_is_made(
    tmp_path: Path,
) -> None:
    config = """import { genkit } from "genkit";
import { googleAI } from "@genkit-ai/googleai";
export const ai = genkit({ plugins: [googleAI()] });
"""
    flow = """import { gemini20Flash, gemini15Flash } from "@genkit-ai/googleai";
import { ai } from "./config";
export async function menu(theme: string) {
  const { text } = await ai.generate({ model: gemini20Flash, prompt: theme });
  const again = await ai.generate({ prompt: theme });
  return text + again.text;
}
export const suggest = ai.definePrompt({ name: "suggest", model: gemini15Flash, prompt: "hi" });
"""
    local = """import { genkit } from "genkit";
import { googleAI, gemini20Flash } from "@genkit-ai/googleai";
const ai = genkit({ plugins: [googleAI()] });
export async function ask(q: string) {
  return (await ai.generate({ model: gemini20Flash, prompt: q })).text;
}
"""
    bundle = scan_tree(_tree(tmp_path, {"src/config.ts": config, "src/flow.ts": flow, "src/local.ts": local}))
    assert sorted((m.location.path, m.location.line, m.provider, m.model) for m in bundle.models) == [
        ("src/flow.ts", 4, "google", None),
        ("src/flow.ts", 8, "google", None),
        ("src/local.ts", 5, "google", None),
    ]


def test_a_tree_call_whose_model_option_is_no_vendor_packages_constant_names_no_model(tmp_path: Path) -> None:
    config = """import { genkit } from "genkit";
import { googleAI } from "@genkit-ai/googleai";
export const ai = genkit({ plugins: [googleAI()] });
export const DEFAULT = "fast";
"""
    flow = """import { ai, DEFAULT } from "./config";
import { pick } from "lodash";
const mine = "gemini";
export async function run(model: string, q: string) {
  await ai.generate({ model, prompt: q });
  await ai.generate({ model: mine, prompt: q });
  await ai.generate({ model: DEFAULT, prompt: q });
  return ai.generate({ model: pick, prompt: q });
}
"""
    bundle = scan_tree(_tree(tmp_path, {"src/config.ts": config, "src/flow.ts": flow}))
    assert bundle.models == []
