"""SQL reached from TypeScript tools (issue 13): tools built by a factory over a typed database handle
(closures see the factory's ``db: SqlDatabase``), SQL assembled in a template with a tool argument
(``sql.exec``, not a read because it starts with SELECT), a tool that wraps another under its name
(``name: queryTool.name``) and runs it with ``queryTool.invoke`` after an ``interrupt``, LangChain's
``getTableInfo`` as a read, a mysql2 pool reached through a helper whose return type names it, a
low-level MCP server that dispatches with ``if (name !== "mysql_query") throw``, and permission checks
joined by ``||``."""

from __future__ import annotations

from jsfix import FIXTURES

from assay.backend.engines.static.scan import scan_tree
from assay.backend.scans.bundle import EvidenceBundle


def _bundle() -> EvidenceBundle:
    return scan_tree(FIXTURES / "sql_tools")


def _reached(bundle: EvidenceBundle, path: str) -> set[tuple[str, int, tuple[str, ...]]]:
    names = {t.id: t.name for t in bundle.tools}
    return {
        (a.actionClass, a.location.line, tuple(sorted(names[p.toolId] for p in a.reachedFrom)))
        for a in bundle.actions
        if a.location.path == path
    }


def test_factory_tools_over_a_typed_handle_run_assembled_sql() -> None:
    bundle = _bundle()
    assert _reached(bundle, "music.ts") == {
        ("sql.exec", 10, ("get_albums",)),  # const query = `... ${artist} ...`; db.run(query)
        ("db.read", 16, ("list_genres",)),  # SQL fixed in the code
        ("sql.exec", 22, ("get_tracks",)),  # a template with a non-constant substitution is not fixed
    }
    flows = {(f.sink.line, f.sourceKind) for f in bundle.taintFlows if f.sink.path == "music.ts"}
    assert flows == {(10, "tool_argument"), (22, "tool_argument")}


def test_a_tool_named_after_another_runs_it_behind_its_interrupt() -> None:
    bundle = _bundle()
    tools = sorted((t.name, t.location.line) for t in bundle.tools if t.location.path == "sql_agent.ts")
    assert tools == [("sql_db_query", 15), ("sql_db_query", 23), ("sql_db_schema", 8)]
    assert _reached(bundle, "sql_agent.ts") == {
        ("db.read", 10, ("sql_db_schema",)),  # db.getTableInfo(tables)
        ("sql.exec", 17, ("sql_db_query", "sql_db_query")),
    }
    (action,) = [a for a in bundle.actions if a.location.path == "sql_agent.ts" and a.actionClass == "sql.exec"]
    kinds = {g.id: g.kind for g in bundle.gates}
    by_tool_line = {
        next(t.location.line for t in bundle.tools if t.id == p.toolId): sorted(kinds[g] for g in p.gateIds)
        for p in action.reachedFrom
    }
    # The wrapper reaches the sink only after a human answered; the plain tool has no gate.
    assert by_tool_line == {15: [], 23: ["human_approval"]}
    assert action.gateIds == []


def test_mysql_pool_behind_a_helper_and_a_name_guarded_dispatch() -> None:
    bundle = _bundle()
    assert _reached(bundle, "mysql/src/db/index.ts") == {
        ("sql.exec", 17, ("mysql_query",)),
        ("sql.exec", 28, ("mysql_query",)),
    }
    kinds = {g.id: (g.kind, g.location.line) for g in bundle.gates}
    gated = {
        a.location.line: sorted(kinds[g] for g in a.gateIds)
        for a in bundle.actions
        if a.location.path == "mysql/src/db/index.ts"
    }
    # Either permission check lets the write run: a permission check dominates it. The comparison
    # of the tool's name with "mysql_query" is a dispatch, not an allowlist.
    assert gated == {17: [("allowlist", 21), ("permission_check", 23)], 28: []}
    assert {(f.sink.line, f.sourceKind) for f in bundle.taintFlows if f.sink.path.startswith("mysql/")} == {
        (17, "tool_argument"),
        (28, "tool_argument"),
    }


def test_a_shared_sink_takes_the_class_of_what_each_caller_passes() -> None:
    """An adapter's ``all(query)`` runs whatever it is given: a read where the caller passes fixed SQL
    (a literal, or a function of every adapter that returns one, ``${this.database}`` included), SQL
    executed verbatim where the text comes from the model or is assembled from its table name."""
    bundle = _bundle()
    expected = {
        ("db.read", ("describe_table", "list_tables")),  # getListTablesQuery(): fixed in every adapter
        ("sql.exec", ("describe_table", "read_query")),  # the model's query; PRAGMA table_info(${table})
    }
    assert {(c, tools) for c, line, tools in _reached(bundle, "adapter/db/sqlite.ts") if line == 13} == expected
    assert {(c, tools) for c, line, tools in _reached(bundle, "adapter/db/mysql.ts") if line == 10} == expected
    # A parameterised INSERT is a write, whatever value the model binds into it.
    assert ("db.write", 19, ("append_note",)) in _reached(bundle, "adapter/db/sqlite.ts")


def test_each_class_of_a_shared_sink_keeps_the_gates_of_its_own_paths() -> None:
    bundle = _bundle()
    names = {t.id: t.name for t in bundle.tools}
    kinds = {g.id: (g.kind, g.location.path, g.location.line) for g in bundle.gates}
    paths = {
        (a.actionClass, names[p.toolId]): sorted(kinds[g] for g in p.gateIds)
        for a in bundle.actions
        if (a.location.path, a.location.line) == ("adapter/db/sqlite.ts", 13)
        for p in a.reachedFrom
    }
    # describe_table checks the model's table name against the tables that exist before it assembles
    # the PRAGMA: that check dominates its verbatim SQL, not the listing that runs before it.
    assert paths == {
        ("db.read", "describe_table"): [],
        ("db.read", "list_tables"): [],
        ("sql.exec", "describe_table"): [("allowlist", "adapter/server.ts", 18)],
        ("sql.exec", "read_query"): [("allowlist", "adapter/server.ts", 9)],
    }


def test_taint_goes_to_the_class_it_reaches_through() -> None:
    bundle = _bundle()
    flows = {(f.actionClass, f.sink.path, f.sink.line) for f in bundle.taintFlows if f.sink.path.startswith("adapter/")}
    # The model's query reaches the SQL text; the note is a bound value of a fixed INSERT.
    assert flows == {
        ("sql.exec", "adapter/db/sqlite.ts", 13),
        ("sql.exec", "adapter/db/mysql.ts", 10),
        ("db.write", "adapter/db/sqlite.ts", 19),
        ("db.write", "adapter/db/mysql.ts", 15),
    }


def test_a_prepared_statement_helper_is_split_by_what_callers_prepare() -> None:
    assert _reached(_bundle(), "prepared.ts") == {
        ("db.read", 10, ("list_notes",)),
        ("sql.exec", 10, ("query_notes",)),
    }
