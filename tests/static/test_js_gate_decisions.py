"""Gates recognised by what makes them gates in JS/TS (issue 20): a check that decides whether the effect
happens, on the path to it. A helper that puts a question with choices to a person (a desktop notification
with actions) and returns the answer is an approval where its answer is tested, also when the question is
asked again in a loop until it is answered yes; a policy level compared before the effect (a deny level, a
level that holds the call for approval) is a gate where the path stops at it; a lookup in a table named as
an allowlist that returns nothing for what is not in it is an allowlist where its caller refuses that
nothing. A check that only picks a value or fills a message decides no effect and is no gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

SERVER = (
    'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
    'import { z } from "zod";\n'
    'import { exec } from "child_process";\n'
    'import { ask } from "./ask.js";\n'
    'const server = new McpServer({ name: "s", version: "1" });\n'
    'server.tool("run", "Run a command", { command: z.string() }, async ({ command }) => {\n'
    "{body}"
    "  exec(command);\n"
    "  return { content: [] };\n"
    "});\n"
)

ASK = (
    'import notifier from "node-notifier";\n'
    "export function ask(message: string): Promise<boolean> {\n"
    "  return new Promise((resolve) => {\n"
    "    notifier.notify({ title: 'Allow?', message, {options} }, (err, response) => {\n"
    "      resolve(!err && response !== 'Deny');\n"
    "    });\n"
    "  });\n"
    "}\n"
)

CHOICES = "actions: 'Allow', wait: true"


def _scan(tmp_path: Path, body: str, options: str = CHOICES, extra: dict[str, str] | None = None) -> dict[str, Any]:
    files = {"server.ts": SERVER.replace("{body}", body), "ask.ts": ASK.replace("{options}", options)}
    return scan_files(tmp_path, {**files, **(extra or {})})


def _gates_over(bundle: dict[str, Any], tool: str = "run") -> set[tuple[str, str, int]]:
    """(kind, path, line) of the gates on the tool's path to each action it reaches."""
    sites = {g["id"]: g for g in bundle["gates"]}
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    out: set[tuple[str, str, int]] = set()
    for action in bundle["actions"]:
        for path in action.get("reachedFrom", []):
            if path["toolId"] in ids:
                for gate in {*path["gateIds"], *action["gateIds"]}:
                    site = sites[gate]
                    out.add((site["kind"], site["location"]["path"], site["location"]["line"]))
    return out


def _all_gates(bundle: dict[str, Any]) -> set[tuple[str, str, int]]:
    return {(g["kind"], g["location"]["path"], g["location"]["line"]) for g in bundle["gates"]}


def test_a_helper_asking_a_person_gates_where_its_answer_is_tested(tmp_path: Path) -> None:
    bundle = _scan(tmp_path, "  if (!(await ask(`Run ${command}?`))) return { content: [] };\n")
    assert _gates_over(bundle) == {("human_approval", "server.ts", 7)}


def test_an_answer_asked_again_until_yes_gates_what_follows_the_loop(tmp_path: Path) -> None:
    body = (
        "  let permitted = false;\n"
        "  let tries = 0;\n"
        "  while (!permitted && tries < 5) {\n"
        "    tries++;\n"
        "    permitted = await ask(`Run ${command}?`);\n"
        "    if (!permitted && tries >= 5) return { content: [] };\n"
        "  }\n"
    )
    assert _gates_over(_scan(tmp_path, body)) == {("human_approval", "server.ts", 11)}
    # ``while (!ok) { ok = await ask() }``: the loop ends only once the answer is yes.
    simple = "  let ok = false;\n  while (!ok) {\n    ok = await ask('again?');\n  }\n"
    assert _gates_over(_scan(tmp_path / "simple", simple)) == {("human_approval", "server.ts", 9)}


def test_a_loop_that_can_end_without_a_yes_is_no_gate(tmp_path: Path) -> None:
    # The tries run out and the loop ends without refusing: the command runs unapproved.
    no_refusal = (
        "  let permitted = false;\n"
        "  let tries = 0;\n"
        "  while (!permitted && tries < 5) {\n"
        "    tries++;\n"
        "    permitted = await ask('run?');\n"
        "  }\n"
    )
    assert _gates_over(_scan(tmp_path / "a", no_refusal)) == set()
    # A ``break`` leaves the loop whatever the answer.
    breaks = "  let ok = false;\n  while (!ok) {\n    ok = await ask('run?');\n    break;\n  }\n"
    assert _gates_over(_scan(tmp_path / "b", breaks)) == set()


