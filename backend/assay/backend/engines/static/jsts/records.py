"""Lists of records at a module's top level: tool definitions written as data.

A toolkit often writes its tools as a list of object literals (``const tools = (context) => [{ method:
"create_invoice", name: "Create Invoice", description, parameters }, ...]``) and hands each record to a
framework elsewhere (``tools(ctx).forEach((tool) => server.tool(tool.method, ...))``). The string fields
of each record are kept (``FileFacts.records``, by ``<module>#<name>``, and ``<module>#default`` for the
default export), so that the linker can make one tool per record, named by the field the registration
reads and located at it (``link/sources.py``).
"""

from __future__ import annotations

from tree_sitter import Node

from assay.backend.engines.static.facts import RecordField
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, Code, unwrap

Records = dict[str, list[dict[str, RecordField]]]


def collect_records(code: Code, root: Node, module: str) -> Records:
    """The top-level lists of object literals (a ``const`` bound to one, or to a function returning
    one) with the string fields of each object. An element naming a top-level object literal of the file
    (``[getEvents, scheduleEvent]`` with ``const getEvents = { function: ..., declaration: {...} }``) is that
    object; the fields of an object a record holds are kept under a dotted key (``declaration.name``); and a
    record bound to a top-level name keeps the one function it holds under ``<key>()`` (its qualname,
    ``<module>#getEvents.function``), which runs the tool the record declares."""
    found: Records = {}
    default: str | None = None
    objects = _top_objects(code, root)
    for stmt in root.named_children:
        node = stmt
        if stmt.type == "export_statement":
            declaration = stmt.child_by_field_id(code.fields.declaration)
            value = unwrap(stmt.child_by_field_id(code.fields.value))
            if declaration is None:
                if value is not None and value.type == "identifier":
                    default = code.text(value)  # ``export default tools;``
                continue
            node = declaration
        if node.type in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = declarator.child_by_field_id(code.fields.name)
                items = _listed(code, declarator.child_by_field_id(code.fields.value), objects, module)
                if name is not None and name.type == "identifier" and items:
                    found[f"{module}#{code.text(name)}"] = items
        elif node.type == "function_declaration":
            name = node.child_by_field_id(code.fields.name)
            items = _returned(code, node.child_by_field_id(code.fields.body), objects, module)
            if name is not None and items:
                found[f"{module}#{code.text(name)}"] = items
    if default is not None and f"{module}#{default}" in found:
        found[f"{module}#default"] = found[f"{module}#{default}"]
    return found


Objects = dict[str, Node]


def _top_objects(code: Code, root: Node) -> Objects:
    """The file's top-level names bound to an object literal (``const getEvents = {...}``, exported or not)."""
    found: Objects = {}
    for stmt in root.named_children:
        node = stmt.child_by_field_id(code.fields.declaration) if stmt.type == "export_statement" else stmt
        if node is None or node.type not in ("lexical_declaration", "variable_declaration"):
            continue
        for declarator in node.named_children:
            name = declarator.child_by_field_id(code.fields.name) if declarator.type == "variable_declarator" else None
            value = unwrap(declarator.child_by_field_id(code.fields.value)) if name is not None else None
            if name is not None and name.type == "identifier" and value is not None and value.type == "object":
                found.setdefault(code.text(name), value)
    return found


def _listed(code: Code, value: Node | None, objects: Objects, module: str) -> list[dict[str, RecordField]]:
    """The records of an array literal, or of the array a function (arrow or expression) returns."""
    node = unwrap(value)
    if node is None:
        return []
    if node.type == "array":
        return _records(code, node, objects, module)
    if node.type in FUNCTIONS:
        return _returned(code, node.child_by_field_id(code.fields.body), objects, module)
    return []


def _returned(code: Code, body: Node | None, objects: Objects, module: str) -> list[dict[str, RecordField]]:
    """``=> [...]`` or a body whose own ``return [...]`` gives the list."""
    node = unwrap(body)
    if node is None:
        return []
    if node.type == "array":
        return _records(code, node, objects, module)
    if node.type != "statement_block":
        return []
    for stmt in node.named_children:
        if stmt.type == "return_statement" and stmt.named_children:
            inner = unwrap(stmt.named_children[0])
            return _records(code, inner, objects, module) if inner is not None and inner.type == "array" else []
    return []


def _records(code: Code, array: Node, objects: Objects, module: str) -> list[dict[str, RecordField]]:
    """Each object literal of the array (or top-level object it names), by its fields whose value is a
    string spelled out, those of an object it holds under a dotted key, and its one function."""
    out: list[dict[str, RecordField]] = []
    for element in array.named_children:
        item = unwrap(element)
        bound: str | None = None
        if item is not None and item.type == "identifier" and code.text(item) in objects:
            bound = code.text(item)
            item = objects[bound]
        if item is None or item.type != "object":
            continue
        record: dict[str, RecordField] = {}
        functions: list[tuple[str, Node]] = []
        for key, value in code.props(item).items():
            inner = unwrap(value)
            if inner is not None and inner.type == "object":
                for sub, held in code.props(inner).items():
                    _string_field(code, record, f"{key}.{sub}", held)
            elif inner is not None and inner.type in FUNCTIONS:
                functions.append((key, inner))
            else:
                _string_field(code, record, key, value)
        if bound is not None and len(functions) == 1:
            key, function = functions[0]
            record[f"{key}()"] = RecordField(value=f"{module}#{bound}.{key}", line=function.start_point[0] + 1)
        out.append(record)
    return out if any(out) else []


def _string_field(code: Code, record: dict[str, RecordField], key: str, value: Node | None) -> None:
    inner = unwrap(value)
    if inner is None or inner.type not in ("string", "template_string"):
        return
    if any(c.type == "template_substitution" for c in inner.named_children):
        return
    text = code.string_value(inner)
    if text:
        record[key] = RecordField(value=text, line=inner.start_point[0] + 1)
