"""A probe recording attached to a new run like any other evidence (producerId ``assay-runtime``).

The recording of a probe session is an immutable evidence item of the run that recorded it (with the
catalogue pin it was compared against, when there was one). A new run names that run in
``externalEvidenceAttachments`` (``{"producerId": "assay-runtime", "producerRunId": "<runId>"}``): its
membership then holds the same items, byte for byte (same evidence ids, content digests and payloads), so
the new Evaluation judges exactly the session that was recorded, and nothing is contacted again.

The recording run must be the organization's (else the same 404 as any missing evidence), of the same AI
System (else 400, as a batch bound to another system is), and COMPLETED with an Evaluation holding a
recording (else 400 naming why). Evaluation evidence is immutable (database triggers); each item's payload
is checked against its content digest again when the new run executes.
"""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.canonical import sha256_hex
from assay.backend.errors import ApiError, not_found
from assay.backend.evaluation.membership import EvidenceItem
from assay.backend.storage import models

PRODUCER_ID = "assay-runtime"
# The runtime engine's evidence of a run: the recording, and the catalogue it was compared against.
KINDS = ("runtime_probe", "catalogue_pin")


class TamperedRecordingError(ValueError):
    """An attached recording's stored payload no longer matches its content digest."""


async def _evaluation_of(session: AsyncSession, organization_id: str, run_id: str) -> models.Evaluation | None:
    return (
        await session.exec(
            select(models.Evaluation).where(
                models.Evaluation.run_id == run_id, models.Evaluation.organization_id == organization_id
            )
        )
    ).first()


async def _rows(session: AsyncSession, evaluation_id: str) -> list[models.EvaluationEvidence]:
    return list(
        (
            await session.exec(
                select(models.EvaluationEvidence)
                .where(
                    models.EvaluationEvidence.evaluation_id == evaluation_id,
                    col(models.EvaluationEvidence.kind).in_(KINDS),
                )
                .order_by(col(models.EvaluationEvidence.evidence_id))
            )
        ).all()
    )


async def check_recording(
    session: AsyncSession, organization_id: str, ai_system_id: str, run_id: str, where: str
) -> None:
    """Refuse a ``producerRunId`` that names no attachable recording (see the module docstring)."""
    run = await session.get(models.Run, run_id)
    if run is None or run.organization_id != organization_id:
        raise not_found(what="attached evidence")
    if run.ai_system_id != ai_system_id:
        raise ApiError("INVALID_REQUEST", f"{where}: run {run_id} recorded a probe of another AI System.")
    evaluation = await _evaluation_of(session, organization_id, run_id)
    if evaluation is None:
        raise ApiError(
            "INVALID_REQUEST", f"{where}: run {run_id} has no Evaluation ({run.status}); attach a COMPLETED probe run."
        )
    if not any(r.kind == "runtime_probe" for r in await _rows(session, evaluation.id)):
        raise ApiError("INVALID_REQUEST", f"{where}: run {run_id} recorded no probe session (no runtime engine).")


async def recording_items(session: AsyncSession, organization_id: str, run_id: str) -> list[EvidenceItem]:
    """The recording run's runtime evidence items, exactly as its Evaluation holds them. LookupError when
    the run or its Evaluation is gone; TamperedRecordingError when a payload no longer matches its digest."""
    evaluation = await _evaluation_of(session, organization_id, run_id)
    if evaluation is None:
        raise LookupError(run_id)
    items = []
    for row in await _rows(session, evaluation.id):
        if row.content_digest != f"sha256:{sha256_hex(row.payload_json.encode('utf-8'))}":
            raise TamperedRecordingError(
                f"The {row.kind} {row.evidence_id} of run {run_id} does not match its content digest."
            )
        items.append(
            EvidenceItem(
                evidenceId=row.evidence_id,
                kind=row.kind,
                producerId=row.producer_id,
                contentDigest=row.content_digest,
                payloadJson=row.payload_json,
            )
        )
    if not any(i.kind == "runtime_probe" for i in items):
        raise LookupError(run_id)
    return items
