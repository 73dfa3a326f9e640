"""Python: data-store clients as agent code builds, stores, hands out and returns them (issue 20).

- an item taken from a package's object by key (``client[db_name]``, ``db["users"]``) is a member of it, as an
  attribute would be, also when a helper of another module returns it (``def get_database(n): return client[n]``);
- a module name declared to hold a package's object (``pool: Optional[asyncpg.Pool] = None``) or bound to one by
  the functions that declare it ``global`` holds that object;
- ``self.tool`` in a class extending a package's class is the base's (``class Server(FastMCP)`` registering
  ``@self.tool()`` tools);
- SQLAlchemy connections run SQL by its text, and a statement a builder makes (``select(...)``, ``insert(t)``) by
  its builder; an inspector's ``get_*`` reads the database; search-engine document APIs (Azure AI Search,
  Elasticsearch, OpenSearch) read and write documents; pymongo's listings read."""

from __future__ import annotations

from pyfix import analyse, tools

from assay.backend.engines.static.link.linker import Linked


def _reached(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions if a.reachedFrom}


def _all(linked: Linked) -> set[tuple[str, str, int]]:
    return {(a.actionClass, a.location.path, a.location.line) for a in linked.actions}


DATABASE = (
    "import os\n"
    "from motor.motor_asyncio import AsyncIOMotorClient\n"
    "client = AsyncIOMotorClient(os.getenv('MONGO_URL'))\n"
    "async def list_databases():\n"
    "    return await client.list_database_names()\n"
    "def get_database(db_name: str):\n"
    "    return client[db_name]\n"
    "async def create_database(db_name: str):\n"
    "    db = client[db_name]\n"
    "    await db['init'].insert_one({'created': True})\n"
)

CRUD = (
    "from .database import get_database\n"
    "async def create_user(doc, db_name):\n"
    "    collection = get_database(db_name)['users']\n"
    "    return await collection.insert_one(doc)\n"
    "async def get_users(db_name):\n"
    "    db = get_database(db_name)\n"
    "    cursor = db['users'].find({})\n"
    "    return cursor\n"
)

SERVER = (
    "from fastmcp import FastMCP\n"
    "from .crud import create_user, get_users\n"
    "from .database import list_databases, create_database\n"
    "mcp = FastMCP('m')\n"
    "@mcp.tool()\n"
    "async def add_user(db_name: str, name: str) -> str:\n"
    "    return await create_user({'name': name}, db_name)\n"
    "@mcp.tool()\n"
    "async def list_users(db_name: str) -> list:\n"
    "    return await get_users(db_name)\n"
    "@mcp.tool()\n"
    "async def list_dbs() -> list:\n"
    "    return await list_databases()\n"
    "@mcp.tool()\n"
    "async def create_db(db_name: str) -> str:\n"
    "    return await create_database(db_name)\n"
)


def test_items_of_a_client_and_what_a_helper_returns_are_the_clients_members() -> None:
    linked = analyse({"app/database.py": DATABASE, "app/crud.py": CRUD, "app/server.py": SERVER})
    assert _reached(linked) == {
        ("db.read", "app/database.py", 5),
        ("db.write", "app/database.py", 10),
        ("db.write", "app/crud.py", 4),
        ("db.read", "app/crud.py", 7),
    }


def test_items_of_a_modules_value_or_of_a_tree_object_stay_what_they_were() -> None:
    source = (
        "import os\n"
        "import subprocess\n"
        "from fastmcp import FastMCP\n"
        "mcp = FastMCP('m')\n"
        "class Registry:\n"
        "    def insert_one(self, doc):\n"
        "        return doc\n"
        "registry = {'users': Registry()}\n"
        "@mcp.tool()\n"
        "def add(doc: dict) -> str:\n"
        "    registry['users'].insert_one(doc)\n"
        "    return os.environ['HOME']\n"
    )
    linked = analyse({"server.py": source})
    assert not {c for c, _, _ in _reached(linked)} & {"db.write", "db.read"}


POOL = (
    "import asyncpg\n"
    "from typing import Optional\n"
    "from mcp.server.fastmcp import FastMCP\n"
    "mcp = FastMCP('x')\n"
    "{declaration}\n"
    "async def ensure_pool():\n"
    "    global pool\n"
    "    pool = {binding}\n"
    "async def close_pool():\n"
    "    global pool\n"
    "    pool = None\n"
    "@mcp.tool()\n"
    "async def list_tables(schema: str) -> list:\n"
    "    await ensure_pool()\n"
    "    async with pool.acquire() as conn:\n"
    "        return await conn.fetch('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', schema)\n"
    "@mcp.tool()\n"
    "async def count(table: str) -> int:\n"
    "    async with pool.acquire() as conn:\n"
    "        return await conn.fetchval(f'SELECT COUNT(*) FROM {{table}}')\n"
)


