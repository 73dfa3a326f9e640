"""Law packs: a framework's questions, branching, controls, citations and dates, as versioned data.

A pack is a JSON file under ``packs/`` (``<framework>-<version>.json``), validated here. Its digest is
SHA-256 over its RFC 8785 form, so an Evaluation that names a pack's id, version and digest can be traced
to the exact questions and controls that made it. A run resolves the pack in force on the date its
evidence is frozen (:func:`resolve_pack`); a pack whose date has not come yet is resolved, marked not in
force, only when no pack is in force on that date.

Branching: a question is asked only when its ``when`` condition holds on the answers given so far, so the
next question depends on earlier answers. Conditions are three-valued: one that reads an unanswered
question is undecided (None), and so is the question or control behind it.
"""

from __future__ import annotations

import json
from datetime import date
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay.backend.canonical import digest_json

Framework = Literal["nyc_ll144", "colorado_ai", "eu_ai_act"]
FRAMEWORKS: tuple[Framework, ...] = ("nyc_ll144", "colorado_ai", "eu_ai_act")
QuestionType = Literal["boolean", "choice", "date", "text"]
Answer = bool | str


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Condition(_Model):
    """``{"question", "equals"}``, ``{"question", "in"}``, ``{"all": [...]}``, ``{"any": [...]}`` or
    ``{"not": {...}}``: one of them, never several."""

    question: str | None = None
    equals: Answer | None = None
    in_: list[Answer] | None = Field(default=None, alias="in")
    all: list[Condition] | None = None
    any: list[Condition] | None = None
    not_: Condition | None = Field(default=None, alias="not")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _one_form(self) -> Condition:
        forms = [self.question is not None, self.all is not None, self.any is not None, self.not_ is not None]
        if sum(forms) != 1:
            raise ValueError("a condition has exactly one of question, all, any, not")
        if self.question is not None and (self.equals is None) == (self.in_ is None):
            raise ValueError("a question condition has exactly one of equals, in")
        return self

    def questions(self) -> set[str]:
        """Every question the condition reads."""
        if self.question is not None:
            return {self.question}
        found: set[str] = set()
        for part in [*(self.all or []), *(self.any or []), *([self.not_] if self.not_ else [])]:
            found |= part.questions()
        return found

    def holds(self, answers: dict[str, Answer]) -> bool | None:
        """True, False, or None when it reads a question not answered."""
        if self.question is not None:
            if self.question not in answers:
                return None
            value = answers[self.question]
            return value == self.equals if self.in_ is None else value in self.in_
        if self.not_ is not None:
            inner = self.not_.holds(answers)
            return None if inner is None else not inner
        parts = [p.holds(answers) for p in (self.all if self.all is not None else self.any or [])]
        if self.all is not None:
            return False if False in parts else (None if None in parts else True)
        return True if True in parts else (None if None in parts else False)


class Choice(_Model):
    value: str
    label: str


class Question(_Model):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    text: str
    type: QuestionType
    # Who can answer it: "code" questions a coding agent can answer from the source; "person" ones only
    # the people who run the system know (dates, audits, notices). Agents ask the person only those.
    askWhom: Literal["code", "person"]
    help: str = ""
    citation: str | None = None
    choices: list[Choice] = Field(default_factory=list)
    when: Condition | None = None

    @model_validator(mode="after")
    def _choices(self) -> Question:
        if (self.type == "choice") != bool(self.choices):
            raise ValueError(f"question {self.id}: choices go with type choice, and only with it")
        return self


class Requirement(_Model):
    """What a control needs: an answer (``equals``/``in``/``present``, a date ``withinDays`` before the
    evaluation date), an attached data set, or a check of an answer against the evidence (``check``)."""

    answer: str | None = None
    equals: Answer | None = None
    in_: list[Answer] | None = Field(default=None, alias="in")
    present: bool | None = None
    withinDays: int | None = None
    dataset: str | None = None
    check: Literal["human_oversight", "record_keeping", "inventory", "runtime_robustness"] | None = None

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _one_subject(self) -> Requirement:
        if sum(x is not None for x in (self.answer, self.dataset)) + (self.check is not None and not self.answer) != 1:
            raise ValueError("a requirement names one answer, one dataset, or one check")
        if self.answer is not None and self.check is None:
            kinds = [
                self.equals is not None,
                self.in_ is not None,
                self.present is not None,
                self.withinDays is not None,
            ]
            if sum(kinds) != 1:
                raise ValueError(f"requirement on {self.answer}: exactly one of equals, in, present, withinDays")
        return self


class ApplicationDate(_Model):
    """The date a control applies from, when ``when`` holds (the first matching entry counts)."""

    date: date
    when: Condition | None = None
    basis: str
    # "primary": the enacted text; "secondary": reported by secondary sources, not yet checked against
    # the official text (docs/wizard.md names them).
    sourceKind: Literal["primary", "secondary"]


