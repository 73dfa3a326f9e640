"""Python: a name bound by an assignment expression (``if not (shell := get_shell()): raise``) is bound as by
an assignment, its value's taint and type included (issue 20, model-chosen arguments into a shell helper)."""

from __future__ import annotations

from pathlib import Path

from scanned import actions_reached, scan_files

SHELL = """import pexpect


class Shell:
    def __init__(self) -> None:
        self.child = pexpect.spawn("/bin/bash", encoding="utf-8")

    def run_command(self, cmd: str) -> str:
        self.child.sendline(cmd)
        return "done"
"""

UTILS = """from pkg.shell import Shell

_shell: Shell | None = None


def get_shell() -> Shell | None:
    return _shell


def run_command(cmd: str) -> str:
    if not (shell := get_shell()):
        raise ValueError("no shell")
    return shell.run_command(cmd)
"""

TOOLS = """from langchain_core.tools import tool
from pkg.utils import run_command


@tool
def nmap_scan(url: str) -> str:
    \"\"\"Scan a host.\"\"\"
    return run_command(f"nmap -Pn -sV {url}")
"""


def _flows(bundle: dict[str, object]) -> set[tuple[str, str, int]]:
    return {
        (f["sourceKind"], f["sink"]["path"], f["sink"]["line"])  # type: ignore[index]
        for f in bundle["taintFlows"]  # type: ignore[attr-defined]
    }


def test_a_walrus_binds_the_type_a_call_returns(tmp_path: Path) -> None:
    bundle = scan_files(tmp_path, {"pkg/shell.py": SHELL, "pkg/utils.py": UTILS, "pkg/tools.py": TOOLS})
    assert actions_reached(bundle, "nmap_scan") == {("shell.exec", "pkg/shell.py", 9)}
    assert _flows(bundle) == {("tool_argument", "pkg/shell.py", 9)}


def test_a_walrus_binding_a_literal_replaces_the_names_taint(tmp_path: Path) -> None:
    tools = """import subprocess

from langchain_core.tools import tool


@tool
def run(cmd: str) -> str:
    \"\"\"Run something.\"\"\"
    if (cmd := "ls -la"):
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout
    return ""


@tool
def echo(text: str) -> str:
    \"\"\"Echo the text.\"\"\"
    if (line := f"echo {text}"):
        return subprocess.run(line, shell=True, capture_output=True, text=True).stdout
    return ""
"""
    bundle = scan_files(tmp_path, {"tools.py": tools})
    assert _flows(bundle) == {("tool_argument", "tools.py", 18)}
