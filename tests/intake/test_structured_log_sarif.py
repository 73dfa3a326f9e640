"""Structured events (JSON, JSON Lines, CSV), raw log lines, and SARIF logs written by a real tool."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
from intake_helpers import IntakeWorld, ingest_headers

from assay.backend.canonical import digest_json
from assay.backend.intake.store import load_ingested_batch

STRUCTURED = "/api/ingest/structured"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


async def _batch_records(iw: IntakeWorld, receipt: dict[str, object]) -> list[dict[str, object]]:
    async with iw.world.sessions() as session:
        batch = await load_ingested_batch(session, iw.world.org_a, str(receipt["producerRunId"]))
    assert batch is not None
    assert batch.binder_id == receipt["binderId"] and batch.ai_system_id == iw.world.system_a
    assert digest_json(batch.records) == receipt["contentDigest"]
    return batch.records


async def test_json_envelope_with_binder_in_body(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    events = [{"eventId": "e1", "action": "refund", "amount": 12.5}, {"action": "approve", "by": "alice"}]
    response = await client.post(
        STRUCTURED,
        json={"binderId": iw.binders["structured"], "events": events},
        headers=ingest_headers(iw.ingest_key_a),
    )
    assert response.status_code == 201, response.text
    receipt = response.json()
    assert receipt["status"] == "EVIDENCE_INGESTED" and receipt["batchKind"] == "structured"
    assert receipt["recordCount"] == 2 and receipt["duplicateCount"] == 0
    assert set(receipt) == {
        "producerRunId",
        "status",
        "binderId",
        "aiSystemId",
        "adapterId",
        "adapterVersion",
        "batchKind",
        "recordCount",
        "duplicateCount",
        "contentDigest",
        "receivedAt",
        "attach",
    }
    assert await _batch_records(iw, receipt) == [
        {"kind": "event", "eventId": "e1", "fields": events[0]},
        {"kind": "event", "eventId": None, "fields": events[1]},
    ]
    # GET /metrics counts the accepted batch and its records (docs/operations.md).
    metrics = (await client.get("/metrics")).text
    assert 'assay_ingest_requests_total{channel="structured"} 1.0' in metrics
    assert 'assay_evidence_ingested_total{channel="structured"} 2.0' in metrics


async def test_jsonl_and_csv_and_dedupe_across_batches(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    binder = iw.binders["structured"]
    jsonl = b'{"eventId": "a", "tool": "refund"}\n\n{"eventId": "b", "tool": "email"}\r\n'
    first = await client.post(
        STRUCTURED,
        content=jsonl,
        headers=ingest_headers(iw.ingest_key_a, binder, **{"Content-Type": "application/x-ndjson"}),
    )
    assert first.status_code == 201, first.text
    csv_body = b"eventId,tool,approved\nb,email,yes\nc,refund,no\n"
    second = await client.post(
        f"{STRUCTURED}?binderId={binder}",
        content=csv_body,
        headers=ingest_headers(iw.ingest_key_a, **{"Content-Type": "text/csv"}),
    )
    assert second.status_code == 201, second.text
    assert second.json()["recordCount"] == 1 and second.json()["duplicateCount"] == 1
    assert await _batch_records(iw, second.json()) == [
        {"kind": "event", "eventId": "c", "fields": {"eventId": "c", "tool": "refund", "approved": "no"}}
    ]


async def test_log_lines_through_the_binders_regex(client: httpx.AsyncClient, iw: IntakeWorld) -> None:
    binder = await iw.binder("log", line_regex=r"(?P<level>[A-Z]+) (?P<eventId>\S+) (?P<message>.*)")
    body = b"INFO ev-1 refund issued\nnot matching\n\nWARN ev-2 email sent\n"
    response = await client.post(
        "/api/ingest/log",
        content=body,
        headers=ingest_headers(iw.ingest_key_a, binder.id, **{"Content-Type": "text/plain; charset=utf-8"}),
    )
    assert response.status_code == 201, response.text
    assert await _batch_records(iw, response.json()) == [
        {
            "kind": "logLine",
            "lineNumber": 1,
            "line": "INFO ev-1 refund issued",
            "fields": {"level": "INFO", "eventId": "ev-1", "message": "refund issued"},
        },
        {"kind": "logLine", "lineNumber": 2, "line": "not matching", "fields": None},
        {
            "kind": "logLine",
            "lineNumber": 4,
            "line": "WARN ev-2 email sent",
            "fields": {"level": "WARN", "eventId": "ev-2", "message": "email sent"},
        },
    ]


def ruff_sarif(tmp_path: Path) -> bytes:
    """A SARIF 2.1.0 log written by ruff (a real analyser; its S rules are bandit's) over a small file
    with a shell call."""
    target = tmp_path / "agent.py"
    target.write_text("import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--isolated",
            "--select",
            "S",
            "--output-format",
            "sarif",
            str(target),
        ],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr  # 1: issues were found
    return proc.stdout


async def test_sarif_from_ruff_is_validated_and_stored(
    client: httpx.AsyncClient, iw: IntakeWorld, tmp_path: Path
) -> None:
    document = ruff_sarif(tmp_path)
    assert json.loads(document)["version"] == "2.1.0"
    response = await client.post(
        "/api/ingest/sarif",
        content=document,
        headers=ingest_headers(iw.ingest_key_a, iw.binders["sarif"], **{"Content-Type": "application/sarif+json"}),
    )
    assert response.status_code == 201, response.text
    receipt = response.json()
    assert receipt["attach"]["producerId"] == "sarif-import" and receipt["batchKind"] == "sarif"
    records = await _batch_records(iw, receipt)
    assert records and all(r["kind"] == "sarifResult" for r in records)
    shell = next(r for r in records if r["ruleId"] == "S602")
    assert shell["tool"]["name"] == "ruff"  # type: ignore[index]
    assert shell["locations"][0]["uri"].endswith("agent.py")  # type: ignore[index]
    assert shell["locations"][0]["startLine"] == 5  # type: ignore[index]
    assert shell["level"] in ("error", "warning", "note")


async def test_concurrent_batches_with_the_same_event_ids_store_each_once(
    client: httpx.AsyncClient, iw: IntakeWorld
) -> None:
    import anyio

    # 6,000 events: a big batch, written in bounded transactions. A batch meeting event ids another one
    # still in flight has claimed answers 503 (retryable, Retry-After); retried, it finds them stored.
    lines = "\n".join(json.dumps({"eventId": f"e{i}", "tool": "refund"}) for i in range(6000)).encode()
    headers = ingest_headers(iw.ingest_key_a, iw.binders["structured"], **{"Content-Type": "application/x-ndjson"})
    answers: list[httpx.Response] = []
    busy: list[httpx.Response] = []

    async def send() -> None:
        for _ in range(500):
            answer = await client.post(STRUCTURED, content=lines, headers=headers)
            if answer.status_code != 503:
                answers.append(answer)
                return
            busy.append(answer)
        raise AssertionError("still 503 after 500 attempts")

    with anyio.fail_after(120):
        async with anyio.create_task_group() as tasks:
            for _ in range(3):
                tasks.start_soon(send)
    assert [a.status_code for a in answers] == [201, 201, 201], [a.text for a in answers]
    for answer in busy:
        assert answer.headers["Retry-After"] == "1"
        assert answer.json()["error"]["retryable"] is True
    receipts = [a.json() for a in answers]
    assert sum(r["recordCount"] for r in receipts) == 6000
    assert sum(r["duplicateCount"] for r in receipts) == 12000
