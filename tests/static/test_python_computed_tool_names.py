"""The name a model sees, computed as the framework computes it (issue 20, tool precision): a low-level MCP
``Tool(name=...)`` named by an ``Enum`` member of another module takes the member's value, and Haystack's
``ComponentTool(component=C())`` is named ``name=`` or after ``C`` in snake case and runs ``C.run``."""

from __future__ import annotations

from pyfix import analyse, tools

NAMES = """\
from enum import Enum


class ToolNames(str, Enum):
    SUBMIT = "submit-model"
    SOLVE = "solve-model"
"""

SERVER = """\
import subprocess
import mcp.types as types
from mcp.server import Server

from .names import ToolNames
from .missing import Unknown

server = Server("solver")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name=ToolNames.SUBMIT, description="Submit", inputSchema={"type": "object"}),
        types.Tool(name=ToolNames.SOLVE.value, description="Solve", inputSchema={"type": "object"}),
        types.Tool(name=Unknown.X, description="?", inputSchema={"type": "object"}),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list:
    subprocess.run(["minizinc", arguments["model"]])
    return []
"""


def test_a_tool_object_named_by_an_imported_enum_member_takes_the_members_value() -> None:
    linked = analyse({"pkg/names.py": NAMES, "pkg/server.py": SERVER})
    assert {t.name for t in linked.tools} == {"submit-model", "solve-model"}
    # The member's own name, and the Enum, are no tools.
    assert not {t.name for t in linked.tools} & {"SUBMIT", "ToolNames", "pkg.names.ToolNames.SUBMIT"}


def test_a_constant_the_tree_does_not_define_gives_no_tool_and_stays_visible_as_unresolved() -> None:
    linked = analyse({"pkg/names.py": NAMES, "pkg/server.py": SERVER})
    dispatch = [f for f in linked.frontier if f.kind == "dynamic_dispatch"]
    assert [f.location.line for f in dispatch if f.location is not None] == [16]
    alone = analyse({"pkg/server.py": SERVER})
    assert {t.name for t in alone.tools} == set()
    assert len([f for f in alone.frontier if f.kind == "dynamic_dispatch"]) == 3


COMPONENTS = """\
import requests
from haystack import component


@component
class DogFactFetcher:
    @component.output_types(fact=str)
    def run(self) -> dict:
        return {"fact": requests.get("https://dogapi.dog/api/v2/facts", timeout=10).text}


@component
class WeatherFetcher:
    @component.output_types(weather=str)
    def run(self, location: str) -> dict:
        return {"weather": requests.get("https://api.open-meteo.com/v1/forecast", params={"q": location}).text}


@component
class ConversationBuilder:
    @component.output_types(text=str)
    def run(self, text: str) -> dict:
        requests.post("https://example.invalid/log", json={"text": text})
        return {"text": text}
"""

AGENT = """\
from haystack import Pipeline
from haystack.components.agents import Agent
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.tools import ComponentTool

from bot.components import ConversationBuilder, DogFactFetcher, WeatherFetcher


def build() -> Agent:
    fact_tool = ComponentTool(component=DogFactFetcher(), name="get_dog_fact", description="A dog fact")
    fetcher = WeatherFetcher()
    weather_tool = ComponentTool(component=fetcher)
    pipe = Pipeline()
    pipe.add_component("builder", ConversationBuilder())
    return Agent(chat_generator=OpenAIChatGenerator(model="gpt-4o-mini"), tools=[fact_tool, weather_tool])
"""


def test_a_component_tool_is_named_as_haystack_names_it_and_runs_the_components_run() -> None:
    linked = analyse({"bot/components.py": COMPONENTS, "bot/agent.py": AGENT})
    assert tools(linked) == {("get_dog_fact", "role"), ("weather_fetcher", "role")}
    by_id = {t.id: t.name for t in linked.tools}
    reached = {(a.location.line, by_id[r.toolId]) for a in linked.actions for r in a.reachedFrom if r.toolId in by_id}
    assert reached == {(9, "get_dog_fact"), (16, "weather_fetcher")}


