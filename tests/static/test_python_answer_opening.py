"""Issue 20 gates: a person's answer tested for the opening of a yes (``input().lower().startswith("y")``) is
compared as ``== "y"`` is, also as the answer of a helper of the file (``return ...startswith("y")`` answers
yes or no); and a module-level name bound once to a builtin (``builtin_input = input``) is that builtin."""

from __future__ import annotations

from pathlib import Path

from scanned import scan_files

TEMPLATE = (
    "import subprocess\n"  # 1
    "from fastmcp import FastMCP\n"  # 2
    "\n"  # 3
    "mcp = FastMCP('s')\n"  # 4
    "builtin_input = input\n"  # 5
    "\n"  # 6
    "def confirm(cmd):\n"  # 7
    "    print(f'run {cmd}?')\n"  # 8
    "    return {ask}().lower().startswith({opening})\n"  # 9
    "\n"  # 10
    "@mcp.tool()\n"  # 11
    "def run(cmd: str) -> str:\n"  # 12
    "    if not confirm(cmd):\n"  # 13
    "        return 'cancelled'\n"  # 14
    "    return subprocess.run(cmd, shell=True).stdout\n"  # 15
)


def _approvals(tmp_path: Path, ask: str, opening: str) -> set[int]:
    bundle = scan_files(tmp_path, {"server.py": TEMPLATE.replace("{ask}", ask).replace("{opening}", opening)})
    ids = {t["id"] for t in bundle["tools"] if t["name"] == "run"}
    sites = {g["id"]: g for g in bundle["gates"]}
    return {
        sites[g]["location"]["line"]
        for a in bundle["actions"]
        if a["actionClass"] == "shell.exec"
        for p in a["reachedFrom"]
        if p["toolId"] in ids
        for g in p["gateIds"]
        if sites[g]["kind"] == "human_approval"
    }


def test_an_answer_that_must_open_with_yes_approves(tmp_path: Path) -> None:
    assert _approvals(tmp_path / "a", "input", "'y'") == {13}
    assert _approvals(tmp_path / "b", "input", "('y', 'yes')") == {13}


def test_a_name_bound_to_a_builtin_is_that_builtin(tmp_path: Path) -> None:
    assert _approvals(tmp_path, "builtin_input", "'y'") == {13}


def test_an_answer_tested_for_an_empty_opening_approves_nothing(tmp_path: Path) -> None:
    assert _approvals(tmp_path, "input", "''") == set()


def test_a_direct_test_of_the_opening_of_a_no_refuses_on_it(tmp_path: Path) -> None:
    code = (
        "import subprocess\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('s')\n\n"  # 1-5
        "@mcp.tool()\n"  # 6
        "def run(cmd: str) -> str:\n"  # 7
        "    if input(f'run {cmd}? ').strip().lower().startswith('n'):\n"  # 8
        "        return 'cancelled'\n"  # 9
        "    return subprocess.run(cmd, shell=True).stdout\n"  # 10
    )
    bundle = scan_files(tmp_path, {"server.py": code})
    sites = {g["id"]: g for g in bundle["gates"]}
    held = {
        (sites[g]["kind"], sites[g]["location"]["line"])
        for a in bundle["actions"]
        for p in a["reachedFrom"]
        for g in p["gateIds"]
    }
    assert held == {("human_approval", 8)}
