"""The shared state of a graph of nodes (LangGraph ``StateGraph(State)``): what a node writes under a key is
what every node of the same state reads under it.

A node is a function whose first parameter is annotated with the graph's state class (``def write_query(
state: State)``), a class of the tree or of a package (``MessagesState``), not a builtin or ``typing``
container. It updates the state by returning a dict of keys (``return {"query": result.query}``) or by
storing into it (``state["query"] = answer``); another node reads the key (``state["query"]``,
``state.get("query")``). Each key of a state class is a field the linker gathers over the tree
(``link/taint.py``), as it gathers an instance's fields: ``<state class>[<key>]``. A key only constants or the
user's input are written to carries no model output. A pydantic state is read by attribute (``state.query``):
that is the same field. On a typed parameter that is no graph's state (``user.name``) the field is one no node
writes (only a dict a function typed with that class returns writes it), so the read carries nothing.
"""

from __future__ import annotations

import ast

from assay.backend.engines.static.facts import TaintOrigin

# The names a method's first parameter has, which is the instance or class, never the state.
_RECEIVERS = frozenset({"self", "cls"})
# Modules whose classes are containers and special forms, never a graph's state (``dict``, ``typing.Any``).
_CONTAINERS = frozenset({"typing", "typing_extensions", "collections", "builtins", "types", "abc"})


def state_param(params: list[str], types: dict[str, str]) -> tuple[str, str] | None:
    """The state parameter of a node: its first parameter (after ``self``), when an annotation types it."""
    for name in params:
        if name in _RECEIVERS:
            continue
        typed = types.get(name)
        if typed and "." in typed and typed.split(".", 1)[0] not in _CONTAINERS:
            return name, typed
        return None
    return None


def state_field(state_type: str, key: str) -> str:
    """The field a key of a state class is gathered under."""
    return f"{state_type}[{key}]"


def state_read(node: ast.Subscript, state: tuple[str, str]) -> TaintOrigin | None:
    """``state["query"]`` on the state parameter: the field of that key."""
    base, key = node.value, node.slice
    if type(base) is ast.Name and base.id == state[0] and type(key) is ast.Constant and type(key.value) is str:
        return TaintOrigin(kind="field", callee=state_field(state[1], key.value))
    return None


def state_attr(node: ast.Attribute, state: tuple[str, str]) -> TaintOrigin | None:
    """``state.query`` on the state parameter (a pydantic state): the field of that key."""
    base = node.value
    if type(base) is ast.Name and base.id == state[0]:
        return TaintOrigin(kind="field", callee=state_field(state[1], node.attr))
    return None


def state_get(node: ast.Call, state: tuple[str, str]) -> TaintOrigin | None:
    """``state.get("query")`` (with or without a default): the field of that key."""
    func = node.func
    if type(func) is not ast.Attribute or func.attr != "get" or not node.args:
        return None
    base, key = func.value, node.args[0]
    if type(base) is ast.Name and base.id == state[0] and type(key) is ast.Constant and type(key.value) is str:
        return TaintOrigin(kind="field", callee=state_field(state[1], key.value))
    return None


def state_target(target: ast.Subscript, state: tuple[str, str]) -> str | None:
    """``state["query"] = ...``: the field written."""
    origin = state_read(target, state)
    return origin.callee if origin is not None else None


def state_update(value: ast.Dict) -> list[tuple[str, ast.expr]]:
    """The keys a returned dict literal gives (``return {"query": q, **rest}``): (key, value) per string key."""
    return [
        (key.value, item)
        for key, item in zip(value.keys, value.values, strict=True)
        if type(key) is ast.Constant and type(key.value) is str
    ]
