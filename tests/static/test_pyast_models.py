"""Facts the Python analyzer builds without validation (``pyast.models.trusted``) are exactly what the
validating constructors build: every field given in declaration order, each value of the type
validation would give it, so the models compare, hash and serialise the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from assay.backend.bundle import Location
from assay.backend.canonical import digest_bytes
from assay.backend.engines.static.facts import CallFact, FileFacts
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.python_analyzer import analyze_python
from assay.backend.engines.static.rulepack import load_rule_pack

ROOT = Path(__file__).parents[2]


def _models(value: Any) -> list[BaseModel]:
    """Every model in a facts tree, the root included."""
    found: list[BaseModel] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseModel):
            found.append(item)
            stack.extend(item.__dict__.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def _same_as_validated(model: BaseModel) -> None:
    cls = type(model)
    given = {name: model.__dict__[name] for name in model.model_fields_set}
    validated = cls(**given)
    assert list(model.__dict__) == list(validated.__dict__) == list(cls.model_fields)
    assert model.model_fields_set == validated.model_fields_set
    for name, value in model.__dict__.items():
        assert type(value) is type(validated.__dict__[name]), (cls.__name__, name)
    assert model == validated
    if not any(isinstance(v, list | dict) for v in model.__dict__.values()):  # lists make a model unhashable
        assert hash(model) == hash(validated)
    assert model.model_dump_json() == validated.model_dump_json()
    assert model.__pydantic_extra__ == validated.__pydantic_extra__
    assert model.__pydantic_private__ == validated.__pydantic_private__


def test_trusted_is_the_constructor() -> None:
    location = trusted(Location, path="a.py", line=3, column=5, endLine=4)
    _same_as_validated(location)
    _same_as_validated(trusted(CallFact, location=location, callee="m.f", resolved=True, dominatingGates=[], args=[]))


def test_every_fact_of_the_examples_and_fixtures_is_as_validated() -> None:
    rules = load_rule_pack()
    paths = sorted((ROOT / "examples").rglob("*.py")) + sorted((ROOT / "tests/static/fixtures").rglob("*.py"))
    assert paths
    kinds: set[str] = set()
    for path in paths:
        data = path.read_bytes()
        facts: FileFacts = analyze_python(path.relative_to(ROOT).as_posix(), data, digest_bytes(data), rules)
        for model in _models(facts):
            _same_as_validated(model)
            kinds.add(type(model).__name__)
    # The models ``trusted`` builds are all among those checked.
    assert {
        "Location",
        "CallFact",
        "ArgTaint",
        "ActionSite",
        "GateSite",
        "FunctionFacts",
        "ModelSite",
        "ToolDef",
    } <= kinds
