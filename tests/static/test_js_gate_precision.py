"""No gate where nothing is decided (issue 20 gate precision, JS/TS): a gate reported in front of a shell lowers
the disposition, so a comparison that only dispatches on the model's reply (``block.type === "tool_use"``: a kind
the provider's API sets from its own vocabulary) gates nothing, while a model-chosen value compared with what is
allowed (the command, a tool argument named ``type``) stays a gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

LOOP = (
    'import Anthropic from "@anthropic-ai/sdk";\n'
    'import { execSync } from "child_process";\n'
    "const client = new Anthropic();\n"
    "export async function step(messages: any[]) {\n"
    "  const response = await client.messages.create({\n"
    '    model: "claude-sonnet-4-5", max_tokens: 1000, messages,\n'
    '    tools: [{ name: "bash", description: "Run a command", input_schema: { type: "object" as const,'
    ' properties: { command: { type: "string" } }, required: ["command"] } }],\n'
    "  });\n"
    "  for (const block of response.content) {\n"
    "    if ({check}) {\n"
    "      const { command } = block.input as { command: string };\n"
    "      return execSync(command).toString();\n"
    "    }\n"
    "  }\n"
    "}\n"
)

SERVER = (
    'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
    'import { z } from "zod";\n'
    'import { execSync } from "child_process";\n'
    'const server = new McpServer({ name: "s", version: "1" });\n'
    'server.tool("run", "Run", { type: z.string(), command: z.string() }, async ({ type, command }) => {\n'
    '  if (type !== "status") throw new Error("only status commands");\n'
    "  return { content: [{ type: 'text', text: execSync(`${type} ${command}`).toString() }] };\n"
    "});\n"
)


def _gates_of_shell(bundle: dict[str, Any], tool: str) -> set[tuple[str, int]]:
    """(kind, line) of the gates on every path from ``tool`` to its shell.exec actions."""
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    sites = {g["id"]: g for g in bundle["gates"]}
    shells = [
        a
        for a in bundle["actions"]
        if a["actionClass"] == "shell.exec" and any(p["toolId"] in ids for p in a["reachedFrom"])
    ]
    assert shells, "the tool reaches a shell"
    return {(sites[g]["kind"], sites[g]["location"]["line"]) for a in shells for g in a["gateIds"]}


def test_the_kind_of_a_reply_block_is_a_dispatch_not_a_gate(tmp_path: Path) -> None:
    checks = ('block.type === "tool_use"', 'block.type === "tool_use" && block.name === "bash"')
    for index, check in enumerate(checks):
        bundle = scan_files(tmp_path / str(index), {"agent.ts": LOOP.replace("{check}", check)})
        assert _gates_of_shell(bundle, "bash") == set()


def test_a_model_chosen_command_compared_with_a_literal_stays_a_gate(tmp_path: Path) -> None:
    check = 'block.type === "tool_use" && (block.input as any).command === "ls"'
    bundle = scan_files(tmp_path, {"agent.ts": LOOP.replace("{check}", check)})
    assert _gates_of_shell(bundle, "bash") == {("allowlist", 10)}


def test_a_tool_argument_named_type_compared_with_a_literal_stays_a_gate(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"server.ts": SERVER})
    assert _gates_of_shell(bundle, "run") == {("allowlist", 6)}


# A model-chosen mode compared with one literal: ``{branch}`` is the body of the ``if``, ``{rest}`` what follows it.
MODES = (
    'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
    'import { z } from "zod";\n'
    'import { readFile } from "fs/promises";\n'
    'const server = new McpServer({ name: "s", version: "1" });\n'
    'server.tool("search", "Search", { mode: z.string(), path: z.string() }, async ({ mode, path }) => {\n'
    '  if (mode === "fast") {\n'
    "    {branch}\n"
    "  }\n"
    "  {rest}\n"
    "});\n"
)
READ_FAST = 'const a = await readFile(mode + path, "utf8"); return { content: [{ type: "text", text: a }] };'
READ_FULL = 'const b = await readFile(mode + path + ".full", "utf8"); return { content: [{ type: "text", text: b }] };'


def _gates_of_reads(bundle: dict[str, Any]) -> dict[int, set[tuple[str, int]]]:
    """For each file.read of the tool ``search``, by line: (kind, line) of the gates on its paths."""
    sites = {g["id"]: g for g in bundle["gates"]}
    reads = [a for a in bundle["actions"] if a["actionClass"] == "file.read" and a["reachedFrom"]]
    assert reads, "the tool reads a file"
    return {
        a["location"]["line"]: {(sites[g]["kind"], sites[g]["location"]["line"]) for g in a["gateIds"]} for a in reads
    }


def test_a_comparison_choosing_between_two_ways_of_acting_is_not_a_gate(tmp_path: Path) -> None:
    source = MODES.replace("{branch}", READ_FAST).replace("{rest}", READ_FULL)
    assert _gates_of_reads(scan_files(tmp_path, {"server.ts": source})) == {7: set(), 9: set()}


def test_a_comparison_whose_other_side_refuses_stays_a_gate(tmp_path: Path) -> None:
    only_fast = MODES.replace("{branch}", READ_FAST).replace("{rest}", 'return { error: "only fast searches" };')
    assert _gates_of_reads(scan_files(tmp_path / "a", {"server.ts": only_fast})) == {7: {("allowlist", 6)}}
    for index, refusal in enumerate(('throw new Error("no fast");', 'return { error: "no fast searches" };')):
        denied = MODES.replace("{branch}", refusal).replace("{rest}", READ_FULL)
        bundle = scan_files(tmp_path / f"d{index}", {"server.ts": denied})
        assert _gates_of_reads(bundle) == {9: {("allowlist", 6)}}


def test_two_ways_of_producing_output_chosen_by_if_else_is_not_a_gate(tmp_path: Path) -> None:
    # ``if (format === "svg") { ... } else { ... }``: both branches read and answer, neither refuses.
    source = MODES.replace("{branch}", READ_FAST).replace("  }\n  {rest}\n", "  } else {\n    {rest}\n  }\n")
    source = source.replace("{rest}", READ_FULL)
    assert _gates_of_reads(scan_files(tmp_path, {"server.ts": source})) == {7: set(), 9: set()}


def test_an_if_else_whose_other_branch_refuses_stays_a_gate(tmp_path: Path) -> None:
    source = MODES.replace("{branch}", READ_FAST).replace("  }\n  {rest}\n", "  } else {\n    {rest}\n  }\n")
    source = source.replace("{rest}", 'throw new Error("only fast searches");')
    assert _gates_of_reads(scan_files(tmp_path, {"server.ts": source})) == {7: {("allowlist", 6)}}


# A membership test of the model-chosen path in front of a read: ``{check}`` is the test and its branch,
# ``{after}`` what the handler does after the read.
SEEN = (
    'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
    'import { z } from "zod";\n'
    'import { readFile } from "fs/promises";\n'
    'const server = new McpServer({ name: "s", version: "1" });\n'
    "const opened = new Set<string>();\n"
    "const cache = new Map<string, string>();\n"
    "const BLOCKED = new Set<string>();\n"
    'server.tool("search", "Search", { path: z.string() }, async ({ path }) => {\n'
    "  {check}\n"
    '  const a = await readFile(path, "utf8");\n'
    "  {after}\n"
    '  return { content: [{ type: "text", text: a }] };\n'
    "});\n"
)


def _gates_of_the_read(bundle: dict[str, Any]) -> set[tuple[str, int]]:
    return _gates_of_reads(bundle)[10]


def test_a_check_of_work_already_done_is_not_a_gate(tmp_path: Path) -> None:
    for index, (check, after) in enumerate(
        (
            ("if (opened.has(path)) return { content: [] };", "opened.add(path);"),
            ('if (cache.has(path)) return { content: [{ type: "text", text: cache.get(path) }] };', ""),
            ("if (cache.has(path)) { return cache.get(path); }", "cache.set(path, a);"),
        )
    ):
        source = SEEN.replace("{check}", check).replace("{after}", after)
        assert _gates_of_the_read(scan_files(tmp_path / str(index), {"server.ts": source})) == set(), check


def test_a_deny_list_and_an_allow_list_stay_gates(tmp_path: Path) -> None:
    for index, (check, after) in enumerate(
        (
            ('if (BLOCKED.has(path)) return { error: "blocked" };', ""),
            ('if (!ALLOWED.has(path)) throw new Error("not allowed");', ""),
            # a branch that throws refuses, whatever the function records in the set later
            ('if (opened.has(path)) throw new Error("already open");', "opened.add(path);"),
            # a set filled with another value is not a record of this work
            ('if (BLOCKED.has(path)) return { error: "blocked" };', "BLOCKED.add(a);"),
        )
    ):
        source = SEEN.replace("{check}", check).replace("{after}", after)
        source = source.replace("const BLOCKED", 'const ALLOWED = new Set<string>(["a"]);\nconst BLOCKED')
        bundle = scan_files(tmp_path / str(index), {"server.ts": source})
        assert _gates_of_reads(bundle)[11] == {("allowlist", 10)}, check
