"""Ingestion receipts: the answer of every intake route (contract 4.5, part 6). A receipt says only
``EVIDENCE_INGESTED``: the evidence is stored, not evaluated; to evaluate it, attach its
``producerRunId`` to a new run."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.backend.intake.store import BatchFacts
from assay.backend.storage.models import IntakeBatch


class _Response(BaseModel):
    model_config = ConfigDict(frozen=True)


class ReceiptAttach(_Response):
    """The member of ``externalEvidenceAttachments`` that attaches this batch to a new run."""

    producerId: Literal["structured-ingress", "sarif-import"]
    producerRunId: str


class IngestionReceipt(_Response):
    """An ingestion receipt: the batch is stored, immutable, and attachable to a new run."""

    producerRunId: str = Field(description="Attach it to a new run through externalEvidenceAttachments.")
    status: Literal["EVIDENCE_INGESTED"] = Field(
        description="Always EVIDENCE_INGESTED: stored, not evaluated (never EVIDENCE_EVALUATED, GAP_CLOSED or "
        "ASSURANCE_CHANGED)."
    )
    binderId: str
    aiSystemId: str | None = Field(description="The binder's AI System binding, inherited by the batch.")
    adapterId: str
    adapterVersion: str
    batchKind: Literal["otlp-traces", "otlp-metrics", "otlp-logs", "structured", "log", "sarif"]
    recordCount: int = Field(description="Records stored by this batch.")
    duplicateCount: int = Field(description="Records skipped: their event id was already ingested through the binder.")
    contentDigest: str = Field(description="sha256 over the RFC 8785 JSON array of the stored normalized records.")
    receivedAt: datetime
    attach: ReceiptAttach


class ReceiptList(_Response):
    """The receipts of a binder's batches, newest first."""

    binderId: str
    receipts: list[IngestionReceipt]


def receipt_of(row: IntakeBatch | BatchFacts) -> IngestionReceipt:
    producer = "sarif-import" if row.producer_id == "sarif-import" else "structured-ingress"
    return IngestionReceipt(
        producerRunId=row.id,
        status="EVIDENCE_INGESTED",
        binderId=row.binder_id,
        aiSystemId=row.ai_system_id,
        adapterId=row.adapter_id,
        adapterVersion=row.adapter_version,
        batchKind=row.producer_kind,
        recordCount=row.record_count,
        duplicateCount=row.duplicate_count,
        contentDigest=row.content_digest,
        receivedAt=row.created_at,
        attach=ReceiptAttach(producerId=producer, producerRunId=row.id),
    )
