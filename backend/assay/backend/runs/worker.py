"""The run worker: claims queued runs from the database, executes them, persists their Evaluations.

The same code serves the embedded app (one in-process worker, woken as soon as a run is created) and
several worker processes on one database (``assay worker``). A claim is one atomic conditional UPDATE
(its subquery takes ``FOR UPDATE SKIP LOCKED`` on PostgreSQL), so two workers never run the same run.
A claimed run carries a lease the worker renews while it works. A run whose lease expired belonged to a
worker that died: it is queued again, or failed with ``retryable: true`` once it has been interrupted
``max_run_attempts`` times. A worker that is stopped (cancelled) hands its run back to the queue at once.

Every step is logged as an event with structured fields (``event``, ``runId``, ``workerId``, and
``evaluationId``, ``stage``, ``code``, ``durationSeconds`` where they apply): ``run.claimed``,
``run.stage``, ``run.completed``, ``run.failed``, ``run.released``, ``run.taken_over``,
``runs.recovered``. No key and no evidence is ever logged.
"""

from __future__ import annotations

import functools
import json
import logging
import secrets
import time
from datetime import datetime, timedelta
from typing import Any

import anyio
from sqlalchemy import func, literal, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import col

from assay.backend.collector import collector_paused
from assay.backend.evaluation.membership import EvidenceItem, make_membership
from assay.backend.evaluation.methodology import EvaluationPayload, evaluate
from assay.backend.metrics import RunOutcome, ServiceMetrics
from assay.backend.runs.changes import RunChanges
from assay.backend.runs.engines import (
    EngineFailureError,
    acceptance_evidence,
    attached_evidence,
    runtime_evidence,
    static_evidence,
    wizard_evidence,
)
from assay.backend.runs.persist import FrozenEvaluation, freeze, persist_evaluation
from assay.backend.runs.plan import RunPlan
from assay.backend.settings import ServiceSettings
from assay.backend.storage import models
from assay.backend.storage.db import SessionFactory

logger = logging.getLogger(__name__)

INTERRUPTED_FAILURE: dict[str, Any] = {
    "code": "RUN_FAILED",
    "engine": None,
    "message": "The run was interrupted (its worker stopped) too many times; create it again.",
    "retryable": True,
}
UNEXPECTED_FAILURE: dict[str, Any] = {
    "code": "INTERNAL_ERROR",
    "engine": None,
    "message": "The run failed unexpectedly; create it again.",
    "retryable": True,
}


