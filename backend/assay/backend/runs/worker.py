"""The run worker: claims queued runs from the database, executes them, persists their Evaluations.

The same code serves the embedded app (one in-process worker, woken as soon as a run is created) and
several worker processes on PostgreSQL (``assay worker``). A claim is one atomic UPDATE (``FOR UPDATE
SKIP LOCKED`` on PostgreSQL), so two workers never run the same run. A claimed run carries a lease the
worker renews while it works; a run whose lease expired belonged to a worker that died: it is queued
again, or failed with ``retryable: true`` once it has been interrupted ``max_run_attempts`` times.

Persisting an Evaluation is one transaction: the membership rows, the payload and the run's completion
appear together or not at all. The scanned code is read by the static engine, never executed.
"""

from __future__ import annotations

import json
import logging
import secrets
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy import text
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend import models
from assay.backend.canonical import canonical_bytes
from assay.backend.db import SessionFactory
from assay.backend.evaluation.membership import EvidenceItem, make_membership, static_bundle_item
from assay.backend.evaluation.methodology import evaluate
from assay.backend.runs.plan import RunPlan
from assay.backend.scan_store import load_scan
from assay.backend.settings import ServiceSettings

logger = logging.getLogger(__name__)


class EngineFailureError(Exception):
    def __init__(self, code: str, engine: str, message: str, retryable: bool) -> None:
        super().__init__(message)
        self.failure = {"code": code, "engine": engine, "message": message, "retryable": retryable}