def test_a_module_global_declared_or_bound_through_global_holds_the_package_object() -> None:
    annotated = POOL.format(declaration="pool: Optional[asyncpg.Pool] = None", binding="await asyncpg.create_pool('x')")
    bound = POOL.format(declaration="pool = None", binding="await asyncpg.create_pool('x')")
    for source in (annotated, bound):
        linked = analyse({"server.py": source})
        assert _reached(linked) == {("db.read", "server.py", 16), ("sql.exec", "server.py", 20)}


def test_a_global_bound_to_things_that_disagree_stays_unknown() -> None:
    source = POOL.format(declaration="pool = None", binding="await asyncpg.create_pool('x')") + (
        "async def reset():\n    global pool\n    pool = make_pool()\n"
    )
    linked = analyse({"server.py": source})
    assert not _reached(linked)


SQLALCHEMY = (
    "from typing import Optional\n"
    "from mcp.server.fastmcp import FastMCP\n"
    "from sqlalchemy import inspect, insert, select, table, text\n"
    "from sqlalchemy.ext.asyncio import create_async_engine\n"
    "class Server(FastMCP):\n"
    "    def __init__(self, url: str):\n"
    "        super().__init__(name='db')\n"
    "        self.engine = create_async_engine(url)\n"
    "        self._register_tools()\n"
    "    async def _execute(self, connection, query):\n"
    "        return await connection.execute(query)\n"
    "    def _register_tools(self):\n"
    "        @self.tool()\n"
    "        async def run_query(sql: str) -> str:\n"
    "            async with self.engine.connect() as connection:\n"
    "                await self._execute(connection, text(sql))\n"
    "            return 'ok'\n"
    "        @self.tool()\n"
    "        async def sample(name: str) -> str:\n"
    "            async with self.engine.connect() as conn:\n"
    "                stmt = select(table(name)).limit(5)\n"
    "                await conn.execute(stmt)\n"
    "                await conn.execute(insert(table(name)).values(a=1))\n"
    "                def names(sync_conn):\n"
    "                    return inspect(sync_conn).get_table_names()\n"
    "                await conn.run_sync(names)\n"
    "            return 'ok'\n"
)


def test_a_package_subclass_registers_tools_on_self_and_its_engine_runs_sql_by_text_or_builder() -> None:
    linked = analyse({"server.py": SQLALCHEMY})
    assert {name for name, _ in tools(linked)} == {"run_query", "sample"}
    reached = _reached(linked)
    assert ("sql.exec", "server.py", 11) in reached  # the model's SQL, run by the helper it is handed to
    assert ("db.read", "server.py", 22) in reached
    assert ("db.write", "server.py", 23) in reached
    assert ("db.read", "server.py", 25) in reached
    assert ("sql.exec", "server.py", 22) not in _all(linked)


def test_a_tree_class_with_its_own_tool_method_or_two_package_bases_registers_nothing() -> None:
    own = (
        "from mcp.server.fastmcp import FastMCP\n"
        "class Server(FastMCP):\n"
        "    def tool(self, *a, **k):\n"
        "        return lambda f: f\n"
        "    def setup(self):\n"
        "        @self.tool()\n"
        "        def hidden() -> str:\n"
        "            return 'x'\n"
    )
    mixed = (
        "from mcp.server.fastmcp import FastMCP\n"
        "from pydantic import BaseModel\n"
        "class Server(FastMCP, BaseModel):\n"
        "    def setup(self):\n"
        "        @self.tool()\n"
        "        def hidden() -> str:\n"
        "            return 'x'\n"
    )
    assert not tools(analyse({"a.py": own}))
    assert not tools(analyse({"b.py": mixed}))


def test_search_engine_documents_are_read_and_written_and_other_calls_are_not() -> None:
    source = (
        "from azure.search.documents import SearchClient\n"
        "from elasticsearch import Elasticsearch\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "mcp = FastMCP('s')\n"
        "orders = SearchClient(endpoint='https://x', index_name='orders', credential=None)\n"
        "es = Elasticsearch('http://localhost:9200')\n"
        "@mcp.tool()\n"
        "def order(order_id: str) -> dict:\n"
        "    doc = orders.get_document(key=order_id)\n"
        "    orders.upload_documents(documents=[doc])\n"
        "    es.index(index='orders', document=doc)\n"
        "    es.search(index='orders', query={'match_all': {}})\n"
        "    es.cluster.health()\n"
        "    return doc\n"
    )
    reached = _reached(analyse({"server.py": source}))
    assert {("db.read", 9), ("db.write", 10), ("db.write", 11), ("db.read", 12)} <= {(c, n) for c, _, n in reached}
    assert not {c for c, _, n in reached if n == 13} & {"db.read", "db.write"}
