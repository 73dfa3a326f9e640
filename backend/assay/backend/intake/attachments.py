"""``externalEvidenceAttachments`` of a run (contract 2.1): checked when the run is created, frozen into
its plan, and turned into evidence items of its membership when it executes.

- ``structured-ingress``: the ``producerRunId`` of a receipt of the structured, log or OTLP routes; the
  batch becomes a ``runtime_batch`` item. A batch stored as records: payload ``{"adapter", "signal",
  "records"}`` (signal: the batch kind, records: the normalized records in order). A batch stored as its
  content (OTLP traces): a reference ``{"adapter", "batch", "contentDigest", "contentFormat",
  "recordCount", "signal"}``, the content loaded beside it and checked against the digest (a batch
  whose stored bytes no longer match is refused: ``TamperedBatchError``).
- ``sarif-import``: the ``producerRunId`` of a SARIF receipt; a ``sarif_report`` item whose payload is
  ``{"sarif": <SARIF 2.1.0 log>}``, the log rebuilt from the stored results (one run per tool, in order).
- ``ci-cd-scanner``: the ``scanId`` of a qualified scan (``POST /api/v1/scans``); a ``static_bundle`` item.
- ``assay-runtime``: the ``runId`` of a completed run that recorded a probe session; its ``runtime_probe``
  item (and ``catalogue_pin``, when it had one), exactly as that run's Evaluation holds them
  (:mod:`assay.backend.runtime.recordings`).

A missing id and another organization's give the same 404. A batch bound to another AI System, or a scan
of another AI System, is 400; a batch with no binding may be attached to any of the organization's
systems. Batches are immutable, so the items a run evaluates are exactly the batches as they were
accepted; evidence ingested later never changes an existing Evaluation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.canonical import canonical_bytes, canonical_object
from assay.backend.errors import ApiError, not_found
from assay.backend.evaluation.membership import (
    EvidenceItem,
    batch_reference_item,
    canonical_bundle_item,
    ingested_item,
    ingested_item_of_canonical,
)
from assay.backend.intake.store import OTLP_PROTOBUF, iter_record_texts, load_batch_row, load_content
from assay.backend.runtime import recordings
from assay.backend.scans.scan_store import load_scan
from assay.backend.storage import models

MAX_ATTACHMENTS = 50
Frozen = dict[str, str]


def _refuse(message: str) -> ApiError:
    return ApiError("INVALID_REQUEST", message)


async def check_attachments(
    session: AsyncSession, organization_id: str, ai_system_id: str, attachments: Sequence[tuple[str, str]]
) -> list[Frozen]:
    """The attachments as they will be frozen into the run's plan: each checked, duplicates removed."""
    unique = list(dict.fromkeys(attachments))
    if len(unique) > MAX_ATTACHMENTS:
        raise _refuse(f"A run takes at most {MAX_ATTACHMENTS} external evidence attachments.")
    frozen: list[Frozen] = []
    for index, (producer_id, producer_run_id) in enumerate(unique):
        where = f"externalEvidenceAttachments[{index}]"
        if producer_id == "ci-cd-scanner":
            scan = await load_scan(session, organization_id, producer_run_id)
            if not isinstance(scan, models.QualifiedScan):
                raise not_found(what="attached evidence")
            if scan.ai_system_id != ai_system_id:
                raise _refuse(f"{where}: the scan belongs to another AI System.")
        elif producer_id == recordings.PRODUCER_ID:
            await recordings.check_recording(session, organization_id, ai_system_id, producer_run_id, where)
        else:
            batch = await load_batch_row(session, organization_id, producer_run_id)
            if batch is None:
                raise not_found(what="attached evidence")
            if batch.producer_id != producer_id:
                raise _refuse(f"{where}: this receipt's batch attaches with producerId {batch.producer_id}.")
            if batch.ai_system_id is not None and batch.ai_system_id != ai_system_id:
                raise _refuse(f"{where}: the batch's binder is bound to another AI System.")
        frozen.append({"producerId": producer_id, "producerRunId": producer_run_id})
    return frozen


def runtime_payload(adapter_id: str, signal: str, record_texts: Sequence[str]) -> bytes:
    """The RFC 8785 bytes of ``{"adapter", "records", "signal"}`` from the records' stored RFC 8785 texts."""
    records = b"[" + b",".join(t.encode("utf-8") for t in record_texts) + b"]"
    return canonical_object(
        {"adapter": canonical_bytes(adapter_id), "records": records, "signal": canonical_bytes(signal)}
    )


def sarif_log(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of normalized ``sarifResult`` records: consecutive results of one tool form a run."""
    runs: list[dict[str, Any]] = []
    for result in results:
        tool = result.get("tool") or {}
        driver = {k: v for k, v in (("name", tool.get("name")), ("version", tool.get("version"))) if v is not None}
        if not runs or runs[-1]["tool"]["driver"] != driver:
            runs.append({"tool": {"driver": driver}, "results": []})
        entry: dict[str, Any] = {
            "level": result.get("level"),
            "kind": result.get("resultKind"),
            "message": {"text": result.get("message") or ""},
            "locations": [_location(loc) for loc in result.get("locations", [])],
        }
        for member in ("ruleId", "partialFingerprints", "fingerprints"):
            if result.get(member):
                entry[member] = result[member]
        runs[-1]["results"].append(entry)
    return {"version": "2.1.0", "runs": runs}


def _location(location: dict[str, Any]) -> dict[str, Any]:
    region = {
        k: location[k] for k in ("startLine", "startColumn", "endLine", "endColumn") if location.get(k) is not None
    }
    physical: dict[str, Any] = {}
    if location.get("uri") is not None:
        physical["artifactLocation"] = {"uri": location["uri"]}
    if region:
        physical["region"] = region
    return {"physicalLocation": physical}


async def attached_items(session: AsyncSession, organization_id: str, frozen: Sequence[Frozen]) -> list[EvidenceItem]:
    """The evidence items of a plan's frozen attachments; LookupError names one that is gone."""
    items: list[EvidenceItem] = []
    for attachment in frozen:
        producer_id, producer_run_id = attachment["producerId"], attachment["producerRunId"]
        if producer_id == "ci-cd-scanner":
            scan = await load_scan(session, organization_id, producer_run_id)
            if not isinstance(scan, models.QualifiedScan):
                raise LookupError(producer_run_id)
            items.append(canonical_bundle_item(scan.bundle_json, scan.content_hash, producer_id=scan.producer_id))
            continue
        if producer_id == recordings.PRODUCER_ID:
            items.extend(await recordings.recording_items(session, organization_id, producer_run_id))
            continue
        batch = await load_batch_row(session, organization_id, producer_run_id)
        if batch is None:
            raise LookupError(producer_run_id)
        if batch.content_format == OTLP_PROTOBUF:
            items.append(
                batch_reference_item(
                    producer_id,
                    batch_id=batch.id,
                    adapter=batch.adapter_id,
                    signal=batch.producer_kind,
                    content_format=batch.content_format,
                    content_digest=batch.content_digest,
                    record_count=batch.record_count,
                    content=await load_content(session, batch),
                )
            )
            continue
        texts = await iter_record_texts(session, batch.id)
        if producer_id == "sarif-import":
            log = sarif_log([json.loads(t) for t in texts])
            items.append(ingested_item("sarif_report", producer_id, {"sarif": log}))
        else:
            payload = runtime_payload(batch.adapter_id, batch.producer_kind, texts)
            items.append(ingested_item_of_canonical("runtime_batch", producer_id, payload))
    return items
