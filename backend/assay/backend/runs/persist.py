"""Persisting and reading immutable Evaluations.

:func:`persist_evaluation` writes an Evaluation in ONE transaction: the run's completion, the evaluation
row (payload as RFC 8785 canonical JSON, digests, disposition) and its evidence membership rows commit
together or not at all. Afterwards nothing may change them: triggers created by migration ``0002``
refuse every UPDATE and DELETE of ``evaluation`` and ``evaluation_evidence`` rows in the database itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.evaluation.membership import EvidenceItem, EvidenceMembership
from assay.backend.evaluation.methodology import EvaluationPayload
from assay.backend.storage import models
from assay.backend.storage.db import SessionFactory

EVALUATION_STATUS = "FINAL"


@dataclass(frozen=True, slots=True)
class FrozenEvaluation:
    """An Evaluation ready to persist: its identity fields and the exact texts that will be stored."""

    disposition: str
    methodology_version: str
    core_truth_digest: str
    evidence_bundle_digest: str
    payload_text: str
    members: tuple[EvidenceItem, ...]


def freeze(membership: EvidenceMembership, evaluation: EvaluationPayload) -> FrozenEvaluation:
    """An Evaluation as its RFC 8785 canonical JSON text (``evaluate`` encoded it), beside its
    membership, whose items already hold theirs. Decoding megabytes of text still takes a moment:
    callers run it in a worker thread, never on the event loop."""
    return FrozenEvaluation(
        disposition=evaluation.disposition,
        methodology_version=evaluation.methodology_version,
        core_truth_digest=evaluation.core_truth_digest,
        evidence_bundle_digest=evaluation.evidence_bundle_digest,
        payload_text=evaluation.canonical().decode("utf-8"),
        members=tuple(membership.items),
    )


async def persist_evaluation(
    sessions: SessionFactory,
    *,
    run_id: str,
    worker_id: str,
    organization_id: str,
    ai_system_id: str,
    frozen: FrozenEvaluation,
    now: datetime,
) -> str | None:
    """Complete the run with the ``frozen`` Evaluation; its new id, or None when the run is not ours.

    The run's completion is a conditional UPDATE (still RUNNING, still claimed by ``worker_id``) in the
    same transaction as the inserts: a worker whose lease was taken over persists nothing.
    """
    evaluation_id = models.new_id("eval")
    async with sessions() as session:
        completed = await session.exec(
            update(models.Run)
            .where(
                col(models.Run.id) == run_id,
                col(models.Run.claimed_by) == worker_id,
                col(models.Run.status) == "RUNNING",
            )
            .values(
                status="COMPLETED", stage=None, evaluation_id=evaluation_id, completed_at=now, lease_expires_at=None
            )
            .execution_options(synchronize_session=False)
        )
        if completed.rowcount != 1:
            await session.rollback()
            return None
        session.add(
            models.Evaluation(
                id=evaluation_id,
                organization_id=organization_id,
                ai_system_id=ai_system_id,
                run_id=run_id,
                status=EVALUATION_STATUS,
                disposition=frozen.disposition,
                methodology_version=frozen.methodology_version,
                core_truth_digest=frozen.core_truth_digest,
                evidence_bundle_digest=frozen.evidence_bundle_digest,
                payload_json=frozen.payload_text,
                created_at=now,
            )
        )
        # The evaluation row first: membership rows reference it.
        await session.flush()
        session.add_all(
            models.EvaluationEvidence(
                evaluation_id=evaluation_id,
                evidence_id=item.evidenceId,
                kind=item.kind,
                producer_id=item.producerId,
                content_digest=item.contentDigest,
                payload_json=item.payloadJson,
            )
            for item in frozen.members
        )
        await session.commit()
    return evaluation_id


async def load_evaluation(session: AsyncSession, organization_id: str, evaluation_id: str) -> models.Evaluation | None:
    """The organization's Evaluation with this id; None when missing or another organization's."""
    row = await session.get(models.Evaluation, evaluation_id)
    if row is None or row.organization_id != organization_id:
        return None
    return row


async def load_membership(session: AsyncSession, evaluation_id: str) -> EvidenceMembership:
    """The frozen evidence membership of an Evaluation, exactly as persisted, sorted by evidence id."""
    rows = (
        await session.exec(
            select(models.EvaluationEvidence)
            .where(models.EvaluationEvidence.evaluation_id == evaluation_id)
            .order_by(col(models.EvaluationEvidence.evidence_id))
        )
    ).all()
    items = [
        EvidenceItem(
            evidenceId=r.evidence_id,
            kind=r.kind,
            producerId=r.producer_id,
            contentDigest=r.content_digest,
            payloadJson=r.payload_json,
        )
        for r in rows
    ]
    return EvidenceMembership(items=items)
