"""How long a big intake batch holds SQLite's write lock (issue 21, part 11), on one ``assay serve``
(SQLite file, loopback).

Two big batches are sent one after the other: a log body of a million lines (2 MB) and an OTLP trace
export of ``ASSAY_BENCH_LOCK_SPANS`` spans (default 200,000, about 60 MB). Meanwhile:

- a probe thread takes SQLite's write lock on the same database file (``BEGIN IMMEDIATE; COMMIT`` on a
  connection of its own, every 20 ms, busy timeout 10 minutes): its longest wait is the longest time a
  writer was kept out, i.e. the longest single write transaction (to the granularity of SQLite's busy
  handler, whose sleeps grow to 100 ms);
- a client posts one-event structured batches over HTTP without pause: their statuses (no 500 "database
  is locked", no 503 expected) and their longest latency.

Figures per batch: the time to its answer, the probe's longest wait, the small posts' count, statuses and
longest latency. Target: the longest wait is a fraction of a second (bounded transactions), every small
post 201.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.otlp_ingest import build_request
from bench.served import served

LOG_LINES = 1_000_000
PROBE_EVERY = 0.02


@dataclass
class _Watch:
    """The probe's and the small posts' account while one big batch is written."""

    stop: threading.Event = field(default_factory=threading.Event)
    longest_wait: float = 0.0
    probes: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    longest_post: float = 0.0


def _probe(db: Path, watch: _Watch) -> None:
    connection = sqlite3.connect(db, timeout=600, isolation_level=None)
    try:
        while not watch.stop.is_set():
            started = time.perf_counter()
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("COMMIT")
            watch.longest_wait = max(watch.longest_wait, time.perf_counter() - started)
            watch.probes += 1
            watch.stop.wait(PROBE_EVERY)
    finally:
        connection.close()


def _small_posts(base: str, path: str, headers: dict[str, str], watch: _Watch, prefix: str) -> None:
    with httpx.Client(base_url=base, timeout=600) as client:
        number = 0
        while not watch.stop.is_set():
            number += 1
            started = time.perf_counter()
            answer = client.post(path, json=[{"eventId": f"{prefix}-{number}", "step": "tool"}], headers=headers)
            watch.longest_post = max(watch.longest_post, time.perf_counter() - started)
            watch.statuses[answer.status_code] += 1


def _chunks(body: bytes, size: int = 1 << 20) -> Iterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start : start + size]


def _measured(
    name: str, db: Path, service_base: str, small: tuple[str, dict[str, str]], send: Callable[[], httpx.Response]
) -> None:
    watch = _Watch()
    threads = [
        threading.Thread(target=_probe, args=(db, watch)),
        threading.Thread(target=_small_posts, args=(service_base, small[0], small[1], watch, name)),
    ]
    for thread in threads:
        thread.start()
    try:
        started = time.perf_counter()
        answer = send()
        elapsed = time.perf_counter() - started
    finally:
        watch.stop.set()
        for thread in threads:
            thread.join()
    if answer.status_code not in (200, 201):
        raise RuntimeError(f"{name} answered {answer.status_code}: {answer.text[:300]}")
    statuses = ", ".join(f"{status} x{count}" for status, count in sorted(watch.statuses.items()))
    print(
        f"{name}: answered in {elapsed:.2f} s; longest write-lock wait of another writer "
        f"{watch.longest_wait * 1000:.0f} ms ({watch.probes} probes); small structured posts: {statuses}, "
        f"longest {watch.longest_post * 1000:.0f} ms"
    )


def run() -> None:
    spans = int(os.environ.get("ASSAY_BENCH_LOCK_SPANS", "200000"))
    log_body = b"a\n" * LOG_LINES
    trace_body, _ = build_request(0, id_base=1 << 40, spans=spans)
    with tempfile.TemporaryDirectory(prefix="assay-bench-intake-lock-") as name, served(Path(name)) as service:
        db = Path(name) / "data" / "assay.db"
        small = (f"/api/ingest/structured?binderId={service.binders['structured']}", service.intake)
        with httpx.Client(base_url=service.base, timeout=600) as client:

            def send_log() -> httpx.Response:
                return client.post(
                    f"/api/ingest/log?binderId={service.binders['log']}",
                    content=_chunks(log_body),
                    headers=service.intake | {"Content-Type": "text/plain"},
                )

            def send_traces() -> httpx.Response:
                return client.post(
                    "/api/otlp/v1/traces",
                    content=_chunks(trace_body),
                    headers=service.intake
                    | {"Content-Type": "application/x-protobuf", "X-Binder-Id": service.binders["otlp"]},
                )

            _measured(
                f"log body of {LOG_LINES:,} lines ({len(log_body) / 1e6:.0f} MB)", db, service.base, small, send_log
            )
            _measured(
                f"OTLP traces, {spans:,} spans ({len(trace_body) / 1e6:.0f} MB)", db, service.base, small, send_traces
            )


if __name__ == "__main__":
    run()
