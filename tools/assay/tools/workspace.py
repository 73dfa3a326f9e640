"""The one-call tool: the recommended sequence of the contract (1.8) for the local workspace.

Scan the workspace here (the Local / IDE scanner path: code is read, never executed, and never leaves the
machine: only the Evidence Bundle does), submit it as a qualified scan with origin ``ide``, create a NEW
run attached to that scan, wait (bounded) while reporting stage changes, and return the summary with the
ids the next reads need.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from pathlib import Path
from typing import Annotated, Any, cast

import anyio
from mcp.server.mcpserver import Context
from pydantic import Field

from assay.tools.client import AssayClient, AssayError
from assay.tools.context import AssayBinding, binding, client, system_id
from assay.tools.evidence import evidence_files as evidence_files_of
from assay.tools.evidence import ingest_file
from assay.tools.models import WorkspaceAssessment
from assay.tools.reports import evaluation_path
from assay.tools.runs import MAX_WAIT_SECONDS, RUNS, StageReporter, wait_for_run
from assay.tools.runtime import workspace_command

logger = logging.getLogger(__name__)

SCANS = "/api/v1/scans"
SCAN_FAILED = "SCAN_FAILED"


def workspace_root(bound: AssayBinding, path: str | None) -> Path:
    """The folder to scan: ``path`` (relative to the workspace), else the workspace itself."""
    base = bound.workspace
    if path is None:
        if base is None:
            raise AssayError("INVALID_REQUEST", "This server has no workspace", next_step="pass path.")
        return base
    given = Path(path).expanduser()
    root = (given if given.is_absolute() or base is None else base / given).resolve()
    if bound.confine_paths and base is not None and root != base and base not in root.parents:
        raise AssayError(
            "INVALID_REQUEST",
            f"path must be inside the server's workspace {base}",
            next_step="omit path, or pass a folder inside the workspace.",
        )
    return root


def scan_workspace(root: Path, cache: Any = None) -> dict[str, Any]:
    """The workspace's Evidence Bundle as JSON (blocking: call it off the event loop)."""
    try:
        # Imported here: every other tool works while the engine is absent or broken.
        from assay.backend.engines.static.scan import scan_tree
        from assay.backend.engines.static.walk import WalkError
    except ImportError as exc:
        raise AssayError(SCAN_FAILED, f"The static engine is not available in this installation ({exc})") from exc
    try:
        return scan_tree(root, cache=cache).to_json_dict()
    except WalkError as exc:
        raise AssayError(
            "INVALID_REQUEST", f"The workspace cannot be scanned: {exc}", next_step="pass an existing folder as path."
        ) from exc
    except Exception as exc:
        # The engine's boundary, as in the service: whatever it raises fails this call, logged in full.
        logger.exception("the static engine failed on %s", root)
        raise AssayError(
            SCAN_FAILED,
            f"The static engine failed on {root} ({type(exc).__name__})",
            next_step="the server log (stderr) has the details; report them.",
        ) from exc


async def submit_scan(
    api: AssayClient, ai_system_id: str, bundle: dict[str, Any], *, origin: str = "ide"
) -> dict[str, Any]:
    """POST the bundle as a qualified scan (origin ``ide``, ``local`` or ``ci``); its contentHash and the AI
    System key the submission, so submitting an unchanged workspace again replays the same scan, and the same
    tree submitted for another AI System (two agents in one repository) is a scan of its own."""
    identity = bundle["sourceIdentity"]
    submission: dict[str, Any] = {
        "aiSystemId": ai_system_id,
        "producerId": bundle["producer"]["id"],
        "origin": origin,
        "sourceIdentity": identity,
        "bundle": bundle,
    }
    if identity.get("gitCommit"):
        submission["commitSha"] = identity["gitCommit"]
    if identity.get("branch"):
        submission["branch"] = identity["branch"]
    # A digest: an Idempotency-Key holds at most 255 characters, whatever the length of the system id.
    scope = hashlib.sha256(f"{ai_system_id}\n{bundle['contentHash']}".encode()).hexdigest()
    key = f"{origin}-{scope}"
    try:
        scan: dict[str, Any] = await api.post_json(SCANS, submission, idempotency_key=key)
    except AssayError as exc:
        if exc.code == "INVALID_REQUEST" and exc.status == 400:
            # The tool built this body from its own scan: the caller's arguments are not what is wrong.
            raise AssayError(
                exc.code,
                exc.message,
                status=exc.status,
                next_step="the service refused the Evidence Bundle this tool made, not your arguments: check that "
                "the service runs the same Assay version as this MCP server, and report the message if it does.",
            ) from exc
        raise
    return scan


