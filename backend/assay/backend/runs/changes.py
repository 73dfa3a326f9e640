"""Waiting for a run to change: what lets ``GET /assurance/runs/{runId}`` with ``Prefer: wait=N`` answer
the moment the run moves on instead of the client polling again and again.

The worker of the same process announces every change it commits (claimed, stage, completed, failed,
released) through :meth:`RunChanges.changed`; a waiting request wakes at once. Runs executed by another
process (``assay worker``, another replica) announce nothing here, so a waiting request also reads the
run again every ``RECHECK_SECONDS``. Everything runs on the event loop's thread.
"""

from __future__ import annotations

import anyio

# How often a waiting request reads the run again in case another process changed it.
RECHECK_SECONDS = 0.25


class RunChanges:
    """One event per run someone is waiting on, set (and dropped) when this process changes the run."""

    def __init__(self) -> None:
        self._events: dict[str, anyio.Event] = {}

    def changed(self, run_id: str) -> None:
        event = self._events.pop(run_id, None)
        if event is not None:
            event.set()

    async def wait(self, run_id: str, seconds: float) -> None:
        """Until ``run_id`` changes in this process or ``seconds`` pass, whichever comes first."""
        event = self._events.get(run_id)
        if event is None:
            event = self._events[run_id] = anyio.Event()
        with anyio.move_on_after(seconds):
            await event.wait()
        if not event.is_set() and self._events.get(run_id) is event and not event.statistics().tasks_waiting:
            del self._events[run_id]
