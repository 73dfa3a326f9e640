"""Tools defined in one place and given to a model in another, joined by the linker.

``{ weather: weatherTool }`` places a tool held by a top-level name (possibly of another file) under a
key; ``tools: {...}`` of a generation call or agent is a model's tool set, every key of it a tool; and a
``{ name, description, handler }`` object held by a top-level name is a tool only where something
registers or places it (a candidate the linker drops otherwise).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import ToolDef
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, unwrap

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.analyzer import FileAnalyzer
    from assay.backend.engines.static.jsts.scope import Scope


class ToolPlacements:
    """The placement part of ``ToolRecognizer`` (its base class)."""

    if TYPE_CHECKING:
        a: FileAnalyzer

        def schema_keys(self, node: Node | None, depth: int = 0) -> list[str] | None: ...

    def in_tool_set(self, node: Node, scope: Scope) -> bool:
        """Whether an object literal is the ``tools`` option of a generation call or an agent
        (``new ToolLoopAgent({ tools: {...} })``): every key of it is a tool the model is given."""
        pair = node.parent
        if (
            pair is None
            or pair.type != "pair"
            or self.a.code.raw(pair.child_by_field_id(self.a.fields.key)) != b"tools"
        ):
            return False
        options = pair.parent
        arguments = options.parent if options is not None else None
        call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        if call is None or call.type not in ("call_expression", "new_expression"):
            return False
        field = self.a.fields.function if call.type == "call_expression" else self.a.fields.constructor
        name, _ = self.a.dotted(call.child_by_field_id(field), scope)
        return name is not None and self.a.rules.tool_sets.matches(name)

    def placement(self, pair: Node, key: str, value: Node, scope: Scope, toolset: bool) -> None:
        """``{ weather: weatherTool }`` / ``{ createSandbox: createSandbox({ writer }) }`` where the value
        is held by another file or made by a function of the tree: the tool defined there, under this
        key (the linker joins them; a use that names no definition is dropped, unless it is in a model's
        tool set: then a tool whose definition analysis cannot see)."""
        rule = self.a.rules.placement_rule
        inner = unwrap(value)
        if rule is None or inner is None or not key:
            return
        ref: str | None = None
        if inner.type == "call_expression":
            callee, _ = self.a.dotted(inner.child_by_field_id(self.a.fields.function), scope)
            if callee is not None and "#" in callee:
                ref = f"{callee}()"
        elif inner.type in ("identifier", "member_expression", "shorthand_property_identifier"):
            held, _ = (
                self.a.resolve_name(self.a.code.text(inner), scope)
                if inner.type != "member_expression"
                else self.a.dotted(inner, scope)
            )
            if held is not None and "#" in held and not held.startswith(f"{self.a.module}#"):
                ref = held
            elif toolset:
                ref = held or self.a.code.text(inner)
        if ref is None and toolset:
            ref = self.a.code.text(inner)[:80]
        if ref is None:
            return
        location = self.a.loc(pair)
        self.a.tools.append(
            ToolDef(
                id=short_id("tool", self.a.path, location.line, key, rule.id, "use"),
                name=key,
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                ref=ref,
                toolset=toolset,
            )
        )

    def definition_object(self, node: Node, owner: str, sep: str) -> None:
        """``export const getDataTool = { name: "get_data", description, handler: getData }``: a tool
        definition held by a top-level name, a tool where something registers or places it."""
        rule = self.a.rules.definition_rule
        if rule is None:
            return
        fields = self.a.code.props(node)
        name_node = unwrap(fields.get("name"))
        name = self.a.code.string_value(name_node) if name_node is not None else None
        key = next((k for k in rule.match["definition_objects"] if k in fields), None)
        if not name or key is None or name_node is None:
            return
        handler = unwrap(fields[key])
        if handler is None:
            return
        if handler.type in FUNCTIONS:
            function: str | None = f"{owner}{sep}{key}"
        elif handler.type == "identifier":
            function, _ = self.a.resolve_name(self.a.code.text(handler), None)
        else:
            return
        location = self.a.loc(name_node)
        self.a.tools.append(
            ToolDef.found(
                rule,
                name,
                location,
                description=self.a.code.string_value(unwrap(fields.get("description"))),
                function=function if function is not None and "#" in function else None,
                parameters=self.schema_keys(
                    fields.get("inputSchema") or fields.get("parametersSchema") or fields.get("parameters")
                ),
                binding=owner,
                candidate=True,
            )
        )
