"""A small closed-loop HTTP/1.1 load generator: N keep-alive connections, one request in flight each.

Raw asyncio streams keep the client cheap, so on a two-core machine the server, not the client, is
what is measured. Loopback only; every loop is bounded by a request count and a deadline.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LoadResult:
    requests: int
    errors: int
    seconds: float
    # Every request's latency in seconds, sorted.
    latencies: tuple[float, ...]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def percentile_ms(self, fraction: float) -> float:
        """The latency below which ``fraction`` of the requests finished, in milliseconds."""
        if not self.latencies:
            return 0.0
        return self.latencies[min(len(self.latencies) - 1, int(len(self.latencies) * fraction))] * 1000

    @property
    def p50_ms(self) -> float:
        return self.percentile_ms(0.50)

    @property
    def p99_ms(self) -> float:
        return self.percentile_ms(0.99)


def merge(results: Sequence[LoadResult]) -> LoadResult:
    """Several runs against the same server as one: requests and time added, latencies pooled."""
    return LoadResult(
        requests=sum(r.requests for r in results),
        errors=sum(r.errors for r in results),
        seconds=sum(r.seconds for r in results),
        latencies=tuple(sorted(x for r in results for x in r.latencies)),
    )


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
    return LoadResult(len(latencies), sum(errors), elapsed, tuple(sorted(latencies)))


def run_load(
    host: str, port: int, path: str, headers: dict[str, str], *, connections: int = 16, seconds: float = 5.0
) -> LoadResult:
    if not host.startswith("127.") and host not in ("localhost", "::1"):
        raise ValueError("the load generator only targets loopback addresses")
    return asyncio.run(_run(host, port, path, headers, connections, seconds))
