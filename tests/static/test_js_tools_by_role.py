"""Tools by role, actions by effect (issue 20): frameworks no rule names, seen by what makes them tools
(a schema handed to a model) and side effects (a call that leaves the process), never by one
repository's spelling. Each tree is written the way the framework's own examples spell it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scanned import actions_reached, scan_files

from assay.backend.evaluation.membership import make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate


def _tools(bundle: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in bundle["tools"]}


MASTRA_AGENT = """
import { Agent } from "@mastra/core/agent";
import { runCommand } from "../tools/run";
export const agent = new Agent({
  id: "ops",
  model: "openai/gpt-4o",
  tools: { run_command: runCommand },
});
"""
MASTRA_TOOL = """
import { createTool } from "@mastra/core/tools";
import { execa } from "execa";
import { z } from "zod";
export const runCommand = createTool({
  id: "run",
  inputSchema: z.object({ command: z.string() }),
  execute: async (context) => {
    const { command } = context;
    return execa(command, { shell: true });
  },
});
"""


def test_a_tool_built_by_a_call_named_for_tools_is_named_by_the_key_that_places_it(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"src/agents/ops.ts": MASTRA_AGENT, "src/tools/run.ts": MASTRA_TOOL})
    tools = _tools(bundle)
    assert set(tools) == {"run_command"}  # the key the model sees, not the id
    assert tools["run_command"]["location"]["path"] == "src/agents/ops.ts"
    assert ("shell.exec", "src/tools/run.ts", 10) in actions_reached(bundle, "run_command")
    # The handler's first parameter is what the model sends, whatever it is called.
    assert any(f["sink"]["line"] == 10 for f in bundle["taintFlows"])
    (model,) = bundle["models"]
    assert (model["provider"], model["model"]) == ("openai", "gpt-4o")


def test_tools_of_frameworks_nobody_wrote_a_rule_for(tmp_path: Path) -> None:
    source = """
import { tool, createSdkMcpServer } from "@anthropic-ai/claude-agent-sdk";
import { genkit } from "genkit";
import { googleAI } from "@genkit-ai/google-genai";
import { Tool } from "@voltagent/core";
import { writeFileSync } from "node:fs";
import { z } from "zod";

export const server = createSdkMcpServer({
  name: "notes",
  tools: [tool("save_note", "Save a note", { text: z.string() }, async (args) => {
    writeFileSync("/tmp/note.txt", args.text);
    return { content: [] };
  })],
});
const ai = genkit({ plugins: [googleAI()], model: googleAI.model("gemini-2.5-flash") });
export const lookup = ai.defineTool({ name: "lookup", description: "Look up" }, async (input) => input);
export const weather = new Tool({ name: "get_weather", parameters: z.object({}), execute: async () => "sunny" });
"""
    bundle = scan_files(tmp_path, {"agent.ts": source})
    tools = _tools(bundle)
    assert set(tools) == {"mcp__notes__save_note", "lookup", "get_weather"}
    assert ("file.write", "agent.ts", 12) in actions_reached(bundle, "mcp__notes__save_note")
    assert [(m["provider"], m["model"]) for m in bundle["models"]] == [("google", "gemini-2.5-flash")]


def test_a_plain_sdk_loop_reaches_what_runs_the_models_tool_call(tmp_path: Path) -> None:
    source = """
import Anthropic from "@anthropic-ai/sdk";
import { execSync } from "node:child_process";
const client = new Anthropic();
export async function turn(messages: any[]) {
  const reply = await client.messages.create({
    model: "claude-sonnet-4-5", max_tokens: 1024, messages,
    tools: [{ name: "bash", description: "Run a command", input_schema: { type: "object", properties: { cmd: { type: "string" } } } }],
  });
  const use = reply.content.find((b: any) => b.type === "tool_use");
  if (use) return execSync(use.input.cmd).toString();
}
"""
    bundle = scan_files(tmp_path, {"loop.ts": source})
    assert ("shell.exec", "loop.ts", 11) in actions_reached(bundle, "bash")


def test_an_agent_class_run_as_a_tool_reaches_its_sandboxed_commands(tmp_path: Path) -> None:
    source = """
