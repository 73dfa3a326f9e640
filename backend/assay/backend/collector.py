"""Pausing Python's cyclic garbage collector around batch work (a scan, a run's evaluation).

Such work builds and drops millions of objects that are almost all acyclic (reference counting frees
them). Automatic collections triggered meanwhile traverse everything alive, the work's own data
included, and free next to nothing: a tenth of a second or more each, several times per run. Inside
``collector_paused`` they wait; ``collect_young`` frees the cycles made since its last call without
traversing what earlier work left alive. The pause is process-wide and counted, so nested and
concurrent users compose: collection resumes, if it was enabled, when the last one ends, with what
survived the work counted as old (see ``_promote_survivors``).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause automatic garbage collection for the duration of the block."""
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                _promote_survivors()
                gc.enable()


def _promote_survivors() -> None:
    # Everything that survived the paused work is long-lived (a returned bundle, caches). Left where it
    # is, the first automatic collection after the pause is a middle-generation one that traverses all
    # of it and frees nothing (a quarter of a second after a 200,000-line scan). gc.freeze then
    # gc.unfreeze moves every tracked object to the oldest generation (two list splices), where only a
    # full collection looks at it again. Skipped if the host application keeps objects frozen itself.
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def collect_young() -> None:
    """Inside a pause, collect the youngest generation only: everything allocated since the last call,
    at a cost proportional to it. Outside a pause (or when collection was off) it does nothing."""
    if _pauses and _was_enabled:
        gc.collect(0)
