"""Issue 20: a database connection a tool reaches through a field typed in another module (``ctx.deps.conn`` with
``conn: asyncpg.Connection`` in ``deps.py``) runs SQL: its raw-SQL calls are classed by their text, as on a
connection the tool builds itself (literal SELECT: db.read; the model's text: sql.exec), never taken for the
network egress of a client class (``Connection`` is also named as a client)."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

DEPS = (
    "from dataclasses import dataclass\nimport asyncpg\n\n"
    "@dataclass\nclass Deps:\n    conn: asyncpg.Connection\n    run_id: str\n"
)

TOOLS = (
    "from pydantic_ai import Agent, RunContext\nfrom deps import Deps\n\n"
    "agent = Agent('openai:gpt-4o', deps_type=Deps)\n\n"
    "@agent.tool\n"
    "async def preview(ctx: RunContext[Deps]) -> str:\n"  # 7
    "    rows = await ctx.deps.conn.fetch('SELECT table_name FROM information_schema.tables')\n"  # 8
    "    return str(rows)\n\n"
    "@agent.tool\n"
    "async def run_sql(ctx: RunContext[Deps], sql: str) -> str:\n"  # 12
    "    return str(await ctx.deps.conn.fetch(sql))\n"  # 13
)


def _reached(linked: Linked) -> set[tuple[str, str, int]]:
    names = {t.id: t.name for t in linked.tools}
    return {(names[p.toolId], a.actionClass, a.location.line) for a in linked.actions for p in a.reachedFrom}


def test_raw_sql_on_a_connection_typed_in_another_module_is_classed_by_its_text() -> None:
    linked = analyse({"deps.py": DEPS, "tools.py": TOOLS})
    assert _reached(linked) == {("preview", "db.read", 8), ("run_sql", "sql.exec", 13)}
