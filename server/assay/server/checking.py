"""What ``assay check`` does once it has a service to talk to: the contract's recommended sequence, as
``assay_assess_workspace`` runs it (submit the local scan as a qualified scan, create a NEW run attached to
it, wait for the Evaluation), then the reads a report needs. Embedded and remote differ only in the client.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import anyio

from assay.backend.reports.check_result import build_check_result
from assay.server.version import assay_version
from assay.tools.client import AssayClient, AssayError
from assay.tools.reports import evaluation_path
from assay.tools.runs import MAX_WAIT_SECONDS, RUNS, TERMINAL, wait_for_run
from assay.tools.workspace import submit_scan


async def assess_bundle(
    api: AssayClient,
    ai_system_id: str,
    bundle: Mapping[str, Any],
    *,
    origin: str,
    wait_seconds: float,
    target: str,
    mode: str,
) -> dict[str, Any]:
    """Evaluate ``bundle`` for ``ai_system_id`` through the service and return the ``assay-check/1`` result.

    Raises :class:`AssayError` when the service refuses, the run fails or the Evaluation is not there in time.
    """
    scan = await submit_scan(api, ai_system_id, dict(bundle), origin=origin)
    body = {"aiSystemId": ai_system_id, "engines": {"static": {"enabled": True, **scan["attach"]}}}
    run: dict[str, Any] = await api.post_json(RUNS, body, idempotency_key=f"assay-check-{uuid.uuid4()}")
    with anyio.move_on_after(wait_seconds):
        while run.get("status") not in TERMINAL:
            run = await wait_for_run(api, run["runId"], MAX_WAIT_SECONDS)
    if run.get("status") == "FAILED":
        failure = run.get("failure") or {}
        raise AssayError(
            str(failure.get("code") or "RUN_FAILED"),
            f"run {run['runId']} failed in engine {failure.get('engine')}: {failure.get('message', 'no message')}",
        )
    evaluation = run.get("evaluation") or {}
    if not evaluation.get("evaluationId"):
        raise AssayError(
            "TIMEOUT", f"run {run['runId']} has no Evaluation after {wait_seconds:g} s (still {run['status']})"
        )
    evaluation_id = str(evaluation["evaluationId"])
    summary = await api.get_json(evaluation_path(evaluation_id, "summary"))
    # Every verification item: the bounded audit pages them, a check result carries them all.
    audit = await api.get_json(evaluation_path(evaluation_id, "agent-audit"), {"detail": "full"})
    # The summary carries the top reasons only; the evidence report carries every reason of the Evaluation.
    report = await api.get_json(evaluation_path(evaluation_id, "report"))
    return build_check_result(
        summary=summary,
        agent_audit=audit.get("agentAudit") or {},
        reasons=list((report.get("report") or {}).get("reasons") or []),
        bundle=bundle,
        run_id=str(run["runId"]),
        target=target,
        mode=mode,
        tool_version=assay_version(),
    )
