"""Runtime targets over streamable HTTP: the target's header secret reaches the server and nothing else
(no read, no recording, no Evaluation), a redirect off the registered origin is not followed, a TLS
failure fails the run, and the MCP reference server (npm) is probed over HTTP as over stdio."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp.server.mcpserver import MCPServer
from runtime_helpers import NODE_BIN, add_target, evaluation, peer, run_to_end, runtime_body
from service_helpers import World
from starlette.applications import Starlette

SECRET = "Bearer tok-9f8e7d6c5b4a"


def _server() -> MCPServer:
    server = MCPServer("http-peer", version="2.0.0")

    def lookup(order_id: str) -> str:
        """Look up an order by its id."""
        return order_id

    server.tool()(lookup)
    return server


@asynccontextmanager
async def serving(seen: list[str], *, redirect: str | None = None) -> AsyncIterator[str]:
    """An MCP server on a loopback port that answers only requests carrying SECRET; its URL."""
    mcp_app = _server().streamable_http_app()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            seen.append(headers.get(b"authorization", b"").decode())
            if redirect is not None:
                await send(
                    {"type": "http.response.start", "status": 307, "headers": [(b"location", redirect.encode())]}
                )
                await send({"type": "http.response.body", "body": b""})
                return
            if headers.get(b"authorization", b"").decode() != SECRET:
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
        await mcp_app(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # Listening before uvicorn starts: the first requests wait in the backlog until it serves them.
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: server.serve(sockets=[sock]))
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.should_exit = True


async def test_headers_reach_the_server_and_nothing_else(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    seen: list[str] = []
    async with serving(seen) as url:
        target = await add_target(app, world, url=url, headers=(f"Authorization={SECRET}",))
        done = await run_to_end(client, world, runtime_body(world, target), seconds=60)
    assert done["status"] == "COMPLETED", done
    assert seen and set(seen) == {SECRET}
    audit = await evaluation(client, world, done)
    section = next(s for s in audit["agentAudit"]["sections"] if s["id"] == "runtime")
    assert section["targets"][0]["server"]["name"] == "http-peer"
    assert section["targets"][0]["counts"]["tool"] == 1
    async with world.sessions() as session:
        from sqlmodel import text

        rows = (await session.exec(text("SELECT payload_json FROM evaluation_evidence"))).all()  # type: ignore[call-overload]
        payloads = (await session.exec(text("SELECT payload_json FROM evaluation"))).all()  # type: ignore[call-overload]
    stored = " ".join(r[0] for r in [*rows, *payloads])
    assert "tok-9f8e7d6c5b4a" not in stored and "tok-9f8e7d6c5b4a" not in str(audit)


async def test_a_redirect_off_the_registered_origin_is_not_followed(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    seen: list[str] = []
    async with serving(seen, redirect="http://169.254.169.254/latest/meta-data") as url:
        target = await add_target(app, world, url=url)
        done = await run_to_end(client, world, runtime_body(world, target, timeoutSeconds=10), seconds=60)
    assert done["status"] == "FAILED", done
    assert done["failure"]["engine"] == "runtime"


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(key, hashes.SHA256())
    )
    key_file, cert_file = directory / "key.pem", directory / "cert.pem"
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_file, cert_file


async def test_a_tls_error_fails_the_run_without_retry(
    app: Starlette, client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    key_file, cert_file = _self_signed(tmp_path)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        _server().streamable_http_app(), log_level="warning", ssl_keyfile=str(key_file), ssl_certfile=str(cert_file)
    )
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: server.serve(sockets=[sock]))
        try:
            target = await add_target(app, world, url=f"https://127.0.0.1:{port}/mcp")
            done = await run_to_end(client, world, runtime_body(world, target, timeoutSeconds=15), seconds=60)
        finally:
            server.should_exit = True
    assert done["status"] == "FAILED", done
    assert done["failure"]["engine"] == "runtime"
    assert "certificate" in done["failure"]["message"].lower(), done["failure"]
    assert done["failure"]["retryable"] is False


async def test_the_reference_server_over_streamable_http(
    app: Starlette, client: httpx.AsyncClient, world: World
) -> None:
    script = peer(NODE_BIN / "mcp-server-everything")  # node follows the .bin symlink itself
    with socket.socket() as probe_port:
        probe_port.bind(("127.0.0.1", 0))
        port = probe_port.getsockname()[1]
    env = {**os.environ, "PORT": str(port)}
    async with await anyio.open_process(["node", script, "streamableHttp"], env=env) as process:
        try:
            assert process.stderr is not None
            with anyio.fail_after(60):
                said = b""
                async for chunk in process.stderr:  # it says when it listens
                    said += chunk
                    if b"listening on port" in said:
                        break
            target = await add_target(app, world, url=f"http://127.0.0.1:{port}/mcp")
            done = await run_to_end(client, world, runtime_body(world, target), seconds=60)
        finally:
            process.terminate()
    assert done["status"] == "COMPLETED", done
    audit = await evaluation(client, world, done)
    section = next(s for s in audit["agentAudit"]["sections"] if s["id"] == "runtime")["targets"][0]
    assert section["target"]["kind"] == "mcp-url" and section["counts"]["tool"] > 0
    assert section["poisoning"] == []
