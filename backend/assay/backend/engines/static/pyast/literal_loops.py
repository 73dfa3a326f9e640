"""Loops over literal collections, unrolled: ``for name, f in {"query": q, "ls": ls}.items(): mcp.tool(name)(f)``
registers ``q`` as ``query`` and ``ls`` as ``ls``. Read only where a registration call is given a loop's name,
so the walk over the enclosing function costs nothing elsewhere."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from assay.backend.engines.static.pyast.syntax import child_nodes

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
    """The literal a name is bound to by its one assignment in the first of ``bodies`` that assigns it; a dict
    literal with the entries its body then stores under literal keys (``tools = {}`` ... ``tools["run"] = run``)."""
    for body in bodies:
        values = [
            stmt.value
            for stmt in body
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
        ]
        if values:
            if len(values) != 1:
                return None
            return _grown(name, body, values[0]) if isinstance(values[0], ast.Dict) else values[0]
    return None


def _grown(name: str, body: Sequence[ast.stmt], literal: ast.Dict) -> ast.Dict | None:
    """``literal`` with the entries ``body`` (its nested blocks too, not nested definitions) stores into ``name``
    under literal keys (``tools["run"] = run``, also under a condition: the loop may see it); ``None`` when the
    body stores under a key it computes or names the dict anywhere else than its one binding, those stores and a
    loop over it (``tools.update(...)``, ``register(tools)``): it may change."""
    keys: list[ast.expr | None] = list(literal.keys)
    values: list[ast.expr] = list(literal.values)
    allowed: set[int] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id == name:
                allowed.add(id(target))
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name:
                if not (isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)):
                    return None
                allowed.add(id(target.value))
                keys.append(target.slice)
                values.append(node.value)
        elif isinstance(node, ast.For | ast.AsyncFor):
            iterable = node.iter
            if (
                isinstance(iterable, ast.Call)
                and isinstance(iterable.func, ast.Attribute)
                and not iterable.args
                and iterable.func.attr in ("items", "values", "keys")
            ):
                iterable = iterable.func.value
            if isinstance(iterable, ast.Name):
                allowed.add(id(iterable))
        elif isinstance(node, ast.Name) and node.id == name and id(node) not in allowed:
            return None
        stack.extend(child_nodes(node))
    if len(keys) == len(literal.keys):
        return literal
    return ast.Dict(keys=keys, values=values)


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
