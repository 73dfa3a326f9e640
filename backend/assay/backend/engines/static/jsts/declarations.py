"""Function declarations handed to a model (Gemini: ``config: { tools: [{ functionDeclarations: [...] }] }``).

Each element of a ``functionDeclarations`` list is a tool the model is given, named by its ``name``. The list is
followed however the file builds it: written out (``[{ name: "getEvents", ... }]``), through names bound in the
file (``const decls = [getEvents.declaration]``), through ``.map((d) => d.declaration)`` over a list of records
pairing a declaration with its function (``{ function: ({ date }) => ..., declaration: { name, ... } }``), through
``.concat(...)`` and spreads, and through lists imported from another file: those become ``records`` tools the
linker makes one per record of that list (``jsts/records.py`` keeps the records' nested fields, as
``declaration.name``, and the function a record holds, which runs its tool). What cannot be followed is a
frontier item naming the call, never a silent zero.

The file's text is searched for the keys first: a file without them costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.engines.static.facts import ToolDef, ToolSource
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, unwrap
from assay.backend.snippets import snippet

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.analyzer import FileAnalyzer
    from assay.backend.engines.static.jsts.scope import Scope
    from assay.backend.engines.static.rules.pack import Rule

# How many names a list is followed through (``a = b.concat(c)``, ``b = d.map(...)``...).
_DEPTH = 6


class Declarations:
    """The ``functionDeclarations`` lists of one file, read before the file is walked (``prepare``): the object
    literals they hold (``literals``, made tools by ``tool_literals`` under the declaration rule), the records
    tools of imported lists, and the frontier items of what cannot be followed."""

    def __init__(self, analyzer: FileAnalyzer) -> None:
        self.a = analyzer
        self.literals: set[int] = set()
        self._declarators: dict[str, Node] | None = None

    def prepare(self, rule: Rule) -> None:
        keys: list[str] = rule.match["declaration_keys"]
        src = self.a.code.src
        if not any(key.encode() in src for key in keys):
            return
        root = self.a.root
        for key in keys:
            word = key.encode()
            at = src.find(word)
            while at != -1:
                node = root.descendant_for_byte_range(at, at + len(word))
                pair = node.parent if node is not None else None
                if pair is not None and pair.type == "pair" and pair.child_by_field_id(self.a.fields.key) == node:
                    self._pair(pair, rule)
                at = src.find(word, at + len(word))

    def _pair(self, pair: Node, rule: Rule) -> None:
        value = pair.child_by_field_id(self.a.fields.value)
        call = self._call_of(pair)
        if value is None or call is None:
            return
        for kind, node, ref, path in self._resolve(value, "", 0):
            if kind == "literal":
                self.literals.add(node.id)
            elif kind == "records":
                location = self.a.loc(node)
                self.a.tools.append(
                    ToolDef.found(rule, f"{ref}[{path}name]", location).model_copy(
                        update={"source": ToolSource(kind="records", ref=ref, key=f"{path}name")}
                    )
                )
            else:
                what = snippet(self.a.code.text(node), 60)
                self.a.tool_recognizer.unseen_tools(
                    node, f"tools given to {call} through {what} cannot be enumerated; what they reach is not visible"
                )

    def _call_of(self, pair: Node) -> str | None:
        """The call whose options hold the pair, however deep (``generateContent({ config: { tools: [{ ... }] } })``)."""
        node: Node | None = pair
        while node is not None and node.type in ("pair", "object", "array", "arguments", "parenthesized_expression"):
            parent = node.parent
            if node.type == "arguments" and parent is not None and parent.type in ("call_expression", "new_expression"):
                field = self.a.fields.function if parent.type == "call_expression" else self.a.fields.constructor
                name, _ = self.a.dotted(parent.child_by_field_id(field), None)
                return name or self.a.code.text(parent.child_by_field_id(field))[:60]
            node = parent
        if node is not None and node.type == "variable_declarator":
            return self.a.code.text(node.child_by_field_id(self.a.fields.name))[:60] or None
        return None

    def _resolve(self, value: Node, path: str, depth: int) -> list[tuple[str, Node, str, str]]:
        """What ``value`` lists, each as (``literal``, the object literal, "", ""), (``records``, where it is
        used, the imported list, the field path each record's declaration is at) or (``unknown``, the value)."""
        node = unwrap(value)
        if node is None or depth > _DEPTH:
            return [("unknown", value, "", "")]
        code = self.a.code
        fields = self.a.fields
        kind = node.type
        if kind == "array":
            out: list[tuple[str, Node, str, str]] = []
            for element in node.named_children:
                if element.type == "comment":
                    continue
                target = (
                    element.named_children[0]
                    if element.type == "spread_element" and element.named_children
                    else element
                )
                if element.type == "spread_element":
                    out.extend(self._resolve(target, path, depth + 1))
                else:
                    out.extend(self._element(target, path, depth + 1))
            return out
        if kind == "identifier":
            bound = self._bound(code.text(node))
            if bound is not None:
                return self._resolve(bound, path, depth + 1)
            imported = self.a.imports.aliases.get(code.text(node))
            if imported is not None and "#" in imported:
                return [("records", node, imported, path)]
            return [("unknown", node, "", "")]
        if kind == "call_expression":
            func = unwrap(node.child_by_field_id(fields.function))
            args = node.child_by_field_id(fields.arguments)
            listed = [a for a in args.named_children if a.type != "comment"] if args is not None else []
            if func is not None and func.type == "member_expression":
                method = code.text(func.child_by_field_id(fields.property))
                held = func.child_by_field_id(fields.object)
                if method == "concat" and held is not None:
                    out = self._resolve(held, path, depth + 1)
                    for arg in listed:
                        out.extend(self._resolve(arg, path, depth + 1))
                    return out
                if method == "map" and held is not None and len(listed) == 1:
                    picked = self._picked(listed[0])
                    if picked is not None:
                        return self._resolve(held, f"{picked}{path}", depth + 1)
        return [("unknown", node, "", "")]

    def _element(self, element: Node, path: str, depth: int) -> list[tuple[str, Node, str, str]]:
        """One element of a listed array: an object literal (at ``path`` inside it), or a name or a field of one."""
        node = unwrap(element)
        if node is None:
            return []
        if node.type in ("identifier", "member_expression"):
            held = self._object_at(node, depth)
            if held is None:
                return [("unknown", node, "", "")]
            node = held
        if node.type != "object":
            return [("unknown", node, "", "")]
        for part in [p for p in path.split(".") if p]:
            inner = unwrap(self.a.code.props(node).get(part))
            if inner is not None and inner.type in ("identifier", "member_expression"):
                inner = self._object_at(inner, depth + 1)
            if inner is None or inner.type != "object":
                return [("unknown", element, "", "")]
            node = inner
        return [("literal", node, "", "")]

    def _object_at(self, value: Node | None, depth: int) -> Node | None:
        """The object literal a name of the file, or a field of one, holds (``runCmd.declaration``)."""
        node = unwrap(value)
        if node is None or depth > _DEPTH:
            return None
        if node.type == "object":
            return node
        if node.type == "identifier":
            bound = self._bound(self.a.code.text(node))
            return self._object_at(bound, depth + 1) if bound is not None else None
        if node.type == "member_expression":
            held = self._object_at(node.child_by_field_id(self.a.fields.object), depth + 1)
            if held is None:
                return None
            value = self.a.code.props(held).get(self.a.code.text(node.child_by_field_id(self.a.fields.property)))
            return self._object_at(value, depth + 1) if value is not None else None
        return None

    def _picked(self, mapper: Node) -> str | None:
        """``(def) => def.declaration`` / ``(d) => d.a.b``: the field path the mapper takes of each element,
        with a trailing dot (``declaration.``)."""
        node = unwrap(mapper)
        if node is None or node.type not in FUNCTIONS:
            return None
        params, _ = self.a.params(node)
        body = unwrap(node.child_by_field_id(self.a.fields.body))
        if len(params) != 1 or body is None or body.type != "member_expression":
            return None
        parts: list[str] = []
        while body is not None and body.type == "member_expression":
            parts.append(self.a.code.text(body.child_by_field_id(self.a.fields.property)))
            body = unwrap(body.child_by_field_id(self.a.fields.object))
        if body is None or body.type != "identifier" or self.a.code.text(body) != params[0]:
            return None
        return "".join(f"{p}." for p in reversed(parts))

    def paired_function(self, declaration: Node, scope: Scope) -> str | None:
        """The function a record pairs a declaration with (``const getEvents = { function: ({ date }) => ...,
        declaration: {...} }`` at the top level: ``<module>#getEvents.function``): the record's one property
        holding a function written there, when the record is bound to a top-level name."""
        pair = declaration.parent
        record = pair.parent if pair is not None and pair.type == "pair" else None
        if record is None or record.type != "object":
            return None
        target = self.a.tool_recognizer.top_binding(record, scope)
        if target is None:
            return None
        functions = [
            key for key, value in self.a.code.props(record).items() if (unwrap(value) or value).type in FUNCTIONS
        ]
        if len(functions) != 1:
            return None
        return f"{self.a.module}#{self.a.code.text(target)}.{functions[0]}"

    def _bound(self, name: str) -> Node | None:
        """The value the file binds ``name`` to with a ``const``/``let``/``var`` (the first such declarator)."""
        if self._declarators is None:
            found: dict[str, Node] = {}
            pending = [self.a.root]
            while pending:
                node = pending.pop()
                if node.type == "variable_declarator":
                    target = node.child_by_field_id(self.a.fields.name)
                    value = node.child_by_field_id(self.a.fields.value)
                    if target is not None and target.type == "identifier" and value is not None:
                        found.setdefault(self.a.code.text(target), value)
                pending.extend(reversed(node.named_children))
            self._declarators = found
        return self._declarators.get(name)
