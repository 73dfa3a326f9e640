"""Lookups by tool name over a list of tool objects, and the member each found object is called through.

An MCP server that keeps its tools as objects (or as modules, ``import * as getStats from "./getStats"``)
carrying a schema beside a function lists their schemas to the model and, when the model calls one,
finds it by the name the model gave and calls its function:

    const tool = tools.find((t) => t.definition.name === name);   // or t.name === name
    return tool.handler(args);                                     // or execute, run, callback...

    const byName = new Map(tools.map((t) => [t.name, t]));          // or Object.fromEntries(...)
    await byName.get(name)?.run(args);                             // or byName[name].run(args)

The lookup is recognised by what it does (an element's ``name`` compared with, or keyed by, the value
looked up, and a member of the element found called), never by the words: each such lookup gives the
path from an element to the field holding the name (``definition``; empty for the element's own
``name``) and the members called on what it finds (``handler``). The linker makes each tool literal held
by that field (``export const definition = { name, inputSchema }`` in a module whose ``handler`` is a
function; a tool object whose own field is that function) run by that function.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from assay.backend.engines.static.jsts.syntax import FUNCTIONS, WRAPPERS, Code, Fields, unwrap

# Files that can hold such a lookup: a ``.name`` read, and a find, a Map or an object built from entries.
_HINT = re.compile(rb"\.(?:find|findLast)\s*\(|new\s+Map\s*\(|\.fromEntries\s*\(")
_EQUALS = (b"===", b"==")
_MAX_PATH = 3


def name_lookups(code: Code, root: Node) -> dict[str, list[str]]:
    """The file's lookups by tool name: the path to the name -> the members called on what is found."""
    src = code.src
    if b".name" not in src or _HINT.search(src) is None:
        return {}
    fields = code.fields
    found: dict[str, set[str]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "call_expression" or kind == "new_expression":
            path = _find_path(node, code, fields)
            if path is not None:
                called = _called_on(node, code, fields)
                if called:
                    found.setdefault(path, set()).update(called)
            else:
                keyed = _keyed_table(node, code, fields)
                if keyed is not None:
                    path, getter = keyed
                    called = set()
                    for result in _table_reads(node, getter, code, fields):
                        called.update(_called_on(result, code, fields))
                    if called:
                        found.setdefault(path, set()).update(called)
        stack.extend(node.named_children)
    return {path: sorted(members) for path, members in sorted(found.items())}


def _find_path(call: Node, code: Code, fields: Fields) -> str | None:
    """``list.find((t) => t.definition.name === name)``: the path from the element to its ``name``."""
    if call.type != "call_expression":
        return None
    func = call.child_by_field_id(fields.function)
    if func is None or func.type != "member_expression":
        return None
    if code.raw(func.child_by_field_id(fields.property)) not in (b"find", b"findLast"):
        return None
    predicate = _only_argument(call, fields)
    if predicate is None or predicate.type not in FUNCTIONS:
        return None
    param = _single_param(predicate, code, fields)
    result = _returned(predicate, fields)
    if param is None or result is None or result.type != "binary_expression":
        return None
    if code.raw(result.child_by_field_id(fields.operator)) not in _EQUALS:
        return None
    for side in (result.child_by_field_id(fields.left), result.child_by_field_id(fields.right)):
        path = _name_path(side, param, code, fields)
        if path is not None:
            return path
    return None


def _keyed_table(node: Node, code: Code, fields: Fields) -> tuple[str, bytes] | None:
    """``new Map(list.map((t) => [t.name, t]))`` / ``Object.fromEntries(...)``: the path from an element
    to the name it is keyed by, and how the table is read (``get`` for a Map, ``[]`` for an object)."""
    if node.type == "new_expression":
        if code.raw(node.child_by_field_id(fields.constructor)) != b"Map":
            return None
        getter = b"get"
    else:
        if code.raw(node.child_by_field_id(fields.function)) != b"Object.fromEntries":
            return None
        getter = b"[]"
    mapped = _only_argument(node, fields)
    if mapped is None or mapped.type != "call_expression":
        return None
    func = mapped.child_by_field_id(fields.function)
    if func is None or func.type != "member_expression" or code.raw(func.child_by_field_id(fields.property)) != b"map":
        return None
    entry_of = _only_argument(mapped, fields)
    if entry_of is None or entry_of.type not in FUNCTIONS:
        return None
    param = _single_param(entry_of, code, fields)
    entry = _returned(entry_of, fields)
    if param is None or entry is None or entry.type != "array" or len(entry.named_children) != 2:
        return None
    key, value = entry.named_children
    if value.type != "identifier" or code.raw(value) != param:
        return None
    path = _name_path(key, param, code, fields)
    return (path, getter) if path is not None else None


def _table_reads(table: Node, getter: bytes, code: Code, fields: Fields) -> list[Node]:
    """Where a table built by ``table`` and bound to a name is read: ``byName.get(x)`` / ``byName[x]``,
    anywhere in the file (a module-level table is read in the handler)."""
    holder = _bound_name(table, fields)
    if holder is None:
        return []
    name = code.raw(holder)
    root = table
    while root.parent is not None:
        root = root.parent
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if getter == b"get" and node.type == "call_expression":
            func = node.child_by_field_id(fields.function)
            if (
                func is not None
                and func.type == "member_expression"
                and code.raw(func.child_by_field_id(fields.property)) == b"get"
                and code.raw(unwrap(func.child_by_field_id(fields.object))) == name
            ):
                out.append(node)
        elif (
            getter == b"[]"
            and node.type == "subscript_expression"
            and code.raw(unwrap(node.child_by_field_id(fields.object))) == name
        ):
            out.append(node)
        stack.extend(node.named_children)
    return out


def _called_on(result: Node, code: Code, fields: Fields) -> set[str]:
    """The members called on what a lookup finds: ``<lookup>.handler(...)`` directly, or through the name
    it is bound to (``const tool = <lookup>; ... tool.handler(args)`` in the same function)."""
    holder = _climb(result)
    parent = holder.parent
    if parent is not None and parent.type == "member_expression" and parent.child_by_field_id(fields.object) == holder:
        member = _called_member(parent, code, fields)
        return {member} if member is not None else set()
    name_node = _bound_name(result, fields)
    if name_node is None:
        return set()
    name = code.raw(name_node)
    body = name_node.parent
    while body is not None and body.type not in FUNCTIONS and body.type != "program":
        body = body.parent
    out: set[str] = set()
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "member_expression" and code.raw(unwrap(node.child_by_field_id(fields.object))) == name:
            member = _called_member(node, code, fields)
            if member is not None:
                out.add(member)
        stack.extend(node.named_children)
    return out


def _called_member(member: Node, code: Code, fields: Fields) -> str | None:
    """``x.handler`` when it is called (``x.handler(args)``, ``await x?.handler(args)``)."""
    call = member.parent
    while call is not None and call.type in WRAPPERS and call.type != "await_expression":
        call = call.parent
    if call is None or call.type != "call_expression" or _climb(member).parent != call:
        return None
    prop = member.child_by_field_id(fields.property)
    if prop is None or prop.type != "property_identifier":
        return None
    return code.text(prop)


def _name_path(side: Node | None, param: bytes, code: Code, fields: Fields) -> str | None:
    """``t.definition.name`` with ``t`` the element: ``definition`` (``""`` for ``t.name``)."""
    node = unwrap(side)
    if node is None or node.type != "member_expression" or code.raw(node.child_by_field_id(fields.property)) != b"name":
        return None
    parts: list[str] = []
    node = unwrap(node.child_by_field_id(fields.object))
    while node is not None and node.type == "member_expression" and len(parts) < _MAX_PATH:
        prop = node.child_by_field_id(fields.property)
        if prop is None or prop.type != "property_identifier":
            return None
        parts.append(code.text(prop))
        node = unwrap(node.child_by_field_id(fields.object))
    if node is None or node.type != "identifier" or code.raw(node) != param:
        return None
    return ".".join(reversed(parts))


def _single_param(function: Node, code: Code, fields: Fields) -> bytes | None:
    param = function.child_by_field_id(fields.parameter)
    if param is None:
        params = function.child_by_field_id(fields.parameters)
        named = [p for p in params.named_children if p.type != "comment"] if params is not None else []
        if len(named) != 1:
            return None
        param = named[0]
        if param.type in ("required_parameter", "optional_parameter"):
            param = param.child_by_field_id(fields.pattern)
    return code.raw(param) if param is not None and param.type == "identifier" else None


def _returned(function: Node, fields: Fields) -> Node | None:
    """What a one-expression function returns: its expression body, or its body's only ``return``."""
    body = function.child_by_field_id(fields.body)
    if body is None:
        return None
    if body.type != "statement_block":
        return unwrap(body)
    statements = [s for s in body.named_children if s.type != "comment"]
    if len(statements) != 1 or statements[0].type != "return_statement" or not statements[0].named_children:
        return None
    return unwrap(statements[0].named_children[0])


def _only_argument(call: Node, fields: Fields) -> Node | None:
    args = call.child_by_field_id(fields.arguments)
    named = [a for a in args.named_children if a.type != "comment"] if args is not None else []
    return unwrap(named[0]) if named else None


def _bound_name(value: Node, fields: Fields) -> Node | None:
    """The name ``value`` is bound to (``const tool = await value``), or None."""
    holder = _climb(value)
    parent = holder.parent
    if parent is None or parent.type != "variable_declarator" or parent.child_by_field_id(fields.value) != holder:
        return None
    name = parent.child_by_field_id(fields.name)
    return name if name is not None and name.type == "identifier" else None


def _climb(node: Node) -> Node:
    """The outermost wrapper around ``node`` (``await``, parentheses, casts)."""
    while node.parent is not None and node.parent.type in WRAPPERS:
        node = node.parent
    return node
