"""Issue 20 gates: a test of a value against each entry of a collection written in the code, bound to a local first
(``has_valid_table = any(t in sql for t in TABLES)``) and then refused on (``if not has_valid_table: return ...``), is
the allow-list check ``if not any(...)`` written in place is. A local bound twice, or to something else, is no check."""

from __future__ import annotations

from pyfix import analyse

CODE = """\
import sqlite3

from langchain_openai import ChatOpenAI

llm = ChatOpenAI(model="gpt-4o")
TABLES = ["orders", "customers"]


def run(question: str):
    sql = llm.invoke(question).content
    has_valid_table = any(table in sql for table in TABLES)
    if not has_valid_table:
        return None
    return sqlite3.connect("shop.db").execute(sql)


def run_twice_bound(question: str):
    sql = llm.invoke(question).content
    ok = any(table in sql for table in TABLES)
    ok = True
    if not ok:
        return None
    return sqlite3.connect("shop.db").execute(sql)
"""


def test_a_quantified_check_bound_to_a_local_is_an_allowlist() -> None:
    linked = analyse({"app/sql.py": CODE})
    kinds = {g.id: g.kind for g in linked.gates}
    gated = {a.location.line: {kinds[g] for g in a.gateIds} for a in linked.actions if a.actionClass == "sql.exec"}
    assert gated[14] == {"allowlist"}
    assert gated[23] == set()
