"""JavaScript / TypeScript: providers, tool frameworks, action classes, gates, taint, frontier, errors."""

from __future__ import annotations

import pytest
from pyfix import analyse, gate_kinds, tools

from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.jsts.frontend import analyze_javascript
from assay.backend.engines.static.rules.pack import load_rule_pack


@pytest.mark.parametrize(
    ("code", "provider"),
    [
        (
            'import OpenAI from "openai";\nconst c = new OpenAI();\nawait c.chat.completions.create({ model: "m", messages: [] });\n',
            "openai",
        ),
        (
            'import OpenAI from "openai";\nconst c = new OpenAI();\nawait c.responses.create({ model: "m", input: "x" });\n',
            "openai",
        ),
        (
            'import { AzureOpenAI } from "openai";\nconst c = new AzureOpenAI();\nawait c.chat.completions.create({});\n',
            "azure_openai",
        ),
        (
            'import Anthropic from "@anthropic-ai/sdk";\nconst a = new Anthropic();\nawait a.messages.create({ model: "m" });\n',
            "anthropic",
        ),
        (
            'import { GoogleGenAI } from "@google/genai";\nconst g = new GoogleGenAI({});\nawait g.models.generateContent({});\n',
            "google",
        ),
        (
            'import { BedrockRuntimeClient, ConverseCommand } from "@aws-sdk/client-bedrock-runtime";\nconst b = new BedrockRuntimeClient({});\nawait b.send(new ConverseCommand({}));\n',
            "bedrock",
        ),
        (
            'import { Mistral } from "@mistralai/mistralai";\nconst m = new Mistral({});\nawait m.chat.complete({});\n',
            "mistral",
        ),
        (
            'import { CohereClientV2 } from "cohere-ai";\nconst c = new CohereClientV2({});\nawait c.chat({});\n',
            "cohere",
        ),
        ('import ollama from "ollama";\nawait ollama.chat({ model: "llama3" });\n', "ollama"),
        (
            'import { generateText } from "ai";\nimport { anthropic } from "@ai-sdk/anthropic";\nawait generateText({ model: anthropic("claude"), prompt: "x" });\n',
            "anthropic",
        ),
        ('import { ChatOpenAI } from "@langchain/openai";\nconst llm = new ChatOpenAI({});\n', "openai"),
        ('await fetch("https://api.openai.com/v1/chat/completions", { method: "POST" });\n', "openai"),
    ],
)
def test_model_providers(code: str, provider: str) -> None:
    linked = analyse({"src/app.ts": code})
    assert [m.provider for m in linked.models] == [provider]
    assert linked.actions == []


