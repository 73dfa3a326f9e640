"""Python: a client keeps its type wherever it is held and read back. A class-level dict cache filled with built clients
(``self._clients[key] = session.client("s3")``) gives that client at ``self._clients[key]``; a method returning it, or
returning another function's result (``return pool.get_client(profile)``), gives it to its callers, followed through a
few functions; a method a class inherits from a base of another module is that base's. Calls on the client are then
the rules' actions wherever they are made. Nothing else becomes a client: a dict of strings, a cache's own methods, a
helper's non-client result."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link.linker import Linked

POOL = (
    "import boto3\n"
    "class ClientPool:\n"
    "    _clients = {}\n"
    "    _names = {}\n"
    "    def get_client(self, profile):\n"
    "        if profile in self._clients:\n"
    "            self._clients[profile].list_buckets(MaxBuckets=1)\n"  # 7
    "            return self._clients[profile]\n"
    "        session = boto3.Session(profile_name=profile)\n"
    "        self._clients[profile] = session.client('s3')\n"
    "        return self._clients[profile]\n"
    "    def clear(self):\n"
    "        self._clients.clear()\n"  # 13
    "    def label(self, profile, name):\n"
    "        self._names[profile] = name\n"
    "        return self._names[profile].upper()\n"  # 16
    "pool = ClientPool()\n"
)

BASE = (
    "from pkg.pool import pool\n"
    "class StoreBase:\n"
    "    def _client(self, profile=None):\n"
    "        try:\n"
    "            return pool.get_client(profile)\n"
    "        except Exception:\n"
    "            return self.manager.create_client('s3', profile)\n"
    "    def _save_log(self, text):\n"
    "        with open('/tmp/log.txt', 'w') as f:\n"  # 9
    "            f.write(text)\n"
)

STORE = (
    "from pkg.base import StoreBase\n"
    "class Store(StoreBase):\n"
    "    def delete(self, bucket, key):\n"
    "        client = self._client()\n"
    "        client.delete_object(Bucket=bucket, Key=key)\n"  # 5
    "        self._upload(client, bucket, key)\n"
    "        self._list(client, bucket)\n"
    "        self._save_log(key)\n"
    "    def _upload(self, s3_client, bucket, key):\n"
    "        s3_client.upload_file('/tmp/x', bucket, key)\n"  # 10
    "    def _list(self, s3_client, bucket):\n"
    "        paginator = s3_client.get_paginator('list_objects_v2')\n"
    "        return list(paginator.paginate(Bucket=bucket))\n"  # 13
)

SERVER = (
    "from mcp.server.fastmcp import FastMCP\n"
    "from pkg.store import Store\n"
    "mcp = FastMCP('x')\n"
    "@mcp.tool()\n"
    "def delete_object(bucket: str, key: str) -> str:\n"
    "    Store().delete(bucket, key)\n"
    "    return 'ok'\n"
)


def _reached(linked: Linked, path: str) -> set[tuple[str, int]]:
    return {(a.actionClass, a.location.line) for a in linked.actions if a.reachedFrom and a.location.path == path}


def _unresolved(linked: Linked) -> set[str]:
    return {f.detail.split(" ", 1)[0] for f in linked.frontier if f.kind == "unresolved_call"}


def _tree(**overrides: str) -> dict[str, str]:
    files = {
        "pkg/__init__.py": "",
        "pkg/pool.py": POOL,
        "pkg/base.py": BASE,
        "pkg/store.py": STORE,
        "server.py": SERVER,
    }
    files.update({f"pkg/{name}.py": text for name, text in overrides.items()})
    return files


def test_a_client_held_in_a_class_cache_and_returned_by_an_inherited_helper_is_that_client() -> None:
    linked = analyse(_tree())
    assert _reached(linked, "pkg/pool.py") == {("network.egress", 7)}
    assert _reached(linked, "pkg/store.py") == {
        ("network.egress", 5),
        ("network.egress", 10),
        ("file.read", 10),  # upload_file reads the local file it sends
        ("network.egress", 13),
    }
    # The inherited method runs the base's code.
    assert _reached(linked, "pkg/base.py") == {("file.write", 9)}
    assert not _unresolved(linked) & {
        "pkg.store.Store._client.delete_object",
        "pkg.pool.ClientPool._clients.list_buckets",
    }


def test_a_cache_s_own_methods_and_a_dict_of_other_values_are_no_client() -> None:
    linked = analyse(_tree())
    lines = {a.location.line for a in linked.actions if a.location.path == "pkg/pool.py"}
    assert lines == {7}  # not ``self._clients.clear()`` (13) nor ``self._names[profile].upper()`` (16)


def test_a_helper_that_returns_what_is_not_built_gives_no_client() -> None:
    base = (
        "from pkg.pool import pool\n"
        "class StoreBase:\n"
        "    def _client(self, profile=None):\n"
        "        return self.settings.lookup(profile)\n"
        "    def _save_log(self, text):\n"
        "        pass\n"
    )
    linked = analyse(_tree(base=base))
    assert _reached(linked, "pkg/store.py") == set()


def test_a_cache_filled_with_different_kinds_holds_nothing_known() -> None:
    pool = (
        "import boto3\n"
        "class ClientPool:\n"
        "    _clients = {}\n"
        "    def get_client(self, profile):\n"
        "        if profile == 'local':\n"
        "            self._clients[profile] = profile\n"
        "        else:\n"
        "            self._clients[profile] = boto3.client('s3')\n"
        "        self._clients[profile].list_buckets()\n"
        "        return self._clients[profile]\n"
        "pool = ClientPool()\n"
    )
    linked = analyse(_tree(pool=pool))
    assert _reached(linked, "pkg/pool.py") == set()
    assert ("network.egress", 5) not in _reached(linked, "pkg/store.py")


def test_a_class_without_a_constructor_is_built_by_its_base_s() -> None:
    base = "class Writer:\n    def __init__(self):\n        open('/tmp/ready', 'w').close()\n"
    child = "from pkg.writer import Writer\nclass Child(Writer):\n    def run(self):\n        return 1\n"
    server = (
        "from mcp.server.fastmcp import FastMCP\n"
        "from pkg.child import Child\n"
        "mcp = FastMCP('x')\n"
        "@mcp.tool()\n"
        "def make() -> int:\n"
        "    return Child().run()\n"
    )
    linked = analyse({"pkg/__init__.py": "", "pkg/writer.py": base, "pkg/child.py": child, "server.py": server})
    assert _reached(linked, "pkg/writer.py") == {("file.write", 3)}


def test_a_function_returning_a_package_call_s_result_makes_no_new_action_on_it() -> None:
    helpers = "import requests\ndef fetch(url):\n    return requests.get(url)\n"
    server = (
        "from mcp.server.fastmcp import FastMCP\n"
        "from pkg.helpers import fetch\n"
        "mcp = FastMCP('x')\n"
        "@mcp.tool()\n"
        "def get(url: str) -> str:\n"
        "    return fetch(url).json()\n"
    )
    linked = analyse({"pkg/__init__.py": "", "pkg/helpers.py": helpers, "server.py": server})
    assert _reached(linked, "pkg/helpers.py") == {("network.egress", 3)}
    assert _reached(linked, "server.py") == set()


CONNECTOR = (
    "from fastmcp import Client\n"
    "import httpx\n"
    "class Remote:\n"
    "    def __init__(self):\n"
    "        self._clients = {}\n"
    "    async def _connect(self, url: str) -> Client:\n"
    "        if url not in self._clients:\n"
    "            self._clients[url] = Client(url)\n"
    "        return self._clients[url]\n"
    "    async def ping(self, url: str) -> str:\n"
    "        client = await self._connect(url)\n"
    "        async with client:\n"  # 12
    "            return 'ok'\n"
    "    async def fetch(self, url: str) -> str:\n"
    "        async with httpx.AsyncClient() as http:\n"  # 15
    "            return 'none'\n"
)


def test_entering_a_fastmcp_client_s_context_connects_and_other_clients_contexts_do_not() -> None:
    server = (
        "from mcp.server.fastmcp import FastMCP\n"
        "from pkg.remote import Remote\n"
        "mcp = FastMCP('x')\n"
        "remote = Remote()\n"
        "@mcp.tool()\n"
        "async def ping(url: str) -> str:\n"
        "    await remote.fetch(url)\n"
        "    return await remote.ping(url)\n"
    )
    linked = analyse({"pkg/__init__.py": "", "pkg/remote.py": CONNECTOR, "server.py": server})
    assert _reached(linked, "pkg/remote.py") == {("network.egress", 12)}


LOGS = (
    "from dataclasses import dataclass\n"
    "from pathlib import Path\n"
    "class LogManager:\n"
    "    @dataclass\n"
    "    class _Paths:\n"
    "        stdout: Path\n"
    "        def __getitem__(self, item: str) -> Path:\n"
    "            return getattr(self, item)\n"
    "    def __init__(self, base: Path):\n"
    "        self._dir = base\n"
    "    def paths_for(self, prefix: str) -> _Paths:\n"
    "        return self._Paths(stdout=self._dir / prefix)\n"
    "    def start(self, prefix: str) -> None:\n"
    "        paths = self.paths_for(prefix)\n"
    "        paths.stdout.open('a')\n"  # 15
    "    def read(self, prefix: str, stream: str) -> str:\n"
    "        path = self.paths_for(prefix)[stream]\n"
    "        with path.open('r') as fh:\n"  # 18
    "            return fh.read()\n"
    "    def names(self, table: dict, key: str) -> str:\n"
    "        entry = table[key]\n"
    "        return entry.open('w')\n"  # 22
)


def test_a_nested_class_s_fields_and_items_keep_their_types() -> None:
    server = (
        "from pathlib import Path\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "from pkg.logs import LogManager\n"
        "mcp = FastMCP('x')\n"
        "logs = LogManager(Path('/tmp'))\n"
        "@mcp.tool()\n"
        "def run(prefix: str, stream: str) -> str:\n"
        "    logs.start(prefix)\n"
        "    logs.names({}, prefix)\n"
        "    return logs.read(prefix, stream)\n"
    )
    linked = analyse({"pkg/__init__.py": "", "pkg/logs.py": LOGS, "server.py": server})
    # Not ``entry.open('w')`` on an item of a dict nothing says anything of (22).
    assert _reached(linked, "pkg/logs.py") == {("file.write", 15), ("file.read", 18)}


def test_an_item_of_a_package_client_is_that_package_s_and_an_item_of_a_response_is_not() -> None:
    server = (
        "from pymongo import MongoClient\n"
        "import requests\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "mcp = FastMCP('x')\n"
        "client = MongoClient('mongodb://x')\n"
        "@mcp.tool()\n"
        "def add(name: str) -> str:\n"
        "    db = client['app']\n"
        "    users = db['users']\n"
        "    users.insert_one({'name': name})\n"  # 10
        "    data = requests.get('http://x').json()\n"  # 11
        "    item = data['k']\n"
        "    item.get('z')\n"  # 13
        "    return 'ok'\n"
    )
    linked = analyse({"server.py": server})
    assert {line for _, line in _reached(linked, "server.py")} == {10, 11}


def test_a_directory_made_on_a_path_is_a_file_write_and_mkdir_on_anything_else_is_not() -> None:
    server = (
        "from pathlib import Path\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "mcp = FastMCP('x')\n"
        "@mcp.tool()\n"
        "def save(local_path: str, remote) -> str:\n"
        "    target = Path(local_path).expanduser()\n"
        "    target.parent.mkdir(parents=True, exist_ok=True)\n"  # 7
        "    Path(local_path).mkdir()\n"  # 8
        "    remote.mkdir(local_path)\n"  # 9
        "    return 'ok'\n"
    )
    linked = analyse({"server.py": server})
    assert _reached(linked, "server.py") == {("file.write", 7), ("file.write", 8)}


def test_every_duckduckgo_search_is_a_request_and_another_object_s_news_is_not() -> None:
    server = (
        "from duckduckgo_search import DDGS\n"
        "from mcp.server.fastmcp import FastMCP\n"
        "mcp = FastMCP('x')\n"
        "@mcp.tool()\n"
        "def search(q: str, feed) -> str:\n"
        "    DDGS().news(q, max_results=5)\n"  # 6
        "    DDGS().images(q)\n"  # 7
        "    feed.news(q)\n"  # 8
        "    return 'ok'\n"
    )
    linked = analyse({"server.py": server})
    assert _reached(linked, "server.py") == {("network.egress", 6), ("network.egress", 7)}
