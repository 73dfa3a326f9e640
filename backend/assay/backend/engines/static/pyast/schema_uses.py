"""Where a tool-shaped schema literal goes: to a model as a tool, or only somewhere that shapes or checks data.

A dict with a name and a JSON schema of arguments (``{"name": ..., "parameters": {...}}``) is a tool when a
model is given it to call. The same shape also serves structured output (``response_format=``,
``response_schema=``), validation (``jsonschema.validate(x, SCHEMA["parameters"])``) and serialisation
(``json.dump(FUNCTIONS, f)``). A literal whose every use in its file is one of those (a keyword that shapes a
reply, a call that checks or writes data, a part taken out of it) is not offered to a model there and is no
tool; a literal with no use in its file, or any other use (a ``tools=`` keyword, a list, a prompt, a return,
an argument of a function of the code), stays a tool: nothing says it is not given to a model.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from assay.backend.engines.static.pyast.syntax import child_nodes, walk
from assay.backend.engines.static.rules.match import Patterns

Parents = dict[int, ast.AST]
# The names loaded in a scope (a function, or the module), by name, in ``ast.walk`` order; by the scope's ``id``.
Loads = dict[int, dict[str, list[ast.Name]]]

# Keys of a tool schema that name a part of it, never a tool (``SCHEMA["parameters"]``).
_PARTS = frozenset({"name", "description", "parameters", "input_schema", "inputSchema", "properties", "required"})


def parents_of(tree: ast.AST) -> Parents:
    """Each node's parent, by the child's ``id`` (the leaves that hold nothing, ``Load``, ``Add``..., left out)."""
    return {id(child): parent for parent in walk(tree) for child in child_nodes(parent)}


def only_shapes_data(
    node: ast.expr,
    tree: ast.Module,
    parents: Parents,
    callee: Callable[[ast.expr], str | None],
    kwargs: frozenset[str],
    calls: Patterns,
    loads: Loads,
) -> bool:
    """Whether every use of the literal ``node`` (directly, or through the name it is assigned to) shapes a
    reply, checks or writes data, or takes a part of it; ``False`` when it has no use in the file. ``loads``
    keeps each scope's loaded names once read, for the file's other literals."""
    holder = _holder(node, parents, kwargs)
    if holder is None:
        return True  # under a key that shapes a reply (``{"response_format": {...}}``)
    parent = parents.get(id(holder))
    if isinstance(parent, ast.Assign | ast.AnnAssign) and parent.value is holder:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return False
        uses = _loads(targets[0].id, _scope_of(parent, tree, parents), loads)
        return bool(uses) and all(_shapes_data(use, parents, callee, kwargs, calls) for use in uses)
    return _shapes_data(holder, parents, callee, kwargs, calls)


def _holder(node: ast.expr, parents: Parents, kwargs: frozenset[str]) -> ast.expr | None:
    """The expression that carries the literal: the list or dict it is an element or value of, outwards;
    ``None`` when it is the value of a key that shapes a reply."""
    current: ast.expr = node
    while True:
        parent = parents.get(id(current))
        if isinstance(parent, ast.Dict):
            key = next((k for k, v in zip(parent.keys, parent.values, strict=True) if v is current), None)
            if isinstance(key, ast.Constant) and key.value in kwargs:
                return None
            if any(v is current for v in parent.values):
                current = parent
                continue
        if isinstance(parent, ast.List | ast.Tuple):
            current = parent
            continue
        return current


def _scope_of(stmt: ast.AST, tree: ast.Module, parents: Parents) -> ast.AST:
    """The function that holds ``stmt``, else the module."""
    current = parents.get(id(stmt))
    while current is not None:
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return current
        current = parents.get(id(current))
    return tree


def _loads(name: str, scope: ast.AST, loads: Loads) -> list[ast.Name]:
    """Where ``scope`` loads ``name``, in ``ast.walk`` order: the scope is read once for all its names."""
    by_name = loads.get(id(scope))
    if by_name is None:
        by_name = loads[id(scope)] = {}
        for n in walk(scope):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                by_name.setdefault(n.id, []).append(n)
    return by_name.get(name, [])


def _shapes_data(
    use: ast.expr,
    parents: Parents,
    callee: Callable[[ast.expr], str | None],
    kwargs: frozenset[str],
    calls: Patterns,
) -> bool:
    parent = parents.get(id(use))
    if isinstance(parent, ast.Subscript) and parent.value is use:
        # ``SCHEMA["parameters"]``: a part of it, not the tool (``TOOLS[0]`` may be one of the tools).
        key = parent.slice
        return isinstance(key, ast.Constant) and key.value in _PARTS
    if isinstance(parent, ast.keyword):
        if parent.arg in kwargs:
            return True
        parent = parents.get(id(parent))
        if not isinstance(parent, ast.Call):
            return False
    if isinstance(parent, ast.Call) and parent.func is not use:
        name = callee(parent.func)
        return name is not None and calls.matches(name)
    return False
