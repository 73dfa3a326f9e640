"""What an operator watches and scales: GET /metrics (scraped and parsed as Prometheus does), the run
worker's structured log events, and API-only replicas (no in-process worker)."""

from __future__ import annotations

import io
import json
import logging
from dataclasses import replace
from pathlib import Path

import anyio
import anyio.lowlevel
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from runs_helpers import STATIC, bind, completed_run, copy_example, create, wait
from service_bundles import make_submission
from service_helpers import World, bearer
from starlette.applications import Starlette

from assay.backend.runs.worker import Worker
from assay.backend.settings import ServiceSettings
from assay.backend.web.app import create_app
from assay.server.logs import configure_logging


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


async def test_metrics_are_scraped_after_a_run(client: httpx.AsyncClient, world: World, tmp_path: Path) -> None:
    done = await completed_run(client, world, tmp_path, "research-assistant")
    submitted = await client.post(
        "/api/v1/scans", json=make_submission(world.system_a), headers=bearer(world.agent_key_a)
    )
    assert submitted.status_code == 201, submitted.text

    # The worker counts the run just after its commit, which the poll may see first (bounded wait).
    completed = ("assay_runs_finished_total", (("outcome", "completed"),))
    with anyio.fail_after(10):
        while _samples((await client.get("/metrics")).text).get(completed) != 1:
            await anyio.lowlevel.checkpoint()
    scraped = await client.get("/metrics")  # public, like /healthz
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = _samples(scraped.text)
    assert samples[("assay_runs_claimed_total", ())] >= 1
    assert samples[("assay_runs_finished_total", (("outcome", "completed"),))] == 1
    assert samples[("assay_run_duration_seconds_count", (("outcome", "completed"),))] == 1
    assert samples[("assay_runs", (("status", "COMPLETED"),))] == 1
    assert ("assay_queue_oldest_age_seconds", ()) in samples
    assert samples[("assay_ingest_requests_total", (("channel", "scan"),))] == 1
    assert samples[("assay_evidence_ingested_total", (("channel", "scan"),))] == 1
    route = (("method", "GET"), ("route", "/api/v1/assurance/runs/{runId}"), ("status", "200"))
    assert samples[("assay_http_request_duration_seconds_count", route)] >= 1
    # Labels are route templates: no run id, evaluation id or key ever becomes a label value.
    for secret in (done["runId"], done["evaluation"]["evaluationId"], world.agent_key_a):
        assert secret not in scraped.text
    unmatched = (("method", "GET"), ("route", "unmatched"), ("status", "404"))
    await client.get("/api/v1/nope")
    assert _samples((await client.get("/metrics")).text)[("assay_http_request_duration_seconds_count", unmatched)] == 1


async def test_metrics_can_be_turned_off(world: World, settings: ServiceSettings) -> None:
    app: Starlette = create_app(replace(settings, metrics_enabled=False, run_workers=0))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client,
    ):
        assert (await client.get("/metrics")).status_code == 404
        document = (await client.get("/api/v1/openapi.json", headers=bearer(world.agent_key_a))).json()
        assert "/metrics" not in document["paths"] and "/healthz" in document["paths"]


async def test_an_api_only_replica_queues_runs_that_another_worker_executes(
    world: World, settings: ServiceSettings, tmp_path: Path
) -> None:
    app: Starlette = create_app(replace(settings, run_workers=0, worker_poll_seconds=600))
    async with app.router.lifespan_context(app):
        assert app.state.run_workers == []
        await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
            run_id = created.json()["runId"]
            read = await client.get(f"/api/v1/assurance/runs/{run_id}", headers=bearer(world.agent_key_a))
            assert read.json()["status"] == "QUEUED"
            # Another process's worker (here: one on the same database) executes it.
            assert await Worker(world.sessions, settings).run_once()
            assert (await wait(client, world.agent_key_a, run_id))["status"] == "COMPLETED"


