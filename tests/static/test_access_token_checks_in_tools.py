"""A tool that reads the request's verified access token (``get_access_token()``) and refuses unless it grants a
scope or role (``if "admin" not in token.scopes: raise ToolError(...)``, or returns a message) is behind a
``permission_check``; one that refuses when there is no token is behind ``authentication``. A test of the token
made after the action gates nothing; a test of something else in the same file is no token check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scanned import scan_files

HEAD = (
    "import subprocess\n"
    "from fastmcp import FastMCP\n"
    "from fastmcp.exceptions import ToolError\n"
    "from fastmcp.server.dependencies import get_access_token\n\n"
    "mcp = FastMCP('s')\n\n"
    "@mcp.tool()\n"
    "def run(cmd: str) -> str:\n"
    "    token = get_access_token()\n"
)
RUN = "subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout"


def _held(bundle: dict[str, Any]) -> set[tuple[str, int]]:
    """(kind, line) of the gates on the paths from the tool ``run`` to its shell command."""
    sites = {g["id"]: g for g in bundle["gates"]}
    return {
        (sites[g]["kind"], sites[g]["location"]["line"])
        for a in bundle["actions"]
        if a["actionClass"] == "shell.exec"
        for p in a["reachedFrom"]
        for g in p["gateIds"]
    }


def _scan(tmp_path: Path, body: str) -> dict[str, Any]:
    return scan_files(tmp_path, {"server.py": HEAD + body})


def test_a_scope_the_token_must_grant_is_a_permission_check(tmp_path: Path) -> None:
    body = f"    if 'tools:run' not in token.scopes:\n        raise ToolError('insufficient scope')\n    return {RUN}\n"
    assert _held(_scan(tmp_path, body)) == {("permission_check", 11)}


def test_a_role_claim_refused_with_a_message_is_a_permission_check(tmp_path: Path) -> None:
    body = (
        "    if token is None or 'admin' not in token.claims.get('roles', []):\n"
        "        return 'Access denied'\n"
        f"    return {RUN}\n"
    )
    assert _held(_scan(tmp_path, body)) == {("permission_check", 11)}


def test_a_missing_token_refused_is_authentication(tmp_path: Path) -> None:
    body = f"    if token is None:\n        raise ToolError('not signed in')\n    return {RUN}\n"
    assert _held(_scan(tmp_path, body)) == {("authentication", 11)}


def test_a_token_test_after_the_action_is_no_gate(tmp_path: Path) -> None:
    body = f"    out = {RUN}\n    if 'tools:run' not in token.scopes:\n        return 'insufficient scope'\n    return out\n"
    assert _held(_scan(tmp_path, body)) == set()


def test_a_test_of_something_else_is_no_token_check(tmp_path: Path) -> None:
    body = f"    if not cmd:\n        return 'nothing to run'\n    return {RUN}\n"
    assert _held(_scan(tmp_path, body)) == set()
