"""The transports of a probe session, bounded, and the relay that records every message.

- ``stdio_transport``: starts an ``mcp-command`` target in a throwaway working directory and HOME and
  speaks newline-delimited JSON-RPC over its stdin/stdout. Unlike the SDK's stdio client it bounds one
  message's size while reading (a server that never sends a newline cannot fill memory) and fails
  clearly on invalid UTF-8, JSON nested deeper than ``MAX_JSON_DEPTH`` levels, or anything not JSON-RPC.
- ``http_transport``: the SDK's streamable HTTP client with the target's headers, a bounded SSE event
  size, and the SDK's same-origin redirect rule, over :mod:`http_guard`'s client (the registered host
  only, at its pinned address; JSON answers bounded in size and nesting, other answers in size).
- ``recorded``: sits between either transport and the MCP client; records each message in order as JSON,
  counts the client's requests and every byte, and stops the session at the first bound crossed.

A failure is kept on the :class:`Recorder` and the streams are closed, so the client's pending request
ends; the probe then raises the recorded failure rather than the client's consequence of it.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import orjson
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from mcp import types

# Nesting of any JSON a target sends (both transports): MCP messages are shallow, and the recording is
# written and read back as JSON, whose encoder stops at 255 levels.
MAX_JSON_DEPTH = 128


def json_too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays and objects deeper than ``limit`` levels."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


class ProbeError(Exception):
    """A probe session that could not complete: a message for the run's failure, and whether retrying
    unchanged may succeed (a timeout, a crash) or not (a bound crossed, malformed output)."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds of one probe session."""

    max_requests: int
    timeout_seconds: float
    max_bytes: int
    max_message_bytes: int
    # Listing pages per list method: a server whose cursor never ends cannot hang the session.
    max_pages: int = 50


@dataclass(slots=True)
class Recorder:
    """Every message of the session in order, and the first failure."""

    limits: Limits
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    bytes: int = 0
    requests: int = 0
    error: ProbeError | None = None
    # Set by the first failure: the relay then ends the session at once, whatever the client awaits.
    failed: anyio.Event = field(default_factory=anyio.Event)

    def fail(self, error: ProbeError) -> None:
        if self.error is None:
            self.error = error
            self.failed.set()

    def effect(self, effect: dict[str, Any]) -> None:
        """Record something the probe's honeypot saw, in order among the messages."""
        if self.error is None and self.bytes < self.limits.max_bytes:
            self.bytes += len(orjson.dumps(effect))
            self.exchanges.append({"direction": "effect", "message": effect})

    def record(self, direction: str, message: dict[str, Any]) -> None:
        """Record one message; ProbeError (also kept) when it crosses a bound."""
        size = len(orjson.dumps(message))
        self.bytes += size
        if direction == "sent" and "method" in message and "id" in message:
            self.requests += 1
            if self.requests > self.limits.max_requests:
                self.fail(
                    ProbeError(f"the session needed more than {self.limits.max_requests} requests", retryable=False)
                )
        if self.bytes > self.limits.max_bytes:
            self.fail(ProbeError(f"the session exceeded {self.limits.max_bytes} bytes of messages", retryable=False))
        if self.error is not None:
            raise self.error
        self.exchanges.append({"direction": direction, "message": message})


def _as_json(message: SessionMessage) -> dict[str, Any]:
    dumped: dict[str, Any] = message.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dumped


@asynccontextmanager
async def recorded(
    inner: AbstractAsyncContextManager[TransportStreams], recorder: Recorder
) -> AsyncIterator[TransportStreams]:
    """``inner``'s streams, each message recorded on its way (see the module docstring)."""
    async with inner as (inner_read, inner_write):
        to_client, client_read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        client_write, from_client = anyio.create_memory_object_stream[SessionMessage](0)

        async def inbound() -> None:
            async with to_client:
                async for item in inner_read:
                    if isinstance(item, Exception):
                        recorder.fail(ProbeError(f"the server sent an unreadable message ({item})", retryable=False))
                        return
                    try:
                        recorder.record("received", _as_json(item))
                    except ProbeError:
                        return
                    await to_client.send(item)

        async def outbound() -> None:
            async with from_client:
                async for item in from_client:
                    try:
                        recorder.record("sent", _as_json(item))
                    except ProbeError:
                        await to_client.aclose()
                        return
                    try:
                        await inner_write.send(item)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        await to_client.aclose()
                        return

        async def watch() -> None:
            await recorder.failed.wait()
            await to_client.aclose()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(inbound)
            tasks.start_soon(outbound)
            tasks.start_soon(watch)
            try:
                yield client_read, client_write
            finally:
                tasks.cancel_scope.cancel()


