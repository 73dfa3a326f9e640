"""Stored scans, both kinds, seen the same way: qualified submissions and legacy-trigger scans.

Run creation (``engines.static.attachedScanId``) resolves a scan through :func:`load_scan`, which, like
every read, is bound to the caller's organization.
"""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend import schemas
from assay.backend.storage import models

QUALIFIED_PREFIX = "scan"
LEGACY_PREFIX = "lscan"

ScanRow = models.QualifiedScan | models.LegacyScan


async def load_scan(session: AsyncSession, organization_id: str, scan_id: str) -> ScanRow | None:
    """The organization's scan with this id, of either kind; None when missing or another organization's."""
    row: ScanRow | None
    if scan_id.startswith(f"{LEGACY_PREFIX}_"):
        row = await session.get(models.LegacyScan, scan_id)
    elif scan_id.startswith(f"{QUALIFIED_PREFIX}_"):
        row = await session.get(models.QualifiedScan, scan_id)
    else:
        return None
    if row is None or row.organization_id != organization_id:
        return None
    return row


def qualified_evidence(row: ScanRow, producer_id: str) -> schemas.QualifiedEvidence:
    return schemas.QualifiedEvidence(
        schemaVersion=row.schema_version,
        producerId=producer_id,
        contentHash=row.content_hash,
        limitations=list(row.limitations),
    )


def attachment(row: ScanRow) -> schemas.ScanAttachment:
    """How a run binds this scan: a submitted scan is ``ci-attached``, a service-made one ``reused``."""
    mode = "ci-attached" if isinstance(row, models.QualifiedScan) else "reused"
    return schemas.ScanAttachment(executionMode=mode, attachedScanId=row.id)


def scan_record(row: ScanRow) -> schemas.ScanRecord:
    """The provenance view of a stored scan (``GET /api/v1/scans/{scanId}``)."""
    identity = schemas.ScanSourceIdentity.model_validate(row.source_identity, strict=False)
    if isinstance(row, models.QualifiedScan):
        return schemas.ScanRecord(
            scanId=row.id,
            kind="qualified-submission",
            status="COMPLETED",
            aiSystemId=row.ai_system_id,
            producerId=row.producer_id,
            origin=row.origin,
            sourceIdentity=identity,
            commitSha=row.commit_sha,
            branch=row.branch,
            sourceAssetId=None,
            repoUrl=None,
            framework=None,
            bundleDigest=row.bundle_digest,
            qualifiedEvidence=qualified_evidence(row, row.producer_id),
            attach=attachment(row),
            createdAt=row.created_at,
        )
    return schemas.ScanRecord(
        scanId=row.id,
        kind="legacy-trigger",
        status="COMPLETED",
        aiSystemId=row.ai_system_id,
        producerId="ci-cd-scanner",
        origin="service",
        sourceIdentity=identity,
        commitSha=row.commit_sha,
        branch=row.branch,
        sourceAssetId=row.source_asset_id,
        repoUrl=row.repo_url,
        framework=row.framework,
        bundleDigest=row.bundle_digest,
        qualifiedEvidence=qualified_evidence(row, "ci-cd-scanner"),
        attach=attachment(row),
        createdAt=row.created_at,
    )
