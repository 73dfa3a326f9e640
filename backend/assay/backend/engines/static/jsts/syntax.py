"""Grammars and small helpers over tree-sitter nodes: literal values, wrappers, patterns, termination."""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass, fields
from functools import cache
from typing import Literal

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

JsLanguage = Literal["javascript", "typescript", "tsx"]

FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "generator_function",
        "function",
    }
)
# Where a name can be bound: a function (its parameters and body) or the file's top level.
_SCOPES = FUNCTIONS | {"program"}
TERMINATORS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})
# Expression wrappers that do not change which value flows: parentheses, await and TypeScript casts.
WRAPPERS = frozenset(
    {
        "parenthesized_expression",
        "await_expression",
        "as_expression",
        "non_null_expression",
        "satisfies_expression",
        "type_assertion",
        # ``f<T>`` (a generic function named with its type arguments): the value is ``f``.
        "instantiation_expression",
    }
)
# Nodes that hold no call, function or assignment: the walk skips them.
LITERALS = frozenset(
    {
        "string",
        "number",
        "true",
        "false",
        "null",
        "undefined",
        "regex",
        "comment",
        "property_identifier",
        "private_property_identifier",
        "type_annotation",
        "type_arguments",
        "type_parameters",
        "type_identifier",
        "predefined_type",
        "string_fragment",
        "escape_sequence",
        "jsx_text",
        "this",
        "super",
        "import",
        "meta_property",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "abstract_class_declaration",
        "ambient_declaration",
        "hash_bang_line",
    }
)
# Calls after which the statement list does not continue.
_EXITS = frozenset({"process.exit", "process.abort"})


@cache
def grammar(language: JsLanguage) -> Language:
    """The tree-sitter grammar of a language (``.jsx`` goes through ``javascript``)."""
    if language == "javascript":
        return Language(tree_sitter_javascript.language())
    if language == "tsx":
        return Language(tree_sitter_typescript.language_tsx())
    return Language(tree_sitter_typescript.language_typescript())


@cache
def parser(language: JsLanguage) -> Parser:
    """One parser per grammar, built on first use and reused."""
    return Parser(grammar(language))


@dataclass(frozen=True, slots=True)
class Fields:
    """The ids of the fields the analyzer reads, in one grammar (each grammar numbers them its own way).
    ``node.child_by_field_id(fields.value)`` costs half of ``node.child_by_field_name("value")``,
    which first looks the name up among all the grammar's field names. A field the grammar does not
    have is id 0, for which ``child_by_field_id`` finds nothing, as ``child_by_field_name`` would."""

    alias: int
    alternative: int
    argument: int
    arguments: int
    body: int
    condition: int
    consequence: int
    constructor: int
    declaration: int
    finalizer: int
    function: int
    handler: int
    increment: int
    index: int
    initializer: int
    key: int
    left: int
    name: int
    object: int
    operator: int
    parameter: int
    parameters: int
    pattern: int
    property: int
    return_type: int
    right: int
    source: int
    type: int
    value: int


@cache
def field_ids(language: JsLanguage) -> Fields:
    ids = grammar(language)
    return Fields(**{f.name: ids.field_id_for_name(f.name) or 0 for f in fields(Fields)})


# A node kind id no grammar gives a named kind: tree-sitter's ERROR nodes.
_ERROR_KIND = 0xFFFF


@cache
def kind_names(language: JsLanguage) -> dict[int, str]:
    """Each node kind id of a grammar -> its type name, exactly ``node.type`` (the name of the node's
    kind id), the same string object every time: ``kinds[node.kind_id]`` reads a node's type without
    building a new string, whose hash a set or dict probe then computes again, at every look."""
    ids = grammar(language)
    names = {kind: sys.intern(ids.node_kind_for_id(kind) or "") for kind in range(ids.node_kind_count)}
    names[_ERROR_KIND] = "ERROR"
    return names


def _kinds_named(names: frozenset[str]) -> frozenset[int]:
    """The kind ids, in any of the grammars, whose type is one of ``names``."""
    found: set[int] = set()
    for language in ("javascript", "typescript", "tsx"):
        found.update(kind for kind, name in kind_names(language).items() if name in names)
    return frozenset(found)