def test_a_notice_without_choices_or_a_helper_that_asks_nobody_is_no_gate(tmp_path: Path) -> None:
    body = "  if (!(await ask(`Run ${command}?`))) return { content: [] };\n"
    # The same notification with nothing to choose: a notice, not a question.
    assert _gates_over(_scan(tmp_path / "notice", body, options="sound: true")) == set()
    other = {"check.ts": "export async function check(c: string): Promise<boolean> {\n  return c.length > 0;\n}\n"}
    body = "  if (!(await check(command))) return { content: [] };\n"
    source = {"server.ts": SERVER.replace("{body}", body).replace("./ask.js", "./check.js").replace("ask }", "check }")}
    bundle = scan_files(tmp_path / "nobody", {**source, **other})
    assert _gates_over(bundle) == set()


LEVELS = (
    'import { exec } from "child_process";\n'
    'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
    'import { z } from "zod";\n'
    "export enum Level { SAFE = 'safe', REQUIRES_APPROVAL = 'requires_approval', FORBIDDEN = 'forbidden' }\n"
    "class Service {\n"
    "  private {table}: Map<string, Level> = new Map([['ls', Level.SAFE], ['rm', Level.FORBIDDEN]]);\n"
    "  private level(command: string): Level | null {\n"
    "    const entry = this.{table}.get(command);\n"
    "    if (!entry) {\n"
    "      return null;\n"
    "    }\n"
    "    return entry;\n"
    "  }\n"
    "  run(command: string) {\n"
    "    const level = this.level(command);\n"
    "    if (level === null) throw new Error('not listed');\n"
    "{checks}"
    "    return exec(command);\n"
    "  }\n"
    "}\n"
    "const service = new Service();\n"
    'const server = new McpServer({ name: "s", version: "1" });\n'
    'server.tool("run", "Run", { command: z.string() }, async ({ command }) => {\n'
    "  service.run(command);\n"
    "  return { content: [] };\n"
    "});\n"
)


def _levels(tmp_path: Path, checks: str, table: str = "whitelist") -> dict[str, Any]:
    return scan_files(tmp_path, {"server.ts": LEVELS.replace("{checks}", checks).replace("{table}", table)})


def test_policy_levels_and_a_listed_lookup_gate_the_effect(tmp_path: Path) -> None:
    checks = (
        "    if (level === Level.FORBIDDEN) throw new Error('forbidden');\n"
        "    const rule = { level };\n"
        "    if (rule && rule.level === Level.REQUIRES_APPROVAL) return 'queued';\n"
    )
    assert _gates_over(_levels(tmp_path, checks)) == {
        ("allowlist", "server.ts", 16),  # the lookup's nothing refused by the caller
        ("allowlist", "server.ts", 17),  # a deny level
        ("human_approval", "server.ts", 19),  # held for approval (``rule &&`` only guards the read)
    }


def test_levels_that_refuse_nothing_and_unlisted_lookups_are_no_gates(tmp_path: Path) -> None:
    # A level that stops nothing, and a check whose branch goes on to the effect.
    checks = (
        "    if (level === Level.SAFE) console.log('safe');\n"
        "    if (level === Level.FORBIDDEN) console.log('forbidden, running anyway');\n"
    )
    assert _gates_over(_levels(tmp_path, checks, table="sessions")) == set()


def test_a_check_that_only_picks_a_value_or_fills_a_message_is_no_gate(tmp_path: Path) -> None:
    source = (
        'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
        'import { z } from "zod";\n'
        'import { exec } from "child_process";\n'
        "const ALLOWED = new Set(['ls', 'pwd']);\n"
        'const server = new McpServer({ name: "s", version: "1" });\n'
        'server.tool("pick", "Pick", { level: z.string(), command: z.string() }, async ({ level, command }) => {\n'
        "  const mapped = level === 'safe' ? 1 : 2;\n"
        "  const listed = ALLOWED.has(command);\n"
        "  console.log(`listed: ${listed ? 'yes' : 'no'}`);\n"
        "  exec(command);\n"
        "  return { content: [{ type: 'text', text: String(mapped) }] };\n"
        "});\n"
        'server.tool("gated", "Gated", { command: z.string() }, async ({ command }) => {\n'
        "  const allowed = ALLOWED.has(command);\n"
        "  if (!allowed) return { content: [] };\n"
        "  exec(command);\n"
        "  return { content: [] };\n"
        "});\n"
    )
    bundle = scan_files(tmp_path, {"server.ts": source})
    assert _gates_over(bundle, "pick") == set()
    assert _gates_over(bundle, "gated") == {("allowlist", "server.ts", 14)}
    # Only the check that decides a path is reported at all.
    assert _all_gates(bundle) == {("allowlist", "server.ts", 14)}


def _gates_by_line(bundle: dict[str, Any], tool: str) -> dict[int, set[tuple[str, int]]]:
    """Action line -> (kind, line) of the gates on the tool's path to it."""
    sites = {g["id"]: g for g in bundle["gates"]}
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    out: dict[int, set[tuple[str, int]]] = {}
    for action in bundle["actions"]:
        for path in action.get("reachedFrom", []):
            if path["toolId"] in ids:
                gates = {
                    (sites[g]["kind"], sites[g]["location"]["line"]) for g in {*path["gateIds"], *action["gateIds"]}
                }
                out.setdefault(action["location"]["line"], set()).update(gates)
    return out


