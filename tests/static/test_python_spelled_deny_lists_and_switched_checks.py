"""Issue 20 gates, Python (``py-fastmcp-openmcp-fs-postgres-search``): a deny list spelled out as several substring
tests of the tool's input joined by ``or`` is the list those words make, and a check made only while a setting is on
holds after the setting's ``if`` when the setting is on unless configured otherwise."""

from __future__ import annotations

from pyfix import analyse

HEAD = (
    "import os\n"
    "import sqlite3\n"
    "from mcp.server.fastmcp import FastMCP\n\n"
    "mcp = FastMCP('db')\n"
    "READ_ONLY = os.environ.get('READ_ONLY', 'true').lower() == 'true'\n"
    "STRICT = os.getenv('STRICT') == '1'\n\n\n"
    "@mcp.tool()\n"
    "def query(sql: str, strict: bool = True) -> str:\n"
)
RUN = "    return str(sqlite3.connect('db.sqlite').execute(sql).fetchall())\n"


def _gates_over_sql(body: str) -> list[tuple[str, int]]:
    linked = analyse({"server.py": HEAD + body + RUN})
    kinds = {g.id: (g.kind, g.location.line) for g in linked.gates}
    return sorted(kinds[g] for a in linked.actions if a.actionClass == "sql.exec" for g in a.gateIds)


def test_substring_tests_of_the_input_joined_by_or_are_a_deny_list() -> None:
    body = "    if 'drop ' in sql.lower() or 'delete ' in sql.lower():\n        return 'Error: read-only'\n"
    assert _gates_over_sql(body) == [("allowlist", 12)]


def test_one_word_a_result_or_words_that_end_nothing_are_no_deny_list() -> None:
    one = "    if 'drop ' in sql.lower():\n        return 'Error'\n"
    result = "    out = str(sql)\n    if 'Failed' in out or 'error' in out:\n        return 'Error'\n"
    goes_on = "    if 'drop ' in sql or 'delete ' in sql:\n        print('careful')\n"
    for body in (one, result, goes_on):
        assert _gates_over_sql(body) == [], body


def test_a_check_a_setting_switches_on_holds_after_the_settings_if() -> None:
    body = (
        "    if READ_ONLY:\n"
        "        if 'drop ' in sql.lower() or 'delete ' in sql.lower():\n"
        "            return 'Error: read-only'\n"
    )
    assert _gates_over_sql(body) == [("allowlist", 13)]


def test_a_switch_off_by_default_or_set_by_the_model_or_a_body_that_acts_switches_no_check_on() -> None:
    off = "    if STRICT:\n        if 'drop ' in sql or 'delete ' in sql:\n            return 'Error'\n"
    by_model = "    if strict:\n        if 'drop ' in sql or 'delete ' in sql:\n            return 'Error'\n"
    assert _gates_over_sql(off) == []
    acting = (
        "    if READ_ONLY:\n"
        "        if 'drop ' in sql or 'delete ' in sql:\n"
        "            return 'Error'\n"
        "        sqlite3.connect('db.sqlite').execute(sql)\n"
    )
    assert _gates_over_sql(by_model) == []
    linked = analyse({"server.py": HEAD + acting + RUN})
    kinds = {g.id: g.kind for g in linked.gates}
    # The write under the setting is behind the check; the one after the ``if`` runs unchecked when it is off.
    assert {a.location.line: [kinds[g] for g in a.gateIds] for a in linked.actions if a.actionClass == "sql.exec"} == {
        15: ["allowlist"],
        16: [],
    }
