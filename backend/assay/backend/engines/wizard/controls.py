"""A law pack's controls decided from an assessment's answers and data, checked against the evidence.

Pure and deterministic: answers, data figures, the evaluation date and what the evidence shows in, one
result per control out. Statuses: ESTABLISHED (every requirement met), MISSING (one is not met, or an
answer is contradicted by the evidence), EVIDENCE_NEEDED (a question is unanswered or a data file is not
attached: never a pass), NOT_APPLICABLE (the answers rule the control out).

A contradiction cites both sides: the answer (``answer:<question>``) and the evidence refs that contradict
it, such as an ungated payment action in the code, or no trace at all for a logging claim.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from assay.backend.engines.wizard.lawpack import Answer, Control, LawPack, Requirement

ESTABLISHED, MISSING, EVIDENCE_NEEDED, NOT_APPLICABLE = "ESTABLISHED", "MISSING", "EVIDENCE_NEEDED", "NOT_APPLICABLE"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the evidence shows, with its evidence ref."""

    ref: str
    text: str


@dataclass(frozen=True, slots=True)
class EvidenceFacts:
    """What the run's other evidence says that answers can be checked against."""

    # Static evidence analysed (a source or an attached scan): its evidence refs.
    static_refs: list[str] = field(default_factory=list)
    # High-impact actions (payment, shell, deletion, messaging...) no human-approval gate dominates.
    unapproved_actions: list[Finding] = field(default_factory=list)
    # Runtime evidence (ingested traces, logs, structured events): its evidence refs.
    runtime_refs: list[str] = field(default_factory=list)
    # Runtime probe sessions of the runtime engine (Art. 15 robustness cites them where present).
    probe_refs: list[str] = field(default_factory=list)
    # The inventory Annex IV is pre-filled with: tools, models, action classes, gate kinds.
    inventory: dict[str, list[str]] = field(default_factory=dict)


def answer_value(answers: dict[str, Any], question: str) -> Answer | None:
    entry = answers.get(question)
    return None if entry is None else entry["value"]


def plain_answers(answers: dict[str, Any]) -> dict[str, Answer]:
    return {q: entry["value"] for q, entry in answers.items()}


def asked(pack: LawPack, values: dict[str, Answer]) -> dict[str, bool | None]:
    """Per question, in the wizard's order: asked (True), ruled out by earlier answers (False), or
    undecided (None). Answers to ruled-out questions are not read; a condition that reads only ruled-out
    questions besides answered ones rules its question out too."""
    state: dict[str, bool | None] = {}
    live: dict[str, Answer] = {}
    for q in pack.questions:
        holds = True if q.when is None else q.when.holds(live)
        if holds is None and q.when is not None:
            pending = [x for x in q.when.questions() if x not in live]
            if all(state.get(x) is False for x in pending):
                holds = False
        state[q.id] = holds
        if holds is True and q.id in values:
            live[q.id] = values[q.id]
    return state


def _requirement(
    req: Requirement,
    values: dict[str, Answer],
    asked_now: dict[str, bool | None],
    data: dict[str, dict[str, Any]],
    as_of: date,
    evidence: EvidenceFacts | None,
) -> dict[str, Any]:
    if req.dataset is not None:
        attached = data.get(req.dataset)
        if attached is None:
            return _req(
                "data", req.dataset, EVIDENCE_NEEDED, f"data file {req.dataset} is not attached", [], [req.dataset]
            )
        return _req(
            "data", req.dataset, ESTABLISHED, f"{attached['rowCount']} rows attached", [f"data:{req.dataset}"], []
        )
    if req.answer is None:
        return _check(req, None, evidence)
    question = req.answer
    value = values.get(question)
    ref = [f"answer:{question}"]
    if value is None:
        if asked_now.get(question) is False:
            return _req("answer", question, MISSING, "not asked: earlier answers rule it out", [], [])
        return _req("answer", question, EVIDENCE_NEEDED, "unanswered", [], [question])
    if req.equals is not None or req.in_ is not None:
        wanted = [req.equals] if req.equals is not None else list(req.in_ or [])
        if value not in wanted:
            return _req("answer", question, MISSING, f"answered {_shown(value)}", ref, [question])
    elif req.withinDays is not None:
        answered = date.fromisoformat(str(value))
        age = (as_of - answered).days
        if age < 0 or age > req.withinDays:
            detail = (
                f"{answered.isoformat()} is after the evaluation date {as_of.isoformat()}"
                if age < 0
                else f"{answered.isoformat()} is {age} days before {as_of.isoformat()}, over {req.withinDays}"
            )
            return _req("answer", question, MISSING, detail, ref, [question])
    if req.check is not None:
        return _check(req, _req("answer", question, ESTABLISHED, f"answered {_shown(value)}", ref, []), evidence)
    return _req("answer", question, ESTABLISHED, f"answered {_shown(value)}", ref, [])


