"""Facts models built from values the analyzer already holds in their exact types.

A pydantic constructor validates every field, and ``model_construct`` (written in Python) costs
more than that for these small models. The analyzer builds some 100,000 of them on a large tree,
each from values it made itself: ints from the syntax tree, its own strings, lists it owns, and
other facts models. ``trusted`` makes the same model without validating them again.

It has exactly the constructor's effect when every field is given, in declaration order, with a
value of the field's exact type (a list it will not change afterwards): the same ``__dict__``, the
same fields set, nothing extra or private. ``tests/static/test_pyast_models.py`` checks that against
the validating constructor for every model it is used for.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
_set = object.__setattr__


def trusted(cls: type[M], **fields: Any) -> M:
    """``cls(**fields)`` without validation: every field given, in order, of its exact type."""
    model = _new(cls)
    _set(model, "__dict__", fields)
    _set(model, "__pydantic_fields_set__", set(fields))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model
