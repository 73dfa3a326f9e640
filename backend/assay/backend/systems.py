"""Retiring an AI System (docs/dashboard.md, "Retiring an AI System").

Retiring is final and takes back everything the system was given, in one transaction: its sources and its
runtime targets are retired (never scanned or probed again), its evidence binders are deactivated (intake
refuses them), and its ``lifecycleStatus`` becomes RETIRED, after which it takes no new source, target,
binder, scan or run and cannot be edited. Its Evaluations stay, unchanged and readable.
"""

from __future__ import annotations

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend import provisioning
from assay.backend.intake import binders
from assay.backend.runtime import targets
from assay.backend.storage.models import AiSystem, EvidenceBinder, SourceAsset


async def retire_ai_system(session: AsyncSession, organization_id: str, ai_system_id: str) -> AiSystem:
    """Retire the organization's AI System and what is bound to it; retiring twice changes nothing."""
    system = await provisioning.ai_system(session, organization_id, ai_system_id)
    if system.lifecycle_status == provisioning.SYSTEM_RETIRED:
        return system
    sources = await session.exec(
        select(SourceAsset.id).where(SourceAsset.ai_system_id == system.id, col(SourceAsset.status) != "RETIRED")
    )
    for source_id in sources.all():
        await provisioning.retire_source(session, source_id)
    for target in await targets.list_targets(session, organization_id, system.id):
        if target.status != "RETIRED":
            await targets.retire_target(session, target.id)
    bound = await session.exec(
        select(EvidenceBinder.id).where(EvidenceBinder.ai_system_id == system.id, col(EvidenceBinder.active))
    )
    for binder_id in bound.all():
        await binders.deactivate_binder(session, binder_id)
    system.lifecycle_status = provisioning.SYSTEM_RETIRED
    session.add(system)
    await session.flush()
    return system
