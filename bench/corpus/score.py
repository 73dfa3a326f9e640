"""Score the static engine on the labelled corpus: ``python -m bench.corpus.score`` (``make corpus``).

Each unit under ``bench/corpus/units/`` is materialised from its fetched mirror (bench/corpus/mirror.py),
scanned with the project's own ``scan_tree`` (no cache, one process) and compared with its labels
(bench/corpus/matching.py). Units whose mirror or commit is absent are listed as not materialised and
left out of the totals.

    python -m bench.corpus.score                 per-unit table and totals
    python -m bench.corpus.score --misses        and, per unit, every miss, unlabelled tool and false gate
    python -m bench.corpus.score --unit ID       one unit (repeatable)
    python -m bench.corpus.score --json          the same as JSON
    python -m bench.corpus.score --list          the repositories and commits to fetch, and their units
    python -m bench.corpus.score --dev           only the development units (what engine work looks at)

A unit labelled ``"heldout": true`` is held out: its figures count in the held-out totals, which are
printed apart from the development totals, and its misses are never printed unless asked for with
``--heldout-misses`` (score it once, at the end of a piece of engine work).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.backend.engines.static.scan import scan_tree
from bench.corpus.labels import UNITS_DIR, LabelError, Unit, load_units
from bench.corpus.matching import Count, UnitScore, score_unit, total
from bench.corpus.mirror import DEFAULT_CACHE, DEFAULT_MIRRORS, NotMaterialisedError, materialise

FIGURES: tuple[tuple[str, str, float | None], ...] = (
    # (attribute of UnitScore, figure name, target)
    ("tools", "tool recall", 0.95),
    ("tool_precision", "tool precision", 0.95),
    ("actions", "action recall", 0.90),
    ("gates", "gate recall", 0.85),
    ("gate_precision", "gate precision", None),
    ("taint", "taint recall", 0.90),
    ("providers", "provider recall", 0.90),
    ("model_ids", "model-id accuracy", None),
)


@dataclass(slots=True)
class UnitResult:
    unit: Unit
    score: UnitScore | None
    files: int = 0
    seconds: float = 0.0
    absent: str | None = None
    missing_paths: tuple[str, ...] = ()
    absent_files: tuple[str, ...] = ()


def run_unit(unit: Unit, mirrors: Path, cache: Path) -> UnitResult:
    try:
        tree = materialise(unit, mirrors, cache)
    except NotMaterialisedError as exc:
        return UnitResult(unit, None, absent=str(exc))
    root = tree.root
    started = time.perf_counter()
    bundle = scan_tree(root, cache=None, workers=1).model_dump(mode="json")
    seconds = time.perf_counter() - started
    missing = sorted({p for p in _label_paths(unit) if not (root / p).is_file()})
    score = score_unit(unit.label, bundle)
    return UnitResult(
        unit,
        score,
        files=len(bundle["coverage"]["files"]),
        seconds=seconds,
        missing_paths=tuple(missing),
        absent_files=tree.absent,
    )


def _label_paths(unit: Unit) -> set[str]:
    lists = ("tools", "actions", "gates", "taint", "providers", "decoys")
    return {str(item["path"]) for name in lists for item in unit.label.get(name, [])}


def _fmt(count: Count) -> str:
    return f"{count.found}/{count.total}" if count.total else "-"


def _ratio(count: Count) -> str:
    return "-" if count.ratio is None else f"{count.ratio:.2f}"


def size(results: list[UnitResult]) -> dict[str, Any]:
    scored = [r for r in results if r.score is not None]
    return {
        "units": len(scored),
        "unitsHeldOut": sum(1 for r in scored if r.unit.heldout),
        "unitsListed": len(results),
        "repositories": len({r.unit.repo for r in scored}),
        "byLanguage": dict(sorted(Counter(r.unit.language for r in scored).items())),
        "repositoriesByLanguage": {
            lang: len({r.unit.repo for r in scored if r.unit.language == lang})
            for lang in sorted({r.unit.language for r in scored})
        },
    }


SETS: tuple[tuple[str, bool | None], ...] = (("all", None), ("dev", False), ("heldout", True))


def totals_of(results: list[UnitResult], heldout: bool | None) -> UnitScore:
    """Micro-averaged totals of the scored units: all of them, or only the held-out or the dev ones."""
    return total(r.score for r in results if r.score is not None and (heldout is None or r.unit.heldout == heldout))


def _figures_json(totals: UnitScore) -> dict[str, Any]:
    figures = {label: _count_json(getattr(totals, name)) for name, label, _ in FIGURES}
    figures["decoys attributed"] = _count_json(totals.decoys)
    return figures


def as_json(results: list[UnitResult], heldout_misses: bool = False) -> dict[str, Any]:
    units = []
    for r in results:
        entry: dict[str, Any] = {
            "id": r.unit.id,
            "repo": r.unit.repo,
            "language": r.unit.language,
            "heldout": r.unit.heldout,
        }
        if r.score is None:
            entry["notMaterialised"] = r.absent
        elif r.unit.heldout and not heldout_misses:
            entry["files"] = r.files
        else:
            entry.update({name: _count_json(getattr(r.score, name)) for name, _, _ in FIGURES})
            entry["decoysAttributed"] = _count_json(r.score.decoys)
            entry["files"] = r.files
            entry["seconds"] = round(r.seconds, 3)
            entry["misses"] = r.score.misses
            entry["labelPathsAbsent"] = list(r.missing_paths)
            entry["absentFromMirror"] = list(r.absent_files)
        units.append(entry)
    return {
        "size": size(results),
        "totals": _figures_json(totals_of(results, None)),
        "totalsDev": _figures_json(totals_of(results, False)),
        "totalsHeldOut": _figures_json(totals_of(results, True)),
        "units": units,
    }


def _count_json(count: Count) -> dict[str, Any]:
    ratio = count.ratio
    return {"found": count.found, "total": count.total, "ratio": None if ratio is None else round(ratio, 4)}


def print_table(results: list[UnitResult], misses: bool, heldout_misses: bool = False) -> None:
    header = f"{'unit':<34} {'files':>5} {'tools':>7} {'prec':>7} {'actions':>7} {'gates':>6} {'gprec':>6} "
    header += f"{'taint':>6} {'prov':>6} {'model':>6} {'decoys':>6} {'sec':>5}"
    print(header)
    print("-" * len(header))
    for r in results:
        if r.score is None:
            print(f"{r.unit.id:<34} not materialised: {r.absent}")
            continue
        s = r.score
        if r.unit.heldout and not heldout_misses:
            print(f"{r.unit.id:<34} {r.files:>5} held out: counted in the held-out totals only")
            continue
        print(
            f"{r.unit.id:<34} {r.files:>5} {_fmt(s.tools):>7} {_fmt(s.tool_precision):>7} {_fmt(s.actions):>7} "
            f"{_fmt(s.gates):>6} {_fmt(s.gate_precision):>6} {_fmt(s.taint):>6} {_fmt(s.providers):>6} {_fmt(s.model_ids):>6} "
            f"{s.decoys.found:>6} {r.seconds:>5.1f}"
        )
    for which, heldout in SETS:
        chosen = [r for r in results if r.score is not None and (heldout is None or r.unit.heldout == heldout)]
        if heldout is not None and not chosen:
            continue
        totals = totals_of(results, heldout)
        print()
        title = {"all": "totals", "dev": "dev totals", "heldout": "held-out totals"}[which]
        print(f"{title} ({len(chosen)} units; every labelled item of every scored unit counts once)")
        _print_totals(totals)
    corpus = size(results)
    langs = ", ".join(
        f"{lang} {n} units / {corpus['repositoriesByLanguage'][lang]} repos" for lang, n in corpus["byLanguage"].items()
    )
    print(
        f"  corpus: {corpus['units']} units scored ({corpus['unitsHeldOut']} held out) of {corpus['unitsListed']} listed, "
        f"{corpus['repositories']} repositories ({langs or 'none'})"
    )
    if misses:
        for r in results:
            if r.score is None or (r.unit.heldout and not heldout_misses):
                continue
            if not r.score.misses and not r.missing_paths and not r.absent_files:
                continue
            print(f"\n== {r.unit.id} ({r.unit.repo}, root {r.unit.root or '.'})")
            if r.absent_files:
                shown = ", ".join(r.absent_files[:5]) + (" ..." if len(r.absent_files) > 5 else "")
                print(f"  note: {len(r.absent_files)} file(s) not held by the mirror, left out: {shown}")
            for path in r.missing_paths:
                print(f"  LABEL ERROR: {path} is not a file of the unit")
            for miss in r.score.misses:
                print(f"  {miss}")


def _print_totals(totals: UnitScore) -> None:
    for name, label, target in FIGURES:
        count = getattr(totals, name)
        goal = f"target >= {target:.2f}" if target is not None else ""
        mark = "" if target is None or count.ratio is None else ("ok" if count.ratio >= target else "BELOW")
        print(f"  {label:<20} {_ratio(count):>5}  ({_fmt(count):>9})  {goal} {mark}")
    decoy_mark = "ok" if totals.decoys.found == 0 else "ABOVE"
    print(
        f"  {'decoys attributed':<20} {totals.decoys.found:>5}  (of {totals.decoys.total} decoys)  target 0 {decoy_mark}"
    )


def print_sources(units: list[Unit]) -> None:
    """A Markdown table: each repository, the commits its units were labelled at, and the units."""
    by_repo: dict[str, list[Unit]] = {}
    for unit in units:
        by_repo.setdefault(unit.repo, []).append(unit)
    print("| repository | commit | units |")
    print("|---|---|---|")
    for repo in sorted(by_repo, key=str.lower):
        commits = sorted({u.commit for u in by_repo[repo]})
        names = ", ".join(f"`{u.id}`" for u in by_repo[repo])
        print(f"| {repo} | {', '.join(c[:12] for c in commits)} | {names} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.corpus.score", description="Score the static engine on the labelled corpus."
    )
    parser.add_argument("--unit", action="append", default=[], metavar="ID", help="score only this unit")
    parser.add_argument("--misses", action="store_true", help="list every miss per unit")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--list", action="store_true", help="list the repositories and commits to fetch; scan nothing")
    parser.add_argument("--dev", action="store_true", help="score only the development units (not the held-out ones)")
    parser.add_argument(
        "--heldout-misses",
        action="store_true",
        help="also show the held-out units' figures and misses (at the end only)",
    )
    parser.add_argument("--units-dir", type=Path, default=UNITS_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="where fetched mirrors live")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where units are materialised")
    args = parser.parse_args(argv)
    try:
        units = load_units(args.units_dir)
    except LabelError as exc:
        print(f"bad label: {exc}", file=sys.stderr)
        return 2
    if args.unit:
        unknown = sorted(set(args.unit) - {u.id for u in units})
        if unknown:
            print(f"unknown unit(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        units = [u for u in units if u.id in set(args.unit)]
    if args.dev:
        units = [u for u in units if not u.heldout]
    if args.list:
        print_sources(units)
        return 0
    results = [run_unit(unit, args.mirrors, args.cache) for unit in units]
    if args.json:
        print(json.dumps(as_json(results, args.heldout_misses), indent=2))
    else:
        print_table(results, args.misses, args.heldout_misses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
