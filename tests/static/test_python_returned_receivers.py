"""Issue 20: a helper that builds a package object the rule pack acts on and hands it back, through a local or a
module global set from another function of its file (``pool = await asyncpg.create_pool(...); return pool``,
``_pool = await init_db(); return _pool``), gives its callers that object: their calls on it are the pack's
actions. A helper handing back a package function's result the pack says nothing about gives nothing."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

TOOLS = """from fastmcp import FastMCP
from db import get_db

mcp = FastMCP("x")

@mcp.tool()
async def get_value(id: int) -> str:
    pool = await get_db()
    async with pool.acquire() as conn:
        rows = await conn.fetch("SELECT value FROM data WHERE id = $1", id)
    return str(rows)
"""

THROUGH_A_LOCAL = """import asyncpg

async def get_db():
    pool = await asyncpg.create_pool("postgresql://x", max_size=10)
    return pool
"""

THROUGH_A_GLOBAL = """import asyncpg

_pool = None

async def init_db():
    pool = await asyncpg.create_pool("postgresql://x", max_size=10)
    return pool

async def get_db():
    global _pool
    if _pool is None:
        _pool = await init_db()
    return _pool
"""

UNKNOWN = """import acme_pool

async def get_db():
    pool = await acme_pool.open_pool("x")
    return pool
"""


def test_a_pool_handed_back_through_a_local_is_the_callers_pool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.py": TOOLS, "db.py": THROUGH_A_LOCAL})
    assert actions_reached(bundle, "get_value") == {("db.read", "tools.py", 10)}


def test_a_pool_handed_back_through_a_global_another_function_set_is_the_callers_pool(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.py": TOOLS, "db.py": THROUGH_A_GLOBAL})
    assert actions_reached(bundle, "get_value") == {("db.read", "tools.py", 10)}


def test_an_object_no_rule_acts_on_gives_no_action(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"tools.py": TOOLS, "db.py": UNKNOWN})
    assert actions_reached(bundle, "get_value") == set()
