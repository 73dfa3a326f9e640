"""``assay admin`` and ``assay serve`` as real subprocesses, on loopback, with bounded waits."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

CLI = [sys.executable, "-m", "assay.server.cli"]
# Bounded, and generous: a start-up on a heavily loaded machine has taken over 30 s.
STARTUP_SECONDS = 120.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _admin(env: dict[str, str], *argv: str) -> dict[str, Any]:
    proc = subprocess.run([*CLI, "admin", *argv, "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    value: dict[str, Any] = json.loads(lines[0])
    return value


def _wait_until_healthy(server: subprocess.Popen[str], base: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        try:
            # Paces the polling and notices an early exit; a bounded wait, not a sleep.
            server.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue
        raise AssertionError(f"assay serve exited early with {server.returncode}")
    raise AssertionError("assay serve did not become healthy in time")


@pytest.mark.slow
def test_serve_and_admin_as_subprocesses(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env["ASSAY_DATA_DIR"] = str(data_dir)  # no database URL: both commands use the default SQLite file there
    org = _admin(env, "org", "create", "Acme")["organizationId"]
    system = _admin(env, "system", "create", "--org", org, "--name", "Ops agent")["aiSystemId"]
    key = _admin(env, "key", "create", "--org", org, "--purpose", "assurance-agent")
    assert (data_dir / "assay.db").is_file()
    # Owner-only whatever the umask (the test runs under the usual 022): the database holds every
    # organization's Evaluations.
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((data_dir / "assay.db").stat().st_mode) == 0o600

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [*CLI, "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "info"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_until_healthy(server, base)
        headers = {"Authorization": f"Bearer {key['apiKey']}"}
        systems = httpx.get(f"{base}/api/v1/systems", headers=headers, timeout=5.0)
        assert systems.status_code == 200
        assert [s["aiSystemId"] for s in systems.json()["systems"]] == [system]
        # Requests uvicorn refuses before the app answer in the envelope too.
        # Headers that arrive whole (the app refuses them) and headers too large for uvicorn's buffer.
        for padding in (20_000, 2_000_000):
            oversized = httpx.get(f"{base}/healthz", headers={"X-Padding": "a" * padding}, timeout=5.0)
            assert oversized.status_code == 431
            assert oversized.json()["error"]["code"] == "INVALID_REQUEST"
            assert "16384 bytes" in oversized.json()["error"]["message"]
        with socket.create_connection(("127.0.0.1", port), timeout=5.0) as raw:
            raw.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nbad header line\r\n\r\n")
            answer = b""
            while chunk := raw.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400") and b"content-type: application/json" in head.lower()
        assert json.loads(body)["error"]["code"] == "INVALID_REQUEST"
        _admin(env, "key", "revoke", key["keyId"])
        refused = httpx.get(f"{base}/api/v1/systems", headers=headers, timeout=5.0)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "UNAUTHORIZED"
    finally:
        server.terminate()
        try:
            stdout, stderr = server.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            stdout, stderr = server.communicate(timeout=5)
    output = stdout + stderr
    assert "GET /api/v1/systems" in output  # the access log ran...
    assert key["apiKey"] not in output  # ...and never printed the key
    # The log is JSON, one object per line (--log-format json is the default), uvicorn's lines included.
    records = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    assert any(r.get("event") == "serve.starting" and r.get("workers") == 1 for r in records)
    assert any(r["logger"] == "assay.access" and "GET /api/v1/systems" in r["message"] for r in records)


@pytest.mark.slow
def test_serve_refuses_an_unsupported_database_url(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    proc = subprocess.run(
        [*CLI, "serve", "--database-url", "mysql://root@127.0.0.1/test"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "unsupported database driver" in proc.stderr


def _one_line_failure(proc: subprocess.CompletedProcess[str], exit_code: int, *phrases: str) -> None:
    assert proc.returncode == exit_code, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]


@pytest.mark.slow
def test_startup_failures_are_one_line_with_a_documented_exit_status(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env["ASSAY_DATA_DIR"] = str(tmp_path / "data")
    unreachable = "postgresql+asyncpg://postgres@127.0.0.1:9/test"  # the discard port: nothing listens
    for command in ("serve", "worker"):
        proc = subprocess.run(
            [*CLI, command, "--database-url", unreachable], env=env, capture_output=True, text=True, timeout=60
        )
        _one_line_failure(proc, 3, f"assay {command}: cannot open the database", "127.0.0.1:9")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run([*CLI, "serve", "--port", str(port)], env=env, capture_output=True, text=True, timeout=60)
    _one_line_failure(proc, 4, f"cannot listen on 127.0.0.1:{port}", "in use")
    # A database migrated by a newer version than this one: refused, not downgraded.
    _admin(env, "org", "create", "Acme")
    with sqlite3.connect(tmp_path / "data" / "assay.db") as db:
        db.execute("UPDATE alembic_version SET version_num = '9999_future'")
    proc = subprocess.run(
        [*CLI, "serve", "--log-level", "warning"], env=env, capture_output=True, text=True, timeout=60
    )
    _one_line_failure(proc, 3, "cannot open the database", "9999_future")
    proc = subprocess.run([*CLI, "serve", "--workers", "-1"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--workers" in proc.stderr
    env["ASSAY_MAX_SCAN_BODY_BYTES"] = "lots"
    proc = subprocess.run([*CLI, "serve"], env=env, capture_output=True, text=True, timeout=60)
    _one_line_failure(proc, 2, "ASSAY_MAX_SCAN_BODY_BYTES")


@pytest.mark.slow
def test_a_worker_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSAY_")}
    env["ASSAY_DATA_DIR"] = str(tmp_path / "data")
    worker = subprocess.Popen(
        [*CLI, "worker", "--log-level", "info"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert worker.stderr is not None
        # Lines until the worker says it started (the migrations log first); every line is JSON.
        for _ in range(50):
            started = json.loads(worker.stderr.readline())
            if started.get("event") == "worker.started":
                break
        assert started["event"] == "worker.started" and started["workerId"].startswith("wrk_")
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.communicate(timeout=5)
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700


def test_metrics_can_be_switched_off_from_the_environment() -> None:
    from assay.server.settings import SettingsError, read_environment

    assert read_environment({}).metrics_enabled is True
    assert read_environment({"ASSAY_METRICS": "off"}).metrics_enabled is False
    with pytest.raises(SettingsError, match="ASSAY_METRICS"):
        read_environment({"ASSAY_METRICS": "sometimes"})
