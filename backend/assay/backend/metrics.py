"""The service's Prometheus metrics (prometheus-client), one registry per app, served at ``GET /metrics``.

Each app (each ``assay serve`` process) has its own :class:`ServiceMetrics`, reachable as
``app.state.services.metrics`` from requests and handed to its run workers; nothing is a module global,
so two apps in one process (tests, embedded hosts) never mix their counts. Counters count what this
process did; the queue gauges are read from the database at scrape time and so are the same on every
replica.

For code that takes in evidence (the scan and intake routes do): call
``ctx.services.metrics.record_ingest(channel, items)`` once per accepted request, with ``channel`` one of
:data:`INGEST_CHANNELS` and ``items`` the number of evidence items it stored. Nothing else is needed: the
counter ``assay_evidence_ingested_total{channel}`` and ``assay_ingest_requests_total{channel}`` appear in
``/metrics``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

RunOutcome = Literal["completed", "failed", "released", "taken_over"]
# Channels evidence arrives by: a qualified scan (POST /api/v1/scans), a legacy-trigger scan, and the
# intake routes' batch kinds (an ingestion receipt's ``batchKind``).
IngestChannel = Literal["scan", "legacy-scan", "structured", "log", "sarif", "otlp-traces", "otlp-metrics", "otlp-logs"]
INGEST_CHANNELS: tuple[IngestChannel, ...] = get_args(IngestChannel)
RUN_STATUSES = ("QUEUED", "RUNNING", "COMPLETED", "FAILED")
# Seconds: from a millisecond read to a run of several minutes on a large tree.
_HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_RUN_BUCKETS = (0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class ServiceMetrics:
    """Every metric of one service process, in its own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.runs_claimed = Counter("assay_runs_claimed", "Runs claimed by this process's workers.", registry=r)
        self.runs_finished = Counter(
            "assay_runs_finished",
            "Runs this process's workers finished, by outcome: completed (Evaluation persisted), failed, "
            "released (worker stopped, run queued again), taken_over (lease lost).",
            ["outcome"],
            registry=r,
        )
        self.run_duration = Histogram(
            "assay_run_duration_seconds",
            "From claim to end of a run in this process, by outcome.",
            ["outcome"],
            buckets=_RUN_BUCKETS,
            registry=r,
        )
        self.runs = Gauge(
            "assay_runs",
            "Runs in the database by status, read at scrape time (all organizations).",
            ["status"],
            registry=r,
        )
        self.queue_oldest_age = Gauge(
            "assay_queue_oldest_age_seconds",
            "Age of the oldest QUEUED run at scrape time (0 when the queue is empty).",
            registry=r,
        )
        self.ingest_requests = Counter(
            "assay_ingest_requests", "Accepted evidence submissions, by channel.", ["channel"], registry=r
        )
        self.ingested = Counter(
            "assay_evidence_ingested", "Evidence items accepted, by channel.", ["channel"], registry=r
        )
        self.http_duration = Histogram(
            "assay_http_request_duration_seconds",
            "HTTP requests by method, route template and status.",
            ["method", "route", "status"],
            buckets=_HTTP_BUCKETS,
            registry=r,
        )
        for outcome in ("completed", "failed", "released", "taken_over"):
            self.runs_finished.labels(outcome)
        for channel in INGEST_CHANNELS:
            self.ingest_requests.labels(channel)
            self.ingested.labels(channel)

    def run_claimed(self) -> None:
        self.runs_claimed.inc()

    def run_finished(self, outcome: RunOutcome, seconds: float) -> None:
        self.runs_finished.labels(outcome).inc()
        self.run_duration.labels(outcome).observe(seconds)

    def record_ingest(self, channel: IngestChannel | str, items: int = 1) -> None:
        """One accepted evidence submission on ``channel`` carrying ``items`` evidence items."""
        if channel not in INGEST_CHANNELS:
            raise ValueError(f"unknown ingest channel {channel!r}; add it to INGEST_CHANNELS")
        self.ingest_requests.labels(channel).inc()
        self.ingested.labels(channel).inc(items)

    def observe_http(self, method: str, route: str, status: int, seconds: float) -> None:
        self.http_duration.labels(method, route, str(status)).observe(seconds)

    def set_queue(self, counts: Mapping[str, int], oldest_queued_age: float) -> None:
        for status in RUN_STATUSES:
            self.runs.labels(status).set(counts.get(status, 0))
        self.queue_oldest_age.set(oldest_queued_age)

    def exposition(self) -> bytes:
        """The Prometheus text format of every metric."""
        return generate_latest(self.registry)
