"""``assay check [PATH]``: scan, evaluate and report in one command, with an exit status a CI job can gate on.

Embedded by default (the whole service in this process, on a throwaway SQLite database, or the one
``--db`` names); against a running service with ``--base-url`` (or ``ASSAY_BASE_URL``) and the key in
``ASSAY_API_KEY``. Either way the Evaluation comes from the service's own run pipeline, never from a second
implementation here.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assay.server.output import OutputError, append_file, check_writable, write_file

ENV_BASE_URL = "ASSAY_BASE_URL"
ENV_API_KEY = "ASSAY_API_KEY"
ENV_SYSTEM_ID = "ASSAY_SYSTEM_ID"

# Exit statuses (docs/cli.md): distinct from usage errors (2) and internal errors (1).
EXIT_PASSED = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_NOT_ASSESSED = 3
EXIT_REVIEW = 4
EXIT_BLOCK = 5
FORMATS = ("text", "json", "sarif", "markdown")
DEFAULT_TIMEOUT = 600.0
# In-process, the bundle never crosses a network: the embedded service accepts any size a scan makes.
EMBEDDED_MAX_SCAN_BYTES = 4 * 1024 * 1024 * 1024
# What to do next, for a person at a command line (the client's own next steps speak to MCP agents).
NEXT_STEPS = {
    "AI_SYSTEM_NOT_FOUND": (
        f"pass the AI System's id with --system-id (or ${ENV_SYSTEM_ID}), or have an operator bind this "
        "repository to one: assay admin source add --org ORG --system SYS --repo URL_OR_PATH"
    ),
    "SOURCE_AMBIGUOUS": f"pass one of them with --system-id (or ${ENV_SYSTEM_ID})",
    "UNAUTHORIZED": f"set {ENV_API_KEY} to a valid key (an operator issues one: assay admin key create --purpose "
    "assurance-agent)",
    "CONNECTION_FAILED": f"check that the service is running and that --base-url (or ${ENV_BASE_URL}) points at it",
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check",
        help="scan, evaluate and report in one command: ALLOW, REVIEW or BLOCK, with exit codes for CI",
        description=(
            "Scan the source under PATH (read, never executed), evaluate it with the assurance service's own "
            "run pipeline and print the disposition (ALLOW, REVIEW or BLOCK), its reasons grouped by "
            "disposition and the verification items. Embedded by default (a throwaway database, or --db); "
            f"against a running service with --base-url (or ${ENV_BASE_URL}) and ${ENV_API_KEY}. Exit status: "
            f"{EXIT_PASSED} passed the gate, {EXIT_REVIEW} failed it on REVIEW, {EXIT_BLOCK} failed it on BLOCK, "
            f"{EXIT_NOT_ASSESSED} not assessed (service refused, run failed, timeout), {EXIT_USAGE} usage or "
            f"input error, {EXIT_INTERNAL} internal error."
        ),
    )
    parser.add_argument("path", nargs="?", type=Path, default=Path(), help="the source tree (default: .)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument(
        "--out", type=Path, metavar="FILE", help="write the --format output to FILE; stdout then gets the text summary"
    )
    parser.add_argument(
        "--fail-on",
        choices=("block", "review", "never"),
        default="block",
        help=f"fail on BLOCK (exit {EXIT_BLOCK}, the default), also on REVIEW (exit {EXIT_REVIEW}), or never",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="a stored 'assay check --format json' result: only reasons that are not in it can fail the gate",
    )
    parser.add_argument(
        "--summary",
        type=Path,
        metavar="FILE",
        help="also append the Markdown report to FILE (e.g. $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument("--db", type=Path, metavar="PATH", help="embedded: keep the Evaluations in this SQLite file")
    parser.add_argument("--base-url", help=f"a running service to evaluate with (default: ${ENV_BASE_URL})")
    parser.add_argument(
        "--system-id",
        help=f"remote: the AI System to evaluate (default: ${ENV_SYSTEM_ID}, else the service resolves the workspace)",
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS", help="wait at most this long for the run"
    )
    parser.add_argument("--no-cache", action="store_true", help="do not reuse or store per-file scan results")
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
    parser.set_defaults(handler=run)


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """Everything ``assay check`` was asked for, resolved from flags and the environment."""

    root: Path
    target: str
    path_prefix: str
    format: str
    out: Path | None
    summary: Path | None
    fail_on: str
    baseline: Any
    db: Path | None
    base_url: str | None
    api_key: str | None
    system_id: str | None
    timeout: float
    no_cache: bool
    exclude: tuple[str, ...] = ()
    include_tests: bool = False


class UsageError(Exception):
    """Flags or inputs that cannot work; exit status 2."""


def _prefix(root: Path) -> str:
    # SARIF and Markdown paths are relative to the current folder (the repository root in CI).
    try:
        return root.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return ""


def resolve_options(args: argparse.Namespace, environ: Mapping[str, str]) -> CheckOptions:
    """Flags first, then the environment; raises UsageError for what cannot work, before any scan."""
    if not args.path.is_dir():
        raise UsageError(f"{args.path} is not a folder")
    root = args.path.resolve()
    for path in (args.out, args.summary):
        if path is not None:
            try:
                check_writable(path)
            except OutputError as exc:
                raise UsageError(str(exc)) from exc
    baseline = None
    if args.baseline is not None:
        from assay.backend.reports.check_result import BaselineError, baseline_fingerprints

        try:
            baseline = baseline_fingerprints(json.loads(args.baseline.read_text(encoding="utf-8")))
        except (OSError, ValueError, BaselineError) as exc:
            raise UsageError(f"cannot use the baseline {args.baseline}: {exc}") from exc
    base_url = args.base_url or environ.get(ENV_BASE_URL) or None
    api_key = environ.get(ENV_API_KEY) or None
    if base_url and args.db:
        raise UsageError("--db is for the embedded service; a remote service keeps its own database")
    if base_url and not api_key:
        raise UsageError(f"a remote service needs an API key in {ENV_API_KEY}")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    return CheckOptions(
        root=root,
        target=str(args.path),
        path_prefix=_prefix(root),
        format=args.format,
        out=args.out,
        summary=args.summary,
        fail_on=args.fail_on,
        baseline=baseline,
        db=args.db.expanduser().resolve() if args.db else None,
        base_url=base_url,
        api_key=api_key,
        system_id=args.system_id or environ.get(ENV_SYSTEM_ID) or None,
        timeout=args.timeout,
        no_cache=args.no_cache,
        exclude=tuple(args.exclude),
        include_tests=args.include_tests,
    )


def run(args: argparse.Namespace) -> int:
    try:
        options = resolve_options(args, os.environ)
    except UsageError as exc:
        print(f"assay check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    import anyio

    from assay.tools.client import AssayError

    try:
        result = anyio.run(evaluate, options)
    except AssayError as exc:
        print(f"assay check: not assessed: {exc.code}: {exc.message}", file=sys.stderr)
        print(f"assay check: next: {NEXT_STEPS.get(exc.code, exc.next_step)}", file=sys.stderr)
        return EXIT_NOT_ASSESSED
    except UsageError as exc:
        print(f"assay check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    return report(result, options)


def report(result: dict[str, Any], options: CheckOptions) -> int:
    """Apply the gate, write the outputs, and return the exit status."""
    from assay.backend.reports.check_markdown import check_markdown
    from assay.backend.reports.check_result import apply_gate
    from assay.server.check_text import check_text

    failed = apply_gate(result, options.fail_on, options.baseline)
    code = EXIT_PASSED
    if failed:
        code = EXIT_BLOCK if result["gate"]["worst"] == "BLOCK" else EXIT_REVIEW
    result["gate"]["exitCode"] = code
    rendered = render(result, options.format, options.path_prefix)
    try:
        if options.out is not None:
            write_file(options.out, rendered)
        if options.summary is not None:
            append_file(options.summary, check_markdown(result, path_prefix=options.path_prefix) + "\n")
    except OutputError as exc:
        print(f"assay check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if options.out is None:
        sys.stdout.write(rendered)
    else:
        sys.stdout.write(check_text(result, path_prefix=options.path_prefix))
        print(f"{options.format} written to {options.out}")
    return code


def render(result: dict[str, Any], fmt: str, path_prefix: str) -> str:
    """``result`` in ``fmt`` (one of FORMATS), ending with a newline."""
    if fmt == "json":
        return json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        from assay.backend.reports.sarif import check_sarif

        return json.dumps(check_sarif(result, path_prefix=path_prefix), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        from assay.backend.reports.check_markdown import check_markdown

        return check_markdown(result, path_prefix=path_prefix) + "\n"
    from assay.server.check_text import check_text

    return check_text(result, path_prefix=path_prefix)


def _scan(options: CheckOptions) -> dict[str, Any]:
    from assay.backend.engines.static.cache import DirectoryCache, default_cache_dir
    from assay.backend.engines.static.scan import scan_tree
    from assay.backend.engines.static.walk import ExcludeError, WalkError
    from assay.server.commands.scan import available_cpus

    cache = None if options.no_cache else DirectoryCache(default_cache_dir())
    try:
        return scan_tree(
            options.root,
            cache=cache,
            workers=available_cpus(),
            exclude=options.exclude,
            include_tests=options.include_tests,
        ).to_json_dict()
    except (WalkError, ExcludeError) as exc:
        raise UsageError(f"{options.target} cannot be scanned: {exc}") from exc


def nothing_to_analyse(options: CheckOptions, bundle: Mapping[str, Any]) -> None:
    """Raise "not assessed" when the scan analysed no source file: an Evaluation of nothing would be a
    REVIEW that says little and passes the default gate, which an empty or mistyped folder must not."""
    from assay.tools.client import AssayError

    coverage = bundle.get("coverage") or {}
    if (coverage.get("analysed") or {}).get("count"):
        return
    skipped = list(coverage.get("skippedFiles") or [])
    why = f"; {len(skipped)} path(s) skipped, e.g. {skipped[0]['path']} ({skipped[0]['reason']})" if skipped else ""
    raise AssayError(
        "NO_SOURCE_FILES",
        f"no Python, JavaScript or TypeScript source file to analyse under {options.target} ({options.root}){why}",
    )


async def evaluate(options: CheckOptions) -> dict[str, Any]:
    """Scan, then evaluate through the embedded or remote service; the ``assay-check/1`` result."""
    import anyio

    from assay.server.commands.scan import progress

    if options.base_url:
        await _reachable(options)  # before the scan: a service that is down is said at once
    with progress(f"scanning {options.target}"):
        bundle = await anyio.to_thread.run_sync(_scan, options)
    nothing_to_analyse(options, bundle)
    origin = "ci" if os.environ.get("CI") else "local"
    if options.base_url:
        with progress(f"evaluating {options.target} on {options.base_url}"):
            return await _remote(options, bundle, origin)
    with progress(f"evaluating {options.target}"):
        return await _embedded(options, bundle, origin)


async def _reachable(options: CheckOptions) -> None:
    """Raise AssayError (CONNECTION_FAILED naming the URL, or UNAUTHORIZED) when the service cannot be used."""
    from assay.server.embedded import open_remote
    from assay.tools.client import AssayError

    async with open_remote(options.base_url or "", options.api_key or "", workspace=options.root) as bound:
        try:
            await bound.client.get_json("/api/v1/systems")
        except AssayError as exc:
            # Any other answer (a key without system:read, say) shows a service that is up and knows the key.
            if exc.code in ("CONNECTION_FAILED", "TIMEOUT", "UNAUTHORIZED"):
                raise


async def _remote(options: CheckOptions, bundle: dict[str, Any], origin: str) -> dict[str, Any]:
    from assay.server.checking import assess_bundle
    from assay.server.embedded import open_remote
    from assay.tools.resolve import bundle_remote, resolve_system

    async with open_remote(options.base_url or "", options.api_key or "", workspace=options.root) as bound:
        system = options.system_id or await resolve_system(bound.client, options.root, bundle_remote(bundle))
        return await assess_bundle(
            bound.client,
            system,
            bundle,
            origin=origin,
            wait_seconds=options.timeout,
            target=options.target,
            mode="remote",
        )


async def _embedded(options: CheckOptions, bundle: dict[str, Any], origin: str) -> dict[str, Any]:
    from assay.backend.storage.db import sqlite_url_for
    from assay.server.checking import assess_bundle
    from assay.server.embedded import open_embedded
    from assay.server.settings import read_environment, service_settings

    environment = read_environment()
    with tempfile.TemporaryDirectory(prefix="assay-check-") as scratch:
        if options.db is not None:
            if not options.db.parent.is_dir():
                raise UsageError(f"cannot use --db {options.db}: the folder {options.db.parent} does not exist")
            # A named database keeps its workspace records and signing keys beside it, in its own folder.
            data_dir = options.db.parent
            database_url = sqlite_url_for(options.db)
        else:
            data_dir = Path(scratch)
            database_url = sqlite_url_for(data_dir / "assay.db")
        settings = replace(
            service_settings(database_url, replace(environment, data_dir=data_dir)),
            max_scan_body_bytes=EMBEDDED_MAX_SCAN_BYTES,
            runtime_allow_commands=True,
        )
        async with open_embedded(settings, options.root, log=io.StringIO()) as service:
            return await assess_bundle(
                service.binding.client,
                service.record.aiSystemId,
                bundle,
                origin=origin,
                wait_seconds=options.timeout,
                target=options.target,
                mode="embedded",
            )
