"""Helpers for the tests that hold the analyzers' unvalidated models (``pyast.models.trusted``) to what
the validating constructors build from the same values."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def models_in(value: Any) -> list[BaseModel]:
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


def assert_as_validated(model: BaseModel) -> None:
    """``model`` is exactly what its class's constructor builds from the fields it has set: same fields
    in declaration order, same types, same fields set, equal, hashed and serialised the same."""
    cls = type(model)
    validated = cls(**{name: model.__dict__[name] for name in model.model_fields_set})
    assert list(model.__dict__) == list(validated.__dict__) == list(cls.model_fields), cls.__name__
    assert model.model_fields_set == validated.model_fields_set, cls.__name__
    for name, value in model.__dict__.items():
        assert type(value) is type(validated.__dict__[name]), (cls.__name__, name)
    assert model == validated
    if not any(isinstance(v, list | dict) for v in model.__dict__.values()):  # lists make a model unhashable
        assert hash(model) == hash(validated)
    assert model.model_dump_json() == validated.model_dump_json()
    assert model.__pydantic_extra__ == validated.__pydantic_extra__
    assert model.__pydantic_private__ == validated.__pydantic_private__
