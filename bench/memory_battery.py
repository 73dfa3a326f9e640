"""Memory of ``assay serve`` across the hostile-input battery (issue 21, part 11): resident set size (VmRSS)
after a warm-up of ordinary requests, then after the battery, and the peak (VmHWM) in between.

The battery, four of each at once where it says so: JSON nested 10,000 deep to the runs, scans,
structured and OTLP/JSON routes (x4); a 200 MB chunked body to ``/api/v1/scans`` (no Content-Length, so
only the streaming cap stops it); gzip bombs (a few hundred KiB inflating to 1 GiB) to the scans and
structured routes (x4); a 2 MB log body of a million lines; integers beyond 2^53, lone surrogates,
5,000-digit pages. Every answer must be a 4xx (the log body: 201). Target: RSS after the battery within
20% of RSS after the warm-up (ratio <= 1.2).
"""

from __future__ import annotations

import gzip
import tempfile
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from bench.served import Served, served

DEEP = 10_000
TARGET = 1.2
MIB = 1024 * 1024


def _bomb(inflated: int) -> bytes:
    """A gzip member of ``inflated`` zero bytes, compressed as it is made (never held inflated)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"0" * MIB
    parts = [packer.compress(block) for _ in range(inflated // MIB)]
    parts.append(packer.flush())
    return b"".join(parts)


def _chunks(total: int) -> Iterator[bytes]:
    block = b'{"a":"' + b"x" * (MIB - 6)
    for _ in range(total // MIB):
        yield block


def _battery(service: Served) -> list[tuple[str, Callable[[httpx.Client], httpx.Response]]]:
    json_headers = {"Content-Type": "application/json"}
    agent, intake = service.agent | json_headers, service.intake | json_headers
    structured = {"binderId": service.binders["structured"]}
    deep_object = b'{"a":' * DEEP + b"1" + b"}" * DEEP
    deep_array = b"[" * DEEP + b"]" * DEEP
    bomb = _bomb(1024 * MIB)
    gzipped = {"Content-Encoding": "gzip"}
    lines = b"x\n" * 1_000_000
    run_body = b'{"aiSystemId":"%s","engines":{"runtime":{"enabled":true,"windowHours":%d}}}'
    return [
        ("deep runs", lambda c: c.post("/api/v1/assurance/runs", content=deep_object, headers=agent)),
        ("deep scans", lambda c: c.post("/api/v1/scans", content=deep_object, headers=agent)),
        (
            "deep structured",
            lambda c: c.post(
                "/api/ingest/structured", params=structured, content=b'[{"a":' + deep_array + b"}]", headers=intake
            ),
        ),
        (
            "deep otlp",
            lambda c: c.post(
                "/api/otlp/v1/traces",
                params={"binderId": service.binders["otlp"]},
                content=b'{"resourceSpans":' + deep_array + b"}",
                headers=intake,
            ),
        ),
        ("200 MB chunked scan", lambda c: c.post("/api/v1/scans", content=_chunks(200 * MIB), headers=agent)),
        ("gzip bomb scans", lambda c: c.post("/api/v1/scans", content=bomb, headers=agent | gzipped)),
        (
            "gzip bomb structured",
            lambda c: c.post("/api/ingest/structured", params=structured, content=bomb, headers=intake | gzipped),
        ),
        (
            "1M-line log",
            lambda c: c.post(
                "/api/ingest/log",
                params={"binderId": service.binders["log"]},
                content=lines,
                headers=service.intake | {"Content-Type": "text/plain"},
            ),
        ),
        (
            "big integer",
            lambda c: c.post(
                "/api/v1/assurance/runs", content=run_body % (service.system.encode(), 2**60), headers=agent
            ),
        ),
        (
            "lone surrogate",
            lambda c: c.post("/api/ingest/structured", params=structured, content=b'[{"a":"\\ud800"}]', headers=intake),
        ),
        (
            "5,000-digit page",
            lambda c: c.get(
                "/api/v1/assurance/evaluations/ev_x/agent-audit", params={"page": "9" * 5000}, headers=agent
            ),
        ),
    ]


def _warm_up(client: httpx.Client, service: Served) -> None:
    """Ordinary requests of every kind the battery touches, so that what they import and cache is in the
    starting figure."""
    structured = {"binderId": service.binders["structured"]}
    for index in range(20):
        client.post(
            "/api/ingest/structured", params=structured, json=[{"eventId": f"w{index}"}], headers=service.intake
        )
        client.post(
            "/api/ingest/log",
            params={"binderId": service.binders["log"]},
            content=b"warm-up line\n" * 100,
            headers=service.intake | {"Content-Type": "text/plain"},
        )
        client.post(
            "/api/ingest/structured",
            params=structured,
            content=gzip.compress(b'[{"a":1}]'),
            headers=service.intake | {"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )
        client.post("/api/v1/scans", json={"aiSystemId": service.system}, headers=service.agent)
        client.post("/api/v1/assurance/runs", json={"aiSystemId": service.system, "engines": {}}, headers=service.agent)
        client.get("/api/v1/assurance/runs", headers=service.agent)


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="assay-bench-memory-") as name, served(Path(name)) as service:
        with httpx.Client(base_url=service.base, timeout=300) as client:
            _warm_up(client, service)
        start = service.rss_bytes()
        battery = _battery(service)
        statuses: dict[str, set[int]] = {}

        def fire(item: tuple[str, Callable[[httpx.Client], httpx.Response]]) -> tuple[str, int]:
            label, request = item
            with httpx.Client(base_url=service.base, timeout=300) as client:
                try:
                    return label, request(client).status_code
                except httpx.TransportError:
                    return label, 0  # the server closed the connection on an oversized body

        with ThreadPoolExecutor(max_workers=4) as pool:
            for label, request in battery:
                times = 4 if label.startswith(("deep", "gzip")) else 1
                for answered_label, status in pool.map(fire, [(label, request)] * times):
                    statuses.setdefault(answered_label, set()).add(status)
        peak = service.peak_rss_bytes()
        after = service.rss_bytes()
    print("answers: " + "; ".join(f"{label} {sorted(codes)}" for label, codes in statuses.items()))
    wrong = {label: codes for label, codes in statuses.items() if any(c >= 500 or c == 0 for c in codes)}
    if wrong:
        print(f"NOT all refused with a 4xx: {wrong}")
    ratio = after / start
    print(
        f"RSS after warm-up {start / MIB:.0f} MB; peak during the battery {peak / MIB:.0f} MB; "
        f"after the battery {after / MIB:.0f} MB -> ratio {ratio:.2f} (target <= {TARGET}: "
        f"{'met' if ratio <= TARGET else 'NOT met'})"
    )
