"""An allow-list in force only when it is configured still gates what follows it (issue 20, TypeScript
round): ``if (allowed.length > 0 && !allowed.some((t) => sql.includes(t))) throw`` and the same with an
allow-all wildcard test (``allowed[0] !== "*"``) before it refuse the SQL whenever the list is set; the first
conjuncts only ask whether the list applies, as ``entry && entry.level`` asks whether there is an entry.
A comparison about another value (``retries > 0``) stays a condition of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

SERVER = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import mysql from "mysql2/promise";
import { z } from "zod";
import { checkSQL } from "./security.js";
const pool = mysql.createPool({ host: "h" });
const server = new McpServer({ name: "s", version: "1" });
server.tool("run_sql", "Run SQL", { sql: z.string() }, async ({ sql }) => {
  checkSQL(sql);
  const [rows] = await pool.execute(sql);
  return { content: [{ type: "text", text: JSON.stringify(rows) }] };
});
"""


def _security(condition: str) -> str:
    return f"""
const allowed = (process.env.ALLOWED_TABLES || "").split(",").filter(Boolean);
let retries = Number(process.env.RETRIES || 0);
export function checkSQL(sql) {{
  if ({condition}) {{
    throw new Error("Table not allowed");
  }}
}}
"""


def _gate_lines(bundle: dict[str, Any]) -> set[int]:
    gates = {g["id"]: g["location"]["line"] for g in bundle["gates"]}
    return {
        gates[i]
        for a in bundle["actions"]
        if a["actionClass"] == "sql.exec" and a.get("reachedFrom")
        for i in a.get("gateIds", [])
        if i in gates
    }


def test_an_allowlist_applied_when_configured_gates_the_query(tmp_path: Path) -> None:
    security = _security("allowed.length > 0 && !allowed.some((t) => sql.includes(t))")
    bundle = scan_files(tmp_path, {"security.js": security, "server.js": SERVER})
    assert _gate_lines(bundle) == {5}


def test_an_allow_all_wildcard_test_is_part_of_the_configuration(tmp_path: Path) -> None:
    security = _security('allowed.length > 0 && allowed[0] !== "*" && !allowed.some((t) => sql.includes(t))')
    bundle = scan_files(tmp_path, {"security.js": security, "server.js": SERVER})
    assert _gate_lines(bundle) == {5}


def test_a_comparison_of_another_value_is_no_guard_of_the_list(tmp_path: Path) -> None:
    security = _security("retries > 0 && !allowed.some((t) => sql.includes(t))")
    bundle = scan_files(tmp_path, {"security.js": security, "server.js": SERVER})
    assert _gate_lines(bundle) == set()
