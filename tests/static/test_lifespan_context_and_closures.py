"""Issue 20: an MCP server's lifespan context is what its lifespan yields (``FastMCP("db", lifespan=app_lifespan)``
with ``app_lifespan`` yielding an ``AppContext``): ``ctx.request_context.lifespan_context.db.run(q)`` in a tool taking
``ctx: Context`` is a call on ``AppContext``'s ``db`` field. A closure reads its enclosing function's parameters as
they are where that function calls it (``loop.run_in_executor(None, _run)`` with ``_run`` executing ``query``), so
model-chosen text given to the function reaches the closure's sinks."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

_DB = (
    "import sqlite3\n"  # 1
    "import asyncio\n"  # 2
    "\n"  # 3
    "class Database:\n"  # 4
    "    async def run(self, query: str) -> list:\n"  # 5
    "        loop = asyncio.get_event_loop()\n"  # 6
    "\n"  # 7
    "        def _run():\n"  # 8
    "            return sqlite3.connect('x.db').execute(query).fetchall()\n"  # 9
    "\n"  # 10
    "        return await loop.run_in_executor(None, _run)\n"  # 11
)


def _reached(linked: Linked, tool: str) -> set[tuple[str, str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {
        (a.actionClass, a.location.path, a.location.line)
        for a in linked.actions
        if any(p.toolId in ids for p in a.reachedFrom)
    }


def _tainted(linked: Linked) -> set[tuple[str, int]]:
    return {(f.sink.path, f.sink.line) for f in linked.taintFlows if f.sourceKind == "tool_argument"}


def test_the_lifespan_context_is_what_the_servers_lifespan_yields() -> None:
    server = (
        "from contextlib import asynccontextmanager\n"  # 1
        "from dataclasses import dataclass\n"  # 2
        "from typing import AsyncIterator\n"  # 3
        "from mcp.server.fastmcp import Context, FastMCP\n"  # 4
        "from pkg.db import Database\n"  # 5
        "\n"  # 6
        "@dataclass\n"  # 7
        "class AppContext:\n"  # 8
        "    db: Database\n"  # 9
        "\n"  # 10
        "@asynccontextmanager\n"  # 11
        "async def app_lifespan(server: FastMCP) -> AsyncIterator[AppContext]:\n"  # 12
        "    yield AppContext(db=Database())\n"  # 13
        "\n"  # 14
        "mcp = FastMCP('db', lifespan=app_lifespan)\n"  # 15
        "\n"  # 16
        "@mcp.tool()\n"  # 17
        "async def query(ctx: Context, sql: str) -> list:\n"  # 18
        "    return await ctx.request_context.lifespan_context.db.run(sql)\n"  # 19
    )
    linked = analyse({"pkg/db.py": _DB, "pkg/server.py": server, "pkg/__init__.py": ""})
    assert ("sql.exec", "pkg/db.py", 9) in _reached(linked, "query")
    assert ("pkg/db.py", 9) in _tainted(linked)


def test_a_lifespan_without_annotation_yields_the_class_it_builds() -> None:
    server = (
        "from contextlib import asynccontextmanager\n"  # 1
        "from mcp.server.fastmcp import Context, FastMCP\n"  # 2
        "from pkg.db import Database\n"  # 3
        "\n"  # 4
        "class AppContext:\n"  # 5
        "    def __init__(self, db: Database):\n"  # 6
        "        self.db = db\n"  # 7
        "\n"  # 8
        "@asynccontextmanager\n"  # 9
        "async def app_lifespan(server):\n"  # 10
        "    yield AppContext(Database())\n"  # 11
        "\n"  # 12
        "mcp = FastMCP('db', lifespan=app_lifespan)\n"  # 13
        "\n"  # 14
        "@mcp.tool()\n"  # 15
        "async def query(sql: str, ctx: Context = None) -> list:\n"  # 16
        "    app = ctx.request_context.lifespan_context\n"  # 17
        "    return await app.db.run(sql)\n"  # 18
    )
    linked = analyse({"pkg/db.py": _DB, "pkg/server.py": server, "pkg/__init__.py": ""})
    assert ("sql.exec", "pkg/db.py", 9) in _reached(linked, "query")


def test_a_closure_reads_the_parameters_its_function_was_given() -> None:
    tool = (
        "from mcp.server.fastmcp import FastMCP\n"  # 1
        "from pkg.db import Database\n"  # 2
        "\n"  # 3
        "mcp = FastMCP('db')\n"  # 4
        "\n"  # 5
        "@mcp.tool()\n"  # 6
        "async def query(sql: str) -> list:\n"  # 7
        "    return await Database().run(sql)\n"  # 8
        "\n"  # 9
        "@mcp.tool()\n"  # 10
        "async def fixed(sql: str) -> list:\n"  # 11
        "    return await Database().run('SELECT 1')\n"  # 12
    )
    linked = analyse({"pkg/db.py": _DB, "pkg/server.py": tool, "pkg/__init__.py": ""})
    flows = {(f.sink.line, f.path[0].line if f.path else 0) for f in linked.taintFlows}
    assert ("pkg/db.py", 9) in _tainted(linked)
    assert all(at != 12 for _, at in flows)
