"""Tool sets handed over whole, and the tools that can call every tool of a set.

A function whose return value is an object of tools (``createTools(sql)`` returning ``{ createProject:
tool({...}), ... }``) makes a tool set: a companion function ``<qualname>()`` calls each of those tools'
handlers, so whatever holds the set reaches what its tools reach. A code tool (``createCodeTool({ tools,
executor })``) runs code its model writes against the tools of its ``tools`` option: its function calls
each of their handlers. The option may be an object of tools of this file, a set a function of the tree
returns (called, or held by a variable or a class field bound to such a call, or a field declared
``ReturnType<typeof createTools>``), and spreads and merges of those (``{ ...this.tools, ...mcpTools }``).
What analysis cannot follow (tools listed at run time: ``this.mcp.getAITools()``) stays a frontier item
naming it, never a silent zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import CALL_RESULT, CallFact, FunctionFacts
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, unwrap
from assay.backend.engines.static.pyast.models import trusted

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.analyzer import FileAnalyzer
    from assay.backend.engines.static.jsts.scope import Scope
    from assay.backend.scans.bundle import Location

_MAX_DEPTH = 6


class ToolSets:
    """The tool-set part of ``ToolRecognizer`` (its base class), which holds the state used here."""

    if TYPE_CHECKING:
        a: FileAnalyzer
        handler_of: dict[int, str]
        tool_vars: dict[str, int]

    def returned_tools(self, value: Node | None, scope: Scope) -> None:
        """``return { createProject: tool({...}), listProjects: tool({...}) }``: the function's result is a
        tool set; its companion function ``<qualname>()`` calls each tool's handler."""
        inner = unwrap(value)
        if inner is None or inner.type != "object" or scope.is_module:
            return
        handlers = [h for h in (self._handler(v, scope) for v in self.a.code.props(inner).values()) if h]
        if not handlers:
            return
        qualname = f"{scope.qualname}{CALL_RESULT}"
        if qualname in self.a.emitted:
            return
        self.a.emitted.add(qualname)
        location = self.a.loc(inner)
        self.a.functions.append(self._caller(qualname, f"tools of {scope.qualname}", location, handlers))

    def wrapped_tools(self, value: Node | None, scope: Scope) -> tuple[list[str], list[Node]]:
        """What a tools option holds: the functions to call (tool handlers, tool sets ``<qualname>()``)
        and the parts analysis cannot follow."""
        found: list[str] = []
        unknown: list[Node] = []
        self._collect(value, scope, found, unknown, 0)
        return list(dict.fromkeys(found)), unknown

    def _caller(self, qualname: str, name: str, location: Location, targets: list[str]) -> FunctionFacts:
        return trusted(
            FunctionFacts,
            id=short_id("fn", self.a.path, qualname),
            qualname=qualname,
            name=name,
            location=location,
            params=[],
            calls=[
                trusted(CallFact, location=location, callee=t, resolved=True, dominatingGates=[], args=[])
                for t in targets
            ],
            actions=[],
            gates=[],
            returns=[],
            fieldWrites=[],
            returnShape=None,
            returnType=None,
        )

    def _handler(self, value: Node | None, scope: Scope) -> str | None:
        """The handler of a tool value: a tool call with its handler, or a variable bound to one."""
        inner = unwrap(value)
        if inner is None:
            return None
        handler = self.handler_of.get(inner.id)
        if handler is not None:
            return handler
        if inner.type in ("identifier", "shorthand_property_identifier"):
            index = self.tool_vars.get(self.a.code.text(inner))
            if index is not None and index < len(self.a.tools):
                return self.a.tools[index].function
        return None

    def _collect(self, value: Node | None, scope: Scope, found: list[str], unknown: list[Node], depth: int) -> None:
        inner = unwrap(value)
        if inner is None or inner.type in ("null", "undefined"):
            return
        if depth > _MAX_DEPTH:
            unknown.append(inner)
            return
        handler = self._handler(inner, scope)
        if handler is not None:
            found.append(handler)
            return
        kind = inner.type
        if kind == "object":
            for child in inner.named_children:
                if child.type == "spread_element":
                    self._collect(
                        child.named_children[0] if child.named_children else None, scope, found, unknown, depth + 1
                    )
                elif child.type == "pair":
                    self._collect(child.child_by_field_id(self.a.fields.value), scope, found, unknown, depth + 1)
                elif child.type == "shorthand_property_identifier":
                    self._collect(child, scope, found, unknown, depth + 1)
            return
        if kind in ("identifier", "shorthand_property_identifier"):
            bound = self._local_value(inner)
            if bound is not None:
                self._collect(bound, scope, found, unknown, depth + 1)
                return
        typed: str | None = None
        if kind == "call_expression":
            typed, _ = self.a.dotted(inner.child_by_field_id(self.a.fields.function), scope)
            if typed == "Object.assign":  # a merge of tool sets
                args = inner.child_by_field_id(self.a.fields.arguments)
                for arg in args.named_children if args is not None else []:
                    self._collect(arg, scope, found, unknown, depth + 1)
                return
        elif kind == "member_expression":  # ``this.tools``, a field bound to a tool set's call
            base, _ = self.a.dotted(inner.child_by_field_id(self.a.fields.object), scope)
            prop = self.a.code.text(inner.child_by_field_id(self.a.fields.property)).lstrip("#")
            typed = self.a.field_types.get(f"{base}.{prop}") if base is not None else None
        elif kind in ("identifier", "shorthand_property_identifier"):
            text = self.a.code.text(inner)
            typed = scope.types.get(text) or self.a.module_types.get(text)
        # A function of the tree named as a value's type stands for its result (``this.tools =
        # createTools(sql)``, ``declare tools: ReturnType<typeof createTools>``).
        if typed is not None and self._tree_function(typed):
            found.append(f"{typed}{CALL_RESULT}")
            return
        unknown.append(inner)

    def _tree_function(self, name: str) -> bool:
        """Whether ``name`` is a function of the tree this file knows: imported from another file, defined
        here, or a method of a class defined here (not a method of a value of unknown type)."""
        imports = self.a.imports
        if "#" not in name or name.endswith("#"):
            return False
        if name in imports.local_defs.values() or any(v == name for v in imports.aliases.values()):
            return True
        owner, _, method = name.rpartition(".")
        return method in self.a.class_methods.get(owner, ())

    def _local_value(self, ident: Node) -> Node | None:
        """The value a name is bound to by a ``const``/``let`` of the function around it, declared before
        ``ident`` (``const allTools = { ...this.tools, ...mcpTools }``), when it is bound once."""
        name = self.a.code.text(ident)
        body = ident.parent
        while body is not None and body.type not in FUNCTIONS and body.type not in ("method_definition", "program"):
            body = body.parent
        if body is None:
            return None
        found: list[Node] = []
        stack = [body]
        while stack:
            node = stack.pop()
            if node.start_byte >= ident.start_byte:
                continue
            if node.type == "variable_declarator":
                target = node.child_by_field_id(self.a.fields.name)
                if target is not None and target.type == "identifier" and self.a.code.text(target) == name:
                    value = node.child_by_field_id(self.a.fields.value)
                    if value is not None:
                        found.append(value)
            elif node.type == "assignment_expression":
                left = node.child_by_field_id(self.a.fields.left)
                if left is not None and left.type == "identifier" and self.a.code.text(left) == name:
                    return None  # reassigned: which value reaches the option is not one thing
            if node is body or node.type not in FUNCTIONS:
                stack.extend(node.named_children)
        return found[0] if len(found) == 1 else None
