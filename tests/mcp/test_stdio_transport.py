"""The stdio server as a client that is not the SDK sees it: raw JSON-RPC lines on a pipe.

`assay mcp` serves pipes through the event loop (assay.server.stdio) rather than the SDK's thread per
line; these tests hold what a client relies on: every request read is answered, even when the client
closes its end straight after writing (as a shell pipe does) or ends without a final newline; a line
longer than one pipe read arrives whole; stdout carries protocol lines only.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import copy_example
from subprocesses import ASSAY, child_env

pytestmark = pytest.mark.slow

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _serve(tmp_path: Path, stdin: bytes) -> tuple[list[dict[str, Any]], int, bytes]:
    """Run `assay mcp` (embedded) with ``stdin`` written to a pipe and closed; its messages, exit code and
    what it said on stderr."""
    workspace = copy_example("research-assistant", tmp_path)
    done = subprocess.run(
        [*ASSAY, "mcp", "--workspace", str(workspace)],
        input=stdin,
        capture_output=True,
        env=child_env(ASSAY_DATA_DIR=str(tmp_path / "data")),
        timeout=120,
    )
    # Every line on stdout is a JSON-RPC message; provisioning news goes to stderr.
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    return messages, done.returncode, done.stderr


def test_requests_written_then_closed_are_all_answered(tmp_path: Path) -> None:
    # A line far longer than one 64 KiB pipe read: an argument the tool refuses, by name.
    long_id = "e" * 200_000
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "assay_get_summary", "arguments": {"evaluation_id": long_id}},
    }
    last = {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"}
    stdin = _line(INITIALIZE) + _line(INITIALIZED) + _line(call) + json.dumps(last).encode()  # no final newline
    messages, code, said = _serve(tmp_path, stdin)
    assert code == 0 and b"first use of" in said
    by_id = {m["id"]: m for m in messages}
    assert sorted(by_id) == [1, 2, 3]
    assert by_id[1]["result"]["serverInfo"]["name"] == "assay"
    refused = by_id[2]["result"]
    assert refused["isError"] is True and "evaluation_id" in refused["content"][0]["text"]
    assert {p["name"] for p in by_id[3]["result"]["prompts"]} >= {"assess_my_change"}


def test_a_line_that_is_not_json_does_not_end_the_session(tmp_path: Path) -> None:
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    stdin = _line(INITIALIZE) + _line(INITIALIZED) + b"this is not json\n" + b"\xff\xfe\n" + _line(listing)
    messages, code, said = _serve(tmp_path, stdin)
    assert code == 0
    assert b"first use of" not in said  # listing the tools needs no service: none was provisioned
    tools = next(m for m in messages if m.get("id") == 2)["result"]["tools"]
    assert "assay_get_summary" in {t["name"] for t in tools}