class Worker:
    def __init__(
        self, session_factory: SessionFactory, settings: ServiceSettings, worker_id: str | None = None
    ) -> None:
        self.sessions = session_factory
        self.settings = settings
        self.worker_id = worker_id or f"wrk_{secrets.token_hex(6)}"
        self._wake = anyio.Event()

    def wake(self) -> None:
        """Called when a run is created in this process: no poll delay on the hot path."""
        self._wake.set()

    async def run_forever(self) -> None:
        await self.recover()
        while True:
            ran = await self.run_once()
            if not ran:
                with anyio.move_on_after(self.settings.worker_poll_seconds):
                    await self._wake.wait()
                self._wake = anyio.Event()
                await self.recover()

    async def run_once(self) -> bool:
        """Claim and execute one queued run; False when there was none."""
        run_id = await self.claim()
        if run_id is None:
            return False
        await self.execute(run_id)
        return True

    # ----- database steps ------------------------------------------------------------------------

    def _now(self) -> datetime:
        return models.utcnow()

    def _lease(self) -> datetime:
        return self._now() + timedelta(seconds=self.settings.run_lease_seconds)

    async def claim(self) -> str | None:
        async with self.sessions() as session:
            dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
            lock = " FOR UPDATE SKIP LOCKED" if dialect == "postgresql" else ""
            statement = text(
                "UPDATE assurance_run SET status='RUNNING', stage='static', claimed_by=:worker, "
                "lease_expires_at=:lease, started_at=COALESCE(started_at, :now), attempts=attempts+1 "
                "WHERE id = (SELECT id FROM assurance_run WHERE status='QUEUED' ORDER BY created_at, id LIMIT 1"
                f"{lock}) AND status='QUEUED' RETURNING id"
            )
            params = {
                "worker": self.worker_id,
                "lease": _db_time(self._lease(), dialect),
                "now": _db_time(self._now(), dialect),
            }
            row = (await session.exec(statement, params=params)).first()  # type: ignore[call-overload]
            await session.commit()
            return str(row[0]) if row else None

    async def recover(self) -> None:
        """Re-queue or fail runs whose worker died (their lease expired)."""
        async with self.sessions() as session:
            dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
            now = _db_time(self._now(), dialect)
            failure = json.dumps(
                {
                    "code": "RUN_FAILED",
                    "engine": None,
                    "retryable": True,
                    "message": "The run was interrupted (its worker stopped) too many times; create it again.",
                }
            )
            await session.exec(  # type: ignore[call-overload]
                text(
                    "UPDATE assurance_run SET status='FAILED', stage=NULL, failure=:failure, completed_at=:now, "
                    "lease_expires_at=NULL WHERE status='RUNNING' AND lease_expires_at < :now AND attempts >= :max"
                ),
                params={"failure": failure, "now": now, "max": self.settings.max_run_attempts},
            )
            await session.exec(  # type: ignore[call-overload]
                text(
                    "UPDATE assurance_run SET status='QUEUED', stage=NULL, claimed_by=NULL, lease_expires_at=NULL "
                    "WHERE status='RUNNING' AND lease_expires_at < :now"
                ),
                params={"now": now},
            )
            await session.commit()

    async def _update(self, run_id: str, **values: Any) -> None:
        async with self.sessions() as session:
            run = await session.get(models.Run, run_id)
            if run is None or run.claimed_by != self.worker_id:
                return
            for key, value in values.items():
                setattr(run, key, value)
            session.add(run)
            await session.commit()

    async def _heartbeat(self, run_id: str) -> None:
        interval = max(self.settings.run_lease_seconds / 3, 0.2)
        while True:
            await anyio.sleep(interval)
            await self._update(run_id, lease_expires_at=self._lease())

    # ----- execution -----------------------------------------------------------------------------

    async def execute(self, run_id: str) -> None:
        async with self.sessions() as session:
            run = await session.get(models.Run, run_id)
            if run is None:
                return
            plan = RunPlan.from_json(json.loads(run.plan_json))
            organization_id = run.organization_id
        failure: dict[str, Any] | None = None
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._heartbeat, run_id)
            try:
                items = await self._evidence(plan, organization_id)
                await self._update(run_id, stage="evaluation")
                membership = make_membership(items)
                try:
                    payload = await anyio.to_thread.run_sync(
                        lambda: evaluate(membership, ai_system_id=plan.ai_system_id, jurisdiction=plan.jurisdiction)
                    )
                except ValueError as exc:
                    raise EngineFailureError(
                        "RUN_FAILED", "evaluation", f"The evaluation failed: {exc}", False
                    ) from exc
                await self._persist(run_id, organization_id, plan, items, payload.data)
            except EngineFailureError as exc:
                failure = exc.failure
            except Exception:
                # The top-level boundary of run execution: log everything, fail the run with no internals.
                logger.exception("run %s failed unexpectedly", run_id)
                failure = {
                    "code": "INTERNAL_ERROR",
                    "engine": None,
                    "retryable": True,
                    "message": "The run failed unexpectedly; create it again.",
                }
            finally:
                tasks.cancel_scope.cancel()
        if failure is not None:
            await self._update(
                run_id, status="FAILED", stage=None, failure=failure, completed_at=self._now(), lease_expires_at=None
            )

    async def _evidence(self, plan: RunPlan, organization_id: str) -> list[EvidenceItem]:
        if plan.static_mode == "api":
            assert plan.source_path is not None
            from assay.backend.engines.static.scan import scan_tree
            from assay.backend.engines.static.walk import WalkError

            try:
                bundle = await anyio.to_thread.run_sync(scan_tree, Path(plan.source_path))
            except WalkError as exc:
                raise EngineFailureError(
                    "SOURCE_UNAVAILABLE", "static", f"The source could not be read: {exc}", True
                ) from exc
            except Exception as exc:
                logger.exception("static engine failed on %s", plan.source_path)
                raise EngineFailureError(
                    "RUN_FAILED", "static", f"The static engine failed ({type(exc).__name__}).", True
                ) from exc
            return [static_bundle_item(bundle.to_json_dict(), producer_id="assay-static")]
        async with self.sessions() as session:
            assert plan.attached_scan_id is not None
            scan = await load_scan(session, organization_id, plan.attached_scan_id)
            if scan is None:
                raise EngineFailureError("RESOURCE_NOT_FOUND", "static", "The attached scan no longer exists.", False)
            producer = scan.producer_id if isinstance(scan, models.QualifiedScan) else "assay-static"
            return [static_bundle_item(json.loads(scan.bundle_json), producer_id=producer)]

    async def _persist(
        self, run_id: str, organization_id: str, plan: RunPlan, items: list[EvidenceItem], payload: dict[str, Any]
    ) -> None:
        evaluation_id = models.new_id("eval")
        now = self._now()
        async with self.sessions() as session:
            run = await session.get(models.Run, run_id)
            if run is None or run.claimed_by != self.worker_id or run.status != "RUNNING":
                return  # another worker took over after our lease expired; its result will stand
            session.add(
                models.Evaluation(
                    id=evaluation_id,
                    organization_id=organization_id,
                    ai_system_id=plan.ai_system_id,
                    run_id=run_id,
                    status="FINAL",
                    disposition=payload["disposition"],
                    methodology_version=payload["methodologyVersion"],
                    core_truth_digest=payload["coreTruthDigest"],
                    evidence_bundle_digest=payload["evidenceBundleDigest"],
                    payload_json=canonical_bytes(payload).decode("utf-8"),
                    created_at=now,
                )
            )
            await session.flush()
            for item in items:
                session.add(
                    models.EvaluationEvidence(
                        evaluation_id=evaluation_id,
                        evidence_id=item.evidenceId,
                        kind=item.kind,
                        producer_id=item.producerId,
                        content_digest=item.contentDigest,
                        payload_json=canonical_bytes(item.payload).decode("utf-8"),
                    )
                )
            run.status, run.stage, run.evaluation_id = "COMPLETED", None, evaluation_id
            run.completed_at, run.lease_expires_at = now, None
            session.add(run)
            await session.commit()


def _db_time(value: datetime, dialect: str) -> datetime | str:
    # Raw SQL bypasses the UTCDateTime column type: SQLite keeps naive UTC text in SQLAlchemy's format
    # (so comparisons are textual and exact), PostgreSQL a timestamptz.
    return value.replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f") if dialect == "sqlite" else value


async def load_evaluation(session: AsyncSession, organization_id: str, evaluation_id: str) -> models.Evaluation | None:
    """The organization's Evaluation with this id; None when missing or another organization's."""
    row = await session.get(models.Evaluation, evaluation_id)
    if row is None or row.organization_id != organization_id:
        return None
    return row
