"""Issue 20, Python: tool classes whose base is named for nothing in particular. A class naming its tool (a class
attribute, a ``name`` property, ``self.name = "x"``) and running it in a method such frameworks call is a tool
when its instances' name and schema reach a model: a base (in any module) building a tool schema from
``self.name``, or a schema built from an object's ``name`` reading a member the class answers (a low-level MCP
``list_tools`` handler's ``types.Tool(name=t.name, inputSchema=t.get_schema())``). A class that only carries a
name and runs something is no tool."""

from __future__ import annotations

from pyfix import analyse

from assay.backend.engines.static.link import Linked

_HANDLER_BASE = """\
from abc import ABC, abstractmethod


class Handler(ABC):
    def __init__(self, config):
        self.config = config

    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def get_schema(self) -> dict: ...

    @abstractmethod
    async def execute(self, arguments: dict) -> str: ...
"""

_HANDLERS = """\
import subprocess
import requests
from app.handlers.base import Handler


class RunCommand(Handler):
    @property
    def name(self) -> str:
        return "run_command"

    @property
    def description(self) -> str:
        return "Runs a command."

    def get_schema(self) -> dict:
        return {"type": "object", "properties": {"command": {"type": "string"}}}

    async def execute(self, arguments: dict) -> str:
        return subprocess.run(arguments["command"], shell=True, capture_output=True).stdout


class Fetch(Handler):
    @property
    def name(self) -> str:
        return "fetch"

    def get_schema(self) -> dict:
        return {"type": "object", "properties": {"url": {"type": "string"}}}

    async def execute(self, arguments: dict) -> str:
        return requests.get(arguments["url"], timeout=10).text
"""

_SERVER = """\
import mcp.types as types
from mcp.server import Server
from app.handlers.tools import Fetch, RunCommand


class App:
    def __init__(self, config):
        self.server = Server("demo")
        self.tools = {}
        for cls in [RunCommand, Fetch]:
            handler = cls(config)
            self.tools[handler.name] = handler

        @self.server.list_tools()
        async def list_tools() -> list[types.Tool]:
            return [
                types.Tool(name=t.name, description=t.description, inputSchema=t.get_schema())
                for t in self.tools.values()
            ]

        @self.server.call_tool()
        async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
            return [types.TextContent(type="text", text=await self.tools[name].execute(arguments))]
"""

_SKILL_BASE = """\
from abc import ABC, abstractmethod


class Skill(ABC):
    def run(self, **kwargs) -> str:
        if kwargs.get("dry_run"):
            return "skipped"
        return self._run(**kwargs)

    @abstractmethod
    def _run(self, **kwargs) -> str:
        raise NotImplementedError

    def to_definition(self) -> dict:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}
"""

_SKILLS = """\
import os
from app.skills.base import Skill


class Remember(Skill):
    name = "remember"
    description = "Stores a note."
    input_schema = {"type": "object", "properties": {"note": {"type": "string"}}}

    def _run(self, note: str) -> str:
        with open("notes.txt", "a") as f:
            f.write(note)
        return "ok"


class Forget(Skill):
    description = "Deletes the notes."
    input_schema = {"type": "object", "properties": {}}

    def __init__(self):
        self.name = "forget"

    def _run(self) -> str:
        os.remove("notes.txt")
        return "ok"
"""

_LOOP = """\
import anthropic
from app.skills.notes import Forget, Remember

client = anthropic.Anthropic()
skills = {s.name: s for s in [Remember(), Forget()]}


def turn(messages):
    reply = client.messages.create(
        model="claude-sonnet-4-5", max_tokens=512, messages=messages,
        tools=[s.to_definition() for s in skills.values()],
    )
    for block in reply.content:
        if block.type == "tool_use":
            skills[block.name].run(**block.input)
"""


def _tools(linked: Linked) -> list[tuple[str, str, int]]:
    return sorted((t.name, t.location.path, t.location.line) for t in linked.tools)


