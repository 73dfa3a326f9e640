"""A check gates the effects it decides on (issue 20 gate precision): an allow-list, deny-list or path containment
check of a value gates an effect only where that value, or one made from it, is what the effect is given; a test
whether a name is one of the tools' names chooses which tool runs; a test after which both branches hand the value
to the same call chooses how, not whether; a classifier's tests choose its answer; refusing the read-only statements
admits every write; and a function named as a check whose body shows what it checks is one check, of that kind.
Each has a twin that stays a gate (the command checked is the command run, the resolved path checked is the path
opened, a list of commands rather than of tool names, a branch that runs nothing, a refusal, a read-only prefix that
must match)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

MCP_PY = "import subprocess\nfrom pathlib import Path\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('s')\n\n"
MCP_TS = (
    'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
    'import { z } from "zod";\n'
    'import { execSync } from "child_process";\n'
    'import * as fs from "fs";\n'
    'import * as path from "path";\n'
    'const server = new McpServer({ name: "s", version: "1" });\n'
)


def _gates(bundle: dict[str, Any], tool: str, action_class: str) -> set[tuple[str, int]]:
    """(kind, line) of the gates on the paths from ``tool`` to its actions of ``action_class``."""
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    sites = {g["id"]: g for g in bundle["gates"]}
    actions = [
        a
        for a in bundle["actions"]
        if a["actionClass"] == action_class and any(p["toolId"] in ids for p in a["reachedFrom"])
    ]
    assert actions, f"{tool} reaches {action_class}"
    return {
        (sites[g]["kind"], sites[g]["location"]["line"])
        for a in actions
        for p in a["reachedFrom"]
        if p["toolId"] in ids
        for g in p["gateIds"]
    }


def test_an_allowlist_check_of_the_command_that_runs_is_a_gate(tmp_path: Path) -> None:
    server = MCP_PY + (
        "ALLOWED = {'ls', 'cat'}\n\n"
        "@mcp.tool()\n"
        "def run(command: str) -> str:\n"
        "    first = command.split()[0]\n"
        "    if first not in ALLOWED:\n"
        "        return 'refused'\n"
        "    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout\n"
    )
    assert _gates(scan_files(tmp_path, {"server.py": server}), "run", "shell.exec") == {("allowlist", 12)}


def test_a_check_of_a_value_the_effect_is_not_given_is_no_gate(tmp_path: Path) -> None:
    template = MCP_PY + (
        "@mcp.tool()\n"
        "def save(path: str, content: str, fmt: str) -> str:\n"
        "    if fmt not in ('csv', 'json'):\n"
        "        return 'unknown format'\n"
        "    Path({target}).write_text(content)\n"
        "    return 'saved'\n"
    )
    unrelated = scan_files(tmp_path / "a", {"server.py": template.replace("{target}", "path")})
    assert _gates(unrelated, "save", "file.write") == set()
    # The same check of a value the write is given (the file's extension) stays a gate.
    related = scan_files(tmp_path / "b", {"server.py": template.replace("{target}", "f'{path}.{fmt}'")})
    assert _gates(related, "save", "file.write") == {("allowlist", 9)}


def test_a_containment_check_of_the_resolved_path_that_is_opened_is_a_gate(tmp_path: Path) -> None:
    template = MCP_PY + (
        "ROOT = Path('/srv/data').resolve()\n\n"
        "@mcp.tool()\n"
        "def read(name: str, other: str) -> str:\n"
        "    target = (ROOT / name).resolve()\n"
        "    if not str(target).startswith(str(ROOT)):\n"
        "        return 'outside the data directory'\n"
        "    return Path({opened}).read_text()\n"
    )
    contained = scan_files(tmp_path / "a", {"server.py": template.replace("{opened}", "target")})
    assert _gates(contained, "read", "file.read") == {("path_containment", 12)}
    # A path checked, another opened: the check decides nothing about the read.
    elsewhere = scan_files(tmp_path / "b", {"server.py": template.replace("{opened}", "other")})
    assert _gates(elsewhere, "read", "file.read") == set()


def test_js_a_check_gates_what_the_checked_value_reaches(tmp_path: Path) -> None:
    server = MCP_TS + (
        'const ALLOWED = ["ls", "cat"];\n'
        'server.tool("run", "Run", { command: z.string() }, async ({ command }) => {\n'
        '  if (!ALLOWED.includes(command)) throw new Error("refused");\n'
        '  return { content: [{ type: "text", text: execSync(command).toString() }] };\n'
        "});\n"
        'server.tool("save", "Save", { file: z.string(), content: z.string(), format: z.string() },'
        " async ({ file, content, format }) => {\n"
        '  if (!["csv", "json"].includes(format.toLowerCase())) throw new Error("unknown format");\n'
        "  fs.writeFileSync(file, content);\n"
        '  return { content: [{ type: "text", text: "saved" }] };\n'
        "});\n"
    )
    bundle = scan_files(tmp_path, {"server.ts": server})
    assert _gates(bundle, "run", "shell.exec") == {("allowlist", 9)}
    assert _gates(bundle, "save", "file.write") == set()


DISPATCH_TS = MCP_TS + (
    "function execute(name: string, args: { target: string }) {\n"
    "  const known = [{names}];\n"
    '  if (!known.includes(name)) throw new Error("unknown");\n'
    '  return execSync("git " + name + " " + args.target).toString();\n'
    "}\n"
    'server.tool("status", "Status", { target: z.string() }, async (args) => '
    '({ content: [{ type: "text", text: execute("status", args) }] }));\n'
    'server.tool("log", "Log", { target: z.string() }, async (args) => '
    '({ content: [{ type: "text", text: execute("log", args) }] }));\n'
)


def test_a_check_that_a_name_is_one_of_the_tools_names_is_a_dispatch(tmp_path: Path) -> None:
    tools = scan_files(tmp_path / "a", {"server.ts": DISPATCH_TS.replace("{names}", '"status", "log"')})
    assert _gates(tools, "status", "shell.exec") == set()
    # A list of other values (commands, not the tools' names) stays a check.
    commands = scan_files(tmp_path / "b", {"server.ts": DISPATCH_TS.replace("{names}", '"git", "ls"')})
    assert _gates(commands, "status", "shell.exec") == {("allowlist", 9)}


def test_a_python_check_against_the_tools_names_is_a_dispatch(tmp_path: Path) -> None:
    template = MCP_PY + (
        "NAMES = ({names})\n\n"
        "def execute(name: str, target: str) -> str:\n"
        "    if name not in NAMES:\n"
        "        raise ValueError(name)\n"
        "    return subprocess.run(['git', name, target], capture_output=True, text=True).stdout\n\n"
        "@mcp.tool()\n"
        "def status(target: str) -> str:\n"
        "    return execute('status', target)\n\n"
        "@mcp.tool()\n"
        "def log(target: str) -> str:\n"
        "    return execute('log', target)\n"
    )
    tools = scan_files(tmp_path / "a", {"server.py": template.replace("{names}", "'status', 'log'")})
    assert _gates(tools, "status", "shell.exec") == set()
    commands = scan_files(tmp_path / "b", {"server.py": template.replace("{names}", "'status', 'diff'")})
    assert _gates(commands, "status", "shell.exec") == {("allowlist", 10)}


def test_both_branches_running_the_tested_value_is_no_gate(tmp_path: Path) -> None:
    template = MCP_TS + (
        'server.tool("git", "Git", { command: z.string() }, async ({ command }) => {\n'
        '  let out = "";\n'
        '  if (command.startsWith("git ")) {\n'
        '    out = execSync(command + " --no-pager").toString();\n'
        "  }{other}\n"
        '  return { content: [{ type: "text", text: out }] };\n'
        "});\n"
    )
    both = scan_files(
        tmp_path / "a", {"server.ts": template.replace("{other}", " else { out = execSync(command).toString(); }")}
    )
    assert _gates(both, "git", "shell.exec") == set()
    one = scan_files(tmp_path / "b", {"server.ts": template.replace("{other}", "")})
    assert _gates(one, "git", "shell.exec") == {("allowlist", 9)}


def test_python_both_branches_running_the_tested_value_is_no_gate(tmp_path: Path) -> None:
    template = MCP_PY + (
        "import sqlite3\n\n"
        "@mcp.tool()\n"
        "def query(sql: str) -> str:\n"
        "    con = sqlite3.connect('app.db')\n"
        "    if sql.lower().startswith('select'):\n"
        "        rows = con.execute(sql).fetchall()\n"
        "    else:\n"
        "        rows = {other}\n"
        "    return str(rows)\n"
    )
    both = scan_files(
        tmp_path / "a", {"server.py": template.replace("{other}", "con.execute(sql + ' -- ').fetchall()")}
    )
    assert _gates(both, "query", "sql.exec") == set()
    refused = scan_files(tmp_path / "b", {"server.py": template.replace("{other}", "[]")})
    assert _gates(refused, "query", "sql.exec") == {("allowlist", 12)}


def test_refusing_read_only_statements_is_no_gate(tmp_path: Path) -> None:
    template = MCP_TS + (
        'import Database from "better-sqlite3";\n'
        'const db = new Database("app.db");\n'
        'server.tool("write", "Write", { sql: z.string() }, async ({ sql }) => {\n'
        '  if ({test}sql.toLowerCase().startsWith("select")) throw new Error("use read");\n'
        "  db.exec(sql);\n"
        '  return { content: [{ type: "text", text: "done" }] };\n'
        "});\n"
    )
    reads_refused = scan_files(tmp_path / "a", {"server.ts": template.replace("{test}", "")})
    assert _gates(reads_refused, "write", "sql.exec") == set()
    only_reads = scan_files(tmp_path / "b", {"server.ts": template.replace("{test}", "!")})
    assert _gates(only_reads, "write", "sql.exec") == {("allowlist", 10)}


def test_python_refusing_read_only_statements_is_no_gate(tmp_path: Path) -> None:
    template = MCP_PY + (
        "import sqlite3\n\n"
        "@mcp.tool()\n"
        "def write(sql: str) -> str:\n"
        "    if {test}sql.upper().startswith('SELECT'):\n"
        "        raise ValueError('use read')\n"
        "    sqlite3.connect('app.db').execute(sql)\n"
        "    return 'done'\n"
    )
    reads_refused = scan_files(tmp_path / "a", {"server.py": template.replace("{test}", "")})
    assert _gates(reads_refused, "write", "sql.exec") == set()
    only_reads = scan_files(tmp_path / "b", {"server.py": template.replace("{test}", "not ")})
    assert _gates(only_reads, "write", "sql.exec") == {("allowlist", 11)}


def test_a_classifiers_tests_choose_its_answer_and_refuse_nothing(tmp_path: Path) -> None:
    template = MCP_TS + (
        "function kindOf(file: string): string {\n"
        "  const ext = path.extname(file);\n"
        '  if ([".ts", ".js"].includes(ext)) return "code";\n'
        '  if (ext === ".md") return "doc";\n'
        "  {last}\n"
        "}\n"
        'server.tool("read", "Read", { file: z.string() }, async ({ file }) => {\n'
        "  const kind = kindOf(file);\n"
        '  return { content: [{ type: "text", text: kind + fs.readFileSync(file, "utf8") }] };\n'
        "});\n"
    )
    classifier = scan_files(tmp_path / "a", {"server.ts": template.replace("{last}", 'return "other";')})
    assert _gates(classifier, "read", "file.read") == set()
    # A helper that refuses (throws) where its answer is not one of several literals keeps its deny list.
    refusing = scan_files(
        tmp_path / "b",
        {"server.ts": template.replace("{last}", 'if (ext === ".exe") throw new Error("no"); return file;')},
    )
    assert ("allowlist", 9) in _gates(refusing, "read", "file.read")


def test_a_check_named_for_permission_whose_body_checks_a_path_is_one_path_check(tmp_path: Path) -> None:
    server = MCP_TS + (
        'const ROOTS = [path.resolve("/srv/data")];\n'
        "function isDirectoryAllowed(dir: string): boolean {\n"
        "  const absolute = path.resolve(dir);\n"
        "  return ROOTS.some((root) => absolute === root || absolute.startsWith(root + path.sep));\n"
        "}\n"
        'server.tool("list", "List", { dir: z.string() }, async ({ dir }) => {\n'
        '  if (!isDirectoryAllowed(dir)) throw new Error("outside");\n'
        '  return { content: [{ type: "text", text: fs.readdirSync(dir).join("\\n") }] };\n'
        "});\n"
    )
    bundle = scan_files(tmp_path, {"server.ts": server})
    assert _gates(bundle, "list", "file.read") == {("path_containment", 13)}