class Control(_Model):
    id: str = Field(pattern=r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")
    title: str
    citation: str
    sourceIds: list[str]
    appliesWhen: Condition | None = None
    applicationDates: list[ApplicationDate] = Field(min_length=1)
    requires: list[Requirement] = Field(min_length=1)
    # How the control is closed, in words an agent can act on (verificationNeeded builds on it).
    howToClose: str


class Source(_Model):
    id: str
    title: str
    citation: str
    url: str
    kind: Literal["primary", "secondary"]


class Dataset(_Model):
    id: str
    title: str
    description: str


class LawPack(_Model):
    packFormat: Literal["assay-lawpack/1"]
    framework: Framework
    version: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    title: str
    inForceFrom: date
    inForceUntil: date | None = None
    datesNote: str
    sources: list[Source]
    datasets: list[Dataset] = Field(default_factory=list)
    questions: list[Question]
    controls: list[Control]

    @model_validator(mode="after")
    def _references(self) -> LawPack:
        ids = [q.id for q in self.questions]
        if len(ids) != len(set(ids)):
            raise ValueError("duplicate question id")
        seen: set[str] = set()
        for question in self.questions:
            # A question's condition reads only questions before it: the wizard's order is the pack's.
            if question.when is not None and not question.when.questions() <= seen:
                raise ValueError(f"question {question.id} depends on a later or unknown question")
            seen.add(question.id)
        sources = {s.id for s in self.sources}
        datasets = {d.id for d in self.datasets}
        for control in self.controls:
            reads: set[str] = set()
            for cond in [control.appliesWhen, *(d.when for d in control.applicationDates)]:
                if cond is not None:
                    reads |= cond.questions()
            reads |= {r.answer for r in control.requires if r.answer is not None}
            if not reads <= seen:
                raise ValueError(f"control {control.id} reads unknown questions {sorted(reads - seen)}")
            if not set(control.sourceIds) <= sources:
                raise ValueError(f"control {control.id} cites unknown sources")
            if any(r.dataset is not None and r.dataset not in datasets for r in control.requires):
                raise ValueError(f"control {control.id} needs an unknown dataset")
        return self

    @property
    def pack_id(self) -> str:
        return f"{self.framework}@{self.version}"

    def question(self, question_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == question_id), None)

    def in_force_on(self, day: date) -> bool:
        return self.inForceFrom <= day and (self.inForceUntil is None or day <= self.inForceUntil)


class PackRef(_Model):
    """How an Evaluation names the pack it used."""

    id: str
    framework: Framework
    version: str
    digest: str
    inForceFrom: date
    inForceUntil: date | None
    inForceOnEvaluationDate: bool


@cache
def _load_all() -> tuple[tuple[LawPack, str], ...]:
    folder = resources.files("assay.backend.engines.wizard").joinpath("packs")
    loaded: list[tuple[LawPack, str]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        raw: Any = json.loads(entry.read_text(encoding="utf-8"))
        pack = LawPack.model_validate(raw)
        if entry.name != f"{pack.framework}-{pack.version}.json":
            raise ValueError(f"law pack file {entry.name} must be named {pack.framework}-{pack.version}.json")
        loaded.append((pack, digest_json(raw)))
    return tuple(loaded)


def all_packs() -> list[tuple[LawPack, str]]:
    """Every shipped pack with its digest, by framework then version."""
    return list(_load_all())


def packs_of(framework: str) -> list[tuple[LawPack, str]]:
    return sorted(((p, d) for p, d in _load_all() if p.framework == framework), key=lambda pd: pd[0].inForceFrom)


def resolve_pack(framework: str, day: date) -> tuple[LawPack, PackRef]:
    """The pack of ``framework`` in force on ``day``; if none is, the next one to come into force (marked
    not in force); else the last one whose force ended. ValueError for an unknown framework."""
    candidates = packs_of(framework)
    if not candidates:
        raise ValueError(f"unknown framework {framework!r}; known: {', '.join(FRAMEWORKS)}")
    in_force = [pd for pd in candidates if pd[0].in_force_on(day)]
    upcoming = [pd for pd in candidates if pd[0].inForceFrom > day]
    pack, digest = in_force[-1] if in_force else (upcoming[0] if upcoming else candidates[-1])
    return pack, _ref(pack, digest, day)


def pack_by_version(framework: str, version: str, digest: str, day: date) -> tuple[LawPack, PackRef]:
    """The exact pack an assessment snapshot names; ValueError when it is not shipped or its digest differs
    (an Evaluation is never computed from another pack than the one it names)."""
    for pack, pack_digest in packs_of(framework):
        if pack.version == version:
            if pack_digest != digest:
                raise ValueError(f"law pack {framework}@{version} has digest {pack_digest}, not {digest}")
            return pack, _ref(pack, pack_digest, day)
    raise ValueError(f"law pack {framework}@{version} is not shipped with this version of Assay")


def _ref(pack: LawPack, digest: str, day: date) -> PackRef:
    return PackRef(
        id=pack.pack_id,
        framework=pack.framework,
        version=pack.version,
        digest=digest,
        inForceFrom=pack.inForceFrom,
        inForceUntil=pack.inForceUntil,
        inForceOnEvaluationDate=pack.in_force_on(day),
    )
