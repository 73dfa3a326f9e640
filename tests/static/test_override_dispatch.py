"""Issue 20, a call on a value typed as a base class runs whichever subclass the value is: ``conn.execute(q)`` with
``conn`` annotated, held or returned as ``BaseConnector`` reaches the ``execute`` of every subclass of the tree that
overrides it (override dispatch), so the effects written in those subclasses are reached. A call naming a subclass
that does not override the method runs the base's alone, never a sibling's."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

_BASE = (
    "from abc import ABC, abstractmethod\n"  # 1
    "\n"  # 2
    "class BaseConnector(ABC):\n"  # 3
    "    @abstractmethod\n"  # 4
    "    def execute(self, query: str) -> list:\n"  # 5
    "        ...\n"  # 6
    "\n"  # 7
    "    def close(self) -> None:\n"  # 8
    "        pass\n"  # 9
)
_PG = (
    "import psycopg2\n"  # 1
    "from pkg.base import BaseConnector\n"  # 2
    "\n"  # 3
    "class PgConnector(BaseConnector):\n"  # 4
    "    def execute(self, query: str) -> list:\n"  # 5
    "        cur = psycopg2.connect('dsn').cursor()\n"  # 6
    "        cur.execute(query)\n"  # 7
    "        return cur.fetchall()\n"  # 8
)
_SHELL = (
    "import subprocess\n"  # 1
    "from pkg.pg import PgConnector\n"  # 2
    "from pkg.base import BaseConnector\n"  # 3
    "\n"  # 4
    "class ShellConnector(PgConnector):\n"  # 5
    "    def execute(self, query: str) -> list:\n"  # 6
    "        return [subprocess.run(query, shell=True)]\n"  # 7
    "\n"  # 8
    "class LocalConnector(BaseConnector):\n"  # 9
    "    def execute(self, query: str) -> list:\n"  # 10
    "        return []\n"  # 11
    "\n"  # 12
    "    def close(self) -> None:\n"  # 13
    "        import os\n"  # 14
    "        os.remove('/tmp/x')\n"  # 15
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


def test_a_call_on_a_value_a_factory_types_as_the_base_reaches_every_override() -> None:
    tool = (
        "from mcp.server.fastmcp import FastMCP\n"  # 1
        "from pkg.base import BaseConnector\n"  # 2
        "\n"  # 3
        "mcp = FastMCP('db')\n"  # 4
        "\n"  # 5
        "class Registry:\n"  # 6
        "    def connector(self, kind: str) -> BaseConnector:\n"  # 7
        "        return load(kind)\n"  # 8
        "\n"  # 9
        "    def run(self, kind: str, query: str) -> list:\n"  # 10
        "        conn = self.connector(kind)\n"  # 11
        "        return conn.execute(query)\n"  # 12
        "\n"  # 13
        "@mcp.tool()\n"  # 14
        "def db_query(kind: str, query: str) -> list:\n"  # 15
        "    return Registry().run(kind, query)\n"  # 16
    )
    linked = analyse(
        {"pkg/base.py": _BASE, "pkg/pg.py": _PG, "pkg/shell.py": _SHELL, "pkg/server.py": tool, "pkg/__init__.py": ""}
    )
    reached = _reached(linked, "db_query")
    assert ("sql.exec", "pkg/pg.py", 7) in reached
    assert ("shell.exec", "pkg/shell.py", 7) in reached
    assert ("file.delete", "pkg/shell.py", 15) not in reached
    assert {("pkg/pg.py", 7), ("pkg/shell.py", 7)} <= _tainted(linked)


def test_a_parameter_annotated_as_the_base_reaches_every_override() -> None:
    tool = (
        "from mcp.server.fastmcp import FastMCP\n"  # 1
        "from pkg.base import BaseConnector\n"  # 2
        "\n"  # 3
        "mcp = FastMCP('db')\n"  # 4
        "\n"  # 5
        "def shut(conn: BaseConnector) -> None:\n"  # 6
        "    conn.close()\n"  # 7
        "\n"  # 8
        "@mcp.tool()\n"  # 9
        "def db_close(kind: str) -> str:\n"  # 10
        "    shut(pick(kind))\n"  # 11
        "    return 'ok'\n"  # 12
    )
    linked = analyse(
        {"pkg/base.py": _BASE, "pkg/pg.py": _PG, "pkg/shell.py": _SHELL, "pkg/server.py": tool, "pkg/__init__.py": ""}
    )
    assert _reached(linked, "db_close") == {("file.delete", "pkg/shell.py", 15)}


def test_a_call_naming_a_subclass_that_does_not_override_runs_no_sibling() -> None:
    tool = (
        "from mcp.server.fastmcp import FastMCP\n"  # 1
        "from pkg.pg import PgConnector\n"  # 2
        "\n"  # 3
        "mcp = FastMCP('db')\n"  # 4
        "\n"  # 5
        "@mcp.tool()\n"  # 6
        "def pg_close() -> str:\n"  # 7
        "    PgConnector().close()\n"  # 8
        "    return 'ok'\n"  # 9
    )
    linked = analyse(
        {"pkg/base.py": _BASE, "pkg/pg.py": _PG, "pkg/shell.py": _SHELL, "pkg/server.py": tool, "pkg/__init__.py": ""}
    )
    assert _reached(linked, "pg_close") == set()


def test_a_field_typed_as_the_base_reaches_every_override() -> None:
    deps = (
        "from dataclasses import dataclass\n"  # 1
        "from pkg.base import BaseConnector\n"  # 2
        "\n"  # 3
        "@dataclass\n"  # 4
        "class Deps:\n"  # 5
        "    conn: BaseConnector\n"  # 6
    )
    tool = (
        "from pydantic_ai import Agent, RunContext\n"  # 1
        "from pkg.deps import Deps\n"  # 2
        "\n"  # 3
        "agent = Agent('openai:gpt-4o', deps_type=Deps)\n"  # 4
        "\n"  # 5
        "@agent.tool\n"  # 6
        "def run_query(ctx: RunContext[Deps], query: str) -> list:\n"  # 7
        "    return ctx.deps.conn.execute(query)\n"  # 8
    )
    linked = analyse(
        {
            "pkg/base.py": _BASE,
            "pkg/pg.py": _PG,
            "pkg/shell.py": _SHELL,
            "pkg/deps.py": deps,
            "pkg/agent.py": tool,
            "pkg/__init__.py": "",
        }
    )
    reached = _reached(linked, "run_query")
    assert {("sql.exec", "pkg/pg.py", 7), ("shell.exec", "pkg/shell.py", 7)} <= reached


def test_a_protocol_typed_value_reaches_every_class_implementing_it() -> None:
    port = (
        "from typing import Protocol\n"  # 1
        "\n"  # 2
        "class Store(Protocol):\n"  # 3
        "    def put(self, key: str, data: bytes) -> None: ...\n"  # 4
        "    def get(self, key: str) -> bytes: ...\n"  # 5
    )
    impls = (
        "import os\n"  # 1
        "import boto3\n"  # 2
        "\n"  # 3
        "class S3Store:\n"  # 4
        "    def put(self, key: str, data: bytes) -> None:\n"  # 5
        "        boto3.client('s3').put_object(Bucket='b', Key=key, Body=data)\n"  # 6
        "    def get(self, key: str) -> bytes:\n"  # 7
        "        return b''\n"  # 8
        "\n"  # 9
        "class PutOnly:\n"  # 10
        "    def put(self, key: str, data: bytes) -> None:\n"  # 11
        "        os.remove(key)\n"  # 12
    )
    tool = (
        "from mcp.server.fastmcp import FastMCP\n"  # 1
        "from pkg.port import Store\n"  # 2
        "\n"  # 3
        "mcp = FastMCP('store')\n"  # 4
        "\n"  # 5
        "def save(store: Store, key: str, data: str) -> None:\n"  # 6
        "    store.put(key, data.encode())\n"  # 7
        "\n"  # 8
        "@mcp.tool()\n"  # 9
        "def upload(key: str, data: str) -> str:\n"  # 10
        "    save(make_store(), key, data)\n"  # 11
        "    return 'ok'\n"  # 12
    )
    linked = analyse({"pkg/port.py": port, "pkg/impls.py": impls, "pkg/server.py": tool, "pkg/__init__.py": ""})
    reached = _reached(linked, "upload")
    assert ("network.egress", "pkg/impls.py", 6) in reached
    assert ("file.delete", "pkg/impls.py", 12) not in reached  # defines put only: no Store


def test_an_item_of_a_dict_field_annotated_with_the_base_reaches_every_override() -> None:
    service = (
        "from typing import Dict\n"  # 1
        "from mcp.server.fastmcp import FastMCP\n"  # 2
        "from pkg.base import BaseConnector\n"  # 3
        "\n"  # 4
        "mcp = FastMCP('db')\n"  # 5
        "\n"  # 6
        "class Registry:\n"  # 7
        "    def __init__(self) -> None:\n"  # 8
        "        self._connectors: Dict[str, BaseConnector] = {}\n"  # 9
        "\n"  # 10
        "    def run(self, kind: str, query: str) -> list:\n"  # 11
        "        return self._connectors[kind].execute(query)\n"  # 12
        "\n"  # 13
        "registry = Registry()\n"  # 14
        "\n"  # 15
        "@mcp.tool()\n"  # 16
        "def db_query(kind: str, query: str) -> list:\n"  # 17
        "    return registry.run(kind, query)\n"  # 18
    )
    linked = analyse(
        {
            "pkg/base.py": _BASE,
            "pkg/pg.py": _PG,
            "pkg/shell.py": _SHELL,
            "pkg/server.py": service,
            "pkg/__init__.py": "",
        }
    )
    assert {("sql.exec", "pkg/pg.py", 7), ("shell.exec", "pkg/shell.py", 7)} <= _reached(linked, "db_query")


def test_a_loop_over_a_container_annotated_with_the_base_reaches_every_override() -> None:
    registry = (
        "from typing import Dict, List\n"  # 1
        "from mcp.server.fastmcp import FastMCP\n"  # 2
        "from pkg.base import BaseConnector\n"  # 3
        "\n"  # 4
        "mcp = FastMCP('db')\n"  # 5
        "\n"  # 6
        "class Registry:\n"  # 7
        "    def __init__(self) -> None:\n"  # 8
        "        self.connectors: List[BaseConnector] = []\n"  # 9
        "        self.by_name: Dict[str, BaseConnector] = {}\n"  # 10
        "\n"  # 11
        "    def run_all(self, query: str) -> None:\n"  # 12
        "        for conn in self.connectors:\n"  # 13
        "            conn.execute(query)\n"  # 14
        "\n"  # 15
        "    def run_named(self, query: str) -> None:\n"  # 16
        "        for name, conn in self.by_name.items():\n"  # 17
        "            conn.execute(query)\n"  # 18
        "\n"  # 19
        "def run_each(conns: list[BaseConnector], query: str) -> None:\n"  # 20
        "    for conn in conns:\n"  # 21
        "        conn.execute(query)\n"  # 22
        "\n"  # 23
        "registry = Registry()\n"  # 24
        "\n"  # 25
        "@mcp.tool()\n"  # 26
        "def run_all(query: str) -> str:\n"  # 27
        "    registry.run_all(query)\n"  # 28
        "    return 'ok'\n"  # 29
        "\n"  # 30
        "@mcp.tool()\n"  # 31
        "def run_named(query: str) -> str:\n"  # 32
        "    registry.run_named(query)\n"  # 33
        "    return 'ok'\n"  # 34
        "\n"  # 35
        "@mcp.tool()\n"  # 36
        "def run_each_tool(query: str) -> str:\n"  # 37
        "    run_each([], query)\n"  # 38
        "    return 'ok'\n"  # 39
    )
    linked = analyse(
        {
            "pkg/base.py": _BASE,
            "pkg/pg.py": _PG,
            "pkg/shell.py": _SHELL,
            "pkg/server.py": registry,
            "pkg/__init__.py": "",
        }
    )
    for tool in ("run_all", "run_named", "run_each_tool"):
        assert {("sql.exec", "pkg/pg.py", 7), ("shell.exec", "pkg/shell.py", 7)} <= _reached(linked, tool), tool
