"""Checkpoints of SQLite's write-ahead log, moved off every request's and every run's path.

In WAL mode a commit appends pages to the log; a checkpoint copies them back into the database file and
syncs both files to disk. By default SQLite checkpoints inside the commit that takes the log past 1,000
pages, so that commit pays the copy and two fsyncs: about 20 ms on this service's typical disks, every
second run (an Evaluation and its membership are a few megabytes). A process that runs a
:class:`WalCheckpointer` turns those automatic checkpoints off for its own connections
(``create_engine(..., background_checkpoints=True)``) and checkpoints in a worker thread instead, about
once a second while something was written. The checkpoint is PASSIVE: it never waits for, nor blocks,
readers and writers; what it cannot copy yet is copied by a later one.

Several processes on one database file (``assay serve`` and ``assay worker``) each run their own; SQLite
lets one checkpoint run at a time and the others find nothing to do. Processes without one (admin
commands) keep SQLite's automatic checkpoints.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

import anyio

logger = logging.getLogger(__name__)

CHECK_EVERY_SECONDS = 1.0


class WalCheckpointer:
    """Checkpoints the write-ahead log of the SQLite database at ``path`` when it was written to."""

    def __init__(self, path: str, *, every_seconds: float = CHECK_EVERY_SECONDS) -> None:
        self.path = path
        self.every_seconds = every_seconds
        self._wal = Path(f"{path}-wal")
        self._seen: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self.checkpoints = 0

    def _wal_state(self) -> tuple[int, int] | None:
        try:
            stat = self._wal.stat()
        except FileNotFoundError:
            return None
        return (stat.st_mtime_ns, stat.st_size)

    def checkpoint_if_written(self) -> bool:
        """Checkpoint if the log changed since the last call; True when a checkpoint ran. Blocking."""
        with self._lock:
            state = self._wal_state()
            if state is None or state == self._seen:
                return False
            connection = sqlite3.connect(self.path, isolation_level=None, timeout=0)
            try:
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            finally:
                connection.close()
            # The log as it was before the checkpoint: a write during it makes the next round run again.
            self._seen = state
            self.checkpoints += 1
            return True

    async def run_forever(self) -> None:
        """Check every ``every_seconds`` and checkpoint in a worker thread, until cancelled."""
        while True:
            await anyio.sleep(self.every_seconds)
            try:
                await anyio.to_thread.run_sync(self.checkpoint_if_written)
            except sqlite3.Error:
                # Busy or locked now: the next round tries again; the log only grows meanwhile.
                logger.warning("WAL checkpoint of %s failed; retrying in %ss", self.path, self.every_seconds)
