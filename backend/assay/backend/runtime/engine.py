"""The runtime engine in a run: its plan at run creation, its evidence when the run executes.

At creation the target is resolved (``targetId``, else the system's single VERIFIED target) and must be
probe-able with the requested suites now: verified, not retired, consented, reachable under the network
rule (targets.probe_refusal). At execution it is checked again (it may have been retired or its consent
withdrawn since), its secrets are unsealed, the session is recorded, and the recording becomes an
evidence item, beside the catalogue the system's previous Evaluation of the same target pinned.
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import asdict, dataclass
from typing import Any

import anyio
import orjson
from sqlmodel import col, select

from assay.backend.canonical import canonical_bytes, sha256_hex
from assay.backend.errors import ApiError, not_found
from assay.backend.evaluation.membership import EvidenceItem
from assay.backend.runs.schemas import RuntimeEngine
from assay.backend.runtime import secrets, targets
from assay.backend.runtime.catalogue import read_catalogue
from assay.backend.runtime.probe import RUNTIME_PRODUCER_ID, ProbeTarget, record_session, recording_item
from assay.backend.runtime.slots import HOLD_MARGIN_SECONDS, TargetBusyError, target_slot
from assay.backend.runtime.transport import Limits, ProbeError
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models
from assay.backend.storage.db import SessionFactory
from assay.backend.web.routing import RequestContext

logger = logging.getLogger(__name__)

DEFAULT_MAX_REQUESTS = 100
DEFAULT_TIMEOUT_SECONDS = 60.0
# Earlier Evaluations of the system searched for the target's pinned catalogue, newest first.
PIN_LOOKBACK = 20


@dataclass(frozen=True, slots=True)
class RuntimePlan:
    targetId: str
    suites: list[str]
    maxRequests: int
    timeoutSeconds: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class RuntimeFailureError(Exception):
    """The runtime engine could not produce its evidence: the run's failure code, message, retryable."""

    def __init__(self, code: str, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.code, self.message, self.retryable = code, message, retryable


async def _resolve(ctx: RequestContext, system: models.AiSystem, target_id: str | None) -> models.RuntimeTarget:
    rows = (
        await ctx.session.exec(
            select(models.RuntimeTarget)
            .where(
                models.RuntimeTarget.organization_id == ctx.organization_id,
                models.RuntimeTarget.ai_system_id == system.id,
            )
            .order_by(col(models.RuntimeTarget.created_at), col(models.RuntimeTarget.id))
        )
    ).all()
    if target_id is not None:
        target = next((r for r in rows if r.id == target_id), None)
        if target is None:
            raise not_found(what="runtime target")
        return target
    live = [r for r in rows if r.status != "RETIRED"]
    if not live:
        raise ApiError("SOURCE_NOT_VERIFIED", "The AI System has no runtime target (assay admin target add).")
    verified = [r for r in live if r.status == "VERIFIED"]
    if len(verified) > 1:
        raise ApiError(
            "SOURCE_AMBIGUOUS", "The AI System has several verified runtime targets; name one with targetId."
        )
    return verified[0] if verified else live[0]


def _limits(settings: ServiceSettings, max_requests: int, timeout: float) -> Limits:
    return Limits(
        max_requests=min(max_requests, settings.runtime_max_requests),
        timeout_seconds=min(timeout, settings.runtime_max_seconds),
        max_bytes=settings.runtime_max_bytes,
        max_message_bytes=settings.runtime_max_message_bytes,
    )


async def plan_runtime(ctx: RequestContext, system: models.AiSystem, config: RuntimeEngine) -> dict[str, Any]:
    """The runtime engine's frozen plan, or the contract's refusal (nothing is contacted but DNS)."""
    target = await _resolve(ctx, system, config.targetId)
    default = targets.AGENT_SUITES if target.kind == "agent-url" else targets.DEFAULT_SUITES
    suites = [s for s in targets.SUITES if s in (config.suites or default)]
    unbuilt = [s for s in config.suites or [] if s in targets.PLANNED_SUITES]
    if unbuilt:
        raise ApiError("INVALID_REQUEST", f"The {', '.join(unbuilt)} suite(s) are not available in this deployment.")
    settings = ctx.settings
    refusal = await anyio.to_thread.run_sync(
        lambda: targets.probe_refusal(
            target,
            suites,
            allow_commands=settings.runtime_allow_commands,
            allowed_networks=settings.runtime_allowed_networks,
        )
    )
    if refusal is not None:
        raise ApiError(refusal.code, refusal.message)  # type: ignore[arg-type]
    limits = _limits(
        settings, config.maxRequests or DEFAULT_MAX_REQUESTS, config.timeoutSeconds or DEFAULT_TIMEOUT_SECONDS
    )
    return RuntimePlan(target.id, suites, limits.max_requests, limits.timeout_seconds).to_json()


async def _pin(sessions: SessionFactory, organization_id: str, ai_system_id: str, address: str) -> EvidenceItem | None:
    """The catalogue of ``address`` as the system's latest Evaluation that probed it recorded it."""
    async with sessions() as session:
        evaluations = (
            await session.exec(
                select(models.Evaluation)
                .where(
                    models.Evaluation.organization_id == organization_id,
                    models.Evaluation.ai_system_id == ai_system_id,
                )
                .order_by(col(models.Evaluation.created_at).desc(), col(models.Evaluation.id).desc())
                .limit(PIN_LOOKBACK)
            )
        ).all()
        for evaluation in evaluations:
            rows = (
                await session.exec(
                    select(models.EvaluationEvidence).where(
                        models.EvaluationEvidence.evaluation_id == evaluation.id,
                        models.EvaluationEvidence.kind == "runtime_probe",
                    )
                )
            ).all()
            for row in rows:
                recording = orjson.loads(row.payload_json)
                if recording.get("target", {}).get("address") != address:
                    continue
                entities = sorted(e.pin() for e in read_catalogue(recording).entities)
                payload = {
                    "pinnedBy": evaluation.core_truth_digest,
                    "catalogues": [{"target": recording["target"], "entities": entities}],
                }
                canonical = canonical_bytes(payload)
                digest = f"sha256:{sha256_hex(canonical)}"
                return EvidenceItem(
                    evidenceId=f"ev-{sha256_hex(f'catalogue_pin:{digest}'.encode())[:16]}",
                    kind="catalogue_pin",
                    producerId=RUNTIME_PRODUCER_ID,
                    contentDigest=digest,
                    payloadJson=canonical.decode("utf-8"),
                )
    return None


async def probe_evidence(
    sessions: SessionFactory, settings: ServiceSettings, plan: dict[str, Any], organization_id: str, run_id: str
) -> list[EvidenceItem]:
    """Probe the planned target and return the recording (and the pinned catalogue, when there is one).
    The session holds one of the target's slots (runtime/slots.py): at most
    ``settings.runtime_target_sessions`` sessions per target at once, whatever the number of runs."""
    runtime = RuntimePlan(**plan)
    async with sessions() as session:
        target = await session.get(models.RuntimeTarget, runtime.targetId)
    if target is None or target.organization_id != organization_id:
        raise RuntimeFailureError("RESOURCE_NOT_FOUND", "The run's runtime target no longer exists.", retryable=False)
    admitted = await anyio.to_thread.run_sync(
        lambda: targets.admission(
            target,
            runtime.suites,
            allow_commands=settings.runtime_allow_commands,
            allowed_networks=settings.runtime_allowed_networks,
        )
    )
    if admitted.refusal is not None:
        raise RuntimeFailureError(admitted.refusal.code, f"Not probed: {admitted.refusal.message}", retryable=False)
    headers: dict[str, str] = {}
    if target.sealed_headers is not None:
        try:
            headers = secrets.unseal(settings.key_directory(), target.sealed_headers)
        except secrets.SecretKeyError as exc:
            raise RuntimeFailureError("RUN_FAILED", f"Not probed: {exc}.", retryable=False) from exc
    probe_target = ProbeTarget(
        kind=target.kind,
        address=target.address,
        argv=shlex.split(target.address) if target.kind == "mcp-command" else (),
        headers=headers,
        pinned=admitted.pinned,
    )
    limits = Limits(
        max_requests=runtime.maxRequests,
        timeout_seconds=runtime.timeoutSeconds,
        max_bytes=settings.runtime_max_bytes,
        max_message_bytes=settings.runtime_max_message_bytes,
    )

    def waiting() -> None:
        logger.info(
            "run %s waits for runtime target %s (another run is probing it)",
            run_id,
            target.id,
            extra={"event": "run.target_busy", "runId": run_id, "targetId": target.id},
        )

    try:
        async with target_slot(
            sessions,
            target.id,
            run_id,
            slots=max(1, settings.runtime_target_sessions),
            hold_seconds=limits.timeout_seconds + HOLD_MARGIN_SECONDS,
            wait_seconds=settings.runtime_target_wait_seconds,
            waiting=waiting,
        ):
            recording = await record_session(probe_target, runtime.suites, limits)
    except TargetBusyError as exc:
        raise RuntimeFailureError(
            "RUN_FAILED",
            f"Runtime target {target.id} was not probed: another run is probing it, and no session of it ended "
            f"within {settings.runtime_target_wait_seconds:g} s.",
            retryable=True,
        ) from exc
    except ProbeError as exc:
        raise RuntimeFailureError(
            "RUN_FAILED", f"The probe of {target.id} failed: {exc.message}.", retryable=exc.retryable
        ) from exc
    items = [recording_item(recording)]
    pin = await _pin(sessions, organization_id, target.ai_system_id, target.address)
    if pin is not None:
        items.append(pin)
    return items
