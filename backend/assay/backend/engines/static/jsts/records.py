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
    one) with the string fields of each object."""
    found: Records = {}
    default: str | None = None
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
                items = _listed(code, declarator.child_by_field_id(code.fields.value))
                if name is not None and name.type == "identifier" and items:
                    found[f"{module}#{code.text(name)}"] = items
        elif node.type == "function_declaration":
            name = node.child_by_field_id(code.fields.name)
            items = _returned(code, node.child_by_field_id(code.fields.body))
            if name is not None and items:
                found[f"{module}#{code.text(name)}"] = items
    if default is not None and f"{module}#{default}" in found:
        found[f"{module}#default"] = found[f"{module}#{default}"]
    return found


def _listed(code: Code, value: Node | None) -> list[dict[str, RecordField]]:
    """The records of an array literal, or of the array a function (arrow or expression) returns."""
    node = unwrap(value)
    if node is None:
        return []
    if node.type == "array":
        return _records(code, node)
    if node.type in FUNCTIONS:
        return _returned(code, node.child_by_field_id(code.fields.body))
    return []


def _returned(code: Code, body: Node | None) -> list[dict[str, RecordField]]:
    """``=> [...]`` or a body whose own ``return [...]`` gives the list."""
    node = unwrap(body)
    if node is None:
        return []
    if node.type == "array":
        return _records(code, node)
    if node.type != "statement_block":
        return []
    for stmt in node.named_children:
        if stmt.type == "return_statement" and stmt.named_children:
            inner = unwrap(stmt.named_children[0])
            return _records(code, inner) if inner is not None and inner.type == "array" else []
    return []


def _records(code: Code, array: Node) -> list[dict[str, RecordField]]:
    """Each object literal of the array, by its fields whose value is a string spelled out."""
    out: list[dict[str, RecordField]] = []
    for element in array.named_children:
        item = unwrap(element)
        if item is None or item.type != "object":
            continue
        record: dict[str, RecordField] = {}
        for key, value in code.props(item).items():
            inner = unwrap(value)
            if inner is None or inner.type not in ("string", "template_string"):
                continue
            if any(c.type == "template_substitution" for c in inner.named_children):
                continue
            text = code.string_value(inner)
            if text:
                record[key] = RecordField(value=text, line=inner.start_point[0] + 1)
        out.append(record)
    return out if any(out) else []
