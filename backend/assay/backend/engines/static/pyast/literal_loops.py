"""Loops over literal collections, unrolled: ``for name, f in {"query": q, "ls": ls}.items(): mcp.tool(name)(f)``
registers ``q`` as ``query`` and ``ls`` as ``ls``. Read only where a registration call is given a loop's name,
so the walk over the enclosing function costs nothing elsewhere."""

from __future__ import annotations

import ast
from collections.abc import Sequence

# One unrolled iteration: the loop's names bound to the expressions that iteration gives them.
Binding = dict[str, ast.expr]


def enclosing_loop(body: Sequence[ast.stmt], node: ast.AST) -> ast.For | ast.AsyncFor | None:
    """The innermost ``for`` of ``body`` (nested blocks included, nested definitions not) holding ``node``."""
    found: ast.For | ast.AsyncFor | None = None
    stack: list[ast.stmt | ast.excepthandler] = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if not (stmt.lineno <= node.lineno <= (stmt.end_lineno or stmt.lineno)):  # type: ignore[attr-defined]
            continue
        if isinstance(stmt, ast.For | ast.AsyncFor):
            found = stmt
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(s for s in getattr(stmt, field, ()) if isinstance(s, ast.stmt | ast.excepthandler))
    return found


def _bound_once(name: str, bodies: Sequence[Sequence[ast.stmt]]) -> ast.expr | None:
    """The literal a name is bound to by its one assignment in the first of ``bodies`` that assigns it."""
    for body in bodies:
        values = [
            stmt.value
            for stmt in body
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
        ]
        if values:
            return values[0] if len(values) == 1 else None
    return None


def unrolled(loop: ast.For | ast.AsyncFor, bodies: Sequence[Sequence[ast.stmt]]) -> list[Binding] | None:
    """Each iteration of ``loop`` when it walks a literal (a dict's ``items()``/``values()``/keys, a list or
    tuple, written in place or bound once to a name of the function, class or module): what it binds its
    names to; ``None`` for a loop over anything else."""
    iterable = loop.iter
    method = None
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and not iterable.args:
        method, iterable = iterable.func.attr, iterable.func.value
    if isinstance(iterable, ast.Name):
        iterable = _bound_once(iterable.id, bodies) or iterable
    items: list[ast.expr]
    if isinstance(iterable, ast.Dict) and method in ("items", "values", None):
        if any(k is None for k in iterable.keys):
            return None
        if method == "items":
            items = [ast.Tuple(elts=[k, v]) for k, v in zip(iterable.keys, iterable.values, strict=True)]  # type: ignore[list-item]
        else:
            items = list(iterable.values if method == "values" else iterable.keys)  # type: ignore[arg-type]
    elif isinstance(iterable, ast.List | ast.Tuple) and method is None:
        items = list(iterable.elts)
    else:
        return None
    target = loop.target
    out: list[Binding] = []
    for item in items:
        if isinstance(target, ast.Name):
            out.append({target.id: item})
        elif isinstance(target, ast.Tuple) and isinstance(item, ast.Tuple) and len(item.elts) == len(target.elts):
            out.append({t.id: v for t, v in zip(target.elts, item.elts, strict=True) if isinstance(t, ast.Name)})
        else:
            return None
    return out
