"""Evidence binders: creating, listing and deactivating them (``assay admin binder``), and finding the
binder an intake request names.

A binder ties one source system to one adapter in one organization, optionally to one AI System (its
batches inherit that binding). It copies its adapter's statements (classes, canEstablish,
cannotEstablish, coverage semantics, limitations) when created, so what a binder promised stays as it
was. Binders are never deleted: deactivating one makes intake refuse it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.intake.adapters import ADAPTERS, adapter
from assay.backend.intake.adapters.log import compile_line_regex
from assay.backend.provisioning import ProvisioningError, ai_system, require_active
from assay.backend.storage.models import EvidenceBinder, Organization, new_id

BINDER_VERSION = "1"
BINDER_PREFIX = "bnd"
_MAX_TEXT = 100
MAX_RECORD_BYTES_CEILING = 16 * 1024 * 1024


def _text(value: str | None, what: str) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value or len(value) > _MAX_TEXT:
        raise ProvisioningError("INVALID", f"{what} must be 1 to {_MAX_TEXT} characters")
    return value


async def create_binder(
    session: AsyncSession,
    organization_id: str,
    *,
    source_system: str,
    adapter_id: str,
    ai_system_id: str | None = None,
    domain: str | None = None,
    authority_role: str | None = None,
    classes: Sequence[str] | None = None,
    max_record_bytes: int | None = None,
    require_event_id: bool = False,
    line_regex: str | None = None,
) -> EvidenceBinder:
    """A new, active binder of an organization; its adapter's statements copied into it."""
    if await session.get(Organization, organization_id) is None:
        raise ProvisioningError("NOT_FOUND", f"no organization {organization_id!r}")
    spec = adapter(adapter_id)
    if spec is None:
        raise ProvisioningError("INVALID", f"unknown adapter {adapter_id!r}; known: {', '.join(sorted(ADAPTERS))}")
    if ai_system_id is not None:
        require_active(await ai_system(session, organization_id, ai_system_id))
    chosen = list(spec.evidence_classes) if not classes else list(dict.fromkeys(c.strip() for c in classes))
    unknown = [c for c in chosen if c not in spec.evidence_classes]
    if unknown:
        raise ProvisioningError(
            "INVALID",
            f"adapter {spec.id} does not carry {', '.join(unknown)}; it carries {', '.join(spec.evidence_classes)}",
        )
    if max_record_bytes is not None and not 1 <= max_record_bytes <= MAX_RECORD_BYTES_CEILING:
        raise ProvisioningError("INVALID", f"--max-record-bytes must be 1 to {MAX_RECORD_BYTES_CEILING}")
    mapping: dict[str, Any] | None = None
    if line_regex is not None:
        if spec.id != "log":
            raise ProvisioningError("INVALID", "a line regex applies to the log adapter only")
        try:
            compile_line_regex(line_regex)
        except ValueError as exc:
            raise ProvisioningError("INVALID", str(exc)) from exc
        mapping = {"lineRegex": line_regex}
    binder = EvidenceBinder(
        id=new_id(BINDER_PREFIX),
        organization_id=organization_id,
        ai_system_id=ai_system_id,
        source_system=_text(source_system, "the source system") or "",
        domain=_text(domain, "the domain"),
        adapter_id=spec.id,
        adapter_version=spec.version,
        binder_version=BINDER_VERSION,
        access_method=spec.access_method,
        active=True,
        source_authority_role=_text(authority_role, "the authority role"),
        supported_evidence_classes=chosen,
        can_establish=list(spec.can_establish),
        cannot_establish=list(spec.cannot_establish),
        coverage_semantics=dict(spec.coverage_semantics),
        require_event_id=require_event_id,
        max_record_bytes=max_record_bytes,
        limitations=[dict(item) for item in spec.limitations],
        mapping=mapping,
    )
    session.add(binder)
    await session.flush()
    return binder


async def list_binders(session: AsyncSession, organization_id: str | None = None) -> list[EvidenceBinder]:
    """Binders, oldest first; of one organization when given."""
    statement = select(EvidenceBinder).order_by(col(EvidenceBinder.created_at), col(EvidenceBinder.id))
    if organization_id is not None:
        statement = statement.where(EvidenceBinder.organization_id == organization_id)
    return list((await session.exec(statement)).all())


async def deactivate_binder(session: AsyncSession, binder_id: str) -> EvidenceBinder:
    """Make a binder refuse intake from now on (its accepted batches stay, attachable)."""
    binder = await session.get(EvidenceBinder, binder_id)
    if binder is None:
        raise ProvisioningError("NOT_FOUND", f"no binder {binder_id!r}")
    if binder.active:
        binder.active = False
        session.add(binder)
        await session.flush()
    return binder


def binder_summary(binder: EvidenceBinder) -> dict[str, Any]:
    """What ``assay admin binder`` prints of a binder (its mapping included: the operator set it)."""
    return {
        "binderId": binder.id,
        "organizationId": binder.organization_id,
        "aiSystemId": binder.ai_system_id,
        "sourceSystem": binder.source_system,
        "adapterId": binder.adapter_id,
        "active": binder.active,
        "supportedEvidenceClasses": list(binder.supported_evidence_classes),
        "requireEventId": binder.require_event_id,
        "maxRecordBytes": binder.max_record_bytes,
        "lineRegex": (binder.mapping or {}).get("lineRegex"),
    }
