"""HTTP figures (issue 3): authenticated ``GET /api/v1/systems`` on ``assay serve`` versus a bare
Starlette route returning the same bytes under the same uvicorn, both on loopback, in the same run.
Target: throughput ratio >= 0.5; p99 latency reported.

Both servers run side by side and are loaded in turn (same request bytes, same connections), in
alternating rounds (A B, B A, A B, ...), so a neighbour's load on a shared machine falls on both
sides instead of skewing the ratio; each round's ratio is printed to show the spread.
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

from bench.loadgen import LoadResult, merge, run_load

HOST = "127.0.0.1"
ASSAY = [sys.executable, "-m", "assay.server.cli"]
ROUNDS = 4
ROUND_SECONDS = 2.0
CONNECTIONS = 16
PATH = "/api/v1/systems"


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


def _alternating_rounds(ports: dict[str, int], headers: dict[str, str]) -> dict[str, list[LoadResult]]:
    """ROUNDS rounds over every server, the order reversed each round; one warm-up second each first."""
    for port in ports.values():
        run_load(HOST, port, PATH, headers, connections=CONNECTIONS, seconds=1.0)
    results: dict[str, list[LoadResult]] = {name: [] for name in ports}
    names = list(ports)
    for round_number in range(ROUNDS):
        for name in names if round_number % 2 == 0 else reversed(names):
            results[name].append(
                run_load(HOST, ports[name], PATH, headers, connections=CONNECTIONS, seconds=ROUND_SECONDS)
            )
    return results


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
        bare_port = _free_port()
        bare = [
            sys.executable, "-m", "uvicorn", "bench.bare_app:create_app", "--factory",
            "--host", HOST, "--port", str(bare_port), "--log-level", "warning", "--no-access-log",
        ]  # fmt: skip
        body_file = Path(tmp) / "body.json"
        with _server(serve, port):
            request = urllib.request.Request(f"http://{HOST}:{port}{PATH}", headers=auth)
            with urllib.request.urlopen(request, timeout=10) as response:
                body = response.read()
            body_file.write_bytes(body)
            with _server(bare, bare_port, env={"BENCH_BODY_FILE": str(body_file)}):
                rounds = _alternating_rounds({"assay": port, "bare": bare_port}, auth)

        assay, baseline = merge(rounds["assay"]), merge(rounds["bare"])
        per_round = [a.rps / b.rps for a, b in zip(rounds["assay"], rounds["bare"], strict=True)]
        print(
            f"response: {len(body)} bytes; {CONNECTIONS} keep-alive connections; "
            f"{ROUNDS} alternating rounds of {ROUND_SECONDS:g} s per server"
        )
        print(
            f"bare Starlette route: {baseline.rps:,.0f} req/s, p50 {baseline.p50_ms:.2f} ms, "
            f"p99 {baseline.p99_ms:.2f} ms"
        )
        print(
            f"assay serve (authenticated): {assay.rps:,.0f} req/s, p50 {assay.p50_ms:.2f} ms, "
            f"p99 {assay.p99_ms:.2f} ms, errors {assay.errors}"
        )
        print(
            f"throughput ratio assay/bare {assay.rps / baseline.rps:.2f} (target >= 0.5); "
            f"per round {' '.join(f'{r:.2f}' for r in per_round)}"
        )
