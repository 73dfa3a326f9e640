"""``assay assess``: wizard assessments on the service database (create, answer, attach data, show, list).

Acts on ``--database-url`` or ``ASSAY_DATABASE_URL`` (else the default SQLite file), like ``assay admin``,
creating or upgrading the schema first. With ``--json`` each command prints exactly one JSON object on
stdout, also on failure (``{"error": {"code", "message"}}``). The same checks as the API apply: a question
is answered only once the answers it depends on are given, and a data file is refused whole when any row
cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlmodel.ext.asyncio.session import AsyncSession

    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

Action = Callable[["AsyncSession", argparse.Namespace], Awaitable[dict[str, Any]]]
FRAMEWORKS = ("nyc_ll144", "colorado_ai", "eu_ai_act")


class CliError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _options(suppress: bool) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--database-url",
        metavar="URL",
        default=argparse.SUPPRESS if suppress else None,
        help="database to act on (default: $ASSAY_DATABASE_URL)",
    )
    parent.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS if suppress else False, help="print one JSON object"
    )
    return parent


def register(subparsers: _SubParsers) -> None:
    assess = subparsers.add_parser(
        "assess",
        help="wizard assessments: NYC LL144, Colorado AI, EU AI Act",
        description=__doc__,
        parents=[_options(suppress=False)],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    leaf = _options(suppress=True)
    actions = assess.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = actions.add_parser("create", help="start an assessment of an AI System", parents=[leaf])
    p.add_argument("--org", required=True, help="organization id")
    p.add_argument("--system", required=True, help="AI System id")
    p.add_argument("--framework", required=True, choices=FRAMEWORKS)
    p.set_defaults(handler=run, action_fn=_create)
    p = actions.add_parser("answer", help="answer one question (yes/no, a choice, YYYY-MM-DD or text)", parents=[leaf])
    p.add_argument("assessment_id", metavar="ID")
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("value", metavar="VALUE")
    p.add_argument("--evidence", action="append", default=[], metavar="REF", help="where the answer can be checked")
    p.set_defaults(handler=run, action_fn=_answer)
    p = actions.add_parser("attach", help="attach a data file (nyc_ll144: candidate outcomes CSV)", parents=[leaf])
    p.add_argument("assessment_id", metavar="ID")
    p.add_argument("--data", required=True, type=Path, metavar="FILE.csv")
    p.add_argument("--kind", choices=("historical", "test"), default="historical")
    p.add_argument("--dataset", default="ll144_outcomes")
    p.set_defaults(handler=run, action_fn=_attach)
    p = actions.add_parser("show", help="answers, open questions, figures and control statuses", parents=[leaf])
    p.add_argument("assessment_id", metavar="ID")
    p.set_defaults(handler=run, action_fn=_show)
    p = actions.add_parser("list", help="list assessments", parents=[leaf])
    p.add_argument("--org", required=True, help="organization id")
    p.add_argument("--system", help="only this AI System's")
    p.set_defaults(handler=run, action_fn=_list)


async def _row(session: AsyncSession, assessment_id: str) -> Any:
    from assay.backend.storage import models

    row = await session.get(models.Assessment, assessment_id)
    if row is None:
        raise CliError("NOT_FOUND", f"No assessment {assessment_id}.")
    return row


def _now() -> Any:
    from assay.backend.storage.models import utcnow

    return utcnow()


async def _view(session: AsyncSession, row: Any, **extra: Any) -> dict[str, Any]:
    from assay.backend.engines.wizard import assessments

    data = await assessments.data_of(session, row)
    return {**assessments.assessment_view(row, data, _now().date()), **extra}


async def _create(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.engines.wizard import assessments

    row = await assessments.create_assessment(session, args.org, args.system, args.framework, _now())
    return await _view(session, row)


async def _answer(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.engines.wizard import assessments

    row = await _row(session, args.assessment_id)
    row, changed = await assessments.answer_question(
        session, row.organization_id, row.id, args.question, args.value, args.evidence, _now()
    )
    return await _view(session, row, changed=changed)


async def _attach(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.engines.wizard import assessments

    row = await _row(session, args.assessment_id)
    try:
        with args.data.open("rb") as stream:
            computed = await asyncio.to_thread(assessments.compute_data, row.framework, args.dataset, stream)
    except OSError as exc:
        raise CliError("INVALID", f"cannot read {args.data}: {exc.strerror or exc}") from exc
    data = await assessments.attach_data(
        session, row, computed, dataset=args.dataset, kind=args.kind, file_name=args.data.name, now=_now()
    )
    row = await _row(session, row.id)
    await session.refresh(row)
    return await _view(session, row, attached=assessments.data_facts(data))


async def _show(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    return await _view(session, await _row(session, args.assessment_id))


async def _list(session: AsyncSession, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.engines.wizard import assessments

    rows = await assessments.list_assessments(session, args.org, args.system)
    return {
        "assessments": [
            {"assessmentId": r.id, "aiSystemId": r.ai_system_id, "framework": r.framework, "answered": len(r.answers)}
            for r in rows
        ]
    }


async def _execute(url: str, action: Action, args: argparse.Namespace) -> dict[str, Any]:
    from assay.backend.storage.db import create_engine, create_session_factory
    from assay.backend.storage.migrations import upgrade_engine

    engine = create_engine(url)
    try:
        await upgrade_engine(engine)
        async with create_session_factory(engine)() as session:
            result = await action(session, args)
            await session.commit()
            return result
    finally:
        await engine.dispose()


def _fail(args: argparse.Namespace, code: str, message: str, exit_code: int) -> int:
    if args.json:
        print(json.dumps({"error": {"code": code, "message": message}}))
    print(f"assay assess: {message}", file=sys.stderr)
    return exit_code


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return json.dumps(value, ensure_ascii=True) if isinstance(value, str) and not value.isprintable() else str(value)


def _print_human(result: dict[str, Any]) -> None:
    if "assessments" in result:
        for item in result["assessments"]:
            print(f"{item['assessmentId']}  {item['framework']}  {item['aiSystemId']}  {item['answered']} answered")
        return
    pack = result["pack"]
    print(f"assessment {result['assessmentId']}  {result['framework']}  {pack['id']}  (system {result['aiSystemId']})")
    if "changed" in result:
        print("answer recorded" if result["changed"] else "answer unchanged (same value)")
    print("\nanswers:")
    for entry in result["answers"] or [{"questionId": "-", "value": "none yet", "applies": True}]:
        note = "" if entry["applies"] else "  (ignored: earlier answers rule it out)"
        print(f"  {entry['questionId']}: {_shown(entry['value'])}{note}")
    print("\nopen questions (next first):")
    for q in result["openQuestions"] or [{"id": "-", "text": "none", "askWhom": "", "choices": []}]:
        choices = f"  [{' | '.join(c['value'] for c in q['choices'])}]" if q["choices"] else ""
        whom = f" (ask: {q['askWhom']})" if q["askWhom"] else ""
        print(f"  {q['id']}{whom}: {q['text']}{choices}")
    for data in result["data"]:
        print(
            f"\ndata: {data['dataset']} {data['fileName']} ({data['kind']}, {data['rowCount']} rows, {data['contentDigest']})"
        )
    ll144 = result["figures"].get("ll144")
    if ll144:
        print(
            f"\nLL144 {ll144['method'].replace('_', ' ')}s ({ll144['rows']} rows, unknown sex {ll144['unknown']['sex']}, "
            f"unknown race/ethnicity {ll144['unknown']['raceEthnicity']}):"
        )
        for table in ("bySex", "byRaceEthnicity", "intersectional"):
            for row in ll144[table]:
                label = " / ".join(str(row[k]) for k in ("sex", "raceEthnicity") if k in row)
                rate = "-" if row["rate"] is None else f"{row['rate']:.4f}"
                ratio = (
                    "excluded (<2%)"
                    if row["excludedFromRatios"]
                    else ("-" if row["impactRatio"] is None else f"{row['impactRatio']:.4f}")
                )
                flag = "  under 0.8 (four-fifths reference, not a pass mark)" if row["underFourFifths"] else ""
                print(f"  {label}: n={row['count']} rate={rate} impact ratio={ratio}{flag}")
    print("\ncontrols:")
    for control in result["controls"]:
        print(f"  {control['status']:<16} {control['id']}  {control['citation']}")
    print(f"\n{result['note']}")


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from assay.backend.errors import ApiError
    from assay.backend.storage.db import DatabaseUrlError
    from assay.server.settings import SettingsError, database_url, read_environment

    try:
        url = database_url(args.database_url, read_environment())
        result = asyncio.run(_execute(url, args.action_fn, args))
    except ApiError as exc:
        code = "NOT_FOUND" if exc.status == 404 else ("CONFLICT" if exc.status == 409 else "INVALID")
        return _fail(args, code, exc.message, 1)
    except CliError as exc:
        return _fail(args, exc.code, exc.message, 1)
    except (SettingsError, DatabaseUrlError) as exc:
        return _fail(args, "INVALID", str(exc), 2)
    except (SQLAlchemyError, OSError) as exc:
        return _fail(args, "DATABASE", f"database error: {type(exc).__name__}: {exc}", 1)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        _print_human(result)
    return 0
