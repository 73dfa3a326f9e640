"""A real ``assay serve`` on loopback, under umask 000 and ``--log-level debug``: HTTP framing it must
refuse (RFC 9112), what its logs may never hold, and the modes of the files it writes."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from test_subprocess import CLI, _free_port, _wait_until_healthy

from assay.backend import provisioning
from assay.backend.intake.binders import create_binder
from assay.backend.settings import ServiceSettings
from assay.backend.storage.db import sqlite_url_for
from assay.backend.web.app import create_app

pytestmark = pytest.mark.slow

# Values a client sends that no log line may repeat, at any level.
PAYLOAD_MARKER = "payload-marker-5e1d7a"
QUERY_MARKER = "query-marker-92c4b0"


@dataclass
class Served:
    port: int
    base: str
    data_dir: Path
    agent_key: str
    intake_key: str
    binder: str
    server: subprocess.Popen[str]

    def stop(self) -> str:
        """Stop the server; its whole log (stderr)."""
        self.server.terminate()
        try:
            _, stderr = self.server.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.server.kill()
            _, stderr = self.server.communicate(timeout=5)
        return stderr


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data_dir = tmp_path_factory.mktemp("hardening") / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env |= {"ASSAY_DATA_DIR": str(data_dir), "ASSAY_RATE_LIMIT_BURST": "0"}
    # Provisioned in-process (the database file `assay serve` opens by default): faster than `assay admin`.
    agent, intake, binder = asyncio.run(_provision(data_dir))
    port = _free_port()
    server = subprocess.Popen(
        [*CLI, "serve", "--port", str(port), "--workers", "0", "--log-level", "debug"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # Every file the service writes must be owner-only whatever the umask.
        preexec_fn=lambda: os.umask(0),
    )
    served = Served(port, f"http://127.0.0.1:{port}", data_dir, agent, intake, binder, server)
    try:
        _wait_until_healthy(server, served.base)
        yield served
    finally:
        if server.returncode is None:
            served.stop()


async def _provision(data_dir: Path) -> tuple[str, str, str]:
    app = create_app(ServiceSettings(database_url=sqlite_url_for(data_dir / "assay.db"), run_workers=0))
    async with app.router.lifespan_context(app), app.state.services.session_factory() as session:
        org = await provisioning.create_organization(session, "Acme")
        system = await provisioning.create_ai_system(session, org.id, "Ops agent")
        agent = await provisioning.create_api_key(session, org.id, purpose="assurance-agent")
        intake = await provisioning.create_api_key(session, org.id, purpose="evidence-intake")
        binder = await create_binder(
            session, org.id, source_system="s", adapter_id="structured", ai_system_id=system.id
        )
        await session.commit()
    return agent.api_key, intake.api_key, binder.id


def _exchange(port: int, data: bytes) -> bytes:
    """Everything the server sends back on one connection for ``data``, until it closes it (bounded)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5.0) as raw:
        raw.sendall(data)
        answer = b""
        try:
            while chunk := raw.recv(65536):
                answer += chunk
        except TimeoutError:
            answer += b"<connection kept open>"
    return answer


def test_content_length_with_chunked_is_refused_and_the_connection_closed(served: Served) -> None:
    smuggled = (
        b"POST /api/v1/assurance/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
        + served.agent_key.encode()
        + b"\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    answer = _exchange(served.port, smuggled)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"connection: close" in head.lower()
    assert json.loads(body)["error"]["code"] == "INVALID_REQUEST"
    assert b"HTTP/1.1 200" not in answer  # the request behind it is never answered
    assert b"<connection kept open>" not in answer


def test_a_bad_chunk_size_is_a_400_in_the_envelope(served: Served) -> None:
    bad = (
        b"POST /api/v1/assurance/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
        + served.agent_key.encode()
        + b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
    )
    head, _, body = _exchange(served.port, bad).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"connection: close" in head.lower()
    assert json.loads(body)["error"]["code"] == "INVALID_REQUEST"


def test_logs_hold_no_key_query_value_or_payload_and_key_files_are_owner_only(served: Served) -> None:
    with httpx.Client(base_url=served.base, timeout=10.0) as client:
        agent = {"Authorization": f"Bearer {served.agent_key}"}
        intake = {"Authorization": f"Bearer {served.intake_key}"}
        # A key in a path and in a query string, a value in a query string, a payload in a body.
        client.get(f"/api/v1/assurance/runs/{served.agent_key}", headers=agent)
        client.get("/api/v1/assurance/runs", params={"status": QUERY_MARKER, "key": served.agent_key}, headers=agent)
        stored = client.post(
            "/api/ingest/structured",
            params={"binderId": served.binder},
            json=[{"eventId": "e1", "note": PAYLOAD_MARKER}],
            headers=intake,
        )
        assert stored.status_code == 201, stored.text
        refused = client.post(
            "/api/v1/assurance/runs", json={"aiSystemId": PAYLOAD_MARKER, "engines": {}}, headers=agent
        )
        assert refused.status_code in (400, 404)
        # The passport signing key is created on first use.
        assert client.get("/.well-known/jwks.json").status_code == 200
    log = served.stop()
    loggers = {json.loads(line)["logger"] for line in log.splitlines() if line.startswith("{")}
    assert "assay.access" in loggers  # the access log ran...
    assert not {"aiosqlite", "sqlalchemy.engine.Engine"} & loggers  # ...and no statement was logged
    for secret in (served.agent_key, served.intake_key, served.binder, QUERY_MARKER, PAYLOAD_MARKER):
        assert secret not in log
    keys = served.data_dir / "keys"
    files = [p for p in keys.iterdir() if p.is_file()]
    assert any(p.name == "active.json" for p in files) and any(p.suffix == ".key" for p in files)
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    assert stat.S_IMODE(keys.stat().st_mode) == 0o700