import { getSandbox, type Sandbox } from "@cloudflare/sandbox";
import { agentTool } from "agents/agent-tools";
import { z } from "zod";
export class Coder {
  async onChatMessage() {
    const sandbox: Sandbox = getSandbox(this.env.Sandbox, "one");
    await sandbox.exec(`git clone ${this.task}`);
  }
}
export class Orchestrator {
  getTools() {
    return { delegate: agentTool(Coder, { description: "code", inputSchema: z.object({ task: z.string() }) }) };
  }
}
"""
    bundle = scan_files(tmp_path, {"server.ts": source})
    assert ("shell.exec", "server.ts", 8) in actions_reached(bundle, "delegate")
    (action,) = [a for a in bundle["actions"] if a["location"]["line"] == 8]
    kinds = {g["id"]: g["kind"] for g in bundle["gates"]}
    assert "sandbox" in {kinds[g] for g in action["gateIds"]}


def test_a_code_tool_is_code_execution_reached_by_the_model_inside_its_executor(tmp_path: Path) -> None:
    source = """
import { createCodeTool } from "@cloudflare/codemode/ai";
import { DynamicWorkerExecutor } from "@cloudflare/codemode";
import { streamText } from "ai";
export async function chat(env: any, tools: any) {
  const executor = new DynamicWorkerExecutor({ loader: env.LOADER });
  const codemode = createCodeTool({ tools, executor });
  return streamText({ model: env.model, tools: { codemode } });
}
"""
    bundle = scan_files(tmp_path, {"chat.ts": source})
    assert ("code.exec", "chat.ts", 7) in actions_reached(bundle, "codemode")
    assert {g["kind"] for g in bundle["gates"]} == {"sandbox"}
    assert [f["actionClass"] for f in bundle["taintFlows"]] == ["code.exec"]


def test_gates_where_frameworks_put_them(tmp_path: Path) -> None:
    source = """
import express from "express";
import { genkit } from "genkit";
import { createTool } from "@mastra/core/tools";
const ai = genkit({});
export const order = ai.defineTool({ name: "order" }, async (input, ctx) => {
  if (!ctx.resumed) ctx.interrupt({ reason: "approve first" });
  return "ordered";
});
export const refund = createTool({ id: "refund", requireApproval: true, execute: async () => "done" });
const authMiddleware = (req: any, res: any, next: () => void) => {
  if (req.headers.authorization !== process.env.TOKEN) return res.status(401).end();
  next();
};
const app = express();
app.post("/mcp", authMiddleware, (req, res) => res.end());
"""
    bundle = scan_files(tmp_path, {"server.ts": source})
    gates = {(g["kind"], g["location"]["line"]) for g in bundle["gates"]}
    assert ("human_approval", 7) in gates  # the tool context's interrupt
    assert ("human_approval", 10) in gates  # requireApproval on a tool built by any framework
    assert ("authentication", 11) in gates  # the middleware in front of the route, where it is defined


def test_an_sdk_nobody_listed_is_still_reach(tmp_path: Path) -> None:
    source = """
