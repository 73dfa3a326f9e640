"""Facts models built from values the analyzer already holds in their exact types.

A pydantic constructor validates every field, and ``model_construct`` (written in Python) costs
more than that for these small models. The analyzer builds some 100,000 of them on a large tree,
each from values it made itself: ints from the syntax tree, its own strings, lists it owns, and
other facts models. ``trusted`` makes the same model without validating them again.

It has exactly the constructor's effect when every field is given (or left to a plain default), in
declaration order, with a value of the field's exact type (a list it will not change afterwards): the same ``__dict__``, the
same fields set, nothing extra or private. ``tests/static/test_pyast_models.py`` checks that against
the validating constructor for every model it is used for.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
# The slots every pydantic model instance has, set through their descriptors as pydantic-core does.
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
# Each model class's fields in declaration order with their plain defaults (reading ``model_fields``
# goes through a pydantic descriptor on every access: too slow for 100,000 models).
_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {}


def trusted(cls: type[M], **fields: Any) -> M:
    """``cls(**fields)`` without validation: every field given, in order, of its exact type; a field
    left out takes its plain default (one without a factory), as the constructor would give it."""
    model = _new(cls)
    given = set(fields)
    defaults = _DEFAULTS.get(cls)
    if defaults is None:
        defaults = _DEFAULTS[cls] = {name: info.default for name, info in cls.model_fields.items()}
    if len(fields) != len(defaults):
        # The defaults in declaration order, the given fields over them (a merge made in C); a name the
        # model does not declare is dropped, as before.
        merged = {**defaults, **fields}
        fields = merged if len(merged) == len(defaults) else {name: merged[name] for name in defaults}
    _set_dict(model, fields)
    _set_fields_set(model, given)
    _set_extra(model, None)
    _set_private(model, None)
    return model
