"""One source file's facts, computed in this process or by worker processes.

Files are analysed independently of each other, so a large tree can be analysed by several
processes (``analyse_in_workers``). Workers return each file's facts as the JSON the facts cache
stores; the caller validates it back into ``FileFacts``, which gives the same facts as analysing in
process (the cache already relies on that round trip). Each result comes back with its source's
position, as workers finish them, and the caller puts it in its place: the scan stays deterministic
whatever the number of workers. The largest files are handed out first (``_chunks``), so that the
workers finish together.

Workers are forked when the calling process runs a single thread (the command line, benchmarks) and
spawned otherwise: forking a process that runs other threads can copy a lock another thread holds.
Before forking, this process loads the analyzers the files need and compiles their rules
(``prepare_analyzers``): every forked worker starts with them, where each would otherwise import and
compile them again (a third of a second each, most of it the same work done once per process).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

from assay.backend.engines.static.facts import FileFacts
from assay.backend.engines.static.rules.pack import RulePack
from assay.backend.engines.static.walk import SourceFile
from assay.backend.scans.bundle import Language

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.workspace import Workspace

logger = logging.getLogger(__name__)

# Files per task at most: enough to make the round trip to a worker cheap, few enough to balance the load.
_MAX_CHUNK = 24
# Tasks per worker, by bytes of source (``_chunks``).
_TASKS_PER_WORKER = 16

_worker_rules: RulePack | None = None
_worker_workspace: Workspace | None = None


def analyse_source(src: SourceFile, rules: RulePack, workspace: Workspace | None = None) -> FileFacts:
    """The facts of one source file, by its language's analyzer (JS/TS: with the tree's own packages)."""
    # Each analyzer is imported when a file of its language is not in the facts cache: a rescan of a
    # Python tree loads neither, a first scan only Python's (start-up of `assay scan`, issue 21).
    if src.language == "python":
        from assay.backend.engines.static.pyast.frontend import analyze_python

        return analyze_python(src.path, src.data, src.digest, rules)
    from assay.backend.engines.static.jsts.frontend import analyze_javascript

    return analyze_javascript(src.path, src.data, src.digest, src.language, rules, workspace)


def prepare_analyzers(languages: Iterable[Language], rules: RulePack) -> None:
    """Load the analyzers of ``languages`` and compile their rules in this process, as analysing a file
    of each would (both are kept for the life of the process, per rule pack)."""
    wanted = set(languages)
    if "python" in wanted:
        from assay.backend.engines.static.pyast.frontend import prepare_python

        prepare_python(rules)
    scripts = [language for language in wanted if language != "python"]
    if scripts:
        from assay.backend.engines.static.jsts.frontend import prepare_javascript

        prepare_javascript(scripts, rules)


def analyse_in_workers(
    sources: Sequence[SourceFile], rules: RulePack, workers: int, workspace: Workspace | None = None
) -> Iterator[tuple[int, bytes]]:
    """The facts of each source as ``FileFacts`` JSON, with the source's position in ``sources``, as
    ``workers`` processes finish them (every source once, in no set order). If the pool breaks (a worker
    killed), the remaining files are analysed in this process, so the result is the same."""
    fork = threading.active_count() == 1
    context = multiprocessing.get_context("fork" if fork else "spawn")
    if fork:
        prepare_analyzers({src.language for src in sources}, rules)
    done: set[int] = set()
    try:
        with ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start_worker, initargs=(rules, workspace)
        ) as pool:
            tasks = {
                pool.submit(_analyse_chunk, [sources[i] for i in chunk]): chunk for chunk in _chunks(sources, workers)
            }
            for task in as_completed(list(tasks)):
                # Popped, so that a task's results are freed once read.
                for position, data in zip(tasks.pop(task), task.result(), strict=True):
                    done.add(position)
                    yield position, data
    except BrokenProcessPool:
        remaining = [position for position in range(len(sources)) if position not in done]
        logger.warning("analysis worker pool broke; analysing the remaining %d file(s) in process", len(remaining))
        for position in remaining:
            yield position, analyse_source(sources[position], rules, workspace).model_dump_json().encode("utf-8")


def _chunks(sources: Sequence[SourceFile], workers: int) -> list[list[int]]:
    """The positions of ``sources`` in tasks for ``workers`` processes, largest files first: each task
    holds about a sixteenth of a worker's share of the bytes (at most ``_MAX_CHUNK`` files), so the last
    tasks, of the smallest files, even out when the workers finish (the scan waits for the last one)."""
    order = sorted(range(len(sources)), key=lambda position: -len(sources[position].data))
    budget = max(1, sum(len(src.data) for src in sources) // (workers * _TASKS_PER_WORKER))
    chunks: list[list[int]] = []
    chunk: list[int] = []
    size = 0
    for position in order:
        chunk.append(position)
        size += len(sources[position].data)
        if size >= budget or len(chunk) == _MAX_CHUNK:
            chunks.append(chunk)
            chunk, size = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def _start_worker(rules: RulePack, workspace: Workspace | None) -> None:
    global _worker_rules, _worker_workspace
    _worker_rules = rules
    _worker_workspace = workspace
    # As in the scan itself: no automatic full collections; each file's cycles are collected young.
    gc.disable()


def _analyse_chunk(chunk: list[SourceFile]) -> list[bytes]:
    rules = _worker_rules
    if rules is None:
        raise RuntimeError("analysis worker used before it was started")
    out: list[bytes] = []
    for src in chunk:
        out.append(analyse_source(src, rules, _worker_workspace).model_dump_json().encode("utf-8"))
        gc.collect(0)
    return out
