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
# The slots every pydantic model instance has, set through their descriptors as pydantic-core does.
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def trusted(cls: type[M], **fields: Any) -> M:
    """``cls(**fields)`` without validation: every field given, in order, of its exact type."""
    model = _new(cls)
    _set_dict(model, fields)
    _set_fields_set(model, set(fields))
    _set_extra(model, None)
    _set_private(model, None)
    return model
