"""Issue 20, a library's tools under every path it was published at: LlamaIndex before 0.10 exported its
classes from ``llama_index.tools``, ``llama_index.agent`` and ``llama_index.llms``, and 0.10 keeps that layout
as the ``llama_index.legacy`` package. ``FunctionTool.from_defaults(fn=f, name="x")`` imported from either is
the tool ``x`` running ``f``; ``ReActAgent.from_tools(tools)`` given it is an agent of those tools; ``OpenAI(...)``
of ``llama_index.legacy.llms`` is a model use of OpenAI's, as the 0.10 integration's is."""

from __future__ import annotations

import pytest
from pyfix import analyse

from assay.backend.engines.static.link import Linked


def _reached(linked: Linked, tool: str) -> set[tuple[str, int]]:
    ids = {t.id for t in linked.tools if t.name == tool}
    return {(a.actionClass, a.location.line) for a in linked.actions if any(p.toolId in ids for p in a.reachedFrom)}


@pytest.mark.parametrize("package", ["llama_index.legacy", "llama_index"])
def test_a_function_tool_of_the_older_layout_is_the_tool_its_name_says(package: str) -> None:
    tools = (
        f"from {package}.tools import FunctionTool\n"  # 1
        "import subprocess\n"  # 2
        "\n"  # 3
        "def run_command(command: str) -> str:\n"  # 4
        "    return subprocess.check_output(command, shell=True)\n"  # 5
        "\n"  # 6
        "cmd_engine = FunctionTool.from_defaults(\n"  # 7
        "    fn=run_command,\n"  # 8
        "    name='command_running',\n"  # 9
        "    description='runs a command',\n"  # 10
        ")\n"  # 11
    )
    main = (
        "from tools import cmd_engine\n"  # 1
        f"from {package}.agent import ReActAgent\n"  # 2
        f"from {package}.llms import OpenAI\n"  # 3
        "\n"  # 4
        "llm = OpenAI('gpt-3.5-turbo-0613')\n"  # 5
        "agent = ReActAgent.from_tools(tools=[cmd_engine], llm=llm)\n"  # 6
    )
    linked = analyse({"tools.py": tools, "main.py": main})
    assert {(t.name, t.location.path, t.location.line) for t in linked.tools} == {("command_running", "tools.py", 7)}
    assert _reached(linked, "command_running") == {("shell.exec", 5)}
    assert [(m.provider, m.model, m.location.line) for m in linked.models] == [("openai", "gpt-3.5-turbo-0613", 5)]


def test_a_query_engine_tool_is_the_tool_its_metadata_names() -> None:
    code = (
        "from llama_index.core.tools import QueryEngineTool, ToolMetadata\n"  # 1
        "from engines import population_engine\n"  # 2
        "\n"  # 3
        "tool = QueryEngineTool(\n"  # 4
        "    query_engine=population_engine(),\n"  # 5
        "    metadata=ToolMetadata(name='population_data', description='population figures'),\n"  # 6
        ")\n"  # 7
    )
    linked = analyse({"m.py": code})
    assert {(t.name, t.location.line) for t in linked.tools} == {("population_data", 4)}


def test_a_function_of_another_module_listed_stays_its_tool() -> None:
    tools = "import os\n\ndef remove(path: str) -> str:\n    os.remove(path)\n    return 'ok'\n"
    main = (
        "from tools import remove\n"
        "from llama_index.core.agent import ReActAgent\n"
        "\n"
        "agent = ReActAgent.from_tools(tools=[remove])\n"
    )
    linked = analyse({"tools.py": tools, "main.py": main})
    assert {(t.name, t.location.path, t.location.line) for t in linked.tools} == {("remove", "tools.py", 3)}
    assert _reached(linked, "remove") == {("file.delete", 4)}
