"""``assay scan PATH``: analyse a source tree into an Evidence Bundle and print what was found."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from assay.backend.engines.static.cache import DirectoryCache, FactsCache, default_cache_dir
from assay.backend.scans.bundle import EvidenceBundle


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
    parser.add_argument("--json", action="store_true", help="print the Evidence Bundle as JSON instead of a summary")
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the Evidence Bundle JSON to FILE")
    parser.add_argument("--no-cache", action="store_true", help="do not reuse or store per-file results")
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
    return json.dumps(bundle.to_json_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def run(args: argparse.Namespace) -> int:
    # Imported here so that other commands start without loading the parsers.
    from assay.backend.engines.static.scan import scan_tree
    from assay.backend.engines.static.walk import WalkError

    cache: FactsCache | None = None if args.no_cache else DirectoryCache(args.cache_dir or default_cache_dir())
    try:
        bundle = scan_tree(args.path, cache=cache, workers=args.jobs)
    except WalkError as exc:
        print(f"assay scan: {exc}", file=sys.stderr)
        return 2
    # The bundle's JSON text (tens of megabytes for a large tree) is made only when it is asked for.
    text = bundle_json(bundle) if args.json or args.out is not None else ""
    if args.out is not None:
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"assay scan: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    if args.json:
        sys.stdout.write(text)
    else:
        print_summary(bundle, sys.stdout)
        if args.out is not None:
            print(f"\nEvidence Bundle written to {args.out}")
    return 0


def _loc(loc: Any) -> str:
    return f"{loc.path}:{loc.line}"


def print_summary(bundle: EvidenceBundle, out: TextIO) -> None:
    """A person's view of a bundle: what the system can do, what guards it, what is unresolved."""
    cov = bundle.coverage
    w = out.write
    w(f"Scanned {cov.analysed.count} file(s) ({', '.join(f'{k} {v}' for k, v in cov.languages.items()) or 'none'}); ")
    state = "complete" if cov.complete else "partial"
    w(f"{len(cov.skippedFiles)} skipped; {cov.parseErrors} parse error(s); coverage {state}.\n")
    decl = bundle.declaration
    declared = f"{decl.path} ({decl.system or 'unnamed'})" if decl else "none (assay.toml not found or invalid)"
    w(f"Declaration: {declared}\n")
    w(f"\nModels ({len(bundle.models)}):\n")
    for m in bundle.models:
        w(f"  {m.provider:<12} {m.api:<40} {_loc(m.location)}\n")
    w(f"\nTools ({len(bundle.tools)}):\n")
    for t in bundle.tools:
        w(f"  {t.name:<24} {t.framework:<20} {_loc(t.location)}\n")
    gates = {g.id: g for g in bundle.gates}
    tools = {t.id: t.name for t in bundle.tools}
    w(f"\nCode-capable actions ({len(bundle.actions)}):\n")
    for a in bundle.actions:
        reach = sorted({tools.get(p.toolId, p.toolId) for p in a.reachedFrom})
        guard = sorted({gates[g].kind for g in a.gateIds if g in gates})
        w(f"  [{a.impact:<8}] {a.actionClass:<16} {a.target:<32} {_loc(a.location)}")
        w(f"  tools: {', '.join(reach) or '-'}  gates: {', '.join(guard) or 'none'}\n")
    if bundle.taintFlows:
        w(f"\nModel-chosen data reaching a sink ({len(bundle.taintFlows)}):\n")
        for f in bundle.taintFlows:
            w(f"  {f.sourceKind} {_loc(f.source)} -> {f.actionClass} {_loc(f.sink)}\n")
    w(f"\nFindings ({len(bundle.findings)}):\n")
    for finding in bundle.findings:
        w(f"  [{finding.severity:<8}] {finding.ruleId:<24} {finding.message}\n")
    if bundle.frontier:
        w(f"\nUnresolved frontier ({len(bundle.frontier)}):\n")
        for item in bundle.frontier:
            where = _loc(item.location) if item.location else (item.path or "")
            w(f"  {item.kind:<26} {where}  {item.detail}\n")
    w("\nLimitations:\n")
    for lim in bundle.limitations:
        w(f"  - {lim}\n")
    w(f"\ncontentHash {bundle.contentHash}\n")
