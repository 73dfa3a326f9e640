"""NYC LL144 figures from a CSV (issue 23): the streaming computation versus pandas reading the same file.

A CSV of ``ASSAY_BENCH_LL144_ROWS`` rows (default 1,000,000) of candidates (sex, race_ethnicity with EEO-1
names, a few unknowns, and selected 0/1, then again with a score) is written once. Each side runs in a
fresh subprocess, so its peak RSS (ru_maxrss of the child) is its own: the baseline is
``pandas.read_csv`` of the file (reading only, no computation); the measured side is
``assay.backend.engines.wizard.ll144.compute`` (reading and computing every rate and impact ratio).
Figures: seconds of each (median of ``ASSAY_BENCH_LL144_REPEAT`` interleaved runs, default 3), their ratio (target <= 2.0),
and the measured side's peak RSS (target < 500 MB).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from assay.backend.engines.wizard.ll144 import RACES, SEXES

CHILD = r"""
import resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
if kind == "pandas":
    import pandas
    start = time.perf_counter()
    frame = pandas.read_csv(path)
    seconds = time.perf_counter() - start
    assert len(frame) > 0
else:
    from assay.backend.engines.wizard.ll144 import compute
    # Imports stay outside the clock on both sides: compute imports pyarrow and numpy lazily, and pyarrow
    # imports pandas (when installed, as in the dev environment the bench runs in) at its first Python-value
    # conversion.
    import numpy, pandas, pyarrow.csv
    start = time.perf_counter()
    with open(path, "rb") as stream:
        result = compute(stream)
    seconds = time.perf_counter() - start
    assert result["rows"] > 0
print(seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def write_csv(path: Path, rows: int, *, score: bool, seed: int = 23) -> None:
    """A deterministic candidate file: EEO-1 categories with uneven shares, 1% unknowns."""
    rng = random.Random(seed)
    races = [*RACES, ""]
    race_weights = [18, 40, 15, 1, 14, 1, 10, 1]
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(f"candidate_id,sex,race_ethnicity,{'score' if score else 'selected'}\n")
        for i in range(rows):
            sex = rng.choice(SEXES) if rng.random() > 0.01 else ""
            race = rng.choices(races, race_weights)[0]
            value = f"{rng.gauss(60, 15):.2f}" if score else ("1" if rng.random() < 0.3 else "0")
            out.write(f"c{i},{sex},{race},{value}\n")


def _time(kind: str, path: Path) -> tuple[float, int]:
    done = subprocess.run([sys.executable, "-c", CHILD, kind, str(path)], capture_output=True, text=True, check=True)
    seconds, rss_kib = done.stdout.split()
    return float(seconds), int(rss_kib) * 1024


def run() -> None:
    rows = int(os.environ.get("ASSAY_BENCH_LL144_ROWS", "1000000"))
    repeat = int(os.environ.get("ASSAY_BENCH_LL144_REPEAT", "3"))
    with tempfile.TemporaryDirectory() as tmp:
        for score in (False, True):
            path = Path(tmp) / ("scores.csv" if score else "selected.csv")
            write_csv(path, rows, score=score)
            # Interleaved, so a load change on the machine hits both sides alike; medians of the repetitions.
            pairs = [(_time("pandas", path)[0], _time("assay", path)) for _ in range(repeat)]
            base = statistics.median(p[0] for p in pairs)
            seconds = statistics.median(p[1][0] for p in pairs)
            rss = max(p[1][1] for p in pairs)
            label = "score" if score else "selected"
            print(
                f"ll144 {label}: {rows} rows ({path.stat().st_size / 1e6:.0f} MB): pandas.read_csv {base:.2f} s, "
                f"compute {seconds:.2f} s, ratio {seconds / base:.2f} (target <= 2.0), "
                f"peak RSS {rss / 1e6:.0f} MB (target < 500 MB)"
            )