# The ids of the wrapper kinds in any grammar (grammars number kinds their own way, so an id here may be
# another kind in another grammar): a node whose id is not among them is no wrapper, the common answer,
# found without reading its type; one whose id is, is one when its type says so.
_WRAPPER_KINDS = _kinds_named(WRAPPERS)


def unwrap(node: Node | None) -> Node | None:
    """The expression inside any wrappers (``(await x as T)`` -> ``x``)."""
    while node is not None and node.kind_id in _WRAPPER_KINDS and node.type in WRAPPERS:
        children = node.named_children
        node = children[0] if children else None
    return node


# A run of the characters a word is made of (as ``\w`` in a pattern over bytes reads them, and ``$``).
_WORD = re.compile(rb"[\w$]+")


class Code:
    """One file's source bytes and the node helpers that need its text."""

    def __init__(self, src: bytes, fields: Fields, kinds: dict[int, str]) -> None:
        self.src = src
        self.fields = fields
        self.kinds = kinds  # ``kind_names`` of the file's grammar
        self._words: Counter[bytes] | None = None
        self._props: dict[int, dict[str, Node]] = {}
        self._bound: dict[int, frozenset[str]] = {}

    def text(self, node: Node | None) -> str:
        # Slicing the source is an order of magnitude faster than ``Node.text``.
        if node is None:
            return ""
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def occurrences(self, name: bytes) -> int:
        """How often ``name`` is written in the file as a word of its own (no letter, digit, ``_`` or ``$``
        either side). For a name of those characters alone, that is the count of the file's longest runs
        of them equal to it: counted once per file, not searched for again for each name."""
        if _WORD.fullmatch(name) is None:
            return len(re.findall(rb"(?<![\w$])" + re.escape(name) + rb"(?![\w$])", self.src))
        if self._words is None:
            self._words = Counter(_WORD.findall(self.src))
        return self._words[name]

    def raw(self, node: Node | None) -> bytes:
        """A node's source bytes, undecoded: comparing them with a keyword (``b"require"``) is exactly
        comparing the decoded text with it, and skips the decoding for the many that differ."""
        if node is None:
            return b""
        return self.src[node.start_byte : node.end_byte]

    def operator_of(self, node: Node) -> str:
        """The operator of a unary or binary expression (``"!"``, ``"&&"``, ``"==="``...)."""
        operator = node.child_by_field_id(self.fields.operator)
        return self.kinds[operator.kind_id] if operator is not None else ""

    def string_value(self, node: Node | None) -> str | None:
        """The value of a string literal, or the constant text of a template string (substitutions dropped)."""
        kinds = self.kinds
        if node is None:
            return None
        if kinds[node.kind_id] == "string":
            return "".join(
                self.text(c) for c in node.named_children if kinds[c.kind_id] in ("string_fragment", "escape_sequence")
            )
        if kinds[node.kind_id] == "template_string":
            return "".join(self.text(c) for c in node.named_children if kinds[c.kind_id] == "string_fragment")
        return None

    def key_name(self, key: Node | None) -> str:
        kinds = self.kinds
        if key is None:
            return ""
        if kinds[key.kind_id] == "string":
            return self.string_value(key) or ""
        return self.text(key)

    def props(self, obj: Node) -> dict[str, Node]:
        """Properties of an object literal by key (``pair`` values, shorthand names, method definitions).
        Read-only: an object literal is looked at by several recognisers, so the answer is kept per node."""
        out = self._props.get(obj.id)
        if out is None:
            out = self._props[obj.id] = self._collect_props(obj)
        return out

    def _collect_props(self, obj: Node) -> dict[str, Node]:
        kinds = self.kinds
        out: dict[str, Node] = {}
        for child in obj.named_children:
            kind = kinds[child.kind_id]
            if kind == "pair":
                name = self.key_name(child.child_by_field_id(self.fields.key))
                value = child.child_by_field_id(self.fields.value)
                if value is not None and name:
                    out[name] = value
            elif kind == "shorthand_property_identifier":
                out[self.text(child)] = child
            elif kind == "method_definition":
                out[self.text(child.child_by_field_id(self.fields.name))] = child
        return out

    def object_props(self, node: Node | None) -> dict[str, Node]:
        node = unwrap(node)
        return self.props(node) if node is not None and node.type == "object" else {}

    def pattern_names(self, pattern: Node) -> list[str]:
        """The names bound by a binding pattern (identifier, object/array destructuring, defaults, rest)."""
        kinds = self.kinds
        kind = kinds[pattern.kind_id]
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            return [self.text(pattern)]
        if kind == "assignment_pattern":
            left = pattern.child_by_field_id(self.fields.left)
            return self.pattern_names(left) if left is not None else []
        out: list[str] = []
        for child in pattern.named_children:
            if kinds[child.kind_id] == "pair_pattern":
                value = child.child_by_field_id(self.fields.value)
                if value is not None:
                    out.extend(self.pattern_names(value))
            elif kinds[child.kind_id] in (
                "identifier",
                "shorthand_property_identifier_pattern",
                "object_pattern",
                "array_pattern",
                "rest_pattern",
                "assignment_pattern",
                "object_assignment_pattern",
            ):
                target = child.child_by_field_id(self.fields.left) if "assignment" in kinds[child.kind_id] else child
                out.extend(self.pattern_names(target) if target is not None else [])
        return out

    def bound_around(self, node: Node, name: str) -> bool:
        """Whether ``name`` is bound in a function enclosing ``node``, or at the top level: a parameter, a
        declaration anywhere in its body (functions and ``var`` are hoisted; a ``const`` declared after a
        closure that uses it is still its binding), a destructured name, a caught error, a loop variable."""
        parent = node.parent
        while parent is not None:
            if parent.type in _SCOPES and name in self._bound_in(parent):
                return True
            parent = parent.parent
        return False

    def _bound_in(self, scope: Node) -> frozenset[str]:
        found = self._bound.get(scope.id)
        if found is None:
            names: set[str] = set()
            if scope.type != "program":
                own = scope.child_by_field_name("name")
                if own is not None and scope.type in ("function_expression", "function", "generator_function"):
                    names.add(self.text(own))
                params = scope.child_by_field_name("parameters") or scope.child_by_field_name("parameter")
                if params is not None:
                    names.update(self.param_names(params))
            body = scope.child_by_field_name("body") if scope.type != "program" else scope
            if body is not None:
                self._declarations(body, names)
            found = self._bound[scope.id] = frozenset(names)
        return found

    def param_names(self, params: Node) -> list[str]:
        """The names a function's parameters (or its one bare parameter) bind."""
        if params.type != "formal_parameters":
            return self.pattern_names(params)
        out: list[str] = []
        for param in params.named_children:
            target = param.child_by_field_name("pattern") if param.type.endswith("_parameter") else param
            out.extend(self.pattern_names(target) if target is not None else [])
        return out

    def _declarations(self, node: Node, names: set[str]) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            for child in current.named_children:
                kind = child.type
                if kind in ("function_declaration", "generator_function_declaration", "class_declaration"):
                    own = child.child_by_field_name("name")
                    if own is not None:
                        names.add(self.text(own))
                    continue
                if kind in FUNCTIONS or kind == "class_body" or kind == "class":
                    continue
                if kind == "variable_declarator":
                    pattern = child.child_by_field_name("name")
                    names.update(self.pattern_names(pattern) if pattern is not None else [])
                elif kind == "for_in_statement":
                    left = child.child_by_field_name("left")
                    names.update(self.pattern_names(left) if left is not None else [])
                elif kind == "catch_clause":
                    param = child.child_by_field_name("parameter")
                    names.update(self.pattern_names(param) if param is not None else [])
                stack.append(child)

    def terminates(self, node: Node | None) -> bool:
        """True when control never falls out of ``node`` (return, throw, break, continue, process.exit)."""
        kinds = self.kinds
        if node is None:
            return False
        kind = kinds[node.kind_id]
        if kind in TERMINATORS:
            return True
        if kind == "statement_block":
            return any(self.terminates(c) for c in node.named_children)
        if kind == "if_statement":
            alternative = node.child_by_field_id(self.fields.alternative)
            other = alternative.named_children[0] if alternative is not None and alternative.named_children else None
            return self.terminates(node.child_by_field_id(self.fields.consequence)) and self.terminates(other)
        if kind == "expression_statement" and node.named_children:
            expr = unwrap(node.named_children[0])
            if expr is not None and kinds[expr.kind_id] == "call_expression":
                return self.text(expr.child_by_field_id(self.fields.function)) in _EXITS
        return False

    def enclosing_key(self, node: Node) -> str | None:
        """``weather`` for ``{ weather: tool({...}) }``: the property key a value sits under."""
        parent = node.parent
        while parent is not None and parent.type in ("parenthesized_expression", "await_expression"):
            parent = parent.parent
        if parent is not None and parent.type == "pair":
            return self.key_name(parent.child_by_field_id(self.fields.key)) or None
        return None

    def enclosing_binding(self, node: Node) -> str | None:
        """``weatherTool`` for ``const weatherTool = tool({...})``."""
        parent = node.parent
        while parent is not None and parent.type in ("parenthesized_expression", "await_expression"):
            parent = parent.parent
        if parent is not None and parent.type == "variable_declarator":
            name = parent.child_by_field_id(self.fields.name)
            if name is not None and name.type == "identifier":
                return self.text(name)
        return None