import { tool } from "ai";
import { Client } from "@notionhq/client";
import { z } from "zod";
const notion = new Client({ auth: process.env.NOTION_TOKEN });
export const addPage = tool({
  description: "Add a page",
  inputSchema: z.object({ title: z.string() }),
  execute: async ({ title }) => {
    const parsed = z.string().parse(title);
    return await notion.pages.create({ parent: { database_id: "db" }, properties: { title: parsed } });
  },
});
"""
    bundle = scan_files(tmp_path, {"tools.ts": source})
    (action,) = [a for a in bundle["actions"] if a["actionClass"] == "network.egress"]
    assert action["target"] == "@notionhq/client.Client.pages.create"
    assert actions_reached(bundle, "addPage") >= {("network.egress", "tools.ts", 11)}


UNKNOWN_FRAMEWORK = """
import { Agent, makeThing } from "acme-agents";
import { shellRunner } from "acme-agents/tools";
import { searchThing } from "./search";
const local = makeThing({ title: "local", run: async (q: string) => q });
export const agent = new Agent({
  model: "acme/large",
  tools: [searchThing, shellRunner, local, makeThing({ title: "inline" })],
});
"""
UNKNOWN_SEARCH = """
import { makeThing } from "acme-agents";
export const searchThing = makeThing({ title: "search", run: async (q: string) => fetch(q) });
"""


@pytest.mark.parametrize("declaration", [None, 'version = "1"\npurpose = "answers questions"\n'])
def test_an_unfamiliar_tools_list_keeps_the_system_from_allow(tmp_path: Path, declaration: str | None) -> None:
    files = {"src/agent.ts": UNKNOWN_FRAMEWORK, "src/search.ts": UNKNOWN_SEARCH}
    if declaration is not None:
        files["assay.toml"] = declaration
    bundle = scan_files(tmp_path, files)
    frontier = [f for f in bundle["frontier"] if f["path"] == "src/agent.ts" and f["location"]["line"] == 8]
    # One item per element of the list analysis cannot account for, each naming where it is given.
    assert len(frontier) == 4
    assert sum("acme-agents.Agent" in f["detail"] for f in frontier) == 3
    payload = evaluate(make_membership([static_bundle_item(bundle)]), ai_system_id="sys-t", jurisdiction=None)
    assert payload.disposition != "ALLOW"
    assert any(i["kind"] == "unresolved_reach" for i in payload.data["verificationItems"])


def test_bad_input_is_skipped_or_cut_with_a_note_never_a_crash(tmp_path: Path) -> None:
    minified = (
        ";".join(f"function f{i}(a,b){{return a+b*{i}}}" for i in range(3000)) + ";require('child_process').exec(x);"
    )
    files = {
        "public/app.min.js": minified,
        "data.ts": "export const table = [" + ",".join(str(i) for i in range(6000)) + "];\n",
        "deep.ts": "export const d = " + "[" * 4000 + "1" + "]" * 4000 + ";\n",
        "broken.ts": "export function ( { ]] )) class {",
        "ok.ts": "import { exec } from 'node:child_process';\nexport const run = (c: string) => exec(c);\n",
    }
    bundle = scan_files(tmp_path, files)
    notes = {f["path"]: f["kind"] for f in bundle["frontier"]}
    assert notes["public/app.min.js"] == "skipped_file"  # minified: skipped, and said so
    assert notes["data.ts"] == "parse_error"  # a literal of 6000 items: cut after 5000, and said so
    assert notes["deep.ts"] == "parse_error"  # nested too deep to walk
    assert notes["broken.ts"] == "parse_error"
    # The rest of the tree is still analysed, and the minified file's exec is not silently counted.
    assert [(a["location"]["path"], a["actionClass"]) for a in bundle["actions"]] == [("ok.ts", "shell.exec")]


def test_an_agent_run_as_a_tool_reaches_what_its_tools_reach(tmp_path: Path) -> None:
    source = """
import { Agent, tool } from "@openai/agents";
import { execSync } from "node:child_process";
import { z } from "zod";
const runTool = tool({ name: "run", description: "run", parameters: z.object({ cmd: z.string() }), execute: async ({ cmd }) => execSync(cmd).toString() });
const ops = new Agent({ name: "ops", tools: [runTool] });
export const boss = new Agent({ name: "boss", tools: [ops.asTool({ toolName: "ask_ops", toolDescription: "ops" })] });
"""
    bundle = scan_files(tmp_path, {"agents.ts": source})
    assert ("shell.exec", "agents.ts", 5) in actions_reached(bundle, "ask_ops")


def test_an_agent_tool_kept_under_another_key_keeps_its_tool_name(tmp_path: Path) -> None:
    # OpenAI Agents JS takes tools in a list: the model sees toolName, whatever key of an object holds the tool.
    agents = """
