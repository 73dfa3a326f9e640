"""`assay mcp` answers `initialize` before it imports the MCP SDK (assay.server.mcp_handshake): that answer
must be the SDK's own, for every revision the SDK negotiates, and anything else must be left to the SDK."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from assay.server import mcp_handshake
from assay.server.mcp_app import build_mcp_server
from assay.tools.client import AssayClient
from assay.tools.context import AssayBinding


def _initialize(request_id: Any, version: str, **params: Any) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {"roots": {"listChanged": True}, "sampling": {}},
            "clientInfo": {"name": "a client", "version": "1.2"},
            **params,
        },
    }
    return json.dumps(message).encode()


class _OneLine:
    """A stdin that gives one line, then ends once the answer to it was written."""

    def __init__(self, line: bytes, answered: anyio.Event) -> None:
        self._line = line.decode() + "\n"
        self._answered = answered

    async def __aiter__(self) -> AsyncIterator[str]:
        yield self._line
        with anyio.fail_after(30):
            await self._answered.wait()


class _Written:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.answered = anyio.Event()

    async def write(self, text: str) -> None:
        self.lines.append(text)
        self.answered.set()

    async def flush(self) -> None:
        pass


async def _sdk_answer(line: bytes) -> dict[str, Any]:
    """What the SDK writes on the wire for ``line``, served by the server `assay mcp` builds."""
    server = build_mcp_server(AssayBinding(client=AssayClient("http://unused.invalid", "")))
    lowlevel = server._lowlevel_server
    out = _Written()
    streams = stdio_server(stdin=_OneLine(line, out.answered), stdout=out)  # type: ignore[arg-type]
    async with streams as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
    (answer,) = out.lines
    value: dict[str, Any] = json.loads(answer)
    return value


def test_the_revisions_are_the_sdks() -> None:
    assert mcp_handshake.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, "2023-01-01", "2026-07-28"])
@pytest.mark.parametrize("request_id", [1, "first"])
async def test_the_early_answer_is_the_sdks(version: str, request_id: int | str) -> None:
    line = _initialize(request_id, version)
    answered = mcp_handshake.answer_line(line)
    assert answered is not None
    answered_id, wire = answered
    assert answered_id == request_id and wire.endswith(b"\n") and wire.count(b"\n") == 1
    assert json.loads(wire) == await _sdk_answer(line)


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
        b'{"jsonrpc": "2.0", "method": "initialize", "params": {}}',
        _initialize(True, "2025-06-18"),
        _initialize(1.5, "2025-06-18"),
        _initialize(1, "2025-06-18", clientInfo={"name": "no version"}),
        _initialize(1, "2025-06-18", capabilities=[]),
        _initialize(None, "2025-06-18"),
        b"not json",
        b"",
    ],
)
def test_anything_else_is_left_to_the_sdk(line: bytes) -> None:
    assert mcp_handshake.answer_line(line) is None


def _pipe_with(data: bytes, close: bool = True) -> int:
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    if close:
        os.close(write_end)
    return read_end


def test_what_was_read_is_handed_on_whole() -> None:
    first = _initialize(7, "2025-06-18")
    rest = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n{"jsonrpc": "2.0", "id": 8'
    wire_in = _pipe_with(first + b"\n" + rest)
    answers_read, answers_write = os.pipe()
    try:
        prelude = mcp_handshake.answer_early(wire_in, answers_write)
        os.close(answers_write)
        assert prelude.answered == 7 and prelude.data == first + b"\n" + rest
        with os.fdopen(answers_read, "rb") as answers:
            (line,) = answers.read().splitlines()
        assert json.loads(line)["id"] == 7
    finally:
        os.close(wire_in)


def test_a_first_line_that_is_not_initialize_is_handed_on_unanswered() -> None:
    listing = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    wire_in = _pipe_with(listing)  # no newline, then the end of input
    answers_read, answers_write = os.pipe()
    try:
        prelude = mcp_handshake.answer_early(wire_in, answers_write)
        os.close(answers_write)
        assert prelude.answered is None and prelude.data == listing
        with os.fdopen(answers_read, "rb") as answers:
            assert answers.read() == b""
    finally:
        os.close(wire_in)