TOOLS = {
    "vercel": (
        'import { tool } from "ai";\nimport { z } from "zod";\nexport const tools = {\n  weather: tool({ description: "Weather", inputSchema: z.object({}), execute: async ({ city }) => city }),\n};\n',
        {("weather", "vercel-ai")},
    ),
    "openai-literal": (
        'const tools = [{ type: "function", function: { name: "lookup", description: "Look up" } }];\n',
        {("lookup", "openai")},
    ),
    "anthropic-literal": (
        'const tools = [{ name: "search", description: "Search", input_schema: { type: "object" } }];\n',
        {("search", "anthropic")},
    ),
    "mcp-tool": (
        'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\nconst server = new McpServer({ name: "s", version: "1" });\nserver.tool("echo", "Echo", {}, async ({ text }) => ({ content: [] }));\n',
        {("echo", "mcp")},
    ),
    "mcp-register": (
        'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\nconst server = new McpServer({ name: "s", version: "1" });\nserver.registerTool("wipe", { description: "Wipe", annotations: { destructiveHint: true } }, async ({ p }) => ({ content: [] }));\n',
        {("wipe", "mcp")},
    ),
    "langchain-tool": (
        'import { tool } from "@langchain/core/tools";\nconst t = tool(async ({ q }) => q, { name: "search", description: "Search" });\n',
        {("search", "langchain")},
    ),
    "langchain-dynamic": (
        'import { DynamicStructuredTool } from "@langchain/core/tools";\nconst t = new DynamicStructuredTool({ name: "calc", description: "Calc", func: async ({ a }) => a });\n',
        {("calc", "langchain")},
    ),
    "agents-js": (
        'import { tool } from "@openai/agents";\nconst t = tool({ name: "refund", description: "Refund", parameters: {}, needsApproval: true, execute: async ({ id }) => id });\n',
        {("refund", "openai-agents")},
    ),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_tool_frameworks(name: str) -> None:
    code, expected = TOOLS[name]
    assert tools(analyse({"src/agent.ts": code})) == expected


ACTIONS = [
    ('import { exec } from "child_process";\nexec("ls");\n', "shell.exec"),
    ('const cp = require("node:child_process");\ncp.spawnSync("ls");\n', "shell.exec"),
    ("eval(code);\n", "code.exec"),
    ('import vm from "vm";\nvm.runInNewContext(code);\n', "code.exec"),
    ('import * as fs from "fs";\nfs.writeFileSync("a", "b");\n', "file.write"),
    ('import { writeFile } from "fs/promises";\nawait writeFile("a", "b");\n', "file.write"),
    ('import fs from "fs";\nfs.rmSync("d", { recursive: true });\n', "file.delete"),
    ('await fetch("https://example.com");\n', "network.egress"),
    ('import axios from "axios";\nawait axios.post("https://example.com", {});\n', "network.egress"),
    ('import { Pool } from "pg";\nconst pool = new Pool();\nawait pool.query("DELETE FROM t");\n', "db.write"),
    (
        'import { PrismaClient } from "@prisma/client";\nconst p = new PrismaClient();\nawait p.user.delete({ where: {} });\n',
        "db.write",
    ),
    (
        'import nodemailer from "nodemailer";\nconst t = nodemailer.createTransport({});\nawait t.sendMail({});\n',
        "message.send",
    ),
    (
        'import { WebClient } from "@slack/web-api";\nconst s = new WebClient();\nawait s.chat.postMessage({});\n',
        "message.send",
    ),
    (
        'import Stripe from "stripe";\nconst stripe = new Stripe("k");\nawait stripe.refunds.create({ charge: "c" });\n',
        "payment",
    ),
    (
        'import { EC2Client, TerminateInstancesCommand } from "@aws-sdk/client-ec2";\nconst c = new EC2Client({});\nawait c.send(new TerminateInstancesCommand({}));\n',
        "cloud.change",
    ),
    (
        'import { IAMClient, AttachRolePolicyCommand } from "@aws-sdk/client-iam";\nconst c = new IAMClient({});\nawait c.send(new AttachRolePolicyCommand({}));\n',
        "privilege.change",
    ),
    (
        'import { SecretsManagerClient, GetSecretValueCommand } from "@aws-sdk/client-secrets-manager";\nconst c = new SecretsManagerClient({});\nawait c.send(new GetSecretValueCommand({}));\n',
        "secret.access",
    ),
]


@pytest.mark.parametrize(("code", "action_class"), ACTIONS)
def test_action_classes(code: str, action_class: str) -> None:
    assert [a.actionClass for a in analyse({"src/m.ts": code}).actions] == [action_class]


def test_sql_text_decides_read_write_or_verbatim_execution() -> None:
    """Fixed SQL is a read or a write by its verb; SQL that is not fixed in the code (a parameter, a
    template with a value substituted into it) is executed verbatim, as Python's f-strings are."""
    code = (
        'import { Pool } from "pg";\nconst pool = new Pool();\nawait pool.query("SELECT 1");\n'
        "await pool.query(`UPDATE t SET a = ${a}`);\nexport const run = (q: string) => pool.query(q);\n"
        'await pool.query("BEGIN");\nawait pool.query(`UPDATE t SET a = 1`);\n'
    )
    found = [(a.actionClass, a.location.line) for a in analyse({"src/m.ts": code}).actions]
    assert found == [("db.read", 3), ("sql.exec", 4), ("sql.exec", 5), ("db.write", 7)]


def test_sql_text_is_read_where_the_client_takes_it() -> None:
    """A prepared statement's SQL is the one ``prepare`` was given (the values bound at ``run`` are not
    SQL); a pg/mysql2 query object's SQL is its ``text`` / ``sql``."""
    code = (
        'import Database from "better-sqlite3";\nimport { Pool } from "pg";\n'
        'const db = new Database("x.db");\nconst pool = new Pool();\n'
        'export const remove = (id: number) => db.prepare("DELETE FROM t WHERE id = ?").run(id);\n'
        'export const count = () => pool.query({ text: "SELECT count(*) FROM t", values: [] });\n'
        "export const run = (q: string) => pool.query({ text: q });\n"
    )
    found = [(a.actionClass, a.location.line) for a in analyse({"src/m.ts": code}).actions]
    assert found == [("db.write", 5), ("db.read", 6), ("sql.exec", 7)]


VERCEL = 'import {{ tool }} from "ai";\nimport {{ exec }} from "child_process";\nexport const tools = {{ run: tool({{ description: "Run", inputSchema: {{}}, execute: async ({{ cmd }}) => {{\n{body}\n}} }}) }};\n'


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ('  if (!(await requireApproval(cmd))) { return "no"; }\n  exec("ls");', "human_approval"),
        ('  if (!hasPermission(user, "ops")) { throw new Error("no"); }\n  exec("ls");', "permission_check"),
        ('  if (!ALLOWED_CMDS.includes(cmd)) { throw new Error("no"); }\n  exec(cmd);', "allowlist"),
        ('  await rateLimiter.consume(cmd);\n  exec("ls");', "rate_limit"),
        ('  if (cost > MAX_COST_USD) { throw new Error("over budget"); }\n  exec("ls");', "spend_limit"),
    ],
)
def test_gates_that_dominate(body: str, kind: str) -> None:
    linked = analyse({"src/a.ts": VERCEL.format(body=body)})
    assert gate_kinds(linked, "shell.exec") == {kind}


