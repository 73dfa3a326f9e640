"""``assay scan PATH``: analyse a source tree into an Evidence Bundle and print what was found."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from assay.backend.engines.static.cache import default_cache_dir
from assay.server.output import OutputError, check_writable, write_file

if TYPE_CHECKING:
    from assay.backend.engines.static.cache import FactsCache
    from assay.backend.scans.bundle import EvidenceBundle

SEVERITIES = ("critical", "high", "medium", "low", "info")
EXIT_FINDINGS = 4
# The summary for people lists this many items per section, then says how many more the bundle holds.
SUMMARY_ITEMS = 25
# A scan that takes longer than this shows a spinner on stderr, when stderr is a terminal.
PROGRESS_AFTER_SECONDS = 2.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "scan",
        help="analyse an AI system's source tree into an Evidence Bundle (never executes it)",
        description=(
            "Analyse the Python, JavaScript and TypeScript source under PATH: models called, tools given to "
            "models, actions those tools can reach, the gates around them, model output flowing into execution, "
            "the declared reach (assay.toml) and what analysis could not resolve. Prints a summary, or the "
            "Evidence Bundle v1.0.0 with --json. The code is read, never executed."
        ),
    )
    parser.add_argument("path", type=Path, help="root of the source tree to scan")
    parser.add_argument(
        "--format",
        choices=("text", "json", "sarif"),
        default="text",
        help="text: a summary for people (default); json: the Evidence Bundle; sarif: its findings as SARIF 2.1.0",
    )
    parser.add_argument("--json", action="store_true", help="the same as --format json")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="also write the Evidence Bundle JSON (the SARIF log with --format sarif)",
    )
    parser.add_argument(
        "--fail-on",
        choices=(*SEVERITIES, "never"),
        default="never",
        metavar="SEVERITY",
        help=f"exit {EXIT_FINDINGS} when a finding is at least this severe: {', '.join(SEVERITIES)} or never (default)",
    )
    parser.add_argument("--no-cache", action="store_true", help="do not reuse or store per-file results")
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out paths matching GLOB (gitignore syntax, relative to PATH; repeatable), after assay.toml's "
        "exclude; recorded in the bundle's coverage",
    )
    parser.add_argument(
        "--include-tests",
        action="store_true",
        help="count test code (tests/ folders, test_*.py, conftest.py, *.test.ts, *.spec.ts and the like) as the "
        "system's; by default it is listed in the bundle's coverage but not analysed",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=available_cpus(),
        metavar="N",
        help=(
            "analyse files in N processes (default: one per available CPU, here %(default)s); a small tree "
            "is analysed in this process, where starting workers would cost more. The bundle is the same for any N"
        ),
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"where per-file results are cached (default: {default_cache_dir()})",
    )
    parser.set_defaults(handler=run)


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity, which containers and taskset narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"needs at least 1 process, got {value}")
    return value


def bundle_json(bundle: EvidenceBundle) -> str:
    """Stable, readable JSON of a bundle: the same bundle always gives the same text."""
    # Here, so that `assay --help` starts without orjson. A bundle's JSON dict is plain (no field is a float).
    from assay.backend.canonical import readable_json_of_plain

    return readable_json_of_plain(bundle.to_json_dict()) + "\n"


def run(args: argparse.Namespace) -> int:
    # Imported here so that other commands start without loading the parsers.
    from assay.backend.engines.static.cache import DirectoryCache
    from assay.backend.engines.static.scan import scan_tree
    from assay.backend.engines.static.walk import ExcludeError, WalkError

    fmt = "json" if args.json else args.format
    if args.out is not None:
        try:
            check_writable(args.out)  # refused before the scan, never created
        except OutputError as exc:
            print(f"assay scan: {exc}", file=sys.stderr)
            return 2
    cache: FactsCache | None = None if args.no_cache else DirectoryCache(args.cache_dir or default_cache_dir())
    try:
        with progress(f"scanning {args.path}"):
            bundle = scan_tree(
                args.path, cache=cache, workers=args.jobs, exclude=args.exclude, include_tests=args.include_tests
            )
    except (WalkError, ExcludeError) as exc:
        print(f"assay scan: {exc}", file=sys.stderr)
        return 2
    # The bundle's JSON text (tens of megabytes for a large tree) is made only when it is asked for.
    text = ""
    if fmt == "sarif":
        text = sarif_text(bundle, args.path)
    elif fmt == "json" or args.out is not None:
        text = bundle_json(bundle)
    if args.out is not None:
        try:
            write_file(args.out, text)
        except OutputError as exc:
            print(f"assay scan: {exc}", file=sys.stderr)
            return 2
    if fmt in ("json", "sarif"):
        sys.stdout.write(text)
    else:
        print_summary(bundle, sys.stdout, bundle_file=args.out)
        if args.out is not None:
            print(f"\nEvidence Bundle written to {args.out}")
    return EXIT_FINDINGS if fails(bundle, args.fail_on) else 0


def fails(bundle: EvidenceBundle, fail_on: str) -> bool:
    """Whether a finding is at least as severe as ``fail_on`` (``never`` never fails)."""
    if fail_on not in SEVERITIES:
        return False
    worst = SEVERITIES.index(fail_on)
    return any(f.severity in SEVERITIES and SEVERITIES.index(f.severity) <= worst for f in bundle.findings)


def sarif_text(bundle: EvidenceBundle, path: Path) -> str:
    """The bundle's findings as a SARIF log, paths relative to the current folder when the tree is inside it."""
    from assay.backend.reports.sarif import findings_sarif
    from assay.server.version import assay_version

    try:
        prefix = path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        prefix = ""
    log = findings_sarif(bundle.to_json_dict(), tool_version=assay_version(), path_prefix=prefix)
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


