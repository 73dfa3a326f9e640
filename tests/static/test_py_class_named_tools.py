"""Tool classes that set no name (issue 20): a package's tool base naming the tool after the class (Agency Swarm's
``BaseTool``), run by a method such frameworks call, its declared fields the model's arguments."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

TOOLS = '''
import shlex
import subprocess
from abc import abstractmethod

from agency_swarm.tools import BaseTool
from pydantic import Field


class CommandExecutor(BaseTool):
    """Executes a command in the terminal."""

    command: str = Field(..., description="The command to execute.")

    def run(self):
        return subprocess.run(shlex.split(self.command), capture_output=True, text=True).stdout


class ProjectTool(BaseTool):
    """A base of the project's tools: declares run, implements nothing."""

    @abstractmethod
    def run(self):
        raise NotImplementedError


class Renamed(BaseTool):
    """Named at run time by a property: a tool only where it reaches a model."""

    @property
    def name(self):
        return "renamed_" + type(self).__name__

    def run(self):
        return "x"
'''


def test_a_tool_class_with_no_name_is_the_tool_its_class_is_named_and_its_fields_are_the_input(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"agency/tools.py": TOOLS})
    assert {t["name"] for t in bundle["tools"]} == {"CommandExecutor"}
    (tool,) = bundle["tools"]
    assert tool["location"]["line"] == 10
    assert ("shell.exec", "agency/tools.py", 16) in actions_reached(bundle, "CommandExecutor")
    # ``self.command`` is what the model sent: a model-chosen value into the process's argv.
    assert [(f["actionClass"], f["sink"]["line"]) for f in bundle["taintFlows"]] == [("shell.exec", 16)]
