"""Issue 20 gates: text searched for each entry of a list the instance was built with and keeps
(``self.blocked``, set once in ``__init__``, changed nowhere else), the path refusing on a match, is a deny list
(``allowlist``), as for a list written out in the module. A list the class grows later, or a branch answering
with something computed, is none."""

from __future__ import annotations

from pathlib import Path

from scanned import scan_files

TEMPLATE = (
    "import subprocess\n"  # 1
    "from fastmcp import FastMCP\n"  # 2
    "\n"  # 3
    "mcp = FastMCP('s')\n"  # 4
    "\n"  # 5
    "class Guard:\n"  # 6
    "    def __init__(self, blocked):\n"  # 7
    "        self.blocked = [b.lower() for b in blocked]\n"  # 8
    "\n"  # 9
    "    def learn(self, word):\n"  # 10
    "        LEARN\n"  # 11
    "\n"  # 12
    "    def run(self, command):\n"  # 13
    "        for p in self.blocked:\n"  # 14
    "            if p in command:\n"  # 15
    "                return REFUSAL\n"  # 16
    "        return subprocess.run(command, shell=True).stdout\n"  # 17
    "\n"  # 18
    "guard = Guard(['rm', 'sudo'])\n"  # 19
    "\n"  # 20
    "@mcp.tool()\n"  # 21
    "def run(command: str) -> str:\n"  # 22
    "    return guard.run(command)\n"  # 23
)


def _gates(tmp_path: Path, learn: str, refusal: str) -> set[tuple[str, int]]:
    code = TEMPLATE.replace("LEARN", learn).replace("REFUSAL", refusal)
    bundle = scan_files(tmp_path, {"server.py": code})
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


def test_a_list_the_instance_was_built_with_searched_for_each_entry_is_a_deny_list(tmp_path: Path) -> None:
    assert _gates(tmp_path, "return word", "{'error': 'blocked'}") == {("allowlist", 15)}


def test_a_list_the_class_grows_later_is_none(tmp_path: Path) -> None:
    assert _gates(tmp_path, "self.blocked.append(word)", "{'error': 'blocked'}") == set()


def test_a_branch_answering_with_something_computed_is_no_refusal(tmp_path: Path) -> None:
    assert _gates(tmp_path, "return word", "self.learn(p)") == set()