@contextmanager
def progress(label: str, *, after: float = PROGRESS_AFTER_SECONDS, stream: TextIO | None = None) -> Iterator[None]:
    """A spinner with the elapsed time on stderr once the work has taken ``after`` seconds, only when stderr
    is a terminal: piped or captured output (CI logs, `2>file`) stays silent."""
    stream = stream or sys.stderr
    if not stream.isatty():
        yield
        return
    from rich.console import Console

    done = threading.Event()

    def show() -> None:
        if done.wait(after):
            return
        started = time.monotonic() - after
        with Console(file=stream).status(label) as status:
            while not done.wait(0.25):
                status.update(f"{label} ({time.monotonic() - started:.0f} s)")

    thread = threading.Thread(target=show, name="assay-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=5)


def _loc(loc: Any) -> str:
    return f"{loc.path}:{loc.line}"


def _bounded(items: Sequence[Any], limit: int = SUMMARY_ITEMS) -> Sequence[Any]:
    """The first ``limit`` items; ``_more`` then says how many more there are."""
    return items[:limit]


def _more(total: int, out: TextIO, where: str, limit: int = SUMMARY_ITEMS) -> None:
    if total > limit:
        out.write(f"  ... and {total - limit} more ({where})\n")


def print_summary(bundle: EvidenceBundle, out: TextIO, *, bundle_file: Path | None = None) -> None:
    """A person's view of a bundle: what the system can do, what guards it, what is unresolved. Each list
    shows its first items, in the bundle's order, and then how many more there are and where they are."""
    where = f"in {bundle_file}" if bundle_file is not None else "--json or --out FILE lists every one"
    cov = bundle.coverage
    w = out.write
    w(f"Scanned {cov.analysed.count} file(s) ({', '.join(f'{k} {v}' for k, v in cov.languages.items()) or 'none'}); ")
    state = "complete" if cov.complete else "partial"
    w(f"{len(cov.skippedFiles)} skipped; {cov.parseErrors} parse error(s); coverage {state}.\n")
    decl = bundle.declaration
    declared = f"{decl.path} ({decl.system or 'unnamed'})" if decl else "none (assay.toml not found or invalid)"
    w(f"Declaration: {declared}\n")
    w(f"\nModels ({len(bundle.models)}):\n")
    for m in _bounded(bundle.models):
        w(f"  {m.provider:<12} {m.api:<40} {_loc(m.location)}\n")
    _more(len(bundle.models), out, where)
    w(f"\nTools ({len(bundle.tools)}):\n")
    for t in _bounded(bundle.tools):
        w(f"  {t.name:<24} {t.framework:<20} {_loc(t.location)}\n")
    _more(len(bundle.tools), out, where)
    gates = {g.id: g for g in bundle.gates}
    tools = {t.id: t.name for t in bundle.tools}
    w(f"\nCode-capable actions ({len(bundle.actions)}):\n")
    # The most impactful first: a reader of a large tree sees what matters before the count of the rest.
    impact_rank = {"critical": 0, "high": 1, "medium": 2, "low": 3}
    for a in _bounded(sorted(bundle.actions, key=lambda a: impact_rank.get(a.impact, 9))):
        reach = sorted({tools.get(p.toolId, p.toolId) for p in a.reachedFrom})
        guard = sorted({gates[g].kind for g in a.gateIds if g in gates})
        w(f"  [{a.impact:<8}] {a.actionClass:<16} {a.target:<32} {_loc(a.location)}")
        w(f"  tools: {', '.join(reach) or '-'}  gates: {', '.join(guard) or 'none'}\n")
    _more(len(bundle.actions), out, where)
    if bundle.taintFlows:
        w(f"\nModel-chosen data reaching a sink ({len(bundle.taintFlows)}):\n")
        for f in _bounded(bundle.taintFlows):
            w(f"  {f.sourceKind} {_loc(f.source)} -> {f.actionClass} {_loc(f.sink)}\n")
        _more(len(bundle.taintFlows), out, where)
    w(f"\nFindings ({len(bundle.findings)}):\n")
    severity_rank = {s: n for n, s in enumerate(SEVERITIES)}
    counts = ", ".join(f"{s} {sum(1 for f in bundle.findings if f.severity == s)}" for s in SEVERITIES)
    if bundle.findings:
        w(f"  by severity: {counts}\n")
    for finding in _bounded(sorted(bundle.findings, key=lambda f: severity_rank.get(f.severity, 9))):
        w(f"  [{finding.severity:<8}] {finding.ruleId:<24} {finding.message}\n")
    _more(len(bundle.findings), out, where)
    if bundle.frontier:
        w(f"\nUnresolved frontier ({len(bundle.frontier)}):\n")
        for item in _bounded(bundle.frontier):
            at = _loc(item.location) if item.location else (item.path or "")
            w(f"  {item.kind:<26} {at}  {item.detail}\n")
        _more(len(bundle.frontier), out, where)
    w("\nLimitations:\n")
    for lim in bundle.limitations:
        w(f"  - {lim}\n")
    w(f"\ncontentHash {bundle.contentHash}\n")
