"""A check that classifies the model's SQL by its kind (``is_safe_query``, ``is_read_only``) gates the query run
after it also when it is one of several tests whose refusal ends the path (``if not sql or not
is_safe_query(sql): return``), and when the refusal is a ``continue`` (or ``break``) that skips the rest of a
loop's pass. Twins that stay no gate: tests joined by ``and`` (the check refuses only when the other test also
holds), a branch that refuses nothing, and a check made after the query ran."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

HEAD = (
    "import sqlite3\n"
    "from fastmcp import FastMCP\n"
    "from checks import is_safe_query\n\n"
    "mcp = FastMCP('s')\n"
    "conn = sqlite3.connect('db.sqlite')\n\n"
)
CHECKS = "def is_safe_query(q: str) -> bool:\n    return q.strip().upper().startswith('SELECT')\n"


def _gates(bundle: dict[str, Any], tool: str) -> set[tuple[str, int]]:
    """(kind, line) of the gates on the paths from ``tool`` to its SQL execution."""
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    sites = {g["id"]: g for g in bundle["gates"]}
    actions = [
        a
        for a in bundle["actions"]
        if a["actionClass"] == "sql.exec" and any(p["toolId"] in ids for p in a["reachedFrom"])
    ]
    assert actions, f"{tool} reaches sql.exec"
    return {
        (sites[g]["kind"], sites[g]["location"]["line"])
        for a in actions
        for p in a["reachedFrom"]
        if p["toolId"] in ids
        for g in p["gateIds"]
    }


def _scan(tmp_path: Path, body: str) -> dict[str, Any]:
    return scan_files(tmp_path, {"server.py": HEAD + body, "checks.py": CHECKS})


def test_a_kind_check_among_tests_whose_refusal_ends_the_path_is_a_gate(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run_sql(sql: str) -> str:\n"
        "    if not sql or not is_safe_query(sql):\n"
        "        return 'refused'\n"
        "    return str(conn.execute(sql).fetchall())\n"
    )
    assert _gates(_scan(tmp_path, body), "run_sql") == {("allowlist", 10)}


def test_a_kind_check_that_skips_the_loop_pass_is_a_gate(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run_all(queries: list[str]) -> str:\n"
        "    out = []\n"
        "    for sql in queries:\n"
        "        if not is_safe_query(sql):\n"
        "            out.append('unsafe')\n"
        "            continue\n"
        "        out.append(str(conn.execute(sql).fetchall()))\n"
        "    return '\\n'.join(out)\n"
    )
    assert _gates(_scan(tmp_path, body), "run_all") == {("allowlist", 12)}


def test_a_kind_check_joined_by_and_is_no_gate(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run_sql(sql: str, strict: bool) -> str:\n"
        "    if strict and not is_safe_query(sql):\n"
        "        return 'refused'\n"
        "    return str(conn.execute(sql).fetchall())\n"
    )
    assert _gates(_scan(tmp_path, body), "run_sql") == set()


def test_a_kind_check_whose_branch_refuses_nothing_is_no_gate(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run_all(queries: list[str]) -> str:\n"
        "    out = []\n"
        "    for sql in queries:\n"
        "        if not sql or not is_safe_query(sql):\n"
        "            out.append('unsafe')\n"
        "        out.append(str(conn.execute(sql).fetchall()))\n"
        "    return '\\n'.join(out)\n"
    )
    assert _gates(_scan(tmp_path, body), "run_all") == set()


def test_a_kind_check_after_the_query_ran_is_no_gate(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run_all(queries: list[str]) -> str:\n"
        "    out = []\n"
        "    for sql in queries:\n"
        "        out.append(str(conn.execute(sql).fetchall()))\n"
        "        if not is_safe_query(sql):\n"
        "            continue\n"
        "    return '\\n'.join(out)\n"
    )
    assert _gates(_scan(tmp_path, body), "run_all") == set()
