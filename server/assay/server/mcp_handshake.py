"""MCP's ``initialize`` over stdio, answered before the SDK is imported.

Importing the MCP SDK builds its protocol types (pydantic models of every protocol revision): several times
what the rest of ``assay mcp``'s start costs. A client waits for the answer to ``initialize`` before it asks
anything else, and some give up on a server that is slow to give it. So ``assay mcp`` reads the first line
of a pipe itself and, when it is an ``initialize`` request of the usual shape, answers at once with what the
SDK would answer (a test holds the two equal for every revision the SDK negotiates). The line is then handed
to the SDK as if just read, so the SDK negotiates the same revision and records the client; its own answer
to that request is not written again (``assay.server.stdio``). Anything else (another first message, a
malformed request) is left to the SDK.

Only the standard library is imported here.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from typing import Any

from assay.server.version import assay_version

SERVER_NAME = "assay"
SERVER_TITLE = "Assay"
INSTRUCTIONS = (
    "Assay assesses AI systems (LLM apps and agents): what they can do, who authorized it, what was seen, and "
    "what remains unproven, as a frozen Evaluation with a disposition ALLOW, REVIEW or BLOCK. Start with "
    "assay_assess_workspace; then read assay_get_agent_audit. Its verificationNeeded items are the only "
    "evidence to gather. Evaluations never change: after fixing the workspace, call assay_assess_workspace "
    "again for a NEW Evaluation. Always use exact evaluation ids; there is no 'latest'."
)
# The revisions reached through the handshake, oldest first, and what the SDK declares for the server
# build_mcp_server makes (tools, resources and prompts, none of them changing while it runs). Both are held
# to the SDK by tests/mcp/test_early_initialize.py.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
READ_CHUNK = 1 << 16
STDIN, STDOUT = 0, 1

RequestId = int | str


@dataclass(frozen=True, slots=True)
class Prelude:
    """What was read from the client before the SDK started: ``data`` (the first line and whatever came
    with it, as read), and the id of the ``initialize`` request answered already (None: nothing was)."""

    data: bytes = b""
    answered: RequestId | None = None


def is_pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def initialize_result(requested: str) -> dict[str, Any]:
    """The ``initialize`` result: the requested revision when the SDK speaks it, else its newest."""
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": version,
        "serverInfo": {"name": SERVER_NAME, "title": SERVER_TITLE, "version": assay_version()},
    }


def _initialize_request(line: bytes) -> tuple[RequestId, str] | None:
    """The id and requested revision of ``line`` when it is an ``initialize`` request of the shape every
    client sends; None for anything else (the SDK then reads it and answers as it sees fit)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or message.get("method") != "initialize":
        return None
    request_id = message.get("id")
    params = message.get("params")
    # bool is an int to Python, never an id to JSON-RPC.
    if isinstance(request_id, bool) or not isinstance(request_id, int | str) or not isinstance(params, dict):
        return None
    version, capabilities, client = params.get("protocolVersion"), params.get("capabilities"), params.get("clientInfo")
    if not isinstance(version, str) or not isinstance(capabilities, dict) or not isinstance(client, dict):
        return None
    if not isinstance(client.get("name"), str) or not isinstance(client.get("version"), str):
        return None
    return request_id, version


def answer_line(line: bytes) -> tuple[RequestId, bytes] | None:
    """The id of ``line`` and the wire line answering it, when it is an ``initialize`` request answered early."""
    request = _initialize_request(line)
    if request is None:
        return None
    request_id, version = request
    response = {"jsonrpc": "2.0", "id": request_id, "result": initialize_result(version)}
    return request_id, json.dumps(response, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _read_first_line(fd: int) -> bytes:
    """Bytes from ``fd`` up to and including the first newline (and whatever arrived with it), or to the end."""
    data = b""
    while b"\n" not in data:
        chunk = os.read(fd, READ_CHUNK)
        if not chunk:
            break
        data += chunk
    return data


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def answer_early(wire_in: int = STDIN, wire_out: int = STDOUT) -> Prelude:
    """Read the client's first line and, when it is ``initialize``, answer it; what was read is handed on."""
    data = _read_first_line(wire_in)
    first, _, _ = data.partition(b"\n")
    answered = answer_line(first)
    if answered is None:
        return Prelude(data)
    request_id, line = answered
    _write_all(wire_out, line)
    return Prelude(data, request_id)
