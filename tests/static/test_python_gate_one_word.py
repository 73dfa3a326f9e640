"""Issue 20 gates: a value the model chooses that must equal one word written in place, the path refused
otherwise (``if base.upper() != "EUR": return {"status": "error"}``), is an allow-list of that one value (as the
JS front-end reads ``cmd !== "ls"``). A branch that answers with something computed is another way through, not
a refusal; and, as for every check of a value, it gates only the effects the tested value reaches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

MCP_PY = "import requests\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('s')\n\n"


def _gates(bundle: dict[str, Any], tool: str) -> set[tuple[str, int]]:
    ids = {t["id"] for t in bundle["tools"] if t["name"] == tool}
    sites = {g["id"]: g for g in bundle["gates"]}
    actions = [a for a in bundle["actions"] if any(p["toolId"] in ids for p in a["reachedFrom"])]
    assert actions, f"{tool} reaches an action"
    return {
        (sites[g]["kind"], sites[g]["location"]["line"])
        for a in actions
        for p in a["reachedFrom"]
        if p["toolId"] in ids
        for g in p["gateIds"]
    }


def _server(refusal: str, url: str) -> str:
    return MCP_PY + (
        "@mcp.tool()\n"  # 6
        "def rate(base: str, target: str) -> dict:\n"  # 7
        "    if base.upper() != 'EUR':\n"  # 8
        f"        return {refusal}\n"  # 9
        f"    return requests.get({url}).json()\n"  # 10
    )


def test_a_value_that_must_equal_one_word_is_an_allowlist(tmp_path: Path) -> None:
    refused = _server("{'status': 'error', 'error_message': 'EUR only'}", "f'https://x/{base}/{target}'")
    assert _gates(scan_files(tmp_path / "a", {"server.py": refused}), "rate") == {("allowlist", 8)}
    raised = _server("None", "f'https://x/{base}/{target}'").replace(
        "        return None\n", "        raise ValueError('EUR only')\n"
    )
    assert _gates(scan_files(tmp_path / "b", {"server.py": raised}), "rate") == {("allowlist", 8)}


def test_a_branch_answering_with_something_computed_is_no_refusal(tmp_path: Path) -> None:
    other_way = _server("requests.get(f'https://y/{base}').json()", "f'https://x/{base}/{target}'")
    assert _gates(scan_files(tmp_path, {"server.py": other_way}), "rate") == set()


def test_one_word_check_of_a_value_the_effect_is_not_given_is_no_gate(tmp_path: Path) -> None:
    unrelated = _server("'EUR only'", "f'https://x/EUR/{target}'")
    assert _gates(scan_files(tmp_path, {"server.py": unrelated}), "rate") == set()
