"""A collection written out in a tool class's body (``RISKY = ["rm", "sudo"]``, read as ``self.RISKY``) says which
commands are risky as a module-level one does: a person's approval asked only for commands holding one of its words
gates the command. Approval asked after the command ran gates nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

HEAD = (
    "import subprocess\n"
    "from openai import OpenAI\n"
    "from rich.prompt import Confirm\n\n"
    "class ShellTool:\n"
    "    name = 'shell'\n"
)
TAIL = (
    "        return subprocess.run(command, shell=True, capture_output=True, text=True).stdout\n\n"
    "TOOLS = {'shell': ShellTool()}\n"
    "SCHEMA = [{'type': 'function', 'function': {'name': 'shell', 'parameters': {'type': 'object', 'properties': "
    "{'command': {'type': 'string'}}}}}]\n\n"
    "def loop(prompt: str) -> None:\n"
    "    reply = OpenAI().chat.completions.create(model='gpt-4o', messages=[], tools=SCHEMA)\n"
    "    call = reply.choices[0].message.tool_calls[0]\n"
    "    TOOLS[call.function.name].run(call.function.arguments)\n"
)


def _held(bundle: dict[str, Any]) -> set[tuple[str, int]]:
    """(kind, line) of the gates on every path to the shell command."""
    sites = {g["id"]: g for g in bundle["gates"]}
    paths = [p for a in bundle["actions"] if a["actionClass"] == "shell.exec" for p in a["reachedFrom"]]
    assert paths, "the shell command is reached"
    return {(sites[g]["kind"], sites[g]["location"]["line"]) for p in paths for g in p["gateIds"]}


def test_approval_asked_for_commands_holding_a_class_listed_word_is_a_gate(tmp_path: Path) -> None:
    body = (
        "    RISKY = ['rm', 'sudo', 'mv']\n\n"
        "    def run(self, command: str) -> str:\n"
        "        if any(word in command for word in self.RISKY):\n"
        "            if not Confirm.ask(f'Run {command}?'):\n"
        "                return 'cancelled'\n"
    )
    held = _held(scan_files(tmp_path, {"agent.py": HEAD + body + TAIL}))
    assert ("human_approval", 11) in held


def test_approval_asked_after_the_command_ran_is_no_gate(tmp_path: Path) -> None:
    body = (
        "    RISKY = ['rm', 'sudo', 'mv']\n\n"
        "    def run(self, command: str) -> str:\n"
        "        out = subprocess.run(command, shell=True, capture_output=True, text=True).stdout\n"
        "        if any(word in command for word in self.RISKY):\n"
        "            if not Confirm.ask('Keep the output?'):\n"
        "                return 'discarded'\n"
        "        return out\n"
    )
    tail = TAIL.split("\n", 1)[1]
    assert _held(scan_files(tmp_path, {"agent.py": HEAD + body + tail})) == set()
