"""A small closed-loop HTTP/1.1 load generator: N keep-alive connections, one request in flight each.

Raw asyncio streams keep the client cheap, so on a two-core machine the server, not the client, is
what is measured. Loopback only; every loop is bounded by a request count and a deadline.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LoadResult:
    requests: int
    errors: int
    seconds: float
    p50_ms: float
    p99_ms: float

    @property
    def rps(self) -> float:
        return self.requests / self.seconds


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    await reader.readexactly(length)
    return status


async def _worker(
    host: str, port: int, request: bytes, deadline: float, max_requests: int, latencies: list[float]
) -> int:
    reader, writer = await asyncio.open_connection(host, port)
    errors = 0
    try:
        for _ in range(max_requests):
            if time.perf_counter() >= deadline:
                break
            start = time.perf_counter()
            writer.write(request)
            status = await _read_response(reader)
            latencies.append(time.perf_counter() - start)
            if status != 200:
                errors += 1
    finally:
        writer.close()
    return errors


async def _run(
    host: str, port: int, path: str, headers: dict[str, str], connections: int, seconds: float
) -> LoadResult:
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", *(f"{k}: {v}" for k, v in headers.items())]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")
    latencies: list[float] = []
    start = time.perf_counter()
    deadline = start + seconds
    errors = await asyncio.gather(
        *(_worker(host, port, request, deadline, 1_000_000, latencies) for _ in range(connections))
    )
    elapsed = time.perf_counter() - start
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
    return LoadResult(len(latencies), sum(errors), elapsed, statistics.median(ordered) * 1000, p99 * 1000)


def run_load(
    host: str, port: int, path: str, headers: dict[str, str], *, connections: int = 16, seconds: float = 5.0
) -> LoadResult:
    if not host.startswith("127.") and host not in ("localhost", "::1"):
        raise ValueError("the load generator only targets loopback addresses")
    return asyncio.run(_run(host, port, path, headers, connections, seconds))
