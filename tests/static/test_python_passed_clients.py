"""Python: a client, pool or store built in one module and handed to a function of another, which calls it untyped
(``def put_blob(client, ...): client.put_object(...)``), is typed by what every call of that function in the tree
gives it, so its effect is seen where the helper calls it and reached from the tool; raw SQL on such a parameter is
classed by its text. A name bound to a conditional choice (``Store = PostgresStore if settings.pg else SqliteStore``)
is a call on each alternative."""

from __future__ import annotations

from pyfix import actions, analyse

from assay.backend.engines.static.link.linker import Linked

HELPERS = (
    "def put_blob(client, key, body):\n"
    "    client.put_object(Bucket='b', Key=key, Body=body)\n"
    "async def save_note(conn, text):\n"
    "    await conn.execute('INSERT INTO notes(text) VALUES ($1)', text)\n"
    "async def list_notes(conn):\n"
    "    return await conn.fetch('SELECT * FROM notes')\n"
    "async def run(conn, sql):\n"
    "    return await conn.fetch(sql)\n"
)

SERVER = (
    "import asyncpg\n"
    "import boto3\n"
    "from mcp.server.fastmcp import FastMCP\n"
    "from helpers import put_blob, save_note, list_notes, run\n"
    "mcp = FastMCP('x')\n"
    "s3 = boto3.client('s3')\n"
    "@mcp.tool()\n"
    "def upload(key: str, body: str) -> str:\n"
    "    put_blob(s3, key, body)\n"
    "    return 'ok'\n"
    "@mcp.tool()\n"
    "async def note(text: str) -> str:\n"
    "    pool = await asyncpg.create_pool('postgres://x')\n"
    "    async with pool.acquire() as conn:\n"
    "        await save_note(conn, text)\n"
    "        await list_notes(conn)\n"
    "        await run(conn, text)\n"
    "    return 'ok'\n"
)


def _reached(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions if a.reachedFrom}


def _unresolved(linked: Linked) -> set[str]:
    return {f.detail.split(" ", 1)[0] for f in linked.frontier if f.kind == "unresolved_call"}


def test_a_client_handed_to_a_helper_of_another_module_is_typed_by_its_callers() -> None:
    linked = analyse({"helpers.py": HELPERS, "server.py": SERVER})
    assert _reached(linked) == {
        ("network.egress", "helpers.py", 2),
        ("db.write", "helpers.py", 4),
        ("db.read", "helpers.py", 6),
        ("sql.exec", "helpers.py", 8),
    }
    assert not _unresolved(linked) & {"client.put_object", "conn.execute", "conn.fetch"}


def test_callers_that_disagree_or_give_nothing_known_leave_the_call_unresolved() -> None:
    server = (
        "import boto3\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "from helpers import put_blob\n"
        "mcp = FastMCP('x')\n"
        "s3 = boto3.client('s3')\n"
        "@mcp.tool()\n"
        "def tool_a(key: str) -> None:\n"
        "    put_blob(s3, key, b'x')\n"
        "@mcp.tool()\n"
        "def tool_b(key: str, bucket_client: str) -> None:\n"
        "    put_blob(bucket_client, key, b'x')\n"
    )
    linked = analyse({"helpers.py": HELPERS, "server.py": server})
    assert ("network.egress", 2) not in actions(linked)
    assert "client.put_object" in _unresolved(linked)


def test_a_store_instance_of_the_tree_handed_over_is_followed() -> None:
    stores = (
        "import sqlite3\n"
        "class SqliteStore:\n"
        "    def __init__(self, path):\n"
        "        self.conn = sqlite3.connect(path)\n"
        "    def save(self, k, v):\n"
        "        self.conn.execute('INSERT INTO kv VALUES (?, ?)', (k, v))\n"
    )
    helpers = "def keep(store, k, v):\n    store.save(k, v)\n"
    server = (
        "from mcp.server.fastmcp import FastMCP\n"
        "from stores import SqliteStore\n"
        "from helpers import keep\n"
        "mcp = FastMCP('x')\n"
        "store = SqliteStore('x.db')\n"
        "@mcp.tool()\n"
        "def remember(k: str, v: str) -> str:\n"
        "    keep(store, k, v)\n"
        "    return 'ok'\n"
    )
    linked = analyse({"stores.py": stores, "helpers.py": helpers, "server.py": server})
    assert ("db.write", "stores.py", 6) in _reached(linked)