async def assess_workspace(
    ctx: Context[Any, Any],
    path: Annotated[
        str | None,
        Field(description="Folder to assess (relative to the workspace, or absolute); default: the workspace."),
    ] = None,
    ai_system_id: Annotated[
        str | None, Field(description="The AI System the folder belongs to; default: this workspace's system.")
    ] = None,
    wait_seconds: Annotated[
        float, Field(ge=1, le=MAX_WAIT_SECONDS, description="Wait up to this many seconds for the Evaluation.")
    ] = 90,
    evidence_files: Annotated[
        list[str] | None,
        Field(
            max_length=20,
            description="Local runtime or scanner evidence to attach: OTLP/JSON trace or log exports, SARIF 2.1.0 "
            "files (relative to the workspace unless absolute). Each is ingested through a binder first.",
        ),
    ] = None,
) -> WorkspaceAssessment:
    """Assess this workspace in one call: scan its code locally (never executed), run the Evaluation and
    return its summary, runId and evaluationId (progress on stage changes). Probes the workspace's MCP server
    when assay.toml has [runtime] mcp_command; evidence_files (OTLP/JSON, SARIF) are attached. Each call is a
    NEW Evaluation: call again after every change. Next: assay_get_agent_audit(evaluation_id)."""
    bound = binding(ctx)
    api = client(ctx)
    system = await system_id(bound, ai_system_id, api)
    root = workspace_root(bound, path)
    progress = StageReporter(ctx)

    files = evidence_files_of(bound, evidence_files or [])
    await progress.stage(f"scanning {root}")
    bundle = await anyio.to_thread.run_sync(scan_workspace, root, bound.scan_cache)
    await progress.stage(f"submitting the qualified scan {bundle['contentHash']}")
    scan = await submit_scan(api, system, bundle)
    body: dict[str, Any] = {"aiSystemId": system, "engines": {"static": {"enabled": True, **scan["attach"]}}}
    command = workspace_command(root) if bound.targets is not None else None
    if command is not None and bound.targets is not None:
        # assay.toml says how to start the workspace's own MCP server: probe it in the same run, so its
        # tool hints meet the code just scanned (docs/runtime.md).
        await progress.stage(f"registering the workspace's MCP server ({command})")
        target = await bound.targets(system, command)
        body["engines"]["runtime"] = {"enabled": True, "targetId": target}
    receipts = []
    for file in files:
        await progress.stage(f"ingesting {file.name}")
        receipts.append(await ingest_file(bound, api, system, file))
    if receipts:
        body["externalEvidenceAttachments"] = [
            {"producerId": r["producerId"], "producerRunId": r["producerRunId"]} for r in receipts
        ]
    # A fresh key per call: every assessment is a NEW run, and a retried POST stays one run.
    run: dict[str, Any] = await api.post_json(RUNS, body, idempotency_key=f"assay-mcp-{uuid.uuid4()}")
    run = await wait_for_run(api, run["runId"], wait_seconds, progress)

    result: dict[str, Any] = {
        "status": run["status"],
        "runId": run["runId"],
        "scanId": scan["scanId"],
        "aiSystemId": system,
        "scanLimitations": list(bundle.get("limitations", [])),
    }
    if receipts:
        result["evidenceReceipts"] = receipts
    if run["status"] == "FAILED":
        failure = run.get("failure") or {}
        raise AssayError(
            str(failure.get("code") or "RUN_FAILED"),
            f"Run {run['runId']} failed in engine {failure.get('engine')}: {failure.get('message', 'no message')}",
            retryable=bool(failure.get("retryable", False)),
            next_step=f"fix the cause, then call assay_assess_workspace again (assay_get_run(run_id={run['runId']!r}) "
            "shows the failure).",
        )
    evaluation = run.get("evaluation")
    if not evaluation:
        result["nextStep"] = (
            f"the run is still {run['status']}: call assay_get_run(run_id={run['runId']!r}, wait_seconds=60)."
        )
        return cast(WorkspaceAssessment, result)
    evaluation_id = evaluation["evaluationId"]
    summary: dict[str, Any] = await api.get_json(evaluation_path(evaluation_id, "summary"))
    await progress.stage(f"evaluation {evaluation_id}: {summary.get('disposition')}", done=True)
    result |= {
        "evaluationId": evaluation_id,
        "disposition": summary.get("disposition"),
        "summary": summary,
        "nextStep": f"assay_get_agent_audit(evaluation_id={evaluation_id!r}) for the verificationNeeded items "
        f"(also resource assay://evaluations/{evaluation_id}/verification-needed); change the workspace as they "
        "ask, then call assay_assess_workspace again.",
    }
    return cast(WorkspaceAssessment, result)