async def test_several_workers_in_one_process_share_the_queue(
    world: World, settings: ServiceSettings, tmp_path: Path
) -> None:
    app: Starlette = create_app(replace(settings, run_workers=3))
    async with app.router.lifespan_context(app):
        assert len({w.worker_id for w in app.state.run_workers}) == 3
        await bind(world.sessions, world.org_a, world.system_a, copy_example("research-assistant", tmp_path))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            ids = [
                (await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})).json()["runId"]
                for _ in range(4)
            ]
            finished = [await wait(client, world.agent_key_a, run_id) for run_id in ids]
    assert [run["status"] for run in finished] == ["COMPLETED"] * 4
    assert len({run["evaluation"]["evaluationId"] for run in finished}) == 4


async def test_the_worker_logs_each_step_with_its_ids(
    client: httpx.AsyncClient, world: World, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="assay.backend.runs.worker"):
        done = await completed_run(client, world, tmp_path, "research-assistant")
        # The run reads COMPLETED as soon as its transaction commits; the worker logs the completion
        # right after, on its own task: let it get there (checkpoints only, bounded).
        with anyio.fail_after(10):
            while not any(getattr(r, "event", None) == "run.completed" for r in caplog.records):
                await anyio.lowlevel.checkpoint()
    # The run's own steps (a loaded machine may add worker.database_error records, retried, without a run).
    events = [r for r in caplog.records if getattr(r, "event", "").startswith("run.")]
    by_event = {r.event: r for r in events}  # type: ignore[attr-defined]
    assert {"run.claimed", "run.stage", "run.completed"} <= set(by_event)
    for record in events:
        assert record.runId == done["runId"]  # type: ignore[attr-defined]
        assert record.workerId.startswith("wrk_")  # type: ignore[attr-defined]
    completed = by_event["run.completed"]
    assert completed.evaluationId == done["evaluation"]["evaluationId"]  # type: ignore[attr-defined]
    assert completed.durationSeconds >= 0  # type: ignore[attr-defined]
    assert by_event["run.stage"].stage == "evaluation"  # type: ignore[attr-defined]
    assert all(world.agent_key_a not in r.getMessage() for r in caplog.records)


def test_json_logs_carry_the_fields_as_members() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        configure_logging("info", "json", stream)
        logging.getLogger("assay.backend.runs.worker").info(
            "run run_1 completed", extra={"event": "run.completed", "runId": "run_1", "evaluationId": "eval_1"}
        )
        logging.getLogger("assay.backend.runs.worker").debug("not shown")
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["event"] == "run.completed" and record["runId"] == "run_1" and record["evaluationId"] == "eval_1"
    assert record["level"] == "INFO" and record["logger"] == "assay.backend.runs.worker" and "time" in record
    assert record["message"] == "run run_1 completed"


async def test_a_full_master_report_names_newer_evaluations_without_reading_their_payloads(
    client: httpx.AsyncClient, world: World, tmp_path: Path
) -> None:
    first = await completed_run(client, world, tmp_path, "research-assistant")
    created = await create(client, world.agent_key_a, {"aiSystemId": world.system_a, **STATIC})
    second = await wait(client, world.agent_key_a, created.json()["runId"])
    first_id, second_id = first["evaluation"]["evaluationId"], second["evaluation"]["evaluationId"]
    url = f"/api/v1/assurance/evaluations/{first_id}/master-report"
    report = (await client.get(url, params={"detail": "full"}, headers=bearer(world.agent_key_a))).json()
    context = report["masterReport"]["currentContext"]
    assert [(c["kind"], c["evaluationId"], c["truthRole"]) for c in context] == [
        ("NEWER_EVALUATION", second_id, "NON_EVALUATION_CONTEXT")
    ]
    assert context[0]["disposition"] in ("ALLOW", "REVIEW", "BLOCK") and context[0]["createdAt"]