class Worker:
    """Claims and executes queued runs; one instance per process (or per embedded app)."""

    def __init__(
        self,
        session_factory: SessionFactory,
        settings: ServiceSettings,
        worker_id: str | None = None,
        *,
        changes: RunChanges | None = None,
        metrics: ServiceMetrics | None = None,
    ) -> None:
        self.sessions = session_factory
        self.settings = settings
        self.worker_id = worker_id or f"wrk_{secrets.token_hex(6)}"
        # Told of every status or stage change this worker commits (requests of this process wait on it).
        self.changes = changes
        self.metrics = metrics
        self._wake = anyio.Event()

    def _event(self, level: int, event: str, message: str, run_id: str | None = None, **fields: Any) -> None:
        """One structured log record: ``event`` and the ids as fields, beside a readable message."""
        extra: dict[str, Any] = {"event": event, "workerId": self.worker_id}
        if run_id is not None:
            extra["runId"] = run_id
        extra.update(fields)
        logger.log(level, message, extra=extra)

    def _finished(self, run_id: str, outcome: RunOutcome, started: float, **fields: Any) -> None:
        seconds = time.monotonic() - started
        if self.metrics is not None:
            self.metrics.run_finished(outcome, seconds)
        level = logging.WARNING if outcome in ("failed", "taken_over") else logging.INFO
        self._event(
            level,
            f"run.{outcome}",
            f"run {run_id} {outcome.replace('_', ' ')}",
            run_id,
            durationSeconds=round(seconds, 3),
            **fields,
        )

    def wake(self) -> None:
        """Called when a run is created in this process: no poll delay on the hot path."""
        self._wake.set()

    async def run_forever(self) -> None:
        """Claim and execute runs until cancelled; beside that, recover abandoned runs every poll interval
        (a recovery is a write transaction of its own, so a new run never waits for one)."""
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._recover_forever)
            await self._execute_forever()

    async def _execute_forever(self) -> None:
        while True:
            try:
                while await self.run_once():
                    pass
            except (SQLAlchemyError, OSError):
                # The database was unreachable or locked beyond its timeout: keep the worker alive and
                # try again after the poll interval; queued runs wait in the database meanwhile.
                logger.exception(
                    "worker %s: database step failed",
                    self.worker_id,
                    extra={"event": "worker.database_error", "workerId": self.worker_id},
                )
            with anyio.move_on_after(self.settings.worker_poll_seconds):
                await self._wake.wait()
            self._wake = anyio.Event()

    async def _recover_forever(self) -> None:
        while True:
            try:
                await self.recover()
            except (SQLAlchemyError, OSError):
                logger.exception(
                    "worker %s: recovery failed",
                    self.worker_id,
                    extra={"event": "worker.database_error", "workerId": self.worker_id},
                )
            await anyio.sleep(self.settings.worker_poll_seconds)

    async def run_once(self) -> bool:
        """Claim and execute one queued run; False when there was none."""
        run_id = await self.claim()
        if run_id is None:
            return False
        await self.execute(run_id)
        return True

    # ----- database steps ------------------------------------------------------------------------

    def _lease(self, now: datetime) -> datetime:
        return now + timedelta(seconds=self.settings.run_lease_seconds)

    async def claim(self) -> str | None:
        """Atomically move the oldest QUEUED run to RUNNING under this worker's lease; its id or None."""
        now = models.utcnow()
        oldest_queued = (
            select(col(models.Run.id))
            .where(col(models.Run.status) == "QUEUED")
            .order_by(col(models.Run.created_at), col(models.Run.id))
            .limit(1)
            .with_for_update(skip_locked=True)  # PostgreSQL; SQLite serialises writers and ignores it
            .scalar_subquery()
        )
        statement = (
            update(models.Run)
            .where(col(models.Run.id) == oldest_queued, col(models.Run.status) == "QUEUED")
            .values(
                status="RUNNING",
                stage="static",
                claimed_by=self.worker_id,
                lease_expires_at=self._lease(now),
                started_at=_coalesce_started(now),
                attempts=models.Run.attempts + 1,
            )
            .returning(col(models.Run.id))
            .execution_options(synchronize_session=False)
        )
        with anyio.CancelScope(shield=True):
            async with self.sessions() as session:
                row = (await session.exec(statement)).first()
                await session.commit()
        if row is None:
            return None
        run_id = str(row[0])
        if self.metrics is not None:
            self.metrics.run_claimed()
        self._event(logging.INFO, "run.claimed", f"run {run_id} claimed", run_id, stage="static")
        self._announce(run_id)
        return run_id

    def _announce(self, run_id: str) -> None:
        if self.changes is not None:
            self.changes.changed(run_id)

    async def recover(self) -> None:
        """Re-queue, or fail once interrupted ``max_run_attempts`` times, runs whose worker died."""
        now = models.utcnow()
        expired = (col(models.Run.status) == "RUNNING", col(models.Run.lease_expires_at) < now)
        with anyio.CancelScope(shield=True):
            await self._recover(expired, now)

    async def _recover(self, expired: tuple[Any, ...], now: datetime) -> None:
        async with self.sessions() as session:
            failed = await session.exec(
                update(models.Run)
                .where(*expired, col(models.Run.attempts) >= self.settings.max_run_attempts)
                .values(
                    status="FAILED", stage=None, failure=INTERRUPTED_FAILURE, completed_at=now, lease_expires_at=None
                )
                .execution_options(synchronize_session=False)
            )
            requeued = await session.exec(
                update(models.Run)
                .where(*expired)
                .values(status="QUEUED", stage=None, claimed_by=None, lease_expires_at=None)
                .execution_options(synchronize_session=False)
            )
            await session.commit()
        if failed.rowcount or requeued.rowcount:
            self._event(
                logging.WARNING,
                "runs.recovered",
                f"{requeued.rowcount} abandoned run(s) re-queued, {failed.rowcount} failed",
                requeued=requeued.rowcount,
                failed=failed.rowcount,
            )

    async def _update_own(self, run_id: str, **values: Any) -> bool:
        """Update the run only while this worker still owns it (RUNNING, claimed by us)."""
        with anyio.CancelScope(shield=True):
            changed = await self._update_own_now(run_id, values)
        if changed and ("status" in values or "stage" in values):
            if values.get("stage") is not None:
                self._event(
                    logging.INFO, "run.stage", f"run {run_id} stage {values['stage']}", run_id, stage=values["stage"]
                )
            self._announce(run_id)
        return changed

    async def _update_own_now(self, run_id: str, values: dict[str, Any]) -> bool:
        async with self.sessions() as session:
            result = await session.exec(
                update(models.Run)
                .where(
                    col(models.Run.id) == run_id,
                    col(models.Run.claimed_by) == self.worker_id,
                    col(models.Run.status) == "RUNNING",
                )
                .values(**values)
                .execution_options(synchronize_session=False)
            )
            await session.commit()
        return bool(result.rowcount)

    async def _release(self, run_id: str) -> None:
        # A stopped worker is not a crash: the attempt is given back and the run queued for the next one.
        await self._update_own(
            run_id,
            status="QUEUED",
            stage=None,
            claimed_by=None,
            lease_expires_at=None,
            attempts=models.Run.attempts - 1,
        )

    async def _heartbeat(self, run_id: str) -> None:
        interval = max(self.settings.run_lease_seconds / 3, 0.1)
        while True:
            await anyio.sleep(interval)
            try:
                await self._update_own(run_id, lease_expires_at=self._lease(models.utcnow()))
            except SQLAlchemyError:
                # One missed renewal is not fatal (the lease spans three); the next one may succeed.
                logger.warning(
                    "worker %s: lease renewal of %s failed",
                    self.worker_id,
                    run_id,
                    exc_info=True,
                    extra={"event": "run.lease_renewal_failed", "workerId": self.worker_id, "runId": run_id},
                )

    # ----- execution -----------------------------------------------------------------------------

    async def execute(self, run_id: str) -> None:
        """Execute a run this worker has claimed; it ends COMPLETED or FAILED, or back in the queue if stopped."""
        started = time.monotonic()
        try:
            async with self.sessions() as session:
                run = await session.get(models.Run, run_id)
                if run is None:
                    return
                plan = RunPlan.from_json(json.loads(run.plan_json))
                organization_id = run.organization_id
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._heartbeat, run_id)
                try:
                    failure, evaluation_id = await self._produce(run_id, plan, organization_id)
                finally:
                    tasks.cancel_scope.cancel()
        except anyio.get_cancelled_exc_class():
            # Stopped between the claim and the end: hand the run back now rather than after its lease.
            with anyio.CancelScope(shield=True):
                await self._release(run_id)
                self._finished(run_id, "released", started)
            raise
        if failure is not None:
            failed = await self._update_own(
                run_id,
                status="FAILED",
                stage=None,
                failure=failure,
                completed_at=models.utcnow(),
                lease_expires_at=None,
            )
            if failed:
                self._finished(
                    run_id,
                    "failed",
                    started,
                    code=failure.get("code"),
                    engine=failure.get("engine"),
                    retryable=failure.get("retryable"),
                )
            else:
                self._finished(run_id, "taken_over", started)
        elif evaluation_id is not None:
            self._finished(run_id, "completed", started, evaluationId=evaluation_id)
        else:
            self._finished(run_id, "taken_over", started)

    async def _evaluate(
        self, run_id: str, plan: RunPlan, organization_id: str
    ) -> tuple[FrozenEvaluation, list[object]]:
        """The engines' evidence, evaluated and frozen (CPU work in worker threads), and the working data
        built on the way (the bundle models, the payload), still alive: see ``_evaluate_and_persist``."""
        evidence = await static_evidence(self.sessions, self.settings, plan, organization_id)
        probed: list[EvidenceItem] = []
        if plan.runtime is not None:
            await self._update_own(run_id, stage="runtime")
            probed = await runtime_evidence(self.sessions, self.settings, plan, organization_id, run_id)
        attached = await attached_evidence(self.sessions, plan, organization_id)
        wizard = await wizard_evidence(self.sessions, plan, organization_id)
        membership = make_membership([*evidence.items, *probed, *attached, *wizard, *acceptance_evidence(plan)])

        def evaluate_and_freeze() -> tuple[FrozenEvaluation, EvaluationPayload]:
            payload = evaluate(
                membership,
                ai_system_id=plan.ai_system_id,
                jurisdiction=plan.jurisdiction,
                known_bundles=evidence.bundles,
            )
            return freeze(membership, payload), payload

        refused: ValueError | None = None
        # The stage is written while the evaluation runs; both end before the Evaluation is persisted.
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(functools.partial(self._update_own, run_id, stage="evaluation"))
            try:
                frozen, payload = await anyio.to_thread.run_sync(evaluate_and_freeze, abandon_on_cancel=True)
            except ValueError as exc:
                refused = exc
        if refused is not None:
            raise EngineFailureError(
                "RUN_FAILED", "evaluation", f"The evaluation failed: {refused}", retryable=False
            ) from refused
        return frozen, [evidence, membership, payload]

    async def _evaluate_and_persist(self, run_id: str, plan: RunPlan, organization_id: str) -> str | None:
        """The new Evaluation's id, or None when the run was taken over meanwhile."""
        frozen, working = await self._evaluate(run_id, plan, organization_id)
        async with anyio.create_task_group() as tasks:
            # Freeing the working data (millions of small objects) takes tens of milliseconds; a worker
            # thread does it while the transaction writes (SQLite releases the GIL as it writes).
            tasks.start_soon(anyio.to_thread.run_sync, working.clear)
            # Shielded: a worker asked to stop finishes this short transaction instead of abandoning it.
            with anyio.CancelScope(shield=True):
                persisted = await persist_evaluation(
                    self.sessions,
                    run_id=run_id,
                    worker_id=self.worker_id,
                    organization_id=organization_id,
                    ai_system_id=plan.ai_system_id,
                    frozen=frozen,
                    now=models.utcnow(),
                )
        if persisted is not None:
            self._announce(run_id)
        return persisted

    async def _produce(
        self, run_id: str, plan: RunPlan, organization_id: str
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Run the engines and the evaluation and persist the Evaluation: the run's failure or the
        Evaluation's id (neither when the run was taken over meanwhile)."""
        try:
            # The engines, the evaluation and the persisted texts build and drop millions of acyclic
            # objects; automatic full collections in the middle traverse all of them and free nothing (a
            # tenth of a second each, several per run). They wait until the run's data is persisted and
            # dropped, so the collector resumes with next to nothing young to look at.
            with collector_paused():
                persisted = await self._evaluate_and_persist(run_id, plan, organization_id)
            return None, persisted
        except EngineFailureError as exc:
            return exc.failure, None
        except Exception:
            # The top-level boundary of run execution: log everything, fail the run with no internals.
            logger.exception(
                "run %s failed unexpectedly",
                run_id,
                extra={"event": "run.error", "workerId": self.worker_id, "runId": run_id},
            )
            return dict(UNEXPECTED_FAILURE), None


def _coalesce_started(now: datetime) -> Any:
    # A re-queued run keeps the time it first started. The literal carries the column's type, so SQLite
    # gets the same naive-UTC text as every other timestamp and PostgreSQL a timestamptz.
    return func.coalesce(models.Run.started_at, literal(now, type_=models.UTCDateTime()))
