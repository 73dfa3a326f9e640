"""Static engine figures (issue 2), each against a baseline measured in the same run:

1. scan time / parse time of the same files (ast.parse + tree-sitter parse), target <= 2.0, for a
   scan in one process (the baseline parses in one process) and one with a worker process per core;
   both sides run with the cyclic garbage collector paused, as the scan always does;
2. a 200,000-line mixed tree scanned in one process: files/s and peak RSS, target < 400 MB;
3. first scan / second scan of the unchanged tree with the facts cache, target >= 5.0; and, for
   information, a rescan after one file changed (its facts recomputed, the others' read from the cache);
4. the one-process scan of the generated tree against the engine of an earlier commit (issue 20's start,
   9af769e, unless ``ASSAY_BENCH_STATIC_BASELINE`` names another; ``none`` skips it), each scan in a
   process of its own, the two engines in alternation, ``ASSAY_BENCH_STATIC_ROUNDS`` rounds (5): the
   ratio of the medians, limit 1.25. The earlier engine is that commit's ``backend/`` taken with
   ``git archive`` and put first on ``PYTHONPATH``; it needs the repository's history (a shallow clone
   skips the figure, saying why). Both engines' modules are compiled to bytecode first (``bench.bytecode``),
   so that the figure "with imports and set-up" is what an installed ``assay scan`` pays, not the
   compilation of each module from source again in every process where ``PYTHONDONTWRITEBYTECODE`` is set.

``ASSAY_BENCH_TREES=DIR[:DIR...]`` adds figure 1 for each of those trees (real repositories, say): the
generated tree is dense with agent code by design, a real one is not.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import tree_sitter_typescript
from tree_sitter import Language, Parser

from assay.backend.collector import collector_paused
from assay.backend.engines.static.cache import DirectoryCache
from assay.backend.engines.static.jsts.syntax import parser
from assay.backend.engines.static.scan import scan_tree
from assay.backend.engines.static.walk import SourceFile, walk_tree
from bench.bytecode import compile_bytecode
from bench.gen_tree import generate

TOTAL_LINES = 200_000
REPEATS = 3
# The engine at the start of issue 20, whose one-process scan time the issue bounds (figure 4).
BASELINE_COMMIT = "9af769e"
BASELINE_LIMIT = 1.25
_REPO = Path(__file__).resolve().parent.parent


def _median_seconds(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def parse_only(root: Path) -> int:
    """The baseline: read and parse every source file, nothing more. Like the scan, it runs with the
    cyclic collector paused: otherwise the collections that parsing triggers, which traverse everything
    alive in the process, would be counted as parsing (a third of the time on the generated tree)."""
    ts_parser = Parser(Language(tree_sitter_typescript.language_typescript()))
    count = 0
    with collector_paused():
        for path in sorted(root.rglob("*")):
            if path.suffix == ".py":
                ast.parse(path.read_bytes(), filename=str(path))
                count += 1
            elif path.suffix == ".ts":
                ts_parser.parse(path.read_bytes())
                count += 1
    return count


def parse_sources(root: Path, sources: Sequence[SourceFile]) -> None:
    """The baseline for any tree: read and parse each file the scan analyses (``sources``, found once
    beforehand), with its own grammar; a Python file that does not parse counts its failed attempt."""
    with collector_paused():
        for src in sources:
            data = (root / src.path).read_bytes()
            if src.language == "python":
                with contextlib.suppress(SyntaxError, ValueError):
                    ast.parse(data, filename=src.path)
            else:
                parser(src.language).parse(data)


def _scan_against_parse(root: Path, parse: Callable[[], object], workers: int) -> tuple[float, float, float]:
    """Median seconds of figure 1's three timings: the baseline ``parse``, the scan in one process, and
    the scan with ``workers`` processes."""
    parse_s = _median_seconds(parse)
    scan_s = _median_seconds(lambda: scan_tree(root))
    parallel_s = _median_seconds(lambda: scan_tree(root, workers=workers))
    return parse_s, scan_s, parallel_s


def _ratios(root: Path, workers: int) -> None:
    """Figure 1 for one more tree."""
    scan_tree(root)  # once before timing, as the generated tree's scans are timed after a first one
    sources = walk_tree(root).sources
    parse_s, scan_s, parallel_s = _scan_against_parse(root, lambda: parse_sources(root, sources), workers)
    print(
        f"   {root.name}: {len(sources)} files, parse {parse_s:.2f}s, scan {scan_s:.2f}s -> "
        f"ratio {scan_s / parse_s:.2f}; {workers} worker processes {parallel_s:.2f}s -> "
        f"ratio {parallel_s / parse_s:.2f}"
    )


def _peak_rss_child(root: Path) -> dict[str, float]:
    """Scan in a new process and report its own peak RSS. Linux's VmHWM is that process's alone;
    ``ru_maxrss`` is not: a child started by fork (or vfork) and exec keeps the parent's high-water mark,
    so it would report this benchmark's own peak whenever that is the larger."""
    code = (
        "import json, resource, sys, time\n"
        "from pathlib import Path\n"
        "from assay.backend.engines.static.scan import scan_tree\n"
        "start = time.perf_counter()\n"
        "bundle = scan_tree(Path(sys.argv[1]))\n"
        "elapsed = time.perf_counter() - start\n"
        "try:\n"
        "    status = Path('/proc/self/status').read_text()\n"
        "    peak = int(next(l for l in status.splitlines() if l.startswith('VmHWM:')).split()[1]) / 1024\n"
        "except (OSError, StopIteration):\n"
        "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(json.dumps({'seconds': elapsed, 'files': bundle.coverage.analysed.count, 'peak_rss_mb': peak}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(root)], check=True, capture_output=True, text=True)
    result: dict[str, float] = json.loads(out.stdout)
    return result


_TIMED_SCAN = (
    "import json, sys, time\n"
    "start = time.perf_counter()\n"
    "from pathlib import Path\n"
    "from assay.backend.engines.static.scan import scan_tree\n"
    "scan_tree(Path(sys.argv[1]))\n"
    "first = time.perf_counter()\n"
    "scan_tree(Path(sys.argv[1]))\n"
    "print(json.dumps({'cold': first - start, 'warm': time.perf_counter() - first}))\n"
)


def _timed_scans(root: Path, backend: Path) -> tuple[float, float]:
    """Seconds of two scans of ``root`` in a new process whose engine is the one under ``backend``: the
    first with the engine's imports and set-up (what ``assay scan`` pays, less the interpreter's own
    start), the second warm (what figure 1 times). Each scan pauses the collector itself."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(backend), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run(
        [sys.executable, "-c", _TIMED_SCAN, str(root)], check=True, capture_output=True, text=True, env=env
    )
    times = json.loads(out.stdout)
    return float(times["cold"]), float(times["warm"])


def _against_baseline(root: Path, tmp: Path) -> None:
    """Figure 4: this engine's one-process scan against an earlier commit's, alternately."""
    commit = os.environ.get("ASSAY_BENCH_STATIC_BASELINE", BASELINE_COMMIT)
    if commit.lower() == "none":
        return
    rounds = int(os.environ.get("ASSAY_BENCH_STATIC_ROUNDS", "5"))
    earlier = tmp / "baseline"
    earlier.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(_REPO), "archive", "--format=tar", commit, "backend"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        reason = archive.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["git archive failed"]
        print(f"4. against {commit}: skipped ({reason[0]}; a clone with history is needed)")
        return
    subprocess.run(["tar", "-x", "-C", str(earlier)], input=archive.stdout, check=True)
    # Both engines as installed: their modules compiled to bytecode once, not again in every timed process.
    compile_bytecode([earlier / "backend" / "assay", _REPO / "backend" / "assay"], os.environ)
    then: list[tuple[float, float]] = []
    now: list[tuple[float, float]] = []
    for _ in range(rounds):
        then.append(_timed_scans(root, earlier / "backend"))
        now.append(_timed_scans(root, _REPO / "backend"))
    print(f"4. one-process scan against the engine of {commit}, {rounds} alternating rounds (limit {BASELINE_LIMIT}):")
    for label, index in (("with imports and set-up", 0), ("warm, as figure 1", 1)):
        before = statistics.median(t[index] for t in then)
        after = statistics.median(t[index] for t in now)
        ratio = after / before
        verdict = "within" if ratio <= BASELINE_LIMIT else "ABOVE"
        print(f"   {label}: {before:.2f}s then, {after:.2f}s now -> ratio {ratio:.2f} ({verdict} the limit)")


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        root = Path(tmp) / "tree"
        counts = generate(root, total_lines=TOTAL_LINES)
        print(
            f"generated tree: {counts['lines']} lines, {counts['python_files']} Python and "
            f"{counts['typescript_files']} TypeScript files"
        )

        workers = max(2, os.cpu_count() or 1)
        parse_s, scan_s, parallel_s = _scan_against_parse(root, lambda: parse_only(root), workers)
        print(
            f"1. parse only {parse_s:.2f}s, scan {scan_s:.2f}s -> "
            f"scan/parse ratio {scan_s / parse_s:.2f} in one process; "
            f"scan with {workers} worker processes {parallel_s:.2f}s -> ratio {parallel_s / parse_s:.2f} "
            "(target <= 2.0)"
        )
        for extra in filter(None, os.environ.get("ASSAY_BENCH_TREES", "").split(os.pathsep)):
            _ratios(Path(extra), workers)

        child = _peak_rss_child(root)
        print(
            f"2. one-process scan: {child['files'] / child['seconds']:.0f} files/s, "
            f"peak RSS {child['peak_rss_mb']:.0f} MB (target < 400 MB)"
        )

        cache_dir = Path(tmp) / "cache"
        first = _median_seconds(lambda: scan_tree(root, cache=DirectoryCache(cache_dir)), repeats=1)
        second = _median_seconds(lambda: scan_tree(root, cache=DirectoryCache(cache_dir)))
        print(
            f"3. first scan {first:.2f}s, second scan (unchanged, cached) {second:.2f}s -> "
            f"speed-up {first / second:.1f}x (target >= 5.0)"
        )
        changed = sorted(root.rglob("helpers*.py"))[0]
        changed.write_text(changed.read_text(encoding="utf-8") + "\n\ndef touched() -> None:\n    pass\n")
        one = _median_seconds(lambda: scan_tree(root, cache=DirectoryCache(cache_dir)), repeats=1)
        print(f"   after one file changed: {one:.2f}s (one file analysed again, the tree linked again)")
        shutil.rmtree(cache_dir)
        changed.write_text(changed.read_text(encoding="utf-8").removesuffix("\n\ndef touched() -> None:\n    pass\n"))
        _against_baseline(root, Path(tmp))
