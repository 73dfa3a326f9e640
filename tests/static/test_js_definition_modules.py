"""Issue 20: a tool module exporting an MCP tool definition and its handler apart (``const definition = { name,
description, inputSchema }; const handler = async (args) => ...; export { definition, handler }``), registered
in another file under the definition's name (``server.registerTool(query.definition.name, {...},
query.handler)``), is that tool, run by the handler, whether the module is imported by name, as a namespace
(``import * as query``) or through a barrel re-exporting it as one (``export * as query from "./query"``). A
namespace a barrel re-exports is a module: ``query.definition`` is the module's ``definition``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import actions_reached, scan_files

QUERY = """import { z } from "zod";
import { exec } from "child_process";
const definition = {
  name: "run-cmd",
  description: "Run a command",
  inputSchema: { cmd: z.string() },
};
const handler = async (args: { cmd: string }) => {
  exec(args.cmd);
  return { content: [] };
};
export { definition, handler };
"""


def _server(imported: str) -> str:
    return f"""import {{ McpServer }} from "@modelcontextprotocol/sdk/server/mcp.js";
{imported}
const server = new McpServer({{ name: "x", version: "1" }});
server.registerTool(
  query.definition.name,
  {{ description: query.definition.description, inputSchema: query.definition.inputSchema }},
  query.handler,
);
"""


def _tools(bundle: dict[str, Any]) -> list[tuple[str, str, int]]:
    return sorted((t["name"], t["location"]["path"], t["location"]["line"]) for t in bundle["tools"])


def _registration_frontier(bundle: dict[str, Any]) -> list[str]:
    return [f["detail"] for f in bundle["frontier"] if "registered here under the name" in f["detail"]]


def test_a_definition_module_registered_through_a_barrels_namespace_is_run_by_its_handler(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path,
        {
            "tools/query.ts": QUERY,
            "tools/index.ts": 'export * as query from "./query.js";\n',
            "server.ts": _server('import { query } from "./tools/index.js";'),
        },
    )
    assert _tools(bundle) == [("run-cmd", "tools/query.ts", 3)]
    assert actions_reached(bundle, "run-cmd") == {("shell.exec", "tools/query.ts", 9)}
    assert _registration_frontier(bundle) == []


def test_a_definition_module_imported_as_a_namespace_is_run_by_its_handler(tmp_path: Path) -> None:
    bundle = scan_files(
        tmp_path, {"tools/query.ts": QUERY, "server.ts": _server('import * as query from "./tools/query.js";')}
    )
    assert actions_reached(bundle, "run-cmd") == {("shell.exec", "tools/query.ts", 9)}


def test_a_registration_under_a_name_no_definition_gives_stays_frontier(tmp_path: Path) -> None:
    # The barrel re-exports another module as the namespace: nothing defines ``query.definition``.
    bundle = scan_files(
        tmp_path,
        {
            "tools/query.ts": QUERY,
            "tools/other.ts": "export const other = 1;\n",
            "tools/index.ts": 'export * as query from "./other.js";\n',
            "server.ts": _server('import { query } from "./tools/index.js";'),
        },
    )
    assert actions_reached(bundle, "run-cmd") == set()
    assert len(_registration_frontier(bundle)) == 1
