"""Issue 20 gates: a helper of the file that answers yes or no after checking (``is_blocked(cmd)``: each entry
of a deny list searched in the command) is a check wherever its caller tests it; where the caller refuses its
yes (``if is_blocked(cmd): return "blocked"``), its checks were passed on the branch that goes on, as they are
after ``if not is_allowed(cmd): return``. A branch that runs the effect on a yes is the allowed one."""

from __future__ import annotations

from pathlib import Path

from scanned import scan_files

TEMPLATE = (
    "import subprocess\n"  # 1
    "from fastmcp import FastMCP\n"  # 2
    "\n"  # 3
    "mcp = FastMCP('s')\n"  # 4
    "BLOCKED = ['rm', 'sudo']\n"  # 5
    "\n"  # 6
    "def is_blocked(cmd):\n"  # 7
    "    for p in BLOCKED:\n"  # 8
    "        if p in cmd:\n"  # 9
    "            return True\n"  # 10
    "    return False\n"  # 11
    "\n"  # 12
    "@mcp.tool()\n"  # 13
    "def run(cmd: str) -> str:\n"  # 14
    "BODY"
)


def _gates(tmp_path: Path, body: str) -> set[tuple[str, int]]:
    bundle = scan_files(tmp_path, {"server.py": TEMPLATE.replace("BODY", body)})
    ids = {t["id"] for t in bundle["tools"] if t["name"] == "run"}
    sites = {g["id"]: g for g in bundle["gates"]}
    return {
        (sites[g]["kind"], sites[g]["location"]["line"])
        for a in bundle["actions"]
        if a["actionClass"] == "shell.exec"
        for p in a["reachedFrom"]
        if p["toolId"] in ids
        for g in p["gateIds"]
    }


def test_a_helpers_yes_refused_leaves_its_checks_passed_on_the_way_on(tmp_path: Path) -> None:
    refused = (
        "    if is_blocked(cmd):\n"  # 15
        "        return 'blocked'\n"  # 16
        "    return subprocess.run(cmd, shell=True).stdout\n"  # 17
    )
    assert _gates(tmp_path / "a", refused) == {("allowlist", 15)}
    raised = refused.replace("return 'blocked'", "raise ValueError('blocked')")
    assert _gates(tmp_path / "b", raised) == {("allowlist", 15)}


def test_a_branch_running_the_effect_on_a_yes_is_no_refusal(tmp_path: Path) -> None:
    runs = (
        "    if is_blocked(cmd):\n"  # 15
        "        return subprocess.run(cmd, shell=True).stdout\n"  # 16
        "    return 'ok'\n"  # 17
    )
    assert _gates(tmp_path, runs) == {("allowlist", 15)}
