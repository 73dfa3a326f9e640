"""Fast traversal of Python ``ast`` trees for the analyzer.

``ast.walk`` and ``ast.iter_child_nodes`` are generators over every field of every node, including
the context and operator leaves (``Load``, ``Add``...) that hold nothing: on agent code they cost
more than parsing. These helpers visit the same nodes in the same order (so first-wins and last-wins
lookups built from them do not change) but read only the fields that can hold nodes.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

# Fields that never hold a node worth visiting: names, flags, and the context/operator leaves.
_SKIPPED_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "level", "asname", "conversion", "kind",
     "type_comment", "is_async", "simple", "type_ignores", "tag"}
)  # fmt: skip
# Fields that hold statements (or the handlers and match cases that hold statements).
_BLOCK_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
# Statements that define a function or class: their bodies are theirs, not the enclosing function's.
_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
# Nodes with no children worth visiting.
_LEAVES = (ast.Name, ast.Constant)

_NODE_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
_STATEMENT_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def node_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    """The fields of a node class that may hold child nodes, in ``_fields`` order."""
    fields = _NODE_FIELDS.get(kind)
    if fields is None:
        fields = _NODE_FIELDS[kind] = tuple(f for f in kind._fields if f not in _SKIPPED_FIELDS)
    return fields


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes(node)`` as a list, less the leaves that hold nothing (``Load``, ``Add``,
    ``Eq``..., import aliases): the other children, in the same order."""
    found: list[ast.AST] = []
    for field in node_fields(type(node)):
        value = getattr(node, field, None)
        if type(value) is list:
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def walk(root: ast.AST) -> list[ast.AST]:
    """``list(ast.walk(root))`` less the leaves that hold nothing (``Load``, ``Add``, ``Eq``..., import
    aliases): the other nodes, in the same (breadth-first) order, read without a generator per node."""
    queue: list[ast.AST] = [root]
    append = queue.append
    index = 0
    while index < len(queue):
        node = queue[index]
        index += 1
        for field in node_fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        append(item)
            elif isinstance(value, ast.AST):
                append(value)
    return queue


def _statement_fields(kind: type[ast.AST]) -> tuple[str, ...]:
    fields = _STATEMENT_FIELDS.get(kind)
    if fields is None:
        fields = _STATEMENT_FIELDS[kind] = tuple(f for f in kind._fields if f in _BLOCK_FIELDS)
    return fields


def breadth_first(
    root: ast.AST, wanted: tuple[type[ast.AST], ...], opaque: tuple[type[ast.AST], ...] = ()
) -> list[ast.AST]:
    """The nodes under ``root`` (itself included) that are instances of ``wanted``, in ``ast.walk``
    order (breadth first). Nodes of an ``opaque`` class are reported but not entered."""
    found: list[ast.AST] = []
    queue: list[ast.AST] = [root]
    append = queue.append
    index = 0
    while index < len(queue):
        node = queue[index]
        index += 1
        if isinstance(node, wanted):
            found.append(node)
            if isinstance(node, opaque):
                continue
        for field in node_fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST) and not isinstance(item, _LEAVES):
                        append(item)
            elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
                append(value)
    return found


def statements_breadth_first(root: ast.AST) -> Iterable[ast.AST]:
    """Every statement under ``root`` (and the except handlers and match cases between them), in
    ``ast.walk`` order: statements only ever sit in these block fields, so skipping expressions does
    not change their relative order."""
    queue: list[ast.AST] = [root]
    index = 0
    while index < len(queue):
        node = queue[index]
        index += 1
        for field in _statement_fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                queue.extend(value)
    return queue


def own_statements(body: list[ast.stmt]) -> list[ast.AST]:
    """The statements of a function's ``body``, those of its nested blocks included (with the except handlers and
    match cases between them), in the order a stack over ``ast.iter_child_nodes`` pops them (depth first, last
    first): statements only ever sit in block fields, so skipping expressions changes nothing but the cost.
    Functions and classes defined in it are listed, not entered."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        kind = type(node)
        if kind in _DEFINITIONS:
            continue
        for field in _statement_fields(kind):
            stack.extend(getattr(node, field))
    return found


def imports_breadth_first(root: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The import statements under ``root``, in ``ast.walk`` order. Statements that hold no others
    are not queued: an import is met when the statement holding it is, in the same order."""
    found: list[ast.Import | ast.ImportFrom] = []
    queue: list[ast.AST] = [root]
    index = 0
    while index < len(queue):
        node = queue[index]
        index += 1
        for field in _statement_fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is not list:
                continue
            for child in value:
                kind = type(child)
                if kind is ast.Import or kind is ast.ImportFrom:
                    found.append(child)
                elif kind in _HOLDERS:
                    queue.append(child)
    return found


# Node classes with a block field (statements, handlers or match cases that may hold statements).
_HOLDERS = frozenset(
    kind
    for kind in vars(ast).values()
    if isinstance(kind, type) and issubclass(kind, ast.AST) and _statement_fields(kind)
)
