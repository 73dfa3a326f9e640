"""Legacy scan trigger (contract 2.10, 4.6): ``POST /api/ci/scan`` runs the static engine on a bound source.

The repository must be a source bound to an AI System of the caller's organization and VERIFIED; an
arbitrary URL is never cloned or read. A local-path source is scanned as it is on disk (the service
never checks anything out): when it is a git work tree, its HEAD must be on the requested branch and
commit. A git remote source (https or ssh) is fetched at the tip of the requested branch into a
throwaway directory (scans/remote.py), which must be the requested commit, and scanned there.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from anyio import to_thread
from sqlmodel import col, select
from starlette.requests import Request
from starlette.responses import Response

from assay.backend import schemas
from assay.backend.canonical import digest_bytes
from assay.backend.errors import ApiError
from assay.backend.scans.scan_store import LEGACY_PREFIX
from assay.backend.scans.sources import match_local_reference, read_git_head, repo_kind
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models
from assay.backend.web.http_io import json_response, read_json_object, validate_model
from assay.backend.web.routing import RequestContext, RouteSpec

if TYPE_CHECKING:  # the engine itself is imported when a scan runs
    from assay.backend.engines.static.scan import CanonicalBundle


async def _bound_sources(ctx: RequestContext, repo_url: str) -> list[models.SourceAsset]:
    stored = repo_url if repo_kind(repo_url) == "git" else match_local_reference(repo_url)
    if stored is None:
        return []
    result = await ctx.session.exec(
        select(models.SourceAsset)
        .where(models.SourceAsset.organization_id == ctx.organization_id)
        .where(models.SourceAsset.repo == stored)
        .order_by(col(models.SourceAsset.created_at), col(models.SourceAsset.id))
    )
    return list(result.all())


def choose_source(candidates: list[models.SourceAsset], branch: str) -> models.SourceAsset:
    """The one verified source a legacy scan may read, or the error that says why there is none."""
    if not candidates:
        raise ApiError(
            "RESOURCE_NOT_FOUND", "No source repository bound in your organization matches repoUrl; it is not scanned."
        )
    on_branch = [s for s in candidates if s.branch is None or s.branch == branch]
    if not on_branch:
        raise ApiError("INVALID_REQUEST", "The source is not bound for the requested branch.")
    verified = [s for s in on_branch if s.status == "VERIFIED"]
    if not verified:
        statuses = {s.status for s in on_branch}
        if "CONFLICTED" in statuses:
            raise ApiError("SOURCE_CONFLICTED", "The source's binding is disputed; it cannot be scanned.")
        if "UNAVAILABLE" in statuses:
            raise ApiError("SOURCE_UNAVAILABLE", "The source is marked unavailable.")
        raise ApiError("SOURCE_NOT_VERIFIED", "The source is not verified (or is retired); it cannot be scanned.")
    exact = [s for s in verified if s.branch == branch] or verified
    if len(exact) > 1:
        raise ApiError(
            "SOURCE_AMBIGUOUS",
            "repoUrl matches several verified sources bound to different AI Systems; bind it to one only.",
        )
    return exact[0]


def _check_head(branch: str, commit_sha: str, head_commit: str | None, head_branch: str | None) -> None:
    if head_branch != branch:
        raise ApiError(
            "SOURCE_CONFLICTED",
            f"The source's work tree is on {head_branch or 'a detached HEAD'!s}, not on the requested branch; "
            "the service never checks out.",
        )
    if head_commit is None or not head_commit.lower().startswith(commit_sha.lower()):
        raise ApiError("SOURCE_CONFLICTED", "The source's work tree is not at the requested commitSha.")


def run_static_engine(path: Path) -> CanonicalBundle:
    """The static engine on ``path``, with the bundle's canonical bytes; SOURCE_UNAVAILABLE when the
    tree cannot be read."""
    # Imported here: the engine loads parsers and rule packs, needed only when a scan actually runs.
    from assay.backend.engines.static.scan import scan_tree_canonical
    from assay.backend.engines.static.walk import WalkError

    try:
        return scan_tree_canonical(path)
    except WalkError as exc:
        raise ApiError("SOURCE_UNAVAILABLE", "The source's local path cannot be read.") from exc


def scan_local_source(path: Path, branch: str, commit_sha: str) -> CanonicalBundle:
    """Run the static engine on a verified local-path source at the requested branch and commit."""
    if not path.is_dir():
        raise ApiError("SOURCE_UNAVAILABLE", "The source's local path does not exist or is not a directory.")
    head = read_git_head(path)
    if head is not None:
        _check_head(branch, commit_sha, head.commit, head.branch)
    scanned = run_static_engine(path)
    if head is not None:
        # The tree may have moved while it was read; the bundle says what was actually scanned.
        identity = scanned.bundle.sourceIdentity
        _check_head(branch, commit_sha, identity.gitCommit, identity.branch)
    return scanned


def scan_remote_source(
    source: models.SourceAsset, settings: ServiceSettings, branch: str, commit_sha: str
) -> CanonicalBundle:
    """Fetch the tip of ``branch`` of a git remote source and scan it, when it is the requested commit."""
    from assay.backend.scans.remote import GitFetchError
    from assay.backend.scans.remote_sources import checked_out

    try:
        with checked_out(source, settings.key_directory(), settings.git, branch=branch) as tree:
            if not tree.commit.startswith(commit_sha.lower()):
                raise ApiError(
                    "SOURCE_CONFLICTED",
                    "The requested branch's tip is not at the requested commitSha (the branch has moved on?).",
                )
            return run_static_engine(tree.root)
    except GitFetchError as exc:
        raise ApiError(
            "SOURCE_UNAVAILABLE", f"The source could not be fetched: {exc.message}.", retryable=exc.retryable
        ) from exc


async def trigger_scan(request: Request, ctx: RequestContext) -> Response:
    body = await read_json_object(request, ctx.settings.max_json_body_bytes)
    scan_request = validate_model(schemas.LegacyScanRequest, body)
    source = choose_source(await _bound_sources(ctx, scan_request.repoUrl), scan_request.branch)
    if source.repo_kind == "git":
        scan = partial(scan_remote_source, source, ctx.settings, scan_request.branch, scan_request.commitSha)
    else:
        scan = partial(scan_local_source, Path(source.repo), scan_request.branch, scan_request.commitSha)
    scanned = await to_thread.run_sync(scan, limiter=ctx.services.scan_slots)
    bundle, stored = scanned.bundle, scanned.canonical
    row = models.LegacyScan(
        id=models.new_id(LEGACY_PREFIX),
        organization_id=ctx.organization_id,
        ai_system_id=source.ai_system_id,
        source_asset_id=source.id,
        api_key_id=ctx.caller.key_id,
        status=schemas.LEGACY_SCAN_STATUS,
        repo_url=scan_request.repoUrl,
        branch=scan_request.branch,
        framework=scan_request.framework,
        commit_sha=scan_request.commitSha,
        source_identity=bundle.sourceIdentity.model_dump(mode="json"),
        schema_version=bundle.schemaVersion,
        content_hash=bundle.contentHash,
        bundle_digest=digest_bytes(stored),
        bundle_json=stored.decode("utf-8"),
        limitations=list(bundle.limitations),
        created_at=ctx.now,
    )
    ctx.session.add(row)
    await ctx.session.commit()
    record = schemas.LegacyScanRecord(
        scanId=row.id,
        status="COMPLETED",
        repoUrl=row.repo_url,
        branch=row.branch,
        framework=row.framework,
        createdAt=row.created_at,
    )
    ctx.services.metrics.record_ingest("legacy-scan", 1)
    return json_response(record, status_code=201)


ROUTES: list[RouteSpec] = [
    RouteSpec(
        "POST",
        "/api/ci/scan",
        trigger_scan,
        operation_id="triggerLegacyScan",
        summary="Legacy trigger: run the static engine on a bound, verified source",
        description=(
            "repoUrl must equal the repository of a VERIFIED source bound to one of the caller's AI Systems "
            "(a local path is compared in absolute form, a git URL exactly). Arbitrary URLs are never cloned; a "
            "bound git remote is fetched at the branch's tip, which must be commitSha. "
            "The scan runs synchronously; the stored scan is readable at /api/v1/scans/{scanId}."
        ),
        scope="scan:create",
        tags=("scans",),
        request_model=schemas.LegacyScanRequest,
        responses={201: schemas.LegacyScanRecord},
        errors=(400, 401, 403, 404, 409),
    ),
]
