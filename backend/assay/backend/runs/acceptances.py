"""The risk acceptances a run freezes when it is created (docs/methodology.md, "Risk acceptances").

A run created on day D freezes every acceptance of its AI System that is not revoked: those whose
expiry is D or later as ``active``, the others (the newest per fingerprint) as ``expired``. They become the
run's ``risk_acceptance`` evidence item (evaluation/acceptance.py), so a later revocation or expiry never
changes what the run evaluates, and its Evaluation is the same bytes whenever it is computed again.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.storage import models


def entry(row: models.RiskAcceptance) -> dict[str, str]:
    """An acceptance as frozen evidence: what was decided and by whom, no id and no recording time."""
    return {
        "fingerprint": row.fingerprint,
        "ruleId": row.rule_id,
        "owner": row.owner,
        "justification": row.justification,
        "expiresOn": row.expires_on,
        "recordedBy": row.recorded_by,
    }


async def freeze_acceptances(
    session: AsyncSession, organization_id: str, ai_system_id: str, day: date
) -> dict[str, Any] | None:
    """The acceptances a run of ``ai_system_id`` created on ``day`` evaluates with; None when there are none."""
    rows = (
        await session.exec(
            select(models.RiskAcceptance)
            .where(
                models.RiskAcceptance.organization_id == organization_id,
                models.RiskAcceptance.ai_system_id == ai_system_id,
                col(models.RiskAcceptance.revoked_at).is_(None),
            )
            .order_by(col(models.RiskAcceptance.recorded_at).desc(), col(models.RiskAcceptance.id))
        )
    ).all()
    today = day.isoformat()
    active: dict[str, dict[str, str]] = {}
    expired: dict[str, dict[str, str]] = {}
    for row in rows:
        if row.expires_on >= today:
            active.setdefault(row.fingerprint, entry(row))
        else:
            expired.setdefault(row.fingerprint, entry(row))
    for fingerprint in active:
        expired.pop(fingerprint, None)
    if not active and not expired:
        return None
    return {"active": [active[k] for k in sorted(active)], "expired": [expired[k] for k in sorted(expired)]}
