"""Hostile HTTP targets: JSON answers that are too large, never end, nest too deep or are not UTF-8, and an
SSE stream that never ends, fail the run by their bound (not by time) with a clear, non-retryable runtime
failure; a host name that resolves elsewhere after it was checked (DNS rebinding) is never asked again:
the session connects to the address that was checked."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
import httpx
import pytest
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from runtime_helpers import add_target, run_to_end, runtime_body
from service_helpers import World
from starlette.applications import Starlette

MIB = 1 << 20
INITIALIZED = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "hostile", "version": "1.0.0"},
}


def _hostile(mode: str) -> Any:
    """A minimal MCP server over HTTP whose tools/list answer is hostile in the way ``mode`` names."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        message = json.loads(body) if body else {}
        if scope["method"] != "POST" or "id" not in message:
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        reply = {"jsonrpc": "2.0", "id": message["id"]}
        json_type = [(b"content-type", b"application/json")]
        if message["method"] == "initialize":
            await send({"type": "http.response.start", "status": 200, "headers": json_type})
            await send({"type": "http.response.body", "body": json.dumps({**reply, "result": INITIALIZED}).encode()})
            return
        if mode == "huge":
            tool = {"name": "t", "description": "a" * (5 * MIB), "inputSchema": {"type": "object"}}
            data = json.dumps({**reply, "result": {"tools": [tool]}}).encode()
        elif mode == "nested":
            data = json.dumps({**reply, "result": {"tools": [], "x": json.loads("[" * 200 + "]" * 200)}}).encode()
        elif mode == "utf8":
            data = json.dumps({**reply, "result": {"tools": []}}).encode().replace(b"[]", b'["\xff\xfe"]')
        else:  # endless: JSON (or an SSE stream of comments) that never ends
            sse = mode == "endless-sse"
            headers = [(b"content-type", b"text/event-stream")] if sse else json_type
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            chunk = b": keep reading\n" * 4096 if sse else b" " * 65536
            # "Endless": four times the largest bound, yielding to the loop between chunks (the test's own
            # loop serves it), and sends are silently dropped once the client has gone.
            for _ in range(64 * MIB // len(chunk)):
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                await anyio.lowlevel.checkpoint()
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": 200, "headers": json_type})
        await send({"type": "http.response.body", "body": data})

    return app


@asynccontextmanager
async def serving(app: Any, seen: list[str] | None = None, *, lifespan: str = "off") -> AsyncIterator[int]:
    """``app`` on a loopback port (its number); ``seen`` gets each request's Host header."""

    async def recording(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if seen is not None and scope["type"] == "http":
            seen.append(dict(scope["headers"]).get(b"host", b"").decode())
        await app(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(recording, log_level="warning", lifespan=lifespan))
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: server.serve(sockets=[sock]))
        try:
            yield sock.getsockname()[1]
        finally:
            server.should_exit = True
            server.force_exit = True


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("huge", "a JSON answer of the target exceeds 4194304 bytes"),
        ("endless", "a JSON answer of the target exceeds 4194304 bytes"),
        ("nested", "nested deeper than 128 levels"),
        ("utf8", "invalid UTF-8 or JSON"),
        ("endless-sse", "an answer of the target exceeds 16777216 bytes"),
    ],
)
async def test_hostile_answers_fail_the_run_by_their_bound(
    app: Starlette, client: httpx.AsyncClient, world: World, mode: str, message: str
) -> None:
    async with serving(_hostile(mode)) as port:
        target = await add_target(app, world, url=f"http://127.0.0.1:{port}/mcp")
        done = await run_to_end(client, world, runtime_body(world, target, timeoutSeconds=120), seconds=110)
    assert done["status"] == "FAILED", done
    failure = done["failure"]
    assert failure["engine"] == "runtime" and failure["code"] == "RUN_FAILED"
    assert message in failure["message"], failure
    assert failure["retryable"] is False
    assert done["evaluation"] is None


def _server() -> MCPServer:
    server = MCPServer("rebind-peer", version="1.0.0")

    def lookup(order_id: str) -> str:
        """Look up an order by its id."""
        return order_id

    server.tool()(lookup)
    return server


async def test_a_name_that_resolves_elsewhere_after_its_check_is_never_asked_again(
    app: Starlette, client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = "rebind.assay.test"
    real = socket.getaddrinfo
    asked: list[str] = []

    def rebinding(name: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if name != host:
            return real(name, port, *args, **kwargs)
        asked.append(name)
        # Checked three times (target add, run creation, before the session): loopback, which the test
        # service allows. Asked again, it would answer an address that is refused and unreachable.
        address = "127.0.0.1" if len(asked) <= 3 else "192.0.2.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    hosts: list[str] = []
    # The server itself accepts the registered name (as a server behind that name would).
    security = TransportSecuritySettings(allowed_hosts=[f"{host}:*"])
    async with serving(_server().streamable_http_app(transport_security=security), hosts, lifespan="on") as port:
        target = await add_target(app, world, url=f"http://{host}:{port}/mcp")
        done = await run_to_end(client, world, runtime_body(world, target, timeoutSeconds=20), seconds=60)
    assert done["status"] == "COMPLETED", (done["failure"], asked)
    assert len(asked) == 3  # the session connected to the checked address, never resolving the name again
    assert hosts and set(hosts) == {f"{host}:{port}"}  # the server saw the registered host name