def _check(req: Requirement, answered: dict[str, Any] | None, evidence: EvidenceFacts | None) -> dict[str, Any]:
    """An answer checked against the evidence (or, without an answer, what the evidence alone shows)."""
    subject = req.answer or req.check or ""
    if req.check == "inventory":
        if evidence is None or not evidence.static_refs:
            return _req(
                "evidence", "inventory", EVIDENCE_NEEDED, "no source evidence in this run", [], ["engines.static"]
            )
        return _req(
            "evidence", "inventory", ESTABLISHED, "pre-filled from the static evidence", evidence.static_refs, []
        )
    assert answered is not None
    if evidence is None:
        # An assessment read outside a run: the answer stands until a run checks it against the evidence.
        return {**answered, "detail": f"{answered['detail']}; checked against the evidence in a run"}
    if req.check == "human_oversight" and evidence.unapproved_actions:
        shown_actions = evidence.unapproved_actions[:5]
        more = len(evidence.unapproved_actions) - len(shown_actions)
        detail = (
            f"answered yes, but the code has {len(evidence.unapproved_actions)} high-impact action(s) no human "
            f"approval gates: {'; '.join(a.text for a in shown_actions)}{f' and {more} more' if more else ''}"
        )
        refs = answered["evidenceRefs"] + [a.ref for a in evidence.unapproved_actions[:20]]
        return {**_req("contradiction", subject, MISSING, detail, refs, [subject]), "contradiction": True}
    if req.check == "record_keeping":
        if not evidence.runtime_refs:
            detail = "answered yes, but no trace, log or event of the system reached Assay in this run"
            return {
                **_req("contradiction", subject, MISSING, detail, answered["evidenceRefs"], [subject]),
                "contradiction": True,
            }
        return {**answered, "evidenceRefs": answered["evidenceRefs"] + evidence.runtime_refs[:20]}
    if req.check == "runtime_robustness" and (evidence.probe_refs or evidence.runtime_refs):
        cited = (evidence.probe_refs + evidence.runtime_refs)[:20]
        return {**answered, "evidenceRefs": answered["evidenceRefs"] + cited}
    if req.check == "human_oversight" and not evidence.static_refs:
        return {**answered, "detail": f"{answered['detail']}; no source evidence in this run to check it against"}
    if req.check == "human_oversight":
        return {**answered, "evidenceRefs": answered["evidenceRefs"] + evidence.static_refs}
    return answered


def _req(kind: str, subject: str, status: str, detail: str, refs: list[str], closes: list[str]) -> dict[str, Any]:
    return {
        "kind": kind,
        "subject": subject,
        "status": status,
        "detail": detail,
        "evidenceRefs": refs,
        "closedBy": closes,
        "contradiction": False,
    }


def _shown(value: Answer) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value if len(value) <= 80 else value[:80] + "..."


def application_date(control: Control, values: dict[str, Answer]) -> tuple[date, str, str] | None:
    """The control's application date, its basis and source kind (None while a deciding answer is missing)."""
    for entry in control.applicationDates:
        holds = True if entry.when is None else entry.when.holds(values)
        if holds is None:
            return None
        if holds:
            return entry.date, entry.basis, entry.sourceKind
    last = control.applicationDates[-1]
    return last.date, last.basis, last.sourceKind


def decide(
    pack: LawPack,
    answers: dict[str, Any],
    data: dict[str, dict[str, Any]],
    as_of: date,
    evidence: EvidenceFacts | None,
) -> list[dict[str, Any]]:
    """Every control of ``pack`` with its status (see the module docstring)."""
    values = plain_answers(answers)
    asked_now = asked(pack, values)
    # Answers to questions the current answers rule out are ignored (kept in the assessment, unused).
    values = {q: v for q, v in values.items() if asked_now.get(q) is True}
    out = []
    for control in pack.controls:
        applies = True if control.appliesWhen is None else control.appliesWhen.holds(values)
        if applies is None and control.appliesWhen is not None:
            pending = [q for q in control.appliesWhen.questions() if q not in values]
            if all(asked_now.get(q) is False for q in pending):
                applies = False  # it reads only questions the answers rule out
        when = application_date(control, values)
        base: dict[str, Any] = {
            "id": control.id,
            "title": control.title,
            "citation": control.citation,
            "appliesFrom": when[0].isoformat() if when else None,
            "dateBasis": when[1] if when else None,
            "dateSourceKind": when[2] if when else None,
            "inForce": bool(when and when[0] <= as_of),
        }
        if applies is False:
            out.append(
                {
                    **base,
                    "status": NOT_APPLICABLE,
                    "contradiction": False,
                    "requirements": [],
                    "evidenceRefs": [
                        f"answer:{q}" for q in sorted(control.appliesWhen.questions() if control.appliesWhen else [])
                    ],
                    "closedBy": [],
                    "howToClose": control.howToClose,
                }
            )
            continue
        if applies is None:
            deciding = sorted(
                q for q in (control.appliesWhen.questions() if control.appliesWhen else set()) if q not in values
            )
            requirements = [
                _req("answer", q, EVIDENCE_NEEDED, "unanswered: decides whether the control applies", [], [q])
                for q in deciding
            ]
        else:
            requirements = [_requirement(r, values, asked_now, data, as_of, evidence) for r in control.requires]
        statuses = {r["status"] for r in requirements}
        status = MISSING if MISSING in statuses else (EVIDENCE_NEEDED if EVIDENCE_NEEDED in statuses else ESTABLISHED)
        refs = sorted({ref for r in requirements for ref in r["evidenceRefs"]})
        closes = sorted({c for r in requirements if r["status"] != ESTABLISHED for c in r["closedBy"]})
        out.append(
            {
                **base,
                "status": status,
                "contradiction": any(r["contradiction"] for r in requirements),
                "requirements": requirements,
                "evidenceRefs": refs,
                "closedBy": closes,
                "howToClose": control.howToClose,
            }
        )
    return out