@pytest.mark.parametrize(
    "body",
    [
        '  exec("ls");\n  await requireApproval(cmd);',
        '  if (!(await requireApproval(cmd))) { exec("ls"); }',
        '  if (cmd === "x") { if (!(await requireApproval(cmd))) { return "no"; } }\n  exec("ls");',
    ],
)
def test_gates_that_do_not_dominate(body: str) -> None:
    assert gate_kinds(analyse({"src/a.ts": VERCEL.format(body=body)}), "shell.exec") == set()


@pytest.mark.parametrize(
    ("ceiling", "kinds"),
    [
        ("MAX_SPEND", {"spend_limit"}),
        ("maxBudgetUsd", {"spend_limit"}),
        ("maxAccountCharge", {"spend_limit"}),
        ("byteLimit", set()),
        ("MAX_FILE_SIZE", set()),
        ("maxSizeBytes", set()),
        ("MAX_LENGTH", set()),
        ("maxResults", set()),
        ("entryLimit", set()),
        ("MAX_TOKENS", set()),
        ("maxChars", set()),
    ],
)
def test_a_ceiling_named_for_a_size_is_no_spend_limit(ceiling: str, kinds: set[str]) -> None:
    """``size > byteLimit``, ``text.length > MAX_LENGTH``, ``entries > entryLimit`` bound how much is read, kept
    or answered, not what is spent: no spend limit (``MAX_SPEND``, ``maxBudgetUsd`` are)."""
    body = f'  if (cmd.size > {ceiling}) {{ throw new Error("over"); }}\n  exec("ls");'
    assert gate_kinds(analyse({"src/a.ts": VERCEL.format(body=body)}), "shell.exec") == kinds


