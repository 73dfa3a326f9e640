"""Issue 20 gates, Python (``py-langchain-analytiq-readonly-sql-subclass``): a library tool or toolkit subclassed in
the tree is still the library's, and the checks its overrides make before handing the call to the library gate what
the library then does; a statement-kind check spelled as several prefix tests joined by ``or`` is one allow-list."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _tools(linked: Linked) -> list[tuple[str, str, int]]:
    return sorted((t.name, t.location.path, t.location.line) for t in linked.tools)


def _reached(linked: Linked, tool: str) -> set[tuple[str, str, int, tuple[str, ...]]]:
    """What ``tool`` reaches: (class, path, line, the kinds of the gates held over it)."""
    ids = {t.id for t in linked.tools if t.name == tool}
    kinds = {g.id: g.kind for g in linked.gates}
    return {
        (a.actionClass, a.location.path, a.location.line, tuple(sorted(kinds[g] for g in a.gateIds)))
        for a in linked.actions
        if any(p.toolId in ids for p in a.reachedFrom)
    }


READ_ONLY = (
    "from langchain_community.tools.sql_database.tool import QuerySQLDataBaseTool\n\n\n"
    "class ReadOnlyQuery(QuerySQLDataBaseTool):\n"
    "    def _run(self, query: str):\n"
    "        safe = query.lower().lstrip()\n"
    "        if not (safe.startswith('select') or safe.startswith('with')):\n"
    "            raise ValueError('read-only')\n"
    "        return super()._run(query)\n"
)


def test_a_subclass_of_a_library_tool_acts_where_its_override_hands_over_behind_the_check_before_it() -> None:
    linked = analyse(
        {
            "agent.py": READ_ONLY + "\n\ndef build(llm, db):\n"
            "    from langchain.agents import create_react_agent\n"
            "    return create_react_agent(llm, [ReadOnlyQuery(db=db)])\n"
        }
    )
    assert _tools(linked) == [("sql_db_query", "agent.py", 14)]
    # The library runs the query where the override hands it over, not where the tool is built; the prefix
    # tests joined by ``or`` allow two statement kinds.
    assert _reached(linked, "sql_db_query") == {("sql.exec", "agent.py", 9, ("allowlist",))}
    assert [f.sink.line for f in linked.taintFlows if f.actionClass == "sql.exec"] == [9]


def test_a_subclass_imported_from_another_module_and_appended_is_the_library_tool_a_plain_class_is_none() -> None:
    linked = analyse(
        {
            "read_only.py": READ_ONLY,
            "plain.py": "class Helper:\n    def _run(self, query: str):\n        return query\n",
            "kit.py": (
                "from .read_only import ReadOnlyQuery\n"
                "from .plain import Helper\n\n\n"
                "def tools(db):\n"
                "    found = []\n"
                "    found.append(ReadOnlyQuery(db=db))\n"
                "    found.append(Helper())\n"
                "    return found\n"
            ),
        }
    )
    assert _tools(linked) == [("sql_db_query", "kit.py", 7)]
    assert _reached(linked, "sql_db_query") == {("sql.exec", "read_only.py", 9, ("allowlist",))}


def test_a_toolkit_subclass_takes_the_librarys_tools_from_super_less_those_it_filters_out_by_name() -> None:
    linked = analyse(
        {
            "kit.py": (
                "from langchain_community.agent_toolkits.sql.toolkit import SQLDatabaseToolkit as Base\n\n\n"
                "class Toolkit(Base):\n"
                "    def get_tools(self):\n"
                "        tools = super().get_tools()\n"
                "        return [t for t in tools if t.name != 'sql_db_query']\n"
            )
        }
    )
    assert _tools(linked) == [
        ("sql_db_list_tables", "kit.py", 6),
        ("sql_db_query_checker", "kit.py", 6),
        ("sql_db_schema", "kit.py", 6),
    ]


def test_a_library_tool_appended_to_a_list_is_listed_and_a_factorys_closure_is_a_constructed_tools_function() -> None:
    linked = analyse(
        {
            "tools.py": (
                "import pandas as pd\n"
                "from langchain.tools import StructuredTool\n"
                "from langchain_community.tools import DuckDuckGoSearchRun\n\n\n"
                "def make(engine):\n"
                "    def _compare(table: str) -> str:\n"
                "        return pd.read_sql(f'SELECT * FROM {table}', engine).to_markdown()\n"
                "    return StructuredTool(name='compare_tables', description='d', func=_compare)\n\n\n"
                "def tools(engine):\n"
                "    found = [make(engine)]\n"
                "    found.append(DuckDuckGoSearchRun())\n"
                "    return found\n"
            )
        }
    )
    assert _tools(linked) == [("compare_tables", "tools.py", 9), ("duckduckgo_search", "tools.py", 14)]
    assert _reached(linked, "compare_tables") == {("sql.exec", "tools.py", 8, ())}


def test_prefix_tests_of_different_values_or_of_a_write_keyword_are_no_allowlist() -> None:
    body = (
        "import sqlite3\nfrom langchain_core.tools import tool\n\n\n"
        "@tool\ndef q(query: str, mode: str) -> str:\n"
        "    if not ({test}):\n"
        "        raise ValueError('no')\n"
        "    return str(sqlite3.connect('x').execute(query).fetchall())\n"
    )
    for test in (
        "query.startswith('select') or mode.startswith('with')",
        "query.startswith('select') or query.startswith('drop')",
    ):
        linked = analyse({"t.py": body.format(test=test)})
        assert _reached(linked, "q") == {("sql.exec", "t.py", 9, ())}, test