import { Agent } from "@openai/agents";
const summarizer = new Agent({ name: "Summarizer", instructions: "Summarise." });
const summarizerTool = summarizer.asTool({ toolName: "summarize_text", toolDescription: "Summarise text." });
const toolAgents = { summarizer: summarizerTool };
export default toolAgents;
"""
    flow = """
import { Agent, run } from "@openai/agents";
import agentTools from "./agents";
export const go = (message: string) => run(new Agent({ name: "Orchestrator", tools: [agentTools.summarizer] }), message);
"""
    bundle = scan_files(tmp_path, {"agents.ts": agents, "flow.ts": flow})
    assert [(t["name"], t["location"]["line"]) for t in bundle["tools"]] == [("summarize_text", 4)]


def test_agent_create_is_a_model_use_as_new_agent_is(tmp_path: Path) -> None:
    source = """
import { Agent, run } from "@openai/agents";
const triage = Agent.create({ name: "Triage", model: "gpt-5.4", instructions: "Route.", handoffs: [] });
const helper = new Agent({ name: "Helper", instructions: "Help." });
export const go = (message: string) => run(triage, message);
"""
    bundle = scan_files(tmp_path, {"agents.ts": source})
    models = {(m["location"]["line"], m["provider"], m["model"]) for m in bundle["models"]}
    assert (3, "openai", "gpt-5.4") in models
    assert any(line == 4 and provider == "openai" for line, provider, _ in models)


def test_a_claude_agent_sdk_run_is_a_model_use_and_its_built_ins_are_tools(tmp_path: Path) -> None:
    source = """
import { query } from "@anthropic-ai/claude-agent-sdk";
export async function run(prompt: string) {
  for await (const m of query({ prompt, options: { model: "claude-sonnet-4-5", allowedTools: ["Bash", "Read"] } })) {
    console.log(m);
  }
}
"""
    bundle = scan_files(tmp_path, {"run.ts": source})
    assert [(m["provider"], m["model"]) for m in bundle["models"]] == [("anthropic", "claude-sonnet-4-5")]
    assert ("shell.exec", "run.ts", 4) in actions_reached(bundle, "Bash")
    assert ("file.read", "run.ts", 4) in actions_reached(bundle, "Read")


def test_a_tool_set_imported_from_a_file_that_defines_its_tools_is_not_unresolved(tmp_path: Path) -> None:
    tools = """
import { tool } from "ai";
import { z } from "zod";
export const toolset = {
  weather: tool({ description: "w", inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => fetch(city) }),
};
"""
    agent = """
import { generateText } from "ai";
import { openai } from "@ai-sdk/openai";
import { toolset } from "./tools";
export const run = (prompt: string) => generateText({ model: openai("gpt-4o"), prompt, tools: toolset });
"""
    bundle = scan_files(tmp_path, {"src/tools.ts": tools, "src/agent.ts": agent})
    assert set(_tools(bundle)) == {"weather"}
    assert bundle["frontier"] == []


def test_a_pre_tool_use_hook_that_blocks_some_calls_is_a_permission_check(tmp_path: Path) -> None:
    source = """
import { query } from "@anthropic-ai/claude-agent-sdk";
const options = {
  allowedTools: ["Bash"],
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [async (input: any) => {
      if (input.tool_input.command.includes("rm ")) {
        return { decision: "block", stopReason: "no deletions" };
      }
      return { continue: true };
    }] }],
  },
};
export const run = (prompt: string) => query({ prompt, options });
"""
    bundle = scan_files(tmp_path, {"agent.ts": source})
    assert [(g["kind"], g["location"]["line"]) for g in bundle["gates"]] == [("permission_check", 7)]