def first_error(node: Node) -> Node | None:
    """The first ERROR or MISSING node in document order (iterative: trees can be deep)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR" or current.is_missing:
            return current
        if current.has_error:
            stack.extend(reversed(current.children))
    return node if node.has_error else None


def error_bytes(node: Node) -> int:
    """Bytes of the file inside ERROR nodes (outermost only)."""
    total = 0
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR":
            total += current.end_byte - current.start_byte
        elif current.has_error:
            stack.extend(current.children)
    return total


# A ``>`` right before a template's backtick: a tagged template whose tag may carry type arguments (not
# an arrow's ``=>``, told apart in ``_generic_tag``). The pattern starts with its literal ``>``, which the
# regex engine finds by a plain scan: a leading look-behind made it try the pattern at every byte of the
# file (a tenth of the parse's own cost on TypeScript files).
_GENERIC_TAG = re.compile(rb">\s*`")


def _generic_tag(src: bytes) -> bool:
    """Whether a ``>`` not preceded by ``=`` comes right before a backtick (whitespace between allowed)."""
    for match in _GENERIC_TAG.finditer(src):
        start = match.start()
        if start == 0 or src[start - 1] != 0x3D:  # ``=``
            return True
    return False


def generic_tag_arguments(root: Node, src: bytes) -> list[tuple[int, int]]:
    """The type arguments of tagged templates whose tag is generic (``prisma.$queryRaw<Row[]>`SELECT ...```,
    valid TypeScript), which the grammar misreads: as ``(tag<Row[]>)!`...``` with an invented ``!`` (a
    MISSING node) on one line, as the comparisons ``(tag < Row) > `...``` when the arguments span lines.
    Their byte spans, so the file can be read again with them blanked (offsets and lines unchanged), the
    tag then called with its template as written."""
    if not _generic_tag(src):
        return []
    spans: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "non_null_expression" and node.child_count == 2 and node.children[1].is_missing:
            inner = node.named_children[0]
            call = node.parent
            template = call.child_by_field_name("arguments") if call is not None else None
            if (
                inner.type == "instantiation_expression"
                and call is not None
                and call.type == "call_expression"
                and template is not None
                and template.type == "template_string"
            ):
                arguments = inner.child_by_field_name("type_arguments") or inner.named_children[-1]
                spans.append((arguments.start_byte, arguments.end_byte))
        elif kind == "binary_expression" and node.child_count == 3 and node.children[1].type == ">":
            left, right = node.children[0], node.children[2]
            if right.type == "template_string" and left.type == "binary_expression" and left.child_count == 3:
                less = left.children[1]
                if less.type == "<" and unwrap(left.children[0]) is not None:
                    spans.append((less.start_byte, node.children[1].end_byte))
        if node.has_error or kind not in LITERALS:
            stack.extend(node.named_children)
    return spans


def blank(src: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``src`` with each span's bytes turned to spaces, line breaks kept (so every offset and line holds)."""
    out = bytearray(src)
    for start, end in spans:
        for index in range(start, end):
            if out[index] not in (0x0A, 0x0D):
                out[index] = 0x20
    return bytes(out)


_NAMESPACE_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})


def namespace_members(body: Node, ids: Fields) -> list[Node]:
    """The function declarations of a TypeScript namespace's body, exported or not."""
    found = []
    for stmt in body.named_children:
        node = stmt.child_by_field_id(ids.declaration) if stmt.type == "export_statement" else stmt
        if node is not None and node.type in _NAMESPACE_FUNCTIONS:
            found.append(node)
    return found