def test_a_check_made_for_the_values_of_a_list_holds_in_their_cases(tmp_path: Path) -> None:
    source = (
        'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
        'import { z } from "zod";\n'
        'import { exec } from "child_process";\n'
        'const COLLECTION_OPS = ["drop", "query"];\n'
        "function checkCollection(name: string): void {\n"
        "  if (name.startsWith('system.')) throw new Error('system collections are off limits');\n"
        "}\n"
        'const server = new McpServer({ name: "s", version: "1" });\n'
        'server.tool("db", "Run", { op: z.string(), name: z.string() }, async ({ op, name }) => {\n'
        "  if (COLLECTION_OPS.includes(op)) {\n"
        "    checkCollection(name);\n"
        "  }\n"
        "  switch (op) {\n"
        "    case 'drop':\n"
        "      exec(`drop ${name}`);\n"
        "      break;\n"
        "    case 'stats':\n"
        "      exec(`stats ${name}`);\n"
        "      break;\n"
        "  }\n"
        "  return { content: [] };\n"
        "});\n"
    )
    by_line = _gates_by_line(scan_files(tmp_path, {"server.ts": source}), "db")
    assert by_line[15] == {("allowlist", 6)}  # "drop" is in the list: checked before
    assert by_line[18] == set()  # "stats" is not: nothing checked it


def test_a_count_against_its_limit_is_a_rate_limit(tmp_path: Path) -> None:
    template = (
        'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
        'import { z } from "zod";\n'
        'import { exec } from "child_process";\n'
        "const usage = { queryCount: 0, limit: 100 };\n"
        'const server = new McpServer({ name: "s", version: "1" });\n'
        'server.tool("run", "Run", { command: z.string() }, async ({ command }) => {\n'
        "  if ({check}) return { content: [] };\n"
        "  usage.queryCount++;\n"
        "  exec(command);\n"
        "  return { content: [] };\n"
        "});\n"
    )
    limited = scan_files(tmp_path / "a", {"server.ts": template.replace("{check}", "usage.queryCount >= usage.limit")})
    assert _gates_over(limited) == {("rate_limit", "server.ts", 7)}
    # A count against a number, or a length against a limit of its own, limits no rate of uses.
    for index, check in enumerate(["usage.queryCount >= 100", "command.length > 1000"]):
        bundle = scan_files(tmp_path / f"b{index}", {"server.ts": template.replace("{check}", check)})
        assert _gates_over(bundle) == set()


def test_a_check_of_the_rate_limit_by_name_refusing_is_a_rate_limit(tmp_path: Path) -> None:
    security = {"security.ts": "export function checkRateLimit(key: string): boolean { return key.length > 0; }\n"}
    body = '  if (!checkRateLimit(`tool:${command}`)) throw new Error("Rate limit exceeded");\n'
    head = 'import { checkRateLimit, logRateLimitEvent } from "./security.js";\n'
    bundle = scan_files(tmp_path / "a", {"server.ts": head + SERVER.replace("{body}", body), **security})
    assert _gates_over(bundle) == {("rate_limit", "server.ts", 8)}
    # A call only named for the rate limit (logging it) checks nothing.
    logging = head + SERVER.replace("{body}", "  logRateLimitEvent(command);\n")
    logged = scan_files(tmp_path / "b", {"server.ts": logging, **security})
    assert not {g for g in _gates_over(logged) if g[0] == "rate_limit"}


def test_a_terminal_choice_is_a_question_and_an_empty_check_is_none(tmp_path: Path) -> None:
    source = (
        'import * as p from "@clack/prompts";\n'
        'import { execaCommand } from "execa";\n'
        "export async function runOrRevise(script: string) {\n"
        "  const empty = script.trim() === '';\n"
        "  const answer = await p.select({\n"
        "    message: empty ? 'Revise this script?' : 'Run this script?',\n"
        "    options: [{ label: 'Yes', value: async () => { await execaCommand(script); } }],\n"
        "  });\n"
        "  const name = await p.text({ message: 'Name?' });\n"
        "  return [answer, name];\n"
        "}\n"
    )
    bundle = scan_files(tmp_path, {"cli.ts": source})
    # The select asks a person to choose; the text prompt asks nothing to approve; an emptiness test is a
    # check of shape, not of what is allowed; a prompt is no request leaving the machine.
    assert _all_gates(bundle) == {("human_approval", "cli.ts", 5)}
    assert not [a for a in bundle["actions"] if a["actionClass"] == "network.egress"]


