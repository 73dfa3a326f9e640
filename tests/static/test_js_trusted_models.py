"""The JS/TS analyzer builds its most frequent facts (locations, calls and their argument taints,
actions, functions) without validation (``pyast.models.trusted``); each must be exactly what the
validating constructor would build from the same values: same fields in the same order, same types,
same fields set, equal, and serialised the same."""

from __future__ import annotations

from typing import Any

import pytest
from js_walk_cases import CASES
from jsfix import FIXTURES, facts_of
from pydantic import BaseModel

from assay.backend.engines.static.facts import FileFacts


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


def _assert_as_validated(model: BaseModel) -> None:
    cls = type(model)
    validated = cls(**{name: model.__dict__[name] for name in model.model_fields_set})
    assert list(model.__dict__) == list(validated.__dict__), cls.__name__
    assert model.model_fields_set == validated.model_fields_set, cls.__name__
    for name, value in model.__dict__.items():
        assert type(value) is type(validated.__dict__[name]), (cls.__name__, name)
    assert model == validated
    assert model.model_dump_json() == validated.model_dump_json()
    assert model.__pydantic_extra__ == validated.__pydantic_extra__
    assert model.__pydantic_private__ == validated.__pydantic_private__


def _all_facts() -> list[FileFacts]:
    facts = [facts_of(path, source.encode("utf-8")) for path, source in sorted(CASES.items())]
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"):
            facts.append(facts_of(path.relative_to(FIXTURES).as_posix(), path.read_bytes()))
    return facts


@pytest.mark.parametrize("facts", _all_facts(), ids=lambda f: f.path)
def test_every_model_is_as_validated(facts: FileFacts) -> None:
    models = _models(facts)
    assert len(models) > 1
    for model in models:
        _assert_as_validated(model)
