"""A query's leading keyword checked against a list of words, under a switch that says when it applies (issue 20
gates, TypeScript): ``READ_ONLY.some((k) => q.startsWith(k))`` asks which word a query begins with, an allow-list
of statement kinds, not a root the value lies under (path containment is a prefix that is a directory:
``ROOTS.some((r) => p.startsWith(r))`` with ``["/tmp", ...]``), also with comments among the words; and ``if (readOnly && !isReadOnlyQuery(q)) throw``
refuses the query whenever the switch is on: the switch is the configuration, the check's gate holds past the
``if`` (beside the read-only mode's own permission check). A comparison of another value (``n > 0 && ...``) stays a
condition of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

SERVER = """
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { runQuery } from "./query.js";
const server = new McpServer({ name: "s", version: "1" });
server.tool("execute_query", "Run SQL", { sql: z.string(), readOnly: z.boolean() }, async ({ sql, readOnly }) => {
  const rows = await runQuery(sql, process.env.MODE === "readonly" || readOnly);
  return { content: [{ type: "text", text: JSON.stringify(rows) }] };
});
"""


def _query(condition: str, listed: str = '"SELECT", /* plans */ "EXPLAIN", "SHOW"') -> str:
    return f"""
import pg from "pg";
const pool = new pg.Pool({{ connectionString: process.env.DB }});
const ALLOW_WRITES = process.env.ALLOW_WRITES === "1";
function isReadOnlyQuery(query: string): boolean {{
  const q = query.trim().toUpperCase();
  const listed = [{listed}];
  return listed.some((k) => q.startsWith(k)) && !q.includes("INTO");
}}
export async function runQuery(sql: string, readOnly: boolean, n: number = 0) {{
  if ({condition}) {{
    throw new Error("only read-only queries");
  }}
  return await pool.query(sql);
}}
"""


def _gates(bundle: dict[str, Any]) -> set[tuple[str, int]]:
    gates = {g["id"]: (g["kind"], g["location"]["line"]) for g in bundle["gates"]}
    return {
        gates[i]
        for a in bundle["actions"]
        if a["actionClass"] == "sql.exec" and a.get("reachedFrom")
        for i in a.get("gateIds", [])
        if i in gates
    }


def test_a_leading_keyword_checked_against_a_list_of_words_is_an_allowlist(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"query.ts": _query("!isReadOnlyQuery(sql)"), "server.ts": SERVER})
    assert _gates(bundle) == {("allowlist", 11)}


def test_a_prefix_from_a_list_of_directories_stays_path_containment(tmp_path: Path) -> None:
    query = _query("!isReadOnlyQuery(sql)", listed='"/tmp", "/var/data"')
    bundle = scan_files(tmp_path, {"query.ts": query, "server.ts": SERVER})
    assert _gates(bundle) == {("path_containment", 11)}


def test_a_check_under_a_read_only_switch_holds_past_the_if(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"query.ts": _query("readOnly && !isReadOnlyQuery(sql)"), "server.ts": SERVER})
    assert _gates(bundle) == {("allowlist", 11), ("permission_check", 11)}


def test_a_check_under_a_negated_setting_holds_past_the_if(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"query.ts": _query("!ALLOW_WRITES && !isReadOnlyQuery(sql)"), "server.ts": SERVER})
    assert _gates(bundle) == {("allowlist", 11)}


def test_a_comparison_of_another_value_is_no_switch(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"query.ts": _query("n > 0 && !isReadOnlyQuery(sql)"), "server.ts": SERVER})
    assert _gates(bundle) == set()