def test_a_helper_returning_a_deny_list_check_gates_where_its_caller_refuses(tmp_path: Path) -> None:
    guard = (
        "export function isReadOnlyQuery(sql: string): boolean {\n"
        "  const forbidden = ['insert', 'update', 'delete', 'drop'];\n"
        "  const lowered = sql.toLowerCase();\n"
        "  return !forbidden.some((word) => lowered.includes(word));\n"
        "}\n"
        "export function hasEnabled(sql: string): boolean {\n"
        "  const items = [{ enabled: true }];\n"
        "  return items.some((item) => item.enabled);\n"
        "}\n"
    )
    template = (
        'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
        'import { z } from "zod";\n'
        'import { Client } from "pg";\n'
        'import { isReadOnlyQuery, hasEnabled } from "./guard.js";\n'
        "const db = new Client();\n"
        'const server = new McpServer({ name: "s", version: "1" });\n'
        'server.tool("query", "Query", { sql: z.string() }, async ({ sql }) => {\n'
        "  if (!{check}(sql)) {refusal}\n"
        "  await db.query(sql);\n"
        "  return { content: [] };\n"
        "});\n"
    )

    def gates(check: str, refusal: str, name: str) -> set[tuple[str, str, int]]:
        source = template.replace("{check}", check).replace("{refusal}", refusal)
        return _gates_over(scan_files(tmp_path / name, {"server.ts": source, "guard.ts": guard}), "query")

    assert gates("isReadOnlyQuery", "return { content: [] };", "refused") == {("allowlist", "server.ts", 8)}
    # A caller that goes on whatever the answer, and a list check that never looks at the query, are none.
    assert gates("isReadOnlyQuery", "console.log('writing');", "goes-on") == set()
    assert gates("hasEnabled", "return { content: [] };", "unrelated") == set()


SECURE = {
    "dirs.ts": (
        'import path from "path";\n'
        "const ROOTS = ['/srv/work'];\n"
        "export function isDirectoryAllowed(dir: string): boolean {\n"
        "  const absoluteDir = path.resolve(dir);\n"
        "  return ROOTS.some((root) => {\n"
        "    const resolved = path.resolve(root);\n"
        "    return absoluteDir === resolved || absoluteDir.startsWith(resolved + path.sep);\n"
        "  });\n"
        "}\n"
    ),
    "validate.ts": (
        "const ALLOW = ['ls', 'cat'];\n"
        "export function findAllowed(name: string): string | null {\n"
        "  const matched = ALLOW.find((entry) => {\n"
        "    const entryName = entry.trim();\n"
        "    return entryName === name;\n"
        "  });\n"
        "  return matched || null;\n"
        "}\n"
        "export function validateOne(command: string) {\n"
        "  const base = command.split(' ')[0];\n"
        "  if (!findAllowed(base)) return { isValid: false, command };\n"
        "  return { isValid: true, command };\n"
        "}\n"
        "export function validateAll(line: string) {\n"
        "  for (const part of line.split('&&')) {\n"
        "    {skip}"
        "    const result = validateOne(part);\n"
        "    if (!result.isValid) return result;\n"
        "  }\n"
        "  return { isValid: true, command: line };\n"
        "}\n"
    ),
    "server.ts": (
        'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
        'import { z } from "zod";\n'
        'import { execa } from "execa";\n'
        'import { isDirectoryAllowed } from "./dirs.js";\n'
        'import { validateAll } from "./validate.js";\n'
        'const server = new McpServer({ name: "s", version: "1" });\n'
        'server.tool("run", "Run", { command: z.string(), directory: z.string() }, async ({ command, directory }) => {\n'
        "  if (!isDirectoryAllowed(directory)) throw new Error('directory not allowed');\n"
        "  const verdict = validateAll(command);\n"
        "  if (verdict.isValid === false) throw new Error('command not allowed');\n"
        "  await execa({ shell: true, cwd: directory })`${command}`;\n"
        "  return { content: [] };\n"
        "});\n"
    ),
}


def test_checks_returned_through_validators_gate_the_command(tmp_path: Path) -> None:
    files = {**SECURE, "validate.ts": SECURE["validate.ts"].replace("{skip}", "")}
    gates = _gates_over(scan_files(tmp_path, files))
    # The directory helper is named as a permission check and its body checks a root by prefix: one check,
    # of the kind its body shows (the name was a guess); the validators' lookup of each part in the list
    # reaches the handler's test of isValid.
    assert gates == {
        ("path_containment", "server.ts", 8),
        ("allowlist", "server.ts", 10),
    }


def test_a_loop_that_can_skip_a_part_checks_nothing_after_it(tmp_path: Path) -> None:
    files = {**SECURE, "validate.ts": SECURE["validate.ts"].replace("{skip}", "if (!part) continue;\n")}
    gates = _gates_over(scan_files(tmp_path, files))
    assert ("allowlist", "server.ts", 10) not in gates
