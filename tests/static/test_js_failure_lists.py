"""A list that collects what failed a check (issue 20 gates, TypeScript): ``for (const p of paths) { if
(!underRoots(p)) refused.push(p) }`` then ``return { authorized: refused.length === 0 }`` (or ``if
(refused.length > 0) return error``): where the list is empty every value passed the check, so a caller refusing on
the result's flag holds the check's gates. A success returned while a list is empty (``if (allowed.length === 0)
return { authorized: true }``: nothing configured, nothing to check) says nothing of the checks. A list pushed to
outside such a check is no list of failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

POLICY = """
import path from "path";
export const config = { allowedPaths: (process.env.ALLOWED || "").split(",") };
export function underRoots(filePath: string): boolean {
  const normalizedPath = path.normalize(filePath);
  return config.allowedPaths.some((allowed: string) => normalizedPath.startsWith(path.normalize(allowed) + path.sep));
}
"""


def _server(check: str, refusal: str = "!check.authorized") -> str:
    return f"""
import {{ McpServer }} from "@modelcontextprotocol/sdk/server/mcp.js";
import {{ exec }} from "child_process";
import {{ z }} from "zod";
import {{ underRoots, config }} from "./policy.js";
function checkPaths(command: string) {{
  if (config.allowedPaths.length === 0) {{
    return {{ authorized: true, refused: [] }};
  }}
  const refused: string[] = [];
  for (const p of command.split(" ").slice(1)) {{
{check}
  }}
  return {{ authorized: refused.length === 0, refused }};
}}
const server = new McpServer({{ name: "s", version: "1" }});
server.tool("Bash", "Run", {{ command: z.string() }}, async ({{ command }}) => {{
  const check = checkPaths(command);
  if ({refusal}) {{
    return {{ content: [{{ type: "text", text: "refused" }}], isError: true }};
  }}
  exec(command);
  return {{ content: [] }};
}});
"""


def _gates(bundle: dict[str, Any]) -> set[tuple[str, str, int]]:
    gates = {g["id"]: (g["kind"], g["location"]["path"], g["location"]["line"]) for g in bundle["gates"]}
    return {
        gates[i]
        for a in bundle["actions"]
        if a["actionClass"] == "shell.exec" and a.get("reachedFrom")
        for i in a.get("gateIds", [])
        if i in gates
    }


def test_a_result_flag_saying_no_value_failed_holds_the_check(tmp_path: Path) -> None:
    server = _server("    if (!underRoots(p)) {\n      refused.push(p);\n    }")
    bundle = scan_files(tmp_path, {"policy.ts": POLICY, "server.ts": server})
    assert _gates(bundle) == {("path_containment", "server.ts", 21)}


def test_a_list_pushed_to_without_a_check_is_no_list_of_failures(tmp_path: Path) -> None:
    server = _server("    underRoots(p);\n    refused.push(p);")
    bundle = scan_files(tmp_path, {"policy.ts": POLICY, "server.ts": server})
    assert _gates(bundle) == set()


def test_a_list_also_pushed_to_elsewhere_is_no_list_of_failures(tmp_path: Path) -> None:
    server = _server("    if (!underRoots(p)) refused.push(p);\n    refused.push(command);")
    bundle = scan_files(tmp_path, {"policy.ts": POLICY, "server.ts": server})
    assert _gates(bundle) == set()


def test_a_tool_refusing_while_its_list_of_failures_holds_something(tmp_path: Path) -> None:
    server = _server("    if (!underRoots(p)) refused.push(p);").replace(
        "const check = checkPaths(command);\n  if (!check.authorized) {",
        "const refused: string[] = [];\n"
        '  for (const p of command.split(" ")) if (!underRoots(p)) refused.push(p);\n'
        "  if (refused.length > 0) {",
    )
    bundle = scan_files(tmp_path, {"policy.ts": POLICY, "server.ts": server})
    assert _gates(bundle) == {("path_containment", "server.ts", 20)}