def test_a_pipeline_component_no_tool_wraps_is_no_tool() -> None:
    linked = analyse({"bot/components.py": COMPONENTS, "bot/agent.py": AGENT})
    post = [a for a in linked.actions if a.location.line == 23]
    assert post and all(not a.reachedFrom for a in post)
    assert "conversation_builder" not in {t.name for t in linked.tools}


def test_haystack_snake_case_keeps_runs_of_capitals_together() -> None:
    from assay.backend.engines.static.pyast.role_params import snake_class

    assert snake_class("SerperDevWebSearch") == "serper_dev_web_search"
    assert snake_class("SQLDealQueryTool") == "sqldeal_query_tool"
    assert snake_class("AlphaVantageFinancialFact") == "alpha_vantage_financial_fact"


BASE = """\
from abc import ABC, abstractmethod


class Tool(ABC):
    def __init__(self):
        self.name = self.get_name()

    @abstractmethod
    def get_name(self) -> str:
        pass

    @abstractmethod
    def execute(self, arguments: dict) -> str:
        pass

    def to_openai_format(self) -> dict:
        return {"type": "function", "function": {"name": self.name, "parameters": {}}}
"""

FILE_TOOLS = """\
import os

from .base import Tool


class DeleteFileTool(Tool):
    def get_name(self) -> str:
        return "delete_file"

    def execute(self, arguments: dict) -> str:
        os.remove(arguments["path"])
        return "ok"


class FileHelper:
    def get_name(self) -> str:
        return "helper"

    def execute(self, arguments: dict) -> str:
        os.remove(arguments["path"])
        return "ok"


class ComputedTool(Tool):
    def get_name(self) -> str:
        return "computed_" + os.environ.get("SUFFIX", "")

    def execute(self, arguments: dict) -> str:
        return "ok"
"""


def test_a_tool_class_naming_itself_by_a_getter_is_the_tool_of_that_name() -> None:
    linked = analyse({"tools/base.py": BASE, "tools/file_tools.py": FILE_TOOLS})
    assert {(t.name, t.location.line) for t in linked.tools} == {("delete_file", 8)}
    by_id = {t.id: t.name for t in linked.tools}
    assert {
        (a.actionClass, a.location.line)
        for a in linked.actions
        if any(by_id.get(r.toolId) == "delete_file" for r in a.reachedFrom)
    } == {("file.delete", 11)}


def test_the_abstract_base_a_non_tool_class_and_a_computed_getter_are_no_tools() -> None:
    linked = analyse({"tools/base.py": BASE, "tools/file_tools.py": FILE_TOOLS})
    names = {t.name for t in linked.tools}
    assert not names & {"helper", "Tool", "FileHelper", "ComputedTool"}
    assert not any(n.startswith("computed_") for n in names)


DISPATCH = """\
import os
import subprocess
import mcp.types as types
from mcp.server import Server

from .names import ToolNames

server = Server("solver")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name=ToolNames.SUBMIT, description="Submit", inputSchema={"type": "object"}),
        types.Tool(name=ToolNames.SOLVE.value, description="Solve", inputSchema={"type": "object"}),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list:
    match name:
        case ToolNames.SUBMIT:
            with open("model.mzn", "w") as f:
                f.write(arguments["model"])
        case ToolNames.SOLVE:
            subprocess.run(["minizinc", "model.mzn"])
    return []
"""


def test_each_branch_labelled_by_an_imported_enum_member_belongs_to_that_tool_only() -> None:
    linked = analyse({"pkg/names.py": NAMES, "pkg/server.py": DISPATCH})
    by_id = {t.id: t.name for t in linked.tools}
    reached = {
        (a.actionClass, a.location.line, by_id[r.toolId])
        for a in linked.actions
        for r in a.reachedFrom
        if r.toolId in by_id
    }
    assert reached == {("file.write", 23, "submit-model"), ("shell.exec", 26, "solve-model")}
