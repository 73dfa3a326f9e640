"""A tool object built from a package's class and then listed to an agent (issue 20, tool precision): ``tool =
FunctionTool(shell, description=...)`` then ``AssistantAgent(tools=[tool])`` is the one tool ``shell`` its
constructor made, not a second tool named after the class (``FunctionTool``). A plain function listed the same way
is still a tool."""

from __future__ import annotations

from pyfix import analyse

SOURCE = """\
import subprocess
from autogen_core.tools import FunctionTool
from autogen_agentchat.agents import AssistantAgent


def shell(cmd: str) -> str:
    return subprocess.check_output(cmd, shell=True, text=True)


def disk_usage(path: str) -> str:
    return subprocess.check_output(["du", "-sh", path], text=True)


tool = FunctionTool(shell, description="Run a command")
agent = AssistantAgent("ops", model_client=None, tools=[tool, disk_usage])
"""


def test_a_listed_tool_object_is_the_tool_its_constructor_made() -> None:
    assert sorted(t.name for t in analyse({"agent.py": SOURCE}).tools) == ["disk_usage", "shell"]
