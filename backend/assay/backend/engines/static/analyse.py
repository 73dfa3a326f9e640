"""One source file's facts, computed in this process or by worker processes.

Files are analysed independently of each other, so a large tree can be analysed by several
processes (``analyse_in_workers``). Workers return each file's facts as the JSON the facts cache
stores; the caller validates it back into ``FileFacts``, which gives the same facts as analysing in
process (the cache already relies on that round trip). Results come back in the order of the
sources, so the scan stays deterministic whatever the number of workers.

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
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from assay.backend.engines.static.facts import FileFacts
from assay.backend.engines.static.rules.pack import RulePack
from assay.backend.engines.static.walk import SourceFile
from assay.backend.scans.bundle import Language

logger = logging.getLogger(__name__)

# Files per task: enough to make the round trip to a worker cheap, few enough to balance the load.
_MAX_CHUNK = 24

_worker_rules: RulePack | None = None


def analyse_source(src: SourceFile, rules: RulePack) -> FileFacts:
    """The facts of one source file, by its language's analyzer."""
    # Each analyzer is imported when a file of its language is not in the facts cache: a rescan of a
    # Python tree loads neither, a first scan only Python's (start-up of `assay scan`, issue 21).
    if src.language == "python":
        from assay.backend.engines.static.pyast.frontend import analyze_python

        return analyze_python(src.path, src.data, src.digest, rules)
    from assay.backend.engines.static.jsts.frontend import analyze_javascript

    return analyze_javascript(src.path, src.data, src.digest, src.language, rules)


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


def analyse_in_workers(sources: Sequence[SourceFile], rules: RulePack, workers: int) -> Iterator[bytes]:
    """The facts of each source as ``FileFacts`` JSON, in the order of ``sources``, computed by
    ``workers`` processes. If the pool breaks (a worker killed), the remaining files are analysed
    in this process, so the result is the same."""
    fork = threading.active_count() == 1
    context = multiprocessing.get_context("fork" if fork else "spawn")
    if fork:
        prepare_analyzers({src.language for src in sources}, rules)
    size = max(1, min(_MAX_CHUNK, len(sources) // (workers * 8)))
    chunks = [list(sources[start : start + size]) for start in range(0, len(sources), size)]
    done = 0
    try:
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker, initargs=(rules,)) as pool:
            for result in pool.map(_analyse_chunk, chunks):
                yield from result
                done += len(result)
    except BrokenProcessPool:
        logger.warning("analysis worker pool broke; analysing the remaining %d file(s) in process", len(sources) - done)
        for src in sources[done:]:
            yield analyse_source(src, rules).model_dump_json().encode("utf-8")


def _start_worker(rules: RulePack) -> None:
    global _worker_rules
    _worker_rules = rules
    # As in the scan itself: no automatic full collections; each file's cycles are collected young.
    gc.disable()


def _analyse_chunk(chunk: list[SourceFile]) -> list[bytes]:
    rules = _worker_rules
    if rules is None:
        raise RuntimeError("analysis worker used before it was started")
    out: list[bytes] = []
    for src in chunk:
        out.append(analyse_source(src, rules).model_dump_json().encode("utf-8"))
        gc.collect(0)
    return out