STORES = (
    "import sqlite3\n"
    "import psycopg\n"
    "class SqliteStore:\n"
    "    def __init__(self, path):\n"
    "        self.conn = sqlite3.connect(path)\n"
    "    def save(self, k, v):\n"
    "        self.conn.execute('INSERT INTO kv VALUES (?, ?)', (k, v))\n"
    "class PostgresStore:\n"
    "    def __init__(self, dsn):\n"
    "        self.conn = psycopg.connect(dsn)\n"
    "    def save(self, k, v):\n"
    "        self.conn.execute('DELETE FROM kv WHERE k = %s', (k,))\n"
)


def test_a_store_class_chosen_from_settings_reaches_every_alternative() -> None:
    server = (
        "from mcp.server.fastmcp import FastMCP\n"
        "from stores import SqliteStore, PostgresStore\n"
        "from config import settings\n"
        "mcp = FastMCP('x')\n"
        "Store = PostgresStore if settings.use_pg else SqliteStore\n"
        "store = Store(settings.dsn)\n"
        "@mcp.tool()\n"
        "def remember(k: str, v: str) -> str:\n"
        "    store.save(k, v)\n"
        "    return 'ok'\n"
    )
    linked = analyse({"stores.py": STORES, "server.py": server, "config.py": "settings = None\n"})
    assert _reached(linked) == {("db.write", "stores.py", 7), ("db.write", "stores.py", 12)}


def test_an_instance_chosen_in_place_and_a_single_known_branch() -> None:
    server = (
        "from mcp.server.fastmcp import FastMCP\n"
        "from stores import SqliteStore, PostgresStore\n"
        "from config import settings\n"
        "mcp = FastMCP('x')\n"
        "store = PostgresStore(settings.dsn) if settings.use_pg else SqliteStore('x.db')\n"
        "only = SqliteStore('y.db') if settings.local else None\n"
        "@mcp.tool()\n"
        "def remember(k: str, v: str) -> None:\n"
        "    store.save(k, v)\n"
        "@mcp.tool()\n"
        "def keep(k: str, v: str) -> None:\n"
        "    only.save(k, v)\n"
    )
    linked = analyse({"stores.py": STORES, "server.py": server, "config.py": "settings = None\n"})
    names = {t.id: t.name for t in linked.tools}
    by_line = {
        a.location.line: {names[p.toolId] for p in a.reachedFrom}
        for a in linked.actions
        if a.location.path == "stores.py"
    }
    # ``remember`` reaches both stores' saves; ``keep``, whose other branch is None, only SQLite's.
    assert by_line == {7: {"remember", "keep"}, 12: {"remember"}}


REPO = "async def insert_note(conn, text):\n    await conn.execute('INSERT INTO notes(text) VALUES ($1)', text)\n"
SERVICE = "from repo import insert_note\nasync def add(conn, text):\n    await insert_note(conn, text.strip())\n"


def test_a_connection_handed_on_through_a_second_helper_is_typed_by_the_first_callers() -> None:
    server = (
        "import asyncpg\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "from service import add\n"
        "mcp = FastMCP('x')\n"
        "@mcp.tool()\n"
        "async def note(text: str) -> str:\n"
        "    conn = await asyncpg.connect('postgres://x')\n"
        "    await add(conn, text)\n"
        "    return 'ok'\n"
    )
    linked = analyse({"repo.py": REPO, "service.py": SERVICE, "server.py": server})
    assert _reached(linked) == {("db.write", "repo.py", 2)}


def test_a_parameter_handed_on_stays_unresolved_when_the_first_callers_disagree() -> None:
    server = (
        "import asyncpg\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "from service import add\n"
        "mcp = FastMCP('x')\n"
        "@mcp.tool()\n"
        "async def note(text: str) -> str:\n"
        "    await add(await asyncpg.connect('postgres://x'), text)\n"
        "    return 'ok'\n"
        "@mcp.tool()\n"
        "async def other(text: str, handle: str) -> str:\n"
        "    await add(handle, text)\n"
        "    return 'ok'\n"
    )
    linked = analyse({"repo.py": REPO, "service.py": SERVICE, "server.py": server})
    assert not _reached(linked)
    assert "conn.execute" in _unresolved(linked)
