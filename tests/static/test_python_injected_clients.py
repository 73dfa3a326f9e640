"""Python tools acting through clients they are handed rather than build: a factory's parameter captured by the
tools it defines, a client a class holds at class scope or behind a property, an asynchronous SDK client read as
its synchronous twin, and messaging URLs built from module constants (issue 20)."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

_TOOL = "from langchain_core.tools import tool\n"


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


def _factory(*calls: str) -> str:
    return (
        _TOOL + "import boto3, redis\n\ndef make_tools(store):\n    @tool\n    def save(key: str) -> str:\n"
        "        '''Save.'''\n        store.put_object(Bucket='b', Key=key, Body=b'')\n        return 'ok'\n"
        "    return [save]\n\n" + "".join(f"T{n} = make_tools({c})\n" for n, c in enumerate(calls))
    )


def test_a_tool_defined_in_a_factory_acts_through_what_every_call_of_the_factory_gives_it() -> None:
    linked = analyse({"m.py": _factory("boto3.client('s3')")})
    assert _reached(linked, "save") == {("network.egress", 8)}
    assert not [f for f in linked.frontier if f.kind == "unresolved_call"]


def test_a_factory_given_different_things_leaves_the_captured_call_unresolved() -> None:
    linked = analyse({"m.py": _factory("boto3.client('s3')", "redis.Redis()")})
    assert _reached(linked, "save") == set()
    assert [f.location.line for f in linked.frontier if f.kind == "unresolved_call"] == [8]


def test_sql_on_a_connection_a_factory_captures_is_classed_by_its_text() -> None:
    code = (
        _TOOL + "import sqlite3\n\ndef make_tools(db):\n    @tool\n    def add(t: str) -> str:\n        '''Add.'''\n"
        "        db.execute('INSERT INTO notes VALUES (?)', (t,))\n        return 'ok'\n\n"
        "    @tool\n    def count() -> str:\n        '''Count.'''\n"
        "        return str(db.execute('SELECT count(*) FROM notes').fetchone())\n"
        "    return [add, count]\n\nTOOLS = make_tools(sqlite3.connect('n.db'))\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "add") == {("db.write", 8)}
    assert _reached(linked, "count") == {("db.read", 14)}


def test_a_client_held_at_class_scope_is_what_its_methods_call() -> None:
    code = (
        _TOOL + "import boto3\n\nclass Store:\n    s3 = boto3.client('s3')\n\n    def put(self, key):\n"
        "        self.s3.put_object(Bucket='b', Key=key, Body=b'')\n\n"
        "class Other:\n    def put(self, key):\n        self.s3.put_object(Bucket='b', Key=key, Body=b'')\n\n"
        "@tool\ndef save(key: str) -> str:\n    '''Save.'''\n    Store().put(key)\n    return 'ok'\n\n"
        "@tool\ndef stash(key: str) -> str:\n    '''Stash.'''\n    Other().put(key)\n    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "save") == {("network.egress", 8)}
    # A class that holds no such client at class scope or in its methods: nothing known is called.
    assert _reached(linked, "stash") == set()


def test_a_property_gives_the_client_it_returns() -> None:
    code = (
        _TOOL
        + "from supabase import create_client\n\nclass Repo:\n    def __init__(self):\n        self._s3 = None\n\n"
        "    @property\n    def s3(self):\n        if self._s3 is None:\n            self._s3 = create_client('u', 'k')\n"
        "        return self._s3\n\n    def put(self, key):\n        self.s3.table('t').insert({'k': key}).execute()\n\n"
        "class Given:\n    def __init__(self, s3):\n        self._s3 = s3\n\n"
        "    @property\n    def s3(self):\n        return self._s3\n\n"
        "    def put(self, key):\n        self.s3.table('t').insert({'k': key}).execute()\n\n"
        "@tool\ndef save(key: str) -> str:\n    '''Save.'''\n    Repo().put(key)\n    return 'ok'\n\n"
        "@tool\ndef save_given(key: str, s3) -> str:\n    '''Save given.'''\n    Given(s3).put(key)\n    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "save") == {("db.write", 15), ("network.egress", 15)}
    # A property handing back what the constructor was given, untyped: nothing known is called.
    assert _reached(linked, "save_given") == set()


def test_an_asynchronous_slack_client_is_read_as_its_synchronous_twin() -> None:
    code = (
        "from mcp.server.fastmcp import FastMCP\nfrom slack_sdk.web.async_client import AsyncWebClient\n\n"
        "mcp = FastMCP('s')\nslack = AsyncWebClient(token='t')\n\n"
        "@mcp.tool()\nasync def later(channel: str, text: str, at: int) -> str:\n"
        "    await slack.chat_scheduleMessage(channel=channel, text=text, post_at=at)\n    return 'ok'\n\n"
        "@mcp.tool()\nasync def channels() -> str:\n    await slack.conversations_list()\n    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "later") == {("message.send", 9)}
    assert _reached(linked, "channels") == {("network.egress", 14)}


def test_a_messaging_endpoint_named_through_a_module_constant_sends_a_message() -> None:
    code = (
        "import httpx\nfrom mcp.server.fastmcp import FastMCP\n\nAPI = 'https://api.sendgrid.com/v3'\n"
        "mcp = FastMCP('m')\n\n@mcp.tool()\nasync def mail(to: str) -> str:\n"
        "    async with httpx.AsyncClient() as client:\n"
        "        await client.post(f'{API}/mail/send', json={'to': to})\n"
        "        await client.get(API + '/stats')\n    return 'ok'\n"
    )
    linked = analyse({"m.py": code})
    # The mail send endpoint is a message; another endpoint of the same API is egress.
    assert _reached(linked, "mail") == {("message.send", 10), ("network.egress", 11)}


def test_a_partial_handed_to_a_runner_runs_the_function_it_wraps() -> None:
    code = (
        _TOOL + "import asyncio, functools, subprocess\n\n@tool\nasync def sh(cmd: str) -> str:\n    '''Run.'''\n"
        "    loop = asyncio.get_running_loop()\n"
        "    await loop.run_in_executor(None, functools.partial(subprocess.run, cmd, shell=True))\n    return 'ok'\n\n"
        "@tool\nasync def later(cmd: str) -> str:\n    '''Keep.'''\n    job = functools.partial(subprocess.run, cmd)\n"
        "    return str(job)\n"
    )
    linked = analyse({"m.py": code})
    assert _reached(linked, "sh") == {("shell.exec", 8)}
    # A partial built and never run starts nothing.
    assert _reached(linked, "later") == set()
