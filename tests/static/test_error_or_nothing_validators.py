"""Issue 20: a helper that hands back a message when a check fails and nothing when it passes (an error-or-nothing
validator: ``for pattern, label in FORBIDDEN: if re.search(pattern, sql): return f"{label} not allowed"`` then
``return None``) is that check where the caller tests its answer and stops (``if error := validate(sql): return
error``, or through a name), a deny list over what follows. Text searched against one part of each row of a
module-level list of literal tuples is a deny list as a list of literal patterns is."""

from __future__ import annotations

from pyfix import analyse, gate_kinds

_HELPER = (
    "import re\n"  # 1
    "import sqlite3\n"  # 2
    "from agents import function_tool\n"  # 3
    "\n"  # 4
    "FORBIDDEN = [\n"  # 5
    "    (r'\\bDROP\\b', 'DROP'),\n"  # 6
    "    (r'\\bDELETE\\b', 'DELETE'),\n"  # 7
    "]\n"  # 8
    "\n"  # 9
    "def validate_sql(sql: str) -> str | None:\n"  # 10
    "    for pattern, label in FORBIDDEN:\n"  # 11
    "        if re.search(pattern, sql, re.IGNORECASE):\n"  # 12
    "            return f'{label} statements are not allowed'\n"  # 13
    "    return None\n"  # 14
    "\n"  # 15
)


def test_a_walrus_test_of_an_error_or_nothing_validator_gates_what_follows() -> None:
    code = _HELPER + (
        "@function_tool\n"  # 16
        "def run_sql(sql: str) -> str:\n"  # 17
        "    if error := validate_sql(sql):\n"  # 18
        "        return error\n"  # 19
        "    return str(sqlite3.connect('x.db').execute(sql).fetchall())\n"  # 20
    )
    linked = analyse({"m.py": code})
    assert "allowlist" in gate_kinds(linked, "sql.exec")
    assert any(g.kind == "allowlist" and g.location.line == 18 for g in linked.gates)


def test_a_name_holding_the_validators_answer_gates_what_follows() -> None:
    code = _HELPER + (
        "@function_tool\n"  # 16
        "def run_sql(sql: str) -> str:\n"  # 17
        "    error = validate_sql(sql)\n"  # 18
        "    if error:\n"  # 19
        "        return error\n"  # 20
        "    return str(sqlite3.connect('x.db').execute(sql).fetchall())\n"  # 21
    )
    assert "allowlist" in gate_kinds(analyse({"m.py": code}), "sql.exec")


def test_an_answer_not_tested_gates_nothing() -> None:
    code = _HELPER + (
        "@function_tool\n"  # 16
        "def run_sql(sql: str) -> str:\n"  # 17
        "    error = validate_sql(sql)\n"  # 18
        "    print(error)\n"  # 19
        "    return str(sqlite3.connect('x.db').execute(sql).fetchall())\n"  # 20
    )
    assert "allowlist" not in gate_kinds(analyse({"m.py": code}), "sql.exec")