def _reached(linked: Linked, tool: str) -> set[tuple[str, str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {
        (a.actionClass, a.location.path, a.location.line)
        for a in linked.actions
        if any(p.toolId in ids for p in a.reachedFrom)
    }


def test_classes_a_low_level_list_tools_handler_describes_by_their_members_are_its_tools() -> None:
    linked = analyse(
        {"app/handlers/base.py": _HANDLER_BASE, "app/handlers/tools.py": _HANDLERS, "app/server.py": _SERVER}
    )
    assert _tools(linked) == [("fetch", "app/handlers/tools.py", 25), ("run_command", "app/handlers/tools.py", 9)]
    assert _reached(linked, "run_command") == {("shell.exec", "app/handlers/tools.py", 19)}
    assert _reached(linked, "fetch") == {("network.egress", "app/handlers/tools.py", 31)}
    # The abstract base names nothing and runs nothing: no tool.
    assert not [t for t in linked.tools if t.location.path == "app/handlers/base.py"]


def test_classes_whose_base_describes_its_instances_to_a_model_are_tools_run_by_their_own_method() -> None:
    linked = analyse({"app/skills/base.py": _SKILL_BASE, "app/skills/notes.py": _SKILLS, "app/agent.py": _LOOP})
    assert _tools(linked) == [("forget", "app/skills/notes.py", 21), ("remember", "app/skills/notes.py", 6)]
    assert _reached(linked, "remember") == {("file.write", "app/skills/notes.py", 11)}
    assert _reached(linked, "forget") == {("file.delete", "app/skills/notes.py", 24)}


def test_a_class_carrying_a_name_and_a_run_method_that_never_reaches_a_model_is_no_tool() -> None:
    jobs = """\
import os


class Job:
    def to_row(self) -> dict:
        return {"name": self.label, "schedule": self.cron}


class Cleanup(Job):
    name = "cleanup"
    description = "Removes temporary files."
    parameters = {"type": "object"}

    def run(self) -> None:
        os.remove("/tmp/cache")


class Report:
    def __init__(self):
        self.name = "report"

    def execute(self) -> None:
        with open("report.txt", "w") as f:
            f.write("done")


for job in [Cleanup(), Report()]:
    print({"name": job.name, "description": job.description})
    job.run()
"""
    linked = analyse({"jobs.py": jobs, "app/skills/base.py": _SKILL_BASE.replace("self.name", "self.label")})
    assert linked.tools == []


def test_a_tool_call_being_assembled_is_no_tool_definition() -> None:
    loop = """\
from openai import OpenAI

client = OpenAI()


def collect(stream):
    calls = {}
    for chunk in stream:
        for tc in chunk.choices[0].delta.tool_calls or []:
            calls.setdefault(tc.index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
    history = [{"type": "function", "function": {"name": "lookup", "arguments": "{}"}}]
    return calls, history
"""
    assert analyse({"loop.py": loop}).tools == []


_CLIENT = """\
import aiohttp


class Client:
    async def complete(self, messages):
        async with aiohttp.ClientSession() as session:
            async with session.post("https://api.example.com/v1/responses", json=messages) as reply:
                return await reply.json()

    async def reason(self, messages):
        return await self.complete(messages)
"""

_CLIENT_BASE = """\
from ..client import Client


class BaseTool:
    def __init__(self, config):
        self.client = Client()
"""


def test_a_client_a_base_builds_in_its_init_is_its_subclasses_in_other_modules() -> None:
    debug = "from .base import BaseTool\n\n\nclass DebugTool(BaseTool):\n    name = 'debug'\n\n"
    debug += "    async def execute(self, arguments):\n        return await self.client.reason(arguments)\n"
    linked = analyse({"src/client.py": _CLIENT, "src/tools/base.py": _CLIENT_BASE, "src/tools/debug.py": debug})
    assert _reached(linked, "debug") == {("network.egress", "src/client.py", 7)}


def test_a_field_no_base_assigns_reaches_nothing() -> None:
    debug = "from .base import BaseTool\n\n\nclass DebugTool(BaseTool):\n    name = 'debug'\n\n"
    debug += "    async def execute(self, arguments):\n        return await self.session.reason(arguments)\n"
    linked = analyse({"src/client.py": _CLIENT, "src/tools/base.py": _CLIENT_BASE, "src/tools/debug.py": debug})
    assert [t.name for t in linked.tools] == ["debug"]
    assert _reached(linked, "debug") == set()