def _parse(line: bytes) -> SessionMessage:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProbeError(f"the server wrote invalid UTF-8 (byte {exc.start} of a message)", retryable=False) from exc
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ProbeError(
            f"the server wrote a message that is not JSON or is nested too deeply ({exc.msg})", retryable=False
        ) from exc
    if json_too_deep(value):
        raise ProbeError(f"the server wrote JSON nested too deeply (over {MAX_JSON_DEPTH} levels)", retryable=False)
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(value, by_name=False))
    except ValidationError as exc:
        raise ProbeError("the server wrote a message that is not JSON-RPC", retryable=False) from exc


@dataclass(slots=True)
class StdioServer:
    """The started process, for the failure message when it exits mid-session."""

    process: anyio.abc.Process | None = None


@asynccontextmanager
async def stdio_transport(
    argv: Sequence[str], *, workdir: Path, recorder: Recorder, server: StdioServer
) -> AsyncIterator[TransportStreams]:
    """Start ``argv`` in ``workdir`` (its cwd and HOME) and speak JSON-RPC lines over its pipes."""
    env = {
        "HOME": str(workdir),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TMPDIR": str(workdir),
    }
    try:
        process = await anyio.open_process(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=workdir,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        raise ProbeError(f"the target's command could not be started ({exc.strerror or exc})", retryable=False) from exc
    server.process = process
    limit = recorder.limits.max_message_bytes
    to_client, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_client = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        buffer = bytearray()
        async with to_client:
            try:
                async for chunk in process.stdout:
                    buffer += chunk
                    while (end := buffer.find(b"\n")) >= 0:
                        if end > limit:
                            raise ProbeError(f"a message from the server exceeds {limit} bytes", retryable=False)
                        line = bytes(buffer[:end])
                        del buffer[: end + 1]
                        if line.strip():
                            await to_client.send(_parse(line))
                    if len(buffer) > limit:
                        raise ProbeError(f"a message from the server exceeds {limit} bytes", retryable=False)
            except ProbeError as exc:
                recorder.fail(exc)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass

    async def writer() -> None:
        assert process.stdin is not None
        async with from_client:
            try:
                async for message in from_client:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
                    await process.stdin.send(data + b"\n")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await to_client.aclose()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(reader)
            tasks.start_soon(writer)
            try:
                yield read_stream, write_stream
            finally:
                tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)


async def _stop(process: anyio.abc.Process) -> None:
    """End the server and everything it started (its own process group)."""
    if process.stdin is not None:
        await process.stdin.aclose()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is not None:
            break
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        with anyio.move_on_after(2):
            await process.wait()
    else:
        await process.wait()
    # Closes the pipes and the subprocess transport itself (nothing left for the garbage collector).
    await process.aclose()


def http_transport(
    url: str, address: str | None, headers: dict[str, str], limits: Limits, recorder: Recorder
) -> AbstractAsyncContextManager[TransportStreams]:
    """The SDK's streamable HTTP client for ``url`` with ``headers`` (the target's unsealed secrets), over
    a client that connects to ``address`` only (the pinned address; by name when None)."""
    from mcp.client.streamable_http import streamable_http_client

    from assay.backend.runtime.http_guard import guarded_client

    client = guarded_client(url, address, headers, limits, recorder)

    @asynccontextmanager
    async def connect() -> AsyncIterator[TransportStreams]:
        async with (
            client,
            streamable_http_client(url, http_client=client, max_sse_event_size=limits.max_message_bytes) as streams,
        ):
            yield streams

    return connect()
