"""MCP over stdio without a thread per line.

The SDK's stdio transport reads and writes the standard streams through ``anyio.wrap_file``: every line
read and every write and flush is a hop to a worker thread and back, which costs more than the rest of a
cached tool call. When stdin and stdout are pipes or sockets (as they are under every MCP client), this
module serves the same JSON-RPC lines through the event loop's own non-blocking pipe transports and hands
them to the SDK's ``stdio_server`` as its explicit streams; the SDK still parses and writes every message.
On anything else (a terminal, a regular file) it falls back to the SDK's transport unchanged.

As the SDK does, it keeps the wire to itself while serving: fd 0 reads the null device and fd 1 goes to
stderr, so stray prints from handlers and children never corrupt the protocol; both are restored on exit.

When the client closes stdin, requests already read are answered before the session ends (for at most
``DRAIN_SECONDS``): a client may write its requests and close its end at once, as a shell pipe does.

What ``assay mcp`` read before the SDK was imported (``assay.server.mcp_handshake``) comes first; when that
was an ``initialize`` answered already, the SDK's answer to it is not written a second time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
from collections import deque
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

from assay.server.mcp_handshake import Prelude, RequestId, is_pipe_or_socket

READ_CHUNK = 1 << 16
DRAIN_SECONDS = 30.0
STDIN, STDOUT, STDERR = 0, 1, 2
logger = logging.getLogger(__name__)

# How the SDK writes a response (pydantic keeps field order): jsonrpc, id, then result or error.
_RESPONSE_HEAD = re.compile(r'\{"jsonrpc":"2\.0","id":(?:-?\d+|"(?:[^"\\]|\\.)*"),"(?:result|error)"')


def _is_request(line: bytes) -> bool:
    """A JSON-RPC request (it has a method and an id, so it is owed a response)."""
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and "method" in message and "id" in message


class Traffic:
    """Requests read and responses written, so that end of input can wait for the answers still owed."""

    def __init__(self) -> None:
        self.requests = 0
        self.responses = 0
        self._changed = asyncio.Event()

    def answered(self) -> None:
        self.responses += 1
        self._changed.set()

    async def drained(self, seconds: float) -> bool:
        """Wait (at most ``seconds``) until every request read has its response written."""
        deadline = asyncio.get_running_loop().time() + seconds
        while self.responses < self.requests:
            self._changed.clear()
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return True


class PipeLines:
    """The lines arriving on a pipe, decoded as UTF-8 (undecodable bytes replaced), without length limit.

    A line is split only at ``\\n``, which never occurs inside a multi-byte UTF-8 sequence; a last line
    without its newline is still delivered at end of input. ``already_read`` (bytes read from the pipe
    before) comes first."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        traffic: Traffic,
        drain_seconds: float = DRAIN_SECONDS,
        already_read: bytes = b"",
    ) -> None:
        self._reader = reader
        self._traffic = traffic
        self._drain_seconds = drain_seconds
        self._pending: deque[str] = deque()
        self._partial = b""
        self._eof = False
        self._split(already_read)

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        while not self._pending:
            if self._eof:
                # Closing the read side ends the session and cancels what is still running.
                await self._traffic.drained(self._drain_seconds)
                raise StopAsyncIteration
            chunk = await self._reader.read(READ_CHUNK)
            if not chunk:
                self._eof = True
                if self._partial.strip():
                    self._take(self._partial)
                self._partial = b""
                continue
            self._split(chunk)
        return self._pending.popleft()

    def _split(self, chunk: bytes) -> None:
        *complete, self._partial = (self._partial + chunk).split(b"\n")
        for line in complete:
            self._take(line)

    def _take(self, line: bytes) -> None:
        if _is_request(line):
            self._traffic.requests += 1
        self._pending.append(line.decode("utf-8", errors="replace") + "\n")


class PipeWriter:
    """Text written to a pipe through the loop's transport; ``flush`` waits until the pipe accepts it.

    The response to ``answered`` (the id of an ``initialize`` answered before the SDK started) is counted
    but not written: the client has it already."""

    def __init__(self, writer: asyncio.StreamWriter, traffic: Traffic, answered: RequestId | None = None) -> None:
        self._writer = writer
        self._traffic = traffic
        self._answered = answered

    async def write(self, text: str) -> None:
        if _RESPONSE_HEAD.match(text):
            self._traffic.answered()
            if self._answered is not None and self._is_early_answered(text):
                return
        self._writer.write(text.encode("utf-8"))

    def _is_early_answered(self, text: str) -> bool:
        response = json.loads(text)
        request_id = response.get("id")
        if type(request_id) is not type(self._answered) or request_id != self._answered:  # 1 is not "1"
            return False
        self._answered = None
        if "error" in response:
            # The early answer was a success the SDK does not agree with (a malformed initialize it refuses):
            # the session is not initialized, and the client's next requests will say so.
            logger.warning("the SDK refused the initialize answered early: %s", response["error"].get("message"))
        return True

    async def flush(self) -> None:
        await self._writer.drain()


@contextlib.contextmanager
def _claim_standard_streams() -> Iterator[tuple[int, int]]:
    """Private duplicates of fd 0 and 1 for the wire; fd 0 then reads /dev/null and fd 1 writes to stderr."""
    wire_in, wire_out = os.dup(STDIN), os.dup(STDOUT)
    saved_in, saved_out = os.dup(STDIN), os.dup(STDOUT)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, STDIN)
        os.dup2(STDERR, STDOUT)
        yield wire_in, wire_out
    finally:
        os.close(null)
        os.dup2(saved_in, STDIN)
        os.dup2(saved_out, STDOUT)
        os.close(saved_in)
        os.close(saved_out)
        # The event loop made the pipes non-blocking; whoever reads them after us expects blocking ones.
        for fd in (STDIN, STDOUT):
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)


@contextlib.asynccontextmanager
async def _pipe_streams(wire_in: int, wire_out: int, prelude: Prelude) -> AsyncIterator[tuple[PipeLines, PipeWriter]]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_CHUNK)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
    )
    write_transport, write_protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(write_transport, write_protocol, None, loop)
    try:
        traffic = Traffic()
        yield (
            PipeLines(reader, traffic, already_read=prelude.data),
            PipeWriter(writer, traffic, answered=prelude.answered),
        )
    finally:
        read_transport.close()
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        write_transport.close()


async def run_stdio(server: MCPServer[Any], prelude: Prelude | None = None) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client closes stdin; ``prelude`` is
    what was read (and answered) before, on pipes only."""
    if not (is_pipe_or_socket(STDIN) and is_pipe_or_socket(STDOUT)):
        if prelude is not None:
            raise ValueError("a prelude is read from pipes only")
        await server.run_stdio_async()
        return
    # The SDK's in-memory client reaches the low-level server the same way (its TODO: make it public).
    lowlevel = server._lowlevel_server
    with _claim_standard_streams() as (wire_in, wire_out):
        async with _pipe_streams(wire_in, wire_out, prelude or Prelude()) as (lines, out):
            # The SDK types these as anyio.AsyncFile[str]; it uses only line iteration, write and flush.
            streams = stdio_server(stdin=cast(Any, lines), stdout=cast(Any, out))
            async with streams as (read_stream, write_stream):
                await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
