"""``assay scan`` against Semgrep running HAIEC's public AI-security rule pack, on real agent code (issue 20).

The tree is the labelled corpus (``bench/corpus/units``, materialised from the fetched mirrors) copied
side by side, Python and TypeScript units taking turns, until it holds about ``ASSAY_BENCH_PEER_LINES``
source lines (default 120,000; lines in the folders the scan skips, such as ``node_modules``, not counted).
The rules
are HAIEC's ``rules/public-core/haiec-ai-security.yml`` read from the fetched mirror of
``subodhkc/ai-appsec`` at a pinned commit (never copied into this repository). Semgrep is the one
``make bench-peers`` installs into ``.bench-semgrep-venv`` (or ``ASSAY_BENCH_SEMGREP``).

Each side is a whole CLI process on the same tree, run alternately ``ASSAY_BENCH_PEER_ROUNDS`` times
(default 2): ``assay scan --no-cache --json`` and ``semgrep scan --config <rules> --json`` (metrics off,
no version check, offline). Assay's modules are compiled to bytecode first (``_compile_assay``), as an
installed package's are. Figure: median Semgrep seconds / median assay seconds, target >= 10. Both use
every core by default (assay: a worker per core; Semgrep: ``--jobs`` per core). Skipped, with the reason,
when the mirrors, the rules or Semgrep are absent (CI has none of them).
"""

from __future__ import annotations

import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from assay.backend.engines.static.walk import IGNORED_DIRECTORIES
from bench.bytecode import compile_bytecode
from bench.corpus.labels import Unit, load_units
from bench.corpus.mirror import DEFAULT_MIRRORS, NotMaterialisedError, find_mirror, materialise

