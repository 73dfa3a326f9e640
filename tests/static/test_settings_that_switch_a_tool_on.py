"""A setting that switches a tool's work on (``if not settings.shell_enabled: return "disabled"``), tested before
that work with the path ending when off, withholds it: a ``permission_check``, passed when on. A switch the model's
call sets (a parameter of the tool), a test whose branch refuses nothing, and a test after the work are no gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

HEAD = (
    "import subprocess\n"
    "from fastmcp import FastMCP\n\n"
    "class Settings:\n"
    "    shell_enabled = False\n\n"
    "settings = Settings()\n"
    "mcp = FastMCP('s')\n\n"
)
RUN = "subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout"


def _held(bundle: dict[str, Any]) -> set[tuple[str, int]]:
    """(kind, line) of the gates on the paths to the shell command."""
    sites = {g["id"]: g for g in bundle["gates"]}
    paths = [p for a in bundle["actions"] if a["actionClass"] == "shell.exec" for p in a["reachedFrom"]]
    assert paths, "the shell command is reached from the tool"
    return {(sites[g]["kind"], sites[g]["location"]["line"]) for p in paths for g in p["gateIds"]}


def test_a_setting_switched_off_refusing_the_work_is_a_permission_check(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run(cmd: str) -> str:\n"
        "    if not settings.shell_enabled:\n"
        "        return 'shell is disabled in settings'\n"
        f"    return {RUN}\n"
    )
    assert _held(scan_files(tmp_path, {"server.py": HEAD + body})) == {("permission_check", 12)}


def test_a_switch_the_model_sets_is_no_gate(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run(cmd: str, shell_enabled: bool) -> str:\n"
        "    if not shell_enabled:\n"
        "        return 'nothing run'\n"
        f"    return {RUN}\n"
    )
    assert _held(scan_files(tmp_path, {"server.py": HEAD + body})) == set()


def test_a_switch_whose_branch_refuses_nothing_is_no_gate(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run(cmd: str) -> str:\n"
        "    if not settings.shell_enabled:\n"
        "        print('shell disabled, running anyway')\n"
        f"    return {RUN}\n"
    )
    assert _held(scan_files(tmp_path, {"server.py": HEAD + body})) == set()


def test_a_switch_tested_after_the_work_is_no_gate(tmp_path: Path) -> None:
    body = (
        "@mcp.tool()\n"
        "def run(cmd: str) -> str:\n"
        f"    out = {RUN}\n"
        "    if not settings.shell_enabled:\n"
        "        return 'disabled'\n"
        "    return out\n"
    )
    assert _held(scan_files(tmp_path, {"server.py": HEAD + body})) == set()