def test_needs_approval_is_a_gate_and_mcp_annotations_are_not() -> None:
    code = 'import { tool } from "@openai/agents";\nimport fs from "fs";\nconst t = tool({ name: "wipe", description: "W", parameters: {}, needsApproval: true, execute: async ({ p }) => fs.rmSync(p) });\n'
    assert gate_kinds(analyse({"src/a.ts": code}), "file.delete") == {"human_approval"}
    mcp = TOOLS["mcp-register"][0].replace("({ content: [] })", "{ fs.rmSync(p); return { content: [] }; }")
    mcp = 'import fs from "fs";\n' + mcp
    linked = analyse({"src/s.ts": mcp})
    assert linked.tools[0].annotations == {"destructiveHint": True}
    assert gate_kinds(linked, "file.delete") == set()  # a disclosure, never a gate


def test_taint_tool_argument_to_exec_across_files_via_relative_import() -> None:
    linked = analyse(
        {
            "src/agent.ts": 'import { tool } from "ai";\nimport { runCommand } from "./tools/shell";\nexport const tools = { run: tool({ description: "Run", inputSchema: {}, execute: async ({ command }) => runCommand(`sh -c ${command}`) }) };\n',
            "src/tools/shell.ts": 'import { execSync } from "node:child_process";\nexport function runCommand(line: string) {\n  return execSync(line);\n}\n',
        }
    )
    (action,) = linked.actions
    assert action.location.path == "src/tools/shell.ts"
    assert [linked.tools[0].id] == [p.toolId for p in action.reachedFrom]
    (flow,) = linked.taintFlows
    assert (flow.sourceKind, flow.actionClass, flow.ruleId) == ("tool_argument", "shell.exec", "TAINT-EXEC-001")


def test_taint_model_output_to_eval() -> None:
    code = 'import OpenAI from "openai";\nconst c = new OpenAI();\nexport async function act() {\n  const r = await c.chat.completions.create({ model: "m", messages: [] });\n  const code = r.choices[0].message.content;\n  return eval(code);\n}\n'
    (flow,) = analyse({"src/a.ts": code}).taintFlows
    assert (flow.sourceKind, flow.source.line, flow.sink.line) == ("model_output", 4, 6)


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("export function call(tools, name, args) {\n  return tools[name].execute(args);\n}\n", "dynamic_dispatch"),
        (
            'import { experimental_createMCPClient as createMCPClient } from "@ai-sdk/mcp";\nconst c = await createMCPClient({});\nconst t = await c.tools();\n',
            "runtime_registered_tools",
        ),
    ],
)
def test_frontier(code: str, kind: str) -> None:
    assert [f.kind for f in analyse({"src/a.ts": code}).frontier] == [kind]


def test_tsx_and_plain_javascript_parse() -> None:
    tsx = 'import { exec } from "child_process";\nexport const A = () => <div onClick={() => exec("ls")}>x</div>;\n'
    js = 'const { exec } = require("child_process");\nmodule.exports = () => exec("ls");\n'
    assert [a.actionClass for a in analyse({"src/a.tsx": tsx}).actions] == ["shell.exec"]
    assert [a.actionClass for a in analyse({"src/b.js": js}).actions] == ["shell.exec"]


def test_syntax_errors_keep_what_parsed_and_record_the_error() -> None:
    rules = load_rule_pack()
    source = b'import { exec } from "child_process";\nexec("ls");\nfunction broken( {\n'
    facts = analyze_javascript("src/x.ts", source, digest_bytes(source), "typescript", rules)
    assert [f.kind for f in facts.frontier] == ["parse_error"]
    assert facts.parseError is None
    garbage = b"}}}} ))) (((( ;;;; ]]]]"
    facts = analyze_javascript("src/y.ts", garbage, digest_bytes(garbage), "typescript", rules)
    assert facts.parseError is not None


def test_determinism() -> None:
    code = TOOLS["vercel"][0]
    assert analyse({"src/a.ts": code}).model_dump_json() == analyse({"src/a.ts": code}).model_dump_json()
