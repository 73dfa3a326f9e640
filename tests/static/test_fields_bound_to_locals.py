"""Issue 20: a local bound to a field of a typed object holds the field's type (``graphiti = ctx.deps.graphiti_client``
with ``ctx: RunContext[Deps]`` and ``graphiti_client: Graphiti``), so a call on the local is read as the same call
on the chain would be (``graphiti.search(q)`` is ``Graphiti.search``, a knowledge-graph read)."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def test_a_local_bound_to_a_deps_field_is_that_fields_object() -> None:
    code = (
        "from dataclasses import dataclass\n"  # 1
        "from graphiti_core import Graphiti\n"  # 2
        "from pydantic_ai import Agent, RunContext\n"  # 3
        "\n"  # 4
        "@dataclass\n"  # 5
        "class Deps:\n"  # 6
        "    graphiti_client: Graphiti\n"  # 7
        "\n"  # 8
        "agent = Agent('openai:gpt-4o', deps_type=Deps)\n"  # 9
        "\n"  # 10
        "@agent.tool\n"  # 11
        "async def search_graph(ctx: RunContext[Deps], query: str) -> list:\n"  # 12
        "    graphiti = ctx.deps.graphiti_client\n"  # 13
        "    return await graphiti.search(query)\n"  # 14
        "\n"  # 15
        "@agent.tool\n"  # 16
        "async def remember(ctx: RunContext[Deps], text: str) -> str:\n"  # 17
        "    await ctx.deps.graphiti_client.add_episode(name='note', episode_body=text)\n"  # 18
        "    return 'ok'\n"  # 19
    )
    linked = analyse({"agent.py": code})
    assert _reached(linked, "search_graph") == {("db.read", 14)}
    assert _reached(linked, "remember") == {("db.write", 18)}


def test_a_local_bound_to_a_field_of_another_modules_deps_reaches_its_method() -> None:
    db = (
        "import sqlite3\n"  # 1
        "\n"  # 2
        "class Database:\n"  # 3
        "    def run(self, sql: str) -> list:\n"  # 4
        "        return sqlite3.connect('x.db').execute(sql).fetchall()\n"  # 5
    )
    deps = (
        "from dataclasses import dataclass\n"  # 1
        "from pkg.db import Database\n"  # 2
        "\n"  # 3
        "@dataclass\n"  # 4
        "class Deps:\n"  # 5
        "    database: Database\n"  # 6
    )
    tool = (
        "from pydantic_ai import Agent, RunContext\n"  # 1
        "from pkg.deps import Deps\n"  # 2
        "\n"  # 3
        "agent = Agent('openai:gpt-4o', deps_type=Deps)\n"  # 4
        "\n"  # 5
        "@agent.tool\n"  # 6
        "def query(ctx: RunContext[Deps], sql: str) -> list:\n"  # 7
        "    database = ctx.deps.database\n"  # 8
        "    return database.run(sql)\n"  # 9
    )
    linked = analyse({"pkg/db.py": db, "pkg/deps.py": deps, "pkg/agent.py": tool, "pkg/__init__.py": ""})
    assert ("sql.exec", 5) in _reached(linked, "query")