ROOT = Path(__file__).resolve().parents[1]
RULES_REPO = "subodhkc/ai-appsec"
RULES_COMMIT = "d1b52bf9537b90c38e8db3ddc2795a3fa240d4f8"
RULES_PATH = "rules/public-core/haiec-ai-security.yml"
SOURCE_SUFFIXES = frozenset({".py", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"})
TARGET = 10.0


def _semgrep() -> Path | None:
    configured = os.environ.get("ASSAY_BENCH_SEMGREP")
    candidate = Path(configured) if configured else ROOT / ".bench-semgrep-venv" / "bin" / "semgrep"
    return candidate if candidate.is_file() else None


def _rules(target: Path) -> str | None:
    """Writes the pinned rule pack to ``target``; the reason it cannot, or None."""
    mirror = find_mirror(RULES_REPO, DEFAULT_MIRRORS)
    if mirror is None:
        return f"no mirror of {RULES_REPO} under {DEFAULT_MIRRORS} (fetch github:{RULES_REPO})"
    shown = subprocess.run(
        ["git", f"--git-dir={mirror}", "show", f"{RULES_COMMIT}:{RULES_PATH}"], capture_output=True, check=False
    )
    if shown.returncode != 0:
        return f"{RULES_REPO}@{RULES_COMMIT[:12]} has no {RULES_PATH}"
    target.write_bytes(shown.stdout)
    return None


def _lines(root: Path) -> tuple[int, int]:
    """Source files and lines under ``root`` that the scan reads: none in the folders it skips (a unit's
    committed ``node_modules`` holds several times the corpus's own code, which no scan of it reads)."""
    files = lines = 0
    for path in root.rglob("*"):
        skipped = IGNORED_DIRECTORIES.intersection(path.relative_to(root).parts)
        if path.suffix in SOURCE_SUFFIXES and not skipped and path.is_file():
            files += 1
            lines += path.read_bytes().count(b"\n")
    return files, lines


def _by_turns(units: list[Unit]) -> list[Unit]:
    """The units with their languages taking turns (Python, TypeScript, Python...), each language's in
    label order: the first ``lines_wanted`` lines then mix the languages as the corpus does, rather than
    being whichever language sorts first once the corpus outgrows the tree."""
    by_language: dict[str, list[Unit]] = {}
    for unit in units:
        by_language.setdefault(unit.language, []).append(unit)
    queues = [by_language[language] for language in sorted(by_language)]
    return [unit for turn in itertools.zip_longest(*queues) for unit in turn if unit is not None]


def build_tree(target: Path, lines_wanted: int) -> tuple[int, int, int]:
    """The corpus units copied side by side (``copy0/<unit>``, ``copy1/<unit>``...), unit after unit,
    languages taking turns, until the tree holds ``lines_wanted`` source lines; returns (units, files,
    lines)."""
    units = []
    for unit in _by_turns(load_units()):
        try:
            root = materialise(unit).root
        except NotMaterialisedError:
            continue
        units.append((unit.id, root, *_lines(root)))
    if not units or not any(unit_lines for *_, unit_lines in units):
        return 0, 0, 0
    files = lines = copy = 0
    copied: set[str] = set()
    while lines < lines_wanted:
        for unit_id, root, unit_files, unit_lines in units:
            shutil.copytree(root, target / f"copy{copy}" / unit_id)
            copied.add(unit_id)
            files, lines = files + unit_files, lines + unit_lines
            if lines >= lines_wanted:
                break
        copy += 1
    return len(copied), files, lines


def _compile_assay(env: dict[str, str]) -> None:
    """Assay's own modules compiled to bytecode, for the timed runs to read: assay runs as installed, as
    Semgrep's installed Python does (``bench.bytecode``; without it every run compiled each module of the
    scan from source again: 1.2 of the parent's 10.1 billion instructions)."""
    compile_bytecode([ROOT / name / "assay" for name in ("backend", "server", "prompts", "tools")], env)


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):  # Semgrep exits 1 when it has findings
        raise RuntimeError(f"{argv[0]} exited {done.returncode}: {done.stderr.decode(errors='replace')[-400:]}")
    return seconds


def run() -> None:
    semgrep = _semgrep()
    if semgrep is None:
        print("semgrep peer: skipped (no Semgrep: `make bench-peers` installs it, or set ASSAY_BENCH_SEMGREP)")
        return
    lines_wanted = int(os.environ.get("ASSAY_BENCH_PEER_LINES", "120000"))
    rounds = int(os.environ.get("ASSAY_BENCH_PEER_ROUNDS", "2"))
    with tempfile.TemporaryDirectory(prefix="assay-peer-") as tmp:
        work = Path(tmp)
        rules = work / "haiec-ai-security.yml"
        reason = _rules(rules)
        if reason is not None:
            print(f"semgrep peer: skipped ({reason})")
            return
        tree = work / "tree"
        units, files, lines = build_tree(tree, lines_wanted)
        if not units:
            print(f"semgrep peer: skipped (no corpus unit could be materialised from {DEFAULT_MIRRORS})")
            return
        env = {**os.environ, "HOME": str(work), "SEMGREP_SEND_METRICS": "off", "SEMGREP_ENABLE_VERSION_CHECK": "0"}
        _compile_assay(env)
        assay_argv = [sys.executable, "-m", "assay.server.cli", "scan", str(tree), "--no-cache", "--json"]
        semgrep_argv = [
            str(semgrep),
            "scan",
            "--config",
            str(rules),
            "--metrics=off",
            "--disable-version-check",
            "--no-git-ignore",
            "--json",
            "--quiet",
            str(tree),
        ]
        print(f"tree: {units} corpus units copied to {files} files, {lines:,} source lines; rules: {RULES_PATH}")
        assay_times: list[float] = []
        semgrep_times: list[float] = []
        for _ in range(rounds):
            assay_times.append(_timed(assay_argv, env))
            semgrep_times.append(_timed(semgrep_argv, env))
        assay_s, semgrep_s = statistics.median(assay_times), statistics.median(semgrep_times)
        ratio = semgrep_s / assay_s
        print(f"assay scan --no-cache: {' '.join(f'{t:.1f}' for t in assay_times)} s (median {assay_s:.1f})")
        print(f"semgrep (HAIEC rules): {' '.join(f'{t:.1f}' for t in semgrep_times)} s (median {semgrep_s:.1f})")
        verdict = "ok" if ratio >= TARGET else "BELOW"
        print(f"semgrep / assay: {ratio:.1f}x  target >= {TARGET:.0f}x {verdict}")


if __name__ == "__main__":
    run()
