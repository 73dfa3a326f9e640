"""Small structured posts versus authenticated run reads (issue 21, part 11), on one ``assay serve``
(SQLite file, loopback), from one client over one kept-alive connection, in the same run.

Each round times ``REQUESTS`` reads of ``GET /api/v1/assurance/runs/{runId}``, then ``REQUESTS`` posts of one
structured event (a new ``eventId`` each) to ``/api/ingest/structured``, the order reversed every round, so
load from elsewhere on the machine falls on both. Figures: requests per second of each (over all rounds)
and the ratio posts / reads. Target: ratio >= 0.5 (a write, with its commit, costs at most twice an
authenticated read).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import httpx

from bench.served import served

ROUNDS = 6
REQUESTS = 100
TARGET = 0.5


def run() -> None:
    with (
        tempfile.TemporaryDirectory(prefix="assay-bench-intake-rate-") as name,
        served(Path(name)) as service,
        httpx.Client(base_url=service.base, timeout=30) as client,
    ):
        created = client.post(
            "/api/v1/assurance/runs",
            json={"aiSystemId": service.system, "engines": {"static": {"enabled": True}}},
            headers=service.agent,
        )
        created.raise_for_status()
        run_path = f"/api/v1/assurance/runs/{created.json()['runId']}"
        post_path = f"/api/ingest/structured?binderId={service.binders['structured']}"
        sequence = 0

        def reads() -> float:
            start = time.perf_counter()
            for _ in range(REQUESTS):
                client.get(run_path, headers=service.agent).raise_for_status()
            return time.perf_counter() - start

        def posts() -> float:
            nonlocal sequence
            start = time.perf_counter()
            for _ in range(REQUESTS):
                sequence += 1
                answer = client.post(
                    post_path, json=[{"eventId": f"e{sequence}", "step": "tool"}], headers=service.intake
                )
                if answer.status_code != 201:
                    raise RuntimeError(f"structured post answered {answer.status_code}: {answer.text}")
            return time.perf_counter() - start

        reads(), posts()  # warm-up
        read_s = post_s = 0.0
        for round_number in range(ROUNDS):
            if round_number % 2 == 0:
                read_s += reads()
                post_s += posts()
            else:
                post_s += posts()
                read_s += reads()
    total = ROUNDS * REQUESTS
    read_rate, post_rate = total / read_s, total / post_s
    ratio = post_rate / read_rate
    print(f"{ROUNDS} alternating rounds of {REQUESTS} requests each, one connection")
    print(f"run reads {read_rate:.0f}/s; one-event structured posts {post_rate:.0f}/s -> ratio {ratio:.2f} ")
    print(f"target ratio >= {TARGET}: {'met' if ratio >= TARGET else 'NOT met'}")
