"""Text fixed in the code though assembled at run time: every piece a literal of the function.

``query = f"UPDATE appointments SET {', '.join(fields)} WHERE id = ?"`` with ``fields`` a list that
only ever receives literals (``fields.append("date = ?")``) can only be one of the texts the code
spells out: its statement is known (an ``UPDATE``), and nothing the model or a caller chose enters it.
A name is fixed when every value its function binds to it (assignments, ``+=``, ``append``/``extend``/
``insert`` on it) is fixed: a literal, a list or tuple of them, an f-string, concatenation, ``%`` or
``join``/``format`` of fixed parts, another fixed name, or a module constant. A parameter, a loop
target, a ``with ... as`` or any other binding is not.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable

from assay.backend.engines.static.pyast.syntax import child_nodes, walk

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Methods that add to a list in place, and string methods whose result is as fixed as their parts.
_GROWING = frozenset({"append", "extend", "insert"})
_STRING_METHODS = frozenset({"join", "format", "strip", "lstrip", "rstrip", "upper", "lower", "replace"})


@functools.lru_cache(maxsize=256)
def _bindings(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[tuple[ast.expr, bool], ...] | None]:
    """Each local's values, as (value, whether it replaces the name's value rather than adds to it);
    None when something other than an assignment of a value binds it (a parameter, a loop target...)."""
    found: dict[str, list[tuple[ast.expr, bool]] | None] = {
        a.arg: None for a in walk(fn.args) if isinstance(a, ast.arg)
    }

    def add(name: str, value: ast.expr | None, replaces: bool = True) -> None:
        if name in found and found[name] is None:
            return
        if value is None:
            found[name] = None
        else:
            found.setdefault(name, [])
            found[name].append((value, replaces))  # type: ignore[union-attr]

    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                add(name, None)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    add(target.id, node.value)
                else:
                    _unbind(target, add)
            stack.append(node.value)
            continue
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            if node.value is not None:
                add(node.target.id, node.value, isinstance(node, ast.AnnAssign))
                stack.append(node.value)
            continue
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.attr in _GROWING
        ):
            name = node.func.value.id
            added = node.args[-1:] if node.func.attr == "insert" else node.args[:1]
            for value in added:
                grown = value if node.func.attr == "extend" else ast.List(elts=[value], ctx=ast.Load())
                add(name, grown, False)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            add(node.id, None)
        stack.extend(child_nodes(node))
    return {name: tuple(values) if values is not None else None for name, values in found.items()}


def local_values(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[tuple[ast.expr, bool], ...] | None]:
    """Each local of ``fn`` with the values assigned to it (None when a parameter or loop binds it)."""
    return _bindings(fn)


def bound_values(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> tuple[ast.expr, ...] | None:
    """The values ``fn`` assigns to its local ``name`` (None when something else binds it)."""
    values = _bindings(fn).get(name)
    return None if values is None else tuple(v for v, replaces in values if replaces)


def _unbind(target: ast.expr, add: Callable[[str, ast.expr | None], None]) -> None:
    for node in walk(target):
        if isinstance(node, ast.Name):
            add(node.id, None)


def is_fixed(
    node: ast.expr,
    fn: ast.FunctionDef | ast.AsyncFunctionDef | None,
    module_constant: Callable[[ast.expr], bool],
    seen: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``node`` can only evaluate to text (or a list of texts) the code spells out."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(is_fixed(e, fn, module_constant, seen) for e in node.elts)
    if isinstance(node, ast.JoinedStr):
        return all(
            is_fixed(v.value, fn, module_constant, seen) for v in node.values if isinstance(v, ast.FormattedValue)
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return is_fixed(node.left, fn, module_constant, seen) and is_fixed(node.right, fn, module_constant, seen)
    if isinstance(node, ast.IfExp):
        return is_fixed(node.body, fn, module_constant, seen) and is_fixed(node.orelse, fn, module_constant, seen)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_METHODS:
        parts = [node.func.value, *node.args, *(k.value for k in node.keywords)]
        return all(is_fixed(p, fn, module_constant, seen) for p in parts)
    if isinstance(node, ast.Name):
        if module_constant(node):
            return True
        if node.id in seen or fn is None or len(seen) > 16:
            return False
        values = _bindings(fn).get(node.id)
        return bool(values) and all(is_fixed(v, fn, module_constant, seen | {node.id}) for v, _ in values or ())
    return False


def leading_text(node: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef | None, depth: int = 0) -> tuple[str, ...]:
    """The literal text each fixed value of ``node`` starts with (where its SQL keyword is)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.JoinedStr):
        first = node.values[0] if node.values else None
        return (first.value,) if isinstance(first, ast.Constant) and isinstance(first.value, str) else ()
    if isinstance(node, ast.BinOp):
        return leading_text(node.left, fn, depth + 1) if depth < 8 else ()
    if isinstance(node, ast.Name) and fn is not None and depth < 8:
        values = _bindings(fn).get(node.id) or ()
        return tuple(t for v, replaces in values if replaces for t in leading_text(v, fn, depth + 1))
    return ()
