"""HTTP figures (issue 3): authenticated ``GET /api/v1/systems`` on ``assay serve`` versus a bare
Starlette route returning the same bytes under the same uvicorn, both on loopback, in the same run.
Target: throughput ratio >= 0.5; p99 latency reported.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.loadgen import run_load

HOST = "127.0.0.1"
ASSAY = [sys.executable, "-m", "assay.server.cli"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def _admin(db: str, *args: str) -> dict[str, str]:
    out = subprocess.run([*ASSAY, "admin", *args, "--database-url", db, "--json"], check=True, capture_output=True)
    result: dict[str, str] = json.loads(out.stdout)
    return result


def _wait_ready(port: int, deadline_s: float = 30.0) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listening on {HOST}:{port} after {deadline_s}s")


@contextmanager
def _server(cmd: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[None]:
    proc = subprocess.Popen(cmd, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_ready(port)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="assay-bench-http-") as tmp:
        db = f"sqlite+aiosqlite:///{tmp}/bench.db"
        org = _admin(db, "org", "create", "Bench")["organizationId"]
        for n in range(5):
            _admin(db, "system", "create", "--org", org, "--name", f"system-{n}")
        key = _admin(db, "key", "create", "--org", org, "--purpose", "assurance-agent")["apiKey"]
        auth = {"Authorization": f"Bearer {key}"}

        port = _free_port()
        serve = [*ASSAY, "serve", "--host", HOST, "--port", str(port), "--database-url", db, "--log-level", "warning"]
        with _server(serve, port):
            request = urllib.request.Request(f"http://{HOST}:{port}/api/v1/systems", headers=auth)
            with urllib.request.urlopen(request, timeout=10) as response:
                body = response.read()
            run_load(HOST, port, "/api/v1/systems", auth, seconds=1.0)  # warm-up
            assay = run_load(HOST, port, "/api/v1/systems", auth)

        body_file = Path(tmp) / "body.json"
        body_file.write_bytes(body)
        bare_port = _free_port()
        bare = [
            sys.executable, "-m", "uvicorn", "bench.bare_app:create_app", "--factory",
            "--host", HOST, "--port", str(bare_port), "--log-level", "warning", "--no-access-log",
        ]  # fmt: skip
        with _server(bare, bare_port, env={"BENCH_BODY_FILE": str(body_file)}):
            run_load(HOST, bare_port, "/api/v1/systems", {}, seconds=1.0)
            baseline = run_load(HOST, bare_port, "/api/v1/systems", auth)

        print(f"response: {len(body)} bytes; 16 keep-alive connections, 5 s each")
        print(
            f"bare Starlette route: {baseline.rps:,.0f} req/s, p50 {baseline.p50_ms:.2f} ms, "
            f"p99 {baseline.p99_ms:.2f} ms"
        )
        print(
            f"assay serve (authenticated): {assay.rps:,.0f} req/s, p50 {assay.p50_ms:.2f} ms, "
            f"p99 {assay.p99_ms:.2f} ms, errors {assay.errors}"
        )
        print(f"throughput ratio assay/bare {assay.rps / baseline.rps:.2f} (target >= 0.5)")
