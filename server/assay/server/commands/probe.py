"""``assay probe``: probe one MCP server or agent endpoint with the runtime engine, embedded, and print
the disposition with what the probe pack's rules found (docs/runtime.md).

Runs the service in-process on a scratch database (or ``--db``), registers the target for the folder's
AI System (verified and consented: you are asking for the probe), creates a NEW run with the runtime
engine, and waits for its Evaluation. ``--recording RUN_ID --db PATH`` instead evaluates the recording of
an earlier probe run kept in that database in a NEW run, contacting nothing. Exit status: 0 ALLOW or
REVIEW, 1 BLOCK, 2 usage, 3 the probe failed.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

SUITES = ("catalogue", "poisoning", "annotations", "active", "agent")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "probe",
        help="probe an MCP server (command or URL) with the runtime engine",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--command", metavar="'CMD ARGS'", help="start the MCP server with this command (stdio)")
    where.add_argument("--url", metavar="URL", help="the MCP server's streamable HTTP endpoint")
    where.add_argument(
        "--recording", metavar="RUN_ID", help="evaluate the recording of this earlier probe run (with --db) anew"
    )
    parser.add_argument(
        "--suites", help=f"comma-separated, of {','.join(SUITES)} (default: catalogue,poisoning,annotations)"
    )
    parser.add_argument("--db", type=Path, metavar="PATH", help="keep the Evaluations in this SQLite file")
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait for the Evaluation")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


async def _probe(args: argparse.Namespace, suites: list[str] | None) -> dict[str, Any]:
    from assay.backend.storage.db import sqlite_url_for
    from assay.server.embedded import open_embedded
    from assay.server.settings import read_environment, service_settings
    from assay.tools.reports import evaluation_path
    from assay.tools.runs import StageReporter
    from assay.tools.runtime import resolve_target, run_probe

    environment = read_environment()
    with tempfile.TemporaryDirectory(prefix="assay-probe-cli-") as scratch:
        data_dir = args.db.parent if args.db is not None else Path(scratch)
        database_url = sqlite_url_for(args.db if args.db is not None else data_dir / "assay.db")
        settings = replace(
            service_settings(database_url, replace(environment, data_dir=data_dir)), runtime_allow_commands=True
        )
        async with open_embedded(settings, Path.cwd(), log=io.StringIO()) as service:
            bound, api = service.binding, service.binding.client
            system = service.record.aiSystemId
            body: dict[str, Any] = {"aiSystemId": system, "engines": {}}
            if args.recording is not None:
                body["externalEvidenceAttachments"] = [{"producerId": "assay-runtime", "producerRunId": args.recording}]
            else:
                target = await resolve_target(bound, system, args.command or args.url, None)
                runtime: dict[str, Any] = {"enabled": True, "targetId": target}
                if suites:
                    runtime["suites"] = suites
                body["engines"]["runtime"] = runtime
            run = await run_probe(api, body, args.timeout, StageReporter(None))
            evaluation = run.get("evaluation") or {}
            if not evaluation.get("evaluationId"):
                return {"status": run["status"], "runId": run["runId"]}
            summary: dict[str, Any] = await api.get_json(evaluation_path(evaluation["evaluationId"], "summary"))
            audit: dict[str, Any] = await api.get_json(
                evaluation_path(evaluation["evaluationId"], "agent-audit") + "?detail=full"
            )
    reasons = audit["agentAudit"]["sections"][0]["reasons"]
    return {
        "status": run["status"],
        "runId": run["runId"],
        "evaluationId": evaluation["evaluationId"],
        "disposition": summary["disposition"],
        "runtime": summary.get("runtime"),
        "reasons": reasons,
    }


def run(args: argparse.Namespace) -> int:
    import anyio

    from assay.tools.client import AssayError

    suites = [s.strip() for s in args.suites.split(",") if s.strip()] if args.suites else None
    if suites and any(s not in SUITES for s in suites):
        print(f"assay probe: --suites takes {', '.join(SUITES)}", file=sys.stderr)
        return 2
    if args.recording is not None and (args.db is None or suites):
        print(
            "assay probe: --recording needs --db (the database that holds the run) and takes no --suites",
            file=sys.stderr,
        )
        return 2
    if args.db is not None and not args.db.parent.is_dir():
        print(f"assay probe: the folder of --db {args.db} does not exist", file=sys.stderr)
        return 2
    try:
        result = anyio.run(_probe, args, suites)
    except AssayError as exc:
        if args.json:
            print(json.dumps({"error": {"code": exc.code, "message": str(exc)}}))
        print(f"assay probe: {exc}", file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"{result.get('disposition') or result['status']}  run {result['runId']}")
        for reason in result.get("reasons", []):
            print(f"  {reason['disposition']:6} {reason['ruleId']}  {reason['message']}")
    return 1 if result.get("disposition") == "BLOCK" else 0
