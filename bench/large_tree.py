"""Large and dense trees through the whole chain: peak memory, Evaluation size, read latency.

Two trees, each assessed in a fresh process through the one-call MCP tool on the embedded service
(scan -> qualified scan -> run -> Evaluation), then its summary read five times:
- ``dense``: ten 2 MB Python files of tool code (27,140 tools), the reliability finding of issue 16;
- ``lines``: the generated mixed tree of ``ASSAY_BENCH_LARGE_LINES`` lines (default 800,000; it takes
  about ten minutes on the 2-core machine, so it runs only when ``ASSAY_BENCH_LARGE=1``).
Figures: wall time of the assessment, peak RSS of the process, the Evaluation payload's bytes, the
median summary read, and the median /healthz answer while a summary read is in flight.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.gen_tree import _PY_HEADER, _PY_HELPERS, _PY_TOOL, generate

CACHE = Path(__file__).resolve().parent / ".cache"


def dense_tree(root: Path, files: int = 10, file_bytes: int = 2_000_000) -> Path:
    """Ten 2 MB files of tools (the same bytes every time)."""
    if root.exists():
        return root
    package = root / "pkg0"
    package.mkdir(parents=True)
    for i in range(files):
        parts = [_PY_HEADER.format(idx=i, pkg=0)]
        size, n = len(parts[0]), 0
        while size < file_bytes:
            parts.append(_PY_TOOL.format(idx=i, n=n, limit=1000))
            size += len(parts[-1])
            n += 1
        (package / f"agent{i}.py").write_text("".join(parts), encoding="utf-8")
        (package / f"helpers{i}.py").write_text(_PY_HELPERS.format(idx=i), encoding="utf-8")
    return root


def _measure(tree: Path) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-m", "bench.large_tree_child", str(tree)],
        capture_output=True,
        text=True,
        timeout=3600,
        cwd=Path(__file__).resolve().parents[1],
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-2000:])
    figures: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return figures


def run() -> None:
    trees = [("dense", dense_tree(CACHE / "dense-10x2MB"))]
    if os.environ.get("ASSAY_BENCH_LARGE") == "1":
        lines = int(os.environ.get("ASSAY_BENCH_LARGE_LINES", "800000"))
        root = CACHE / f"generated-{lines}"
        if not root.exists():
            generate(root, lines)
        trees.append((f"{lines:,} lines", root))
    for name, tree in trees:
        figures = _measure(tree)
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in figures.items()), flush=True)
