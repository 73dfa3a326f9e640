"""Assessments: create, read, answer (idempotent per question id), attach data, list; and the snapshot
a run freezes.

Every function takes the caller's organization; another organization's assessment is the same 404 as a
missing one. Answers are checked against the law pack before anything is written: an unknown question,
a question not asked yet (its condition reads an unanswered question) or ruled out by earlier answers,
and a value of the wrong type are refused with a message that says what to do. Each write is one
transaction, applied only to the revision it read, so nothing is half-written or lost.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import IO, Any

import orjson
from sqlalchemy import update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from assay.backend.canonical import canonical_bytes
from assay.backend.engines.wizard import ll144
from assay.backend.engines.wizard.controls import EvidenceFacts, asked, decide, plain_answers
from assay.backend.engines.wizard.figures import framework_figures
from assay.backend.engines.wizard.lawpack import FRAMEWORKS, Answer, LawPack, Question, resolve_pack
from assay.backend.errors import ApiError, not_found
from assay.backend.storage import models

ASSESSMENT_PREFIX = "asm"
DATA_PREFIX = "asd"
DATA_KINDS = ("historical", "test")
MAX_TEXT_ANSWER = 2000
MAX_EVIDENCE_REFS = 20
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def _invalid(message: str) -> ApiError:
    return ApiError("INVALID_REQUEST", message)


def check_framework(framework: str) -> str:
    if framework not in FRAMEWORKS:
        raise _invalid(f"Unknown framework {framework!r}; use one of: {', '.join(FRAMEWORKS)}.")
    return framework


async def create_assessment(
    session: AsyncSession, organization_id: str, ai_system_id: str, framework: str, now: datetime
) -> models.Assessment:
    check_framework(framework)
    system = await session.get(models.AiSystem, ai_system_id)
    if system is None or system.organization_id != organization_id:
        raise not_found("AI_SYSTEM_NOT_FOUND", "AI System")
    pack, _ref = resolve_pack(framework, now.date())
    row = models.Assessment(
        id=models.new_id(ASSESSMENT_PREFIX),
        organization_id=organization_id,
        ai_system_id=system.id,
        framework=framework,
        pack_version=pack.version,
        answers={},
        data={},
        revision=0,
        created_at=now,
        updated_at=now,
    )
    session.add(row)
    await session.commit()
    return row


async def load_assessment(session: AsyncSession, organization_id: str, assessment_id: str) -> models.Assessment:
    row = await session.get(models.Assessment, assessment_id, populate_existing=True)
    if row is None or row.organization_id != organization_id:
        raise not_found(what="assessment")
    return row


async def list_assessments(
    session: AsyncSession, organization_id: str, ai_system_id: str | None = None
) -> list[models.Assessment]:
    query = select(models.Assessment).where(models.Assessment.organization_id == organization_id)
    if ai_system_id is not None:
        query = query.where(models.Assessment.ai_system_id == ai_system_id)
    query = query.order_by(col(models.Assessment.created_at).desc(), col(models.Assessment.id))
    return list((await session.exec(query)).all())


async def data_of(session: AsyncSession, row: models.Assessment) -> dict[str, dict[str, Any]]:
    """The attached data sets by dataset id, as the controls and figures read them."""
    out: dict[str, dict[str, Any]] = {}
    for dataset, data_id in sorted(row.data.items()):
        data = await session.get(models.AssessmentData, data_id)
        if data is not None:
            out[dataset] = data_facts(data)
    return out


def data_facts(data: models.AssessmentData) -> dict[str, Any]:
    return {
        "dataId": data.id,
        "dataset": data.dataset,
        "kind": data.kind,
        "fileName": data.file_name,
        "contentDigest": data.content_digest,
        "byteCount": data.byte_count,
        "rowCount": data.row_count,
        "figures": orjson.loads(data.figures_json),
    }


def parse_value(question: Question, raw: Any) -> Answer:
    """The answer as stored: a bool, a choice value, an ISO date or text. INVALID_REQUEST otherwise."""
    where = f"question {question.id} ({question.type})"
    if question.type == "boolean":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ("yes", "true", "no", "false"):
            return raw.strip().lower() in ("yes", "true")
        raise _invalid(f"{where} takes yes or no (true or false).")
    if not isinstance(raw, str):
        raise _invalid(f"{where} takes a string.")
    value = raw.strip()
    if question.type == "choice":
        allowed = [c.value for c in question.choices]
        if value not in allowed:
            raise _invalid(f"{where} takes one of: {', '.join(allowed)}.")
        return value
    if question.type == "date":
        try:
            return (
                date.fromisoformat(value).isoformat() if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else _bad_date(where)
            )
        except ValueError:
            return _bad_date(where)
    if not value or len(value) > MAX_TEXT_ANSWER:
        raise _invalid(f"{where} takes text of 1 to {MAX_TEXT_ANSWER} characters.")
    if any(ord(c) < 32 and c not in "\n\t" for c in value):
        raise _invalid(f"{where}: the text holds control characters.")
    return value


def _bad_date(where: str) -> str:
    raise _invalid(f"{where} takes a date written YYYY-MM-DD.")


def check_answerable(pack: LawPack, answers: dict[str, Any], question_id: str) -> Question:
    """The question, if it may be answered now (the wizard's order); INVALID_REQUEST otherwise."""
    question = pack.question(question_id)
    if question is None:
        known = ", ".join(q.id for q in pack.questions)
        raise _invalid(f"{pack.framework} has no question {question_id!r}; its questions are: {known}.")
    state = asked(pack, plain_answers(answers)).get(question.id)
    if state is None:
        assert question.when is not None
        missing = sorted(q for q in question.when.questions() if q not in answers)
        raise _invalid(
            f"Question {question.id} is not asked yet: it depends on {', '.join(missing)}; answer "
            f"{'that' if len(missing) == 1 else 'those'} first."
        )
    if state is False:
        assert question.when is not None
        raise _invalid(
            f"Question {question.id} does not apply given the answers to {', '.join(sorted(question.when.questions()))}."
        )
    return question


def check_evidence_refs(refs: Any) -> list[str]:
    if not isinstance(refs, list) or len(refs) > MAX_EVIDENCE_REFS:
        raise _invalid(f"evidenceRefs is a list of at most {MAX_EVIDENCE_REFS} strings.")
    out = []
    for ref in refs:
        if not isinstance(ref, str) or not 0 < len(ref) <= 500 or any(ord(c) < 32 for c in ref):
            raise _invalid("Each evidence ref is a string of 1 to 500 printable characters (a path, URL or id).")
        out.append(ref)
    return sorted(set(out))


async def _apply(session: AsyncSession, row: models.Assessment, now: datetime, **values: Any) -> models.Assessment:
    """Write ``values`` only if the row is still at the revision read; INVALID_REQUEST... never: a lost race
    is retried by the caller reading again (RUN_CONFLICT after that)."""
    result = await session.exec(
        update(models.Assessment)
        .where(col(models.Assessment.id) == row.id, col(models.Assessment.revision) == row.revision)
        .values(revision=row.revision + 1, updated_at=now, **values)
        .execution_options(synchronize_session=False)
    )
    await session.commit()
    if not result.rowcount:
        raise ApiError("RUN_CONFLICT", "The assessment changed while this request was applied; send it again.")
    return await load_assessment(session, row.organization_id, row.id)


def pack_of(row: models.Assessment, day: date) -> LawPack:
    return resolve_pack(row.framework, day)[0]


async def answer_question(
    session: AsyncSession,
    organization_id: str,
    assessment_id: str,
    question_id: str,
    raw: Any,
    evidence_refs: Any,
    now: datetime,
) -> tuple[models.Assessment, bool]:
    """Record an answer; ``(assessment, changed)``. The same answer again changes nothing."""
    row = await load_assessment(session, organization_id, assessment_id)
    pack = pack_of(row, now.date())
    question = check_answerable(pack, row.answers, question_id)
    value = parse_value(question, raw)
    refs = check_evidence_refs(evidence_refs if evidence_refs is not None else [])
    entry = {"value": value, "evidenceRefs": refs, "answeredAt": _iso(now)}
    current = row.answers.get(question.id)
    if current is not None and current["value"] == value and current.get("evidenceRefs", []) == refs:
        return row, False
    answers = {**row.answers, question.id: entry}
    return await _apply(session, row, now, answers=answers), True


@dataclass(frozen=True, slots=True)
class ComputedData:
    figures: dict[str, Any]
    digest: str
    byte_count: int


class _Digesting:
    """A byte stream that hashes and counts what is read through it."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._start = stream.tell() if stream.seekable() else 0
        self.sha = hashlib.sha256()
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self.sha.update(data)
        self.count += len(data)
        return data

    def readable(self) -> bool:
        return True

    @property
    def closed(self) -> bool:
        return self._stream.closed

    def seekable(self) -> bool:
        return self._stream.seekable()

    def tell(self) -> int:
        return self.count

    def seek(self, offset: int, whence: int = 0) -> int:
        """Back to the start only (the data is read again from there): the digest and count start over."""
        if offset != 0 or whence != 0:
            raise ValueError("only seek(0) is supported")
        self._stream.seek(self._start)
        self.sha = hashlib.sha256()
        self.count = 0
        return 0


def compute_data(framework: str, dataset: str, stream: IO[bytes]) -> ComputedData:
    """Figures of a data file (CPU work: callers run it in a worker thread). INVALID_REQUEST for a data set
    the framework does not take or data it cannot use."""
    if framework != "nyc_ll144" or dataset != "ll144_outcomes":
        raise _invalid(f"{framework} takes no data set {dataset!r}; only nyc_ll144 takes ll144_outcomes (a CSV).")
    digesting = _Digesting(stream)
    try:
        figures = ll144.compute(digesting)  # type: ignore[arg-type]
    except ll144.DataError as exc:
        raise _invalid(f"The CSV cannot be used: {exc}") from exc
    return ComputedData(figures, f"sha256:{digesting.sha.hexdigest()}", digesting.count)


def safe_file_name(name: str | None) -> str:
    base = (name or "data.csv").replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = _SAFE_NAME.sub("_", base).strip("._") or "data.csv"
    return cleaned[:100]


async def attach_data(
    session: AsyncSession,
    row: models.Assessment,
    computed: ComputedData,
    *,
    dataset: str,
    kind: str,
    file_name: str | None,
    now: datetime,
) -> models.AssessmentData:
    """Store a computed data file and make it the assessment's ``dataset`` (one transaction)."""
    if kind not in DATA_KINDS:
        raise _invalid(f"kind is one of: {', '.join(DATA_KINDS)}.")
    data = models.AssessmentData(
        id=models.new_id(DATA_PREFIX),
        organization_id=row.organization_id,
        assessment_id=row.id,
        dataset=dataset,
        kind=kind,
        file_name=safe_file_name(file_name),
        content_digest=computed.digest,
        byte_count=computed.byte_count,
        row_count=int(computed.figures["rows"]),
        figures_json=canonical_bytes(computed.figures).decode("utf-8"),
        created_at=now,
    )
    session.add(data)
    result = await session.exec(
        update(models.Assessment)
        .where(col(models.Assessment.id) == row.id, col(models.Assessment.revision) == row.revision)
        .values(revision=row.revision + 1, updated_at=now, data={**row.data, dataset: data.id})
        .execution_options(synchronize_session=False)
    )
    if not result.rowcount:
        await session.rollback()
        raise ApiError("RUN_CONFLICT", "The assessment changed while the data was attached; send it again.")
    await session.commit()
    return data


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _questions(pack: LawPack, answers: dict[str, Any]) -> Iterator[dict[str, Any]]:
    state = asked(pack, plain_answers(answers))
    for q in pack.questions:
        yield {
            "id": q.id,
            "text": q.text,
            "type": q.type,
            "askWhom": q.askWhom,
            "citation": q.citation,
            "help": q.help or None,
            "choices": [c.model_dump() for c in q.choices],
            "state": "answered"
            if q.id in answers and state[q.id] is True
            else ("open" if state[q.id] is True else ("waiting" if state[q.id] is None else "not_applicable")),
        }


def assessment_view(
    row: models.Assessment, data: dict[str, dict[str, Any]], today: date, evidence: EvidenceFacts | None = None
) -> dict[str, Any]:
    """The assessment as the API, the CLI and MCP show it: answers, the open questions in the wizard's
    order (the next one first), data, computed figures, and the control statuses as the answers and data
    alone decide them (a run also checks them against the code and traces)."""
    pack, ref = resolve_pack(row.framework, today)
    questions = list(_questions(pack, row.answers))
    state = {q["id"]: q["state"] for q in questions}
    open_questions = [q for q in questions if q["state"] == "open"]
    controls = decide(pack, row.answers, data, today, evidence)
    return {
        "assessmentId": row.id,
        "aiSystemId": row.ai_system_id,
        "framework": row.framework,
        "pack": ref.model_dump(mode="json"),
        "revision": row.revision,
        "createdAt": _iso(row.created_at),
        "updatedAt": _iso(row.updated_at),
        "answers": [
            {
                "questionId": q,
                "value": e["value"],
                "evidenceRefs": e.get("evidenceRefs", []),
                "answeredAt": e["answeredAt"],
                "applies": state.get(q) == "answered",
            }
            for q, e in sorted(row.answers.items())
        ],
        "nextQuestion": open_questions[0] if open_questions else None,
        "openQuestions": open_questions,
        "complete": not open_questions and not any(s == "waiting" for s in state.values()),
        "data": [{k: v for k, v in d.items() if k != "figures"} for d in data.values()],
        "figures": framework_figures(pack, row.answers, data, evidence),
        "controls": controls,
        "timeBasis": "CURRENT_CONTEXT",
        "note": "Control statuses here come from the answers and data alone; a run with engines.wizard freezes "
        "them and checks the answers against the code and traces.",
    }


def snapshot(row: models.Assessment, data: dict[str, dict[str, Any]], day: date) -> dict[str, Any]:
    """What a run freezes at creation: the pack in force on ``day`` and the answers and data as they are."""
    pack, ref = resolve_pack(row.framework, day)
    return {
        "assessmentId": row.id,
        "framework": row.framework,
        "asOf": day.isoformat(),
        "pack": {"version": pack.version, "digest": ref.digest},
        "answers": {
            q: {"value": e["value"], "evidenceRefs": e.get("evidenceRefs", [])} for q, e in row.answers.items()
        },
        "data": {dataset: facts["dataId"] for dataset, facts in data.items()},
    }


async def freeze_for_run(
    session: AsyncSession,
    organization_id: str,
    ai_system_id: str,
    *,
    assessment_id: str | None,
    framework: str | None,
    jurisdiction: str | None,
    day: date,
) -> dict[str, Any]:
    """The snapshot a run's plan freezes for ``engines.wizard``; INVALID_REQUEST or 404 when it cannot."""
    if assessment_id is None:
        raise _invalid(
            "engines.wizard needs assessmentId: create an assessment (POST /api/v1/assessments or assay assess "
            "create) and answer its questions first."
        )
    row = await load_assessment(session, organization_id, assessment_id)
    if row.ai_system_id != ai_system_id:
        raise _invalid("engines.wizard.assessmentId is an assessment of another AI System.")
    if framework is not None and framework != row.framework:
        raise _invalid(f"engines.wizard.framework is {framework!r}, but the assessment is of {row.framework!r}.")
    if jurisdiction is not None and jurisdiction != row.framework:
        raise _invalid(
            f"jurisdiction is {jurisdiction!r}, but the assessment is of {row.framework!r}; give the same framework."
        )
    return snapshot(row, await data_of(session, row), day)


async def frozen_payload(session: AsyncSession, organization_id: str, frozen: dict[str, Any]) -> dict[str, Any]:
    """The wizard evidence of a run: its frozen snapshot with the figures of the data files it froze (those
    rows are immutable). LookupError when one no longer exists. No assessment id, no time but the date."""
    data: dict[str, Any] = {}
    for dataset, data_id in sorted(frozen["data"].items()):
        row = await session.get(models.AssessmentData, data_id)
        if row is None or row.organization_id != organization_id:
            raise LookupError(data_id)
        facts = data_facts(row)
        data[dataset] = {k: facts[k] for k in ("dataset", "kind", "fileName", "contentDigest", "rowCount", "figures")}
    return {
        "framework": frozen["framework"],
        "asOf": frozen["asOf"],
        "pack": {"id": f"{frozen['framework']}@{frozen['pack']['version']}", **frozen["pack"]},
        "answers": frozen["answers"],
        "data": data,
    }
