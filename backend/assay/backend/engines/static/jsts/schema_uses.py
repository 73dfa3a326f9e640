"""Where a tool-shaped object literal goes: to a model as a tool, or only somewhere that shapes or checks data.

The JavaScript side of ``pyast/schema_uses.py``: an object with a name and a JSON schema of arguments
(``{ name, description, input_schema }``, ``{ type: "function", function: {...} }``) is a tool when a model is
given it to call. A literal whose every use in its file is an option that shapes a reply (``responseSchema:``),
a call that checks data (``ajv.compile(TOOL.input_schema)``, a token count) or a part taken out of it
(``TOOL.input_schema``) is not offered to a model there and is no tool. A literal with no use in its file, one
that is exported (another file may give it to a model), or any other use stays a tool.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from assay.backend.engines.static.rules.match import Patterns

# Keys of a tool schema that name a part of it, never a tool (``TOOL.input_schema``).
_PARTS = frozenset({"name", "description", "parameters", "input_schema", "inputSchema", "properties", "required"})
# Wrappers that leave a value what it is.
_WRAPPERS = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression", "type_assertion"}
)


def only_shapes_data(
    node: Node, root: Node, text: Callable[[Node | None], str], keys: frozenset[str], calls: Patterns
) -> bool:
    """Whether every use of the literal ``node`` (directly, or through the variable it initialises) shapes a
    reply, checks data, or takes a part of it; ``False`` when it has no use in the file or is exported."""
    holder = _holder(node, text, keys)
    if holder is None:
        return True  # under an option that shapes a reply (``response_format: { ... }``)
    parent = _up(holder)
    if parent is not None and parent.type == "variable_declarator" and parent.child_by_field_name("value") == holder:
        name = parent.child_by_field_name("name")
        if name is None or name.type != "identifier" or _exported(parent):
            return False
        variable = text(name)
        uses = [u for u in _identifiers(root, variable, text) if u != name]
        return bool(uses) and all(_shapes_data(u, text, keys, calls) for u in uses)
    return _shapes_data(holder, text, keys, calls)


def _up(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type in _WRAPPERS:
        parent = parent.parent
    return parent


def _holder(node: Node, text: Callable[[Node | None], str], keys: frozenset[str]) -> Node | None:
    """The expression that carries the literal: the array or object it is an element or value of, outwards;
    ``None`` when one of those is under an option that shapes a reply."""
    current = node
    while True:
        parent = _up(current)
        if parent is not None and parent.type == "array":
            current = parent
            continue
        if parent is not None and parent.type == "pair" and parent.parent is not None:
            if text(parent.child_by_field_name("key")).strip("\"'") in keys:
                return None
            current = parent.parent
            continue
        return current


def _exported(declarator: Node) -> bool:
    current = declarator.parent
    while current is not None and current.type in ("lexical_declaration", "variable_declaration"):
        current = current.parent
    return current is not None and current.type == "export_statement"


def _identifiers(root: Node, name: str, text: Callable[[Node | None], str]) -> list[Node]:
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("identifier", "shorthand_property_identifier") and text(node) == name:
            found.append(node)
        stack.extend(node.children)
    return found


def _shapes_data(use: Node, text: Callable[[Node | None], str], keys: frozenset[str], calls: Patterns) -> bool:
    if use.type == "shorthand_property_identifier":
        # ``{ responseSchema }``; ``{ tools }`` gives it to a model, unless the call only counts or checks.
        return text(use) in keys or _checked(use.parent, text, calls)
    parent = _up(use)
    if parent is None:
        return False
    if parent.type == "member_expression" and parent.child_by_field_name("object") == use:
        return text(parent.child_by_field_name("property")) in _PARTS
    if parent.type == "subscript_expression" and parent.child_by_field_name("object") == use:
        return text(parent.child_by_field_name("index")).strip("\"'`") in _PARTS
    if parent.type == "pair" and parent.child_by_field_name("value") == use:
        return text(parent.child_by_field_name("key")).strip("\"'") in keys or _checked(parent.parent, text, calls)
    return _checked(use, text, calls)


def _checked(value: Node | None, text: Callable[[Node | None], str], calls: Patterns) -> bool:
    """Whether ``value`` is an argument of a call that checks or counts data (``ajv.compile(x)``)."""
    parent = _up(value) if value is not None else None
    if parent is None or parent.type != "arguments" or parent.parent is None:
        return False
    call = parent.parent
    return call.type == "call_expression" and calls.matches(text(call.child_by_field_name("function")))
