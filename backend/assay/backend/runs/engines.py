"""The engines of a run: the evidence each contributes to the run's frozen membership.

The static engine: for ``executionMode`` ``api`` (and ``ui``, the same started from the dashboard) it
scans the resolved source afresh (off the event loop; a git remote is fetched into a throwaway directory
first; the scanner reads files and never executes them); for ``ci-attached`` and ``reused`` it loads the
Evidence Bundle of the attached scan. Every failure becomes an
:class:`EngineFailureError` naming the engine, which fails the run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from assay.backend.engines.wizard.assessments import frozen_payload
from assay.backend.evaluation.acceptance import acceptance_item
from assay.backend.evaluation.membership import EvidenceItem, canonical_bundle_item, wizard_item
from assay.backend.intake.attachments import attached_items
from assay.backend.intake.store import TamperedBatchError
from assay.backend.runs.plan import CODE_BY_REASON, FRESH_SCAN_MODES, RunPlan
from assay.backend.runtime.recordings import TamperedRecordingError
from assay.backend.scans.bundle import EvidenceBundle
from assay.backend.scans.scan_store import load_scan
from assay.backend.scans.sources import fresh_scan_ineligibility
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models
from assay.backend.storage.db import SessionFactory

logger = logging.getLogger(__name__)

STATIC_PRODUCER_ID = "assay-static"


class EngineFailureError(Exception):
    """An engine (or the evaluation) could not produce its part of the run; carries the run's failure."""

    def __init__(self, code: str, engine: str, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.failure: dict[str, Any] = {"code": code, "engine": engine, "message": message, "retryable": retryable}


async def _check_source(sessions: SessionFactory, plan: RunPlan, organization_id: str) -> models.SourceAsset:
    # The source was eligible when the run was created; it may have been retired, disputed or removed
    # since. A run never scans a source that is not eligible now.
    assert plan.source_asset_id is not None
    async with sessions() as session:
        source = await session.get(models.SourceAsset, plan.source_asset_id)
    if source is None or source.organization_id != organization_id:
        raise EngineFailureError(
            "SOURCE_UNAVAILABLE", "static", "The run's source is no longer bound.", retryable=False
        )
    ref_given = plan.source_branch is not None or plan.source_commit is not None
    reasons = await anyio.to_thread.run_sync(partial(fresh_scan_ineligibility, source, ref_given=ref_given))
    if reasons:
        code = CODE_BY_REASON[reasons[0].code]
        raise EngineFailureError(
            code,
            "static",
            f"Source {source.id} can no longer be scanned: {reasons[0].message}",
            retryable=code == "SOURCE_UNAVAILABLE",
        )
    return source


def _scan(root: Path) -> tuple[EvidenceBundle, str]:
    from assay.backend.engines.static.scan import scan_tree_canonical

    scanned = scan_tree_canonical(root)
    return scanned.bundle, scanned.canonical.decode("utf-8")


def _scan_remote(
    source: models.SourceAsset, settings: ServiceSettings, branch: str | None, commit: str | None
) -> tuple[EvidenceBundle, str]:
    # The fetched tree is read, never run, and removed when the block ends (scans/remote.py).
    from assay.backend.scans.remote_sources import checked_out

    with checked_out(source, settings.key_directory(), settings.git, branch=branch, commit=commit) as tree:
        return _scan(tree.root)


async def _fresh_scan(
    plan: RunPlan, source: models.SourceAsset, settings: ServiceSettings
) -> tuple[EvidenceItem, EvidenceBundle]:
    # Imported here: the service starts (and serves every other route) even while the engine is absent.
    from assay.backend.engines.static.walk import WalkError
    from assay.backend.scans.remote import GitFetchError

    assert plan.source_path is not None
    try:
        # abandon_on_cancel: a stopping worker releases its run at once instead of waiting for the scan
        # (an abandoned fetch still removes its directory when its thread ends).
        if source.repo_kind == "git":
            scan = partial(_scan_remote, source, settings, plan.source_branch, plan.source_commit)
            bundle, text = await anyio.to_thread.run_sync(scan, abandon_on_cancel=True)
        else:
            bundle, text = await anyio.to_thread.run_sync(_scan, Path(plan.source_path), abandon_on_cancel=True)
    except GitFetchError as exc:
        raise EngineFailureError(
            "SOURCE_UNAVAILABLE", "static", f"The source could not be fetched: {exc.message}.", retryable=exc.retryable
        ) from exc
    except WalkError as exc:
        raise EngineFailureError(
            "SOURCE_UNAVAILABLE", "static", f"The source could not be read: {exc}", retryable=True
        ) from exc
    except Exception as exc:
        # The engine's boundary: whatever it raises fails the run (logged in full, named in the failure).
        logger.exception("static engine failed on %s", plan.source_path)
        raise EngineFailureError(
            "RUN_FAILED", "static", f"The static engine failed ({type(exc).__name__}).", retryable=True
        ) from exc
    return canonical_bundle_item(text, bundle.contentHash, producer_id=STATIC_PRODUCER_ID), bundle


async def _attached_scan(sessions: SessionFactory, plan: RunPlan, organization_id: str) -> EvidenceItem:
    assert plan.attached_scan_id is not None
    async with sessions() as session:
        scan = await load_scan(session, organization_id, plan.attached_scan_id)
    if scan is None:
        raise EngineFailureError("RESOURCE_NOT_FOUND", "static", "The attached scan no longer exists.", retryable=False)
    producer = scan.producer_id if isinstance(scan, models.QualifiedScan) else STATIC_PRODUCER_ID
    # Stored scans keep their bundle as RFC 8785 text, written when the scan was accepted.
    return canonical_bundle_item(scan.bundle_json, scan.content_hash, producer_id=producer)


@dataclass(frozen=True, slots=True)
class StaticEvidence:
    """The static engine's evidence items, and the bundles among them already held as models (a fresh
    scan's own result, by evidence id) so the evaluation does not validate them again from JSON."""

    items: list[EvidenceItem]
    bundles: dict[str, EvidenceBundle]


async def static_evidence(
    sessions: SessionFactory, settings: ServiceSettings, plan: RunPlan, organization_id: str
) -> StaticEvidence:
    """The static engine's evidence for ``plan``: a fresh scan of its source (a git remote fetched for it),
    or its attached scan (none in a runtime-only run)."""
    if plan.static_mode is None:
        return StaticEvidence(items=[], bundles={})
    if plan.static_mode in FRESH_SCAN_MODES:
        source = await _check_source(sessions, plan, organization_id)
        item, bundle = await _fresh_scan(plan, source, settings)
        return StaticEvidence(items=[item], bundles={item.evidenceId: bundle})
    return StaticEvidence(items=[await _attached_scan(sessions, plan, organization_id)], bundles={})


async def runtime_evidence(
    sessions: SessionFactory, settings: ServiceSettings, plan: RunPlan, organization_id: str, run_id: str
) -> list[EvidenceItem]:
    """The runtime engine's evidence for ``plan``: the recorded probe session (docs/runtime.md)."""
    if plan.runtime is None:
        return []
    from assay.backend.runtime.engine import RuntimeFailureError, probe_evidence

    try:
        return await probe_evidence(sessions, settings, plan.runtime, organization_id, run_id)
    except RuntimeFailureError as exc:
        raise EngineFailureError(exc.code, "runtime", exc.message, retryable=exc.retryable) from exc


async def attached_evidence(sessions: SessionFactory, plan: RunPlan, organization_id: str) -> list[EvidenceItem]:
    """The evidence items of the run's frozen externalEvidenceAttachments (batches and scans are
    immutable, so these are exactly what was checked when the run was created)."""
    if not plan.attachments:
        return []
    async with sessions() as session:
        try:
            return await attached_items(session, organization_id, plan.attachments)
        except LookupError as exc:
            raise EngineFailureError(
                "RESOURCE_NOT_FOUND", "evaluation", "An attached evidence item no longer exists.", retryable=False
            ) from exc
        except (TamperedBatchError, TamperedRecordingError) as exc:
            raise EngineFailureError("RUN_FAILED", "evaluation", str(exc), retryable=False) from exc


async def wizard_evidence(sessions: SessionFactory, plan: RunPlan, organization_id: str) -> list[EvidenceItem]:
    """The wizard engine's evidence: the assessment as the run froze it (answers, and the figures of the
    immutable data files it named), never as it is now."""
    if plan.wizard is None:
        return []
    async with sessions() as session:
        try:
            payload = await frozen_payload(session, organization_id, plan.wizard)
        except LookupError as exc:
            raise EngineFailureError(
                "RESOURCE_NOT_FOUND", "wizard", "A data file the run froze no longer exists.", retryable=False
            ) from exc
    return [wizard_item(payload)]


def acceptance_evidence(plan: RunPlan) -> list[EvidenceItem]:
    """The risk acceptances the run froze at creation, as one evidence item (none when there were none)."""
    return [] if plan.risk_acceptances is None else [acceptance_item(plan.risk_acceptances)]
