"""The walk over one file: functions, statements with structured gate dominance, expressions with taint.

Every function in the file becomes a ``FunctionFacts``: top-level code is ``<module>#<module>``, named
functions and class methods get their own qualnames, tool handlers ``<module>#tool:<name>``. Anonymous
callbacks (``arr.map(x => ...)``, ``new Promise((res) => ...)``, ``limiter.schedule(() => ...)``) are
analysed in place, as part of the function that creates them: they can only run after they are created,
so the gates that hold where they are created hold inside them, and their calls and actions are reached
from wherever the enclosing function is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    ArgTaint,
    CallFact,
    FunctionFacts,
    GateSite,
    TaintOrigin,
)
from assay.backend.engines.static.jsts.base import origin_key
from assay.backend.engines.static.jsts.names import Imports, require_spec
from assay.backend.engines.static.jsts.rules import NOTHING, JsRules, classify
from assay.backend.engines.static.jsts.scope import EMPTY, Pending, Scope, Taint, call_return_taint, param_taint
from assay.backend.engines.static.jsts.sites import SiteLogic
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, WRAPPERS, Code, unwrap
from assay.backend.engines.static.jsts.tools import ToolRecognizer
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.scans.bundle import Location

_LITERALS = frozenset(
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
# The expressions ``cond`` can read a gate from (anything else proves nothing).
_CONDITIONS = frozenset({"unary_expression", "identifier", "call_expression", "binary_expression"})
_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})


class FileAnalyzer(SiteLogic):
    """Analyses one parsed file into functions, models, tools and frontier sites."""

    def __init__(self, path: str, code: Code, root: Node, rules: JsRules, imports: Imports) -> None:
        super().__init__(path, code, root, rules, imports)
        self.tool_recognizer = ToolRecognizer(self)

    def run(self) -> None:
        module_scope = self.module_scope
        active: frozenset[str] = frozenset()
        for stmt in self.root.named_children:
            try:
                active = self.stmt(stmt, module_scope, active)
            except RecursionError:
                self.too_deep(stmt)
        self.emit(module_scope, None, "<module>")
        done: set[int] = set()
        index = 0
        while index < len(self.pending):
            item = self.pending[index]
            index += 1
            if item.node.id in done:
                continue
            done.add(item.node.id)
            self.function(item)

    def defer(
        self, node: Node, qualname: str, name: str, cls: str | None = None, gates: Sequence[GateSite] = ()
    ) -> None:
        self.claimed.add(node.id)
        self.pending.append(Pending(node=node, qualname=qualname, name=name, cls=cls, gates=tuple(gates)))

    def function(self, item: Pending) -> None:
        self.known_callees.clear()  # only ever left over when a chain was too deep to walk
        params, types = self.params(item.node)
        scope = Scope(qualname=item.qualname, params=params, cls=item.cls, types=types)
        for index, param in enumerate(params):
            scope.taint[param] = param_taint(param, index)
        for gate in item.gates:
            scope.add_gate(gate)
        entry = frozenset(g.id for g in item.gates)
        body = item.node.child_by_field_id(self.fields.body)
        try:
            if body is not None and body.type == "statement_block":
                self.block(body.named_children, scope, entry)
            elif body is not None:  # an arrow function's expression body is its return value
                scope.returns |= self.expr(body, scope, entry)
        except RecursionError:
            self.too_deep(item.node)
        self.emit(scope, item.node, item.name)

    def params(self, node: Node) -> tuple[list[str], dict[str, str]]:
        """A function's parameter names (destructured names flattened) and the TypeScript types of
        the plain ones (``client: OpenAI``)."""
        params_node = node.child_by_field_id(self.fields.parameters) or node.child_by_field_id(self.fields.parameter)
        if params_node is None:
            return [], {}
        if params_node.type == "identifier":
            return [self.code.text(params_node)], {}
        names: list[str] = []
        types: dict[str, str] = {}
        for param in params_node.named_children:
            typed = param.type.endswith("_parameter")  # required_parameter / optional_parameter (TypeScript)
            pattern = param.child_by_field_id(self.fields.pattern) if typed else param
            if pattern is None:
                continue
            if pattern.type != "identifier":
                names.extend(self.code.pattern_names(pattern))
                continue
            name = self.code.text(pattern)
            names.append(name)
            if typed:
                type_name = self.type_name(param.child_by_field_id(self.fields.type))
                if type_name:
                    types[name] = type_name
        return names, types

    def emit(self, scope: Scope, node: Node | None, name: str) -> None:
        if node is None and not (scope.calls or scope.actions or scope.gates):
            return
        location = self.loc(node) if node is not None else Location(path=self.path, line=1, column=1)
        qualname = scope.qualname
        if qualname in self.emitted:  # a getter and its setter, a redeclared function: keep both
            qualname = f"{qualname}@{location.line}:{location.column}"
        self.emitted.add(qualname)
        self.functions.append(
            trusted(
                FunctionFacts,
                id=short_id("fn", self.path, qualname),
                qualname=qualname,
                name=name,
                location=location,
                params=list(scope.params),  # copies, as validation would make: the scope's lists are shared
                calls=list(scope.calls),
                actions=list(scope.actions),
                gates=sorted(scope.gates, key=lambda g: (g.location.line, g.location.column, g.id)),
                returns=sorted(scope.returns, key=origin_key),
            )
        )

    def nested_qualname(self, scope: Scope, name: str) -> str:
        if scope.is_module:
            return self.imports.local_defs.get(name, f"{self.module}#{name}")
        return f"{scope.qualname}.{name}"

    def block(self, statements: Sequence[Node], scope: Scope, active: frozenset[str]) -> frozenset[str]:
        if not scope.is_module:
            # Function declarations are hoisted: callable by name anywhere in the block.
            for stmt in statements:
                if stmt.type in ("function_declaration", "generator_function_declaration"):
                    name = self.code.text(stmt.child_by_field_id(self.fields.name))
                    scope.locals[name] = self.nested_qualname(scope, name)
        for stmt in statements:
            active = self.stmt(stmt, scope, active)
        return active

    def stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        """Walks one statement; returns the gates that hold after it."""
        kind = stmt.type
        handler = _STMT_HANDLERS.get(kind)
        if handler is not None:
            return handler(self, stmt, scope, active)
        if kind in _LITERALS:
            return active
        for child in stmt.named_children:
            if child.type.endswith("statement") or child.type in (
                "statement_block",
                "switch_body",
                "switch_case",
                "switch_default",
            ):
                self.stmt(child, scope, active)
            elif child.type in ("catch_clause", "finally_clause"):
                continue
            else:
                self.expr(child, scope, active)
        return active

    def expression_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        expr = stmt.named_children[0] if stmt.named_children else None
        if expr is None:
            return active
        self.expr(expr, scope, active)
        gate = self.gate_call(expr, scope)
        return active | {gate} if gate is not None else active

    def declarations(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        for decl in stmt.named_children:
            if decl.type == "variable_declarator":
                self.declare(decl, scope, active)
        return active

    def return_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        for child in stmt.named_children:
            scope.returns |= self.expr(child, scope, active)
        return active

    def statement_block(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        return self.block(stmt.named_children, scope, active)

    def function_decl(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        name = self.code.text(stmt.child_by_field_id(self.fields.name))
        self.defer(stmt, self.nested_qualname(scope, name), name, cls=scope.cls)
        return active

    def class_decl(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        self.class_body(stmt, scope, self.code.text(stmt.child_by_field_id(self.fields.name)))
        return active

    def loop_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        self.loop(stmt, scope, active)
        return active

    def export(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        decl = stmt.child_by_field_id(self.fields.declaration)
        if decl is not None:
            named = bool(self.code.text(decl.child_by_field_id(self.fields.name)))
            if decl.type in ("function_declaration", "generator_function_declaration") and not named:
                self.defer(decl, f"{self.module}#default", "default")  # export default function () {}
                return active
            if decl.type in ("class_declaration", "class") and not named:
                self.class_body(decl, scope, "default")  # export default class {}
                return active
            return self.stmt(decl, scope, active)
        value = stmt.child_by_field_id(self.fields.value)
        inner = unwrap(value)
        if inner is not None and inner.type in FUNCTIONS:
            self.defer(inner, f"{self.module}#default", "default")
        elif inner is not None and inner.type == "object":
            self.object(inner, scope, active, owner=f"{self.module}#default")
        elif inner is not None and inner.type == "class":
            self.class_body(inner, scope, "default")
        elif value is not None:
            self.expr(value, scope, active)
        return active

    def switch(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        """Each case runs with the gates that hold before the switch; ``case "get_weather":`` names the
        first function of the tree its body calls (how literal tools are often dispatched)."""
        self.expr(stmt.child_by_field_id(self.fields.value), scope, active)
        body = stmt.child_by_field_id(self.fields.body)
        for case in body.named_children if body is not None else []:
            value = case.child_by_field_id(self.fields.value)
            before = len(scope.calls)
            for child in case.named_children:
                if child == value:
                    self.expr(child, scope, active)
                elif child.type.endswith(("statement", "declaration")) or child.type == "statement_block":
                    self.stmt(child, scope, active)
            self.name_case(self.code.string_value(value) if value is not None else None, scope, before)
        return active

    def compared_string(self, condition: Node | None) -> str | None:
        """``"get_weather"`` for ``if (call.name === "get_weather")``."""
        node = unwrap(condition)
        if node is None or node.type != "binary_expression" or self.code.operator_of(node) not in ("===", "=="):
            return None
        for side in (node.child_by_field_id(self.fields.right), node.child_by_field_id(self.fields.left)):
            if side is not None and side.type == "string":
                return self.code.string_value(side)
        return None

    def name_case(self, label: str | None, scope: Scope, before: int) -> None:
        if label and len(scope.calls) > before:
            self.named_impls.setdefault(label, scope.calls[before].callee)

    def loop(self, stmt: Node, scope: Scope, active: frozenset[str]) -> None:
        body = stmt.child_by_field_id(self.fields.body)
        if stmt.type == "for_in_statement":
            left, right = stmt.child_by_field_id(self.fields.left), stmt.child_by_field_id(self.fields.right)
            taint = self.expr(right, scope, active)
            if left is not None:
                for name in self.code.pattern_names(left):
                    scope.taint[name] = taint
        else:
            for field in (self.fields.initializer, self.fields.condition, self.fields.increment):
                part = stmt.child_by_field_id(field)
                if part is not None:
                    if part.type.endswith("declaration"):
                        self.stmt(part, scope, active)
                    else:
                        self.expr(part, scope, active)
        if body is not None:
            self.stmt(body, scope, active)

    def try_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        body = stmt.child_by_field_id(self.fields.body)
        after = self.stmt(body, scope, active) if body is not None else active
        handler = stmt.child_by_field_id(self.fields.handler)
        if handler is not None:
            parameter = handler.child_by_field_id(self.fields.parameter)
            for name in self.code.pattern_names(parameter) if parameter is not None else []:
                scope.taint[name] = EMPTY
            handler_body = handler.child_by_field_id(self.fields.body)
            if handler_body is not None:
                self.stmt(handler_body, scope, active)
        finalizer = stmt.child_by_field_id(self.fields.finalizer)
        if finalizer is not None:
            for child in finalizer.named_children:
                self.stmt(child, scope, active)
        # With a handler, control may continue after any statement of the body threw.
        return active if handler is not None else after

    def if_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        condition = stmt.child_by_field_id(self.fields.condition)
        consequence = stmt.child_by_field_id(self.fields.consequence)
        alternative = stmt.child_by_field_id(self.fields.alternative)
        other = alternative.named_children[0] if alternative is not None and alternative.named_children else None
        self.expr(condition, scope, active)
        cond = self.cond(condition, scope)
        then_ends, else_ends = self.code.terminates(consequence), self.code.terminates(other)
        before = len(scope.calls)
        after_then = self.branch(consequence, scope, active | cond.t, cond.t_clean, keep=else_ends and not then_ends)
        self.name_case(self.compared_string(condition), scope, before)
        if other is not None:
            after_else = self.branch(other, scope, active | cond.f, cond.f_clean, keep=then_ends and not else_ends)
        else:
            after_else = active | cond.f
            if then_ends:
                self.clean(scope, cond.f_clean)
        if then_ends and not else_ends:
            return after_else
        if else_ends and not then_ends:
            return after_then
        if then_ends and else_ends:
            return active
        return after_then & after_else

    def branch(
        self, node: Node | None, scope: Scope, active: frozenset[str], clean: frozenset[str], *, keep: bool
    ) -> frozenset[str]:
        if node is None:
            return active
        saved = {name: scope.taint[name] for name in clean if name in scope.taint}
        self.clean(scope, clean)
        after = self.stmt(node, scope, active)
        if not keep:
            scope.taint.update(saved)
        return after

    @staticmethod
    def clean(scope: Scope, names: frozenset[str]) -> None:
        for name in names:
            if name in scope.taint:
                scope.taint[name] = EMPTY

    def declare(self, decl: Node, scope: Scope, active: frozenset[str]) -> None:
        name_node = decl.child_by_field_id(self.fields.name)
        value = decl.child_by_field_id(self.fields.value)
        if name_node is None:
            return
        if value is None:
            for name in self.code.pattern_names(name_node):
                scope.taint[name] = EMPTY
            return
        inner = unwrap(value)
        kind = inner.type if inner is not None else ""
        is_ident = name_node.type == "identifier"
        name_text = self.code.text(name_node) if is_ident else ""
        if inner is not None and is_ident and kind in FUNCTIONS:
            qualname = self.nested_qualname(scope, name_text)
            if not scope.is_module:
                scope.locals[name_text] = qualname
            self.defer(inner, qualname, name_text, cls=scope.cls)
            return
        if inner is not None and is_ident and kind == "class":
            self.class_body(inner, scope, name_text)
            return
        spec = require_spec(inner, self.code) if kind == "call_expression" else None
        if spec is not None:
            if not scope.is_module:  # a require inside a function: bind it like an import
                if is_ident:
                    scope.types[name_text] = self.imports.namespace(spec)
                else:
                    for part in name_node.named_children:
                        if part.type == "shorthand_property_identifier_pattern":
                            scope.types[self.code.text(part)] = self.imports.member(spec, self.code.text(part))
            return
        if inner is not None and is_ident and kind == "object" and scope.is_module:
            taint = self.object(inner, scope, active, owner=self.nested_qualname(scope, name_text))
        else:
            taint = self.expr(value, scope, active)
        if not is_ident:
            for name in self.code.pattern_names(name_node):
                scope.taint[name] = taint
            return
        scope.taint[name_text] = taint
        if inner is None:
            return
        if kind in ("call_expression", "new_expression", "identifier", "member_expression"):
            type_name, _ = self.dotted(inner, scope)
            if type_name:
                scope.types[name_text] = type_name
                if scope.is_module:
                    self.module_types[name_text] = type_name
        elif kind in ("string", "template_string") and (
            kind == "string"
            or len(inner.named_children) == sum(1 for c in inner.named_children if c.type == "string_fragment")
        ):
            constant = self.code.string_value(inner)
            if constant is not None:
                scope.consts[name_text] = constant
                if scope.is_module:
                    self.module_consts[name_text] = constant
        elif kind == "subscript_expression":
            index = inner.child_by_field_id(self.fields.index)
            if index is not None and index.type not in ("string", "number"):
                scope.dispatch_vars.add(name_text)
        if kind in _CONDITIONS:
            cond = self.cond(inner, scope)
            if cond:
                scope.gate_vars[name_text] = cond

    def assign(self, expr: Node, scope: Scope, active: frozenset[str]) -> Taint:
        left = expr.child_by_field_id(self.fields.left)
        right = expr.child_by_field_id(self.fields.right)
        inner = unwrap(right)
        if left is not None and left.type == "member_expression" and scope.is_module and inner is not None:
            target = self.commonjs_export(self.code.text(left))
            if target is not None and inner.type in FUNCTIONS:
                self.defer(inner, target, target.rsplit("#", 1)[1])
                return EMPTY
            if target is not None and inner.type == "object":
                return self.object(inner, scope, active, owner=f"{self.module}#")
        if (
            left is not None
            and left.type == "identifier"
            and self.code.text(left) in ("exports",)
            and inner is not None
            and inner.type == "object"
        ):
            return self.object(inner, scope, active, owner=f"{self.module}#")
        taint = self.expr(right, scope, active)
        if expr.type == "augmented_assignment_expression" and left is not None and left.type == "identifier":
            scope.taint[self.code.text(left)] = scope.taint_of(self.code.text(left)) | taint
        elif left is not None and left.type == "identifier":
            name = self.code.text(left)
            scope.taint[name] = taint
            if inner is not None and inner.type in ("call_expression", "new_expression"):
                type_name, _ = self.dotted(inner, scope)
                if type_name:
                    scope.types[name] = type_name
        elif left is not None and left.type in ("member_expression", "subscript_expression"):
            base = left
            while base.type in ("member_expression", "subscript_expression"):
                base = base.child_by_field_id(self.fields.object) or base
                if base.type not in ("member_expression", "subscript_expression"):
                    break
            if base.type == "identifier":
                scope.taint[self.code.text(base)] = scope.taint_of(self.code.text(base)) | taint
            if (
                base.type == "this"
                and scope.cls
                and left.type == "member_expression"
                and inner is not None
                and inner.type in ("new_expression", "call_expression")
            ):
                type_name, _ = self.dotted(inner, scope)
                prop = self.code.text(left.child_by_field_id(self.fields.property))
                if type_name and left.child_by_field_id(self.fields.object) == base:
                    self.field_types.setdefault(f"{scope.cls}.{prop}", type_name)
        elif left is not None:
            for name in self.code.pattern_names(left):
                scope.taint[name] = taint
        return taint

    def commonjs_export(self, target: str) -> str | None:
        """The qualname a CommonJS export assignment defines (``exports.run = ...`` -> ``mod#run``)."""
        if target in ("module.exports", "exports"):
            return f"{self.module}#default"
        for prefix in ("module.exports.", "exports."):
            if target.startswith(prefix) and "." not in target[len(prefix) :]:
                return f"{self.module}#{target[len(prefix) :]}"
        return None

    def class_body(self, node: Node, scope: Scope, name: str) -> None:
        """Methods become functions ``<module>#Class.method``; field and constructor-assigned types
        (``this.client = new OpenAI()``) resolve ``this.client.…`` calls in every method."""
        if not name:
            name = self.code.enclosing_binding(node) or f"<class@{node.start_point[0] + 1}>"
        cls = self.nested_qualname(scope, name)
        body = node.child_by_field_id(self.fields.body)
        if body is None:
            return
        self.tool_recognizer.class_tool(node, cls, body)
        self.class_methods[cls] = {
            self.code.text(m.child_by_field_id(self.fields.name) or m.child_by_field_id(self.fields.property)).lstrip(
                "#"
            )
            for m in body.named_children
            if m.type in ("method_definition", "public_field_definition")
        }
        heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
        if heritage is not None and heritage.named_children:
            clause = heritage.named_children[0]
            base_node = clause.child_by_field_id(self.fields.value) if clause.type == "extends_clause" else clause
            base, _ = self.dotted(base_node, scope)
            if base is not None and "#" in base:
                self.class_bases[cls] = base
        for member in body.named_children:
            if member.type == "public_field_definition":
                prop = self.code.text(
                    member.child_by_field_id(self.fields.name) or member.child_by_field_id(self.fields.property)
                )
                value = unwrap(member.child_by_field_id(self.fields.value))
                if value is None:
                    continue
                if value.type in FUNCTIONS:
                    if value.id not in self.claimed:
                        self.defer(value, f"{cls}.{prop}", prop, cls=cls)
                elif value.type in ("new_expression", "call_expression"):
                    type_name, _ = self.dotted(value, scope)
                    if type_name:
                        self.field_types[f"{cls}.{prop}"] = type_name
            elif member.type == "method_definition":
                method = self.code.text(member.child_by_field_id(self.fields.name)).lstrip("#")
                if method == "constructor":
                    self.constructor_fields(member, cls)
                if member.id not in self.claimed:
                    self.defer(member, f"{cls}.{method}", method, cls=cls)
            elif member.type == "class_static_block":
                body_node = member.child_by_field_id(self.fields.body)
                if body_node is not None and member.id not in self.claimed:
                    self.defer(member, f"{cls}.<static>", "<static>", cls=cls)

    def constructor_fields(self, ctor: Node, cls: str) -> None:
        params = ctor.child_by_field_id(self.fields.parameters)
        for param in params.named_children if params is not None else []:
            if any(c.type == "accessibility_modifier" for c in param.named_children):
                pattern = param.child_by_field_id(self.fields.pattern)
                type_name = self.type_name(param.child_by_field_id(self.fields.type))
                if pattern is not None and type_name:
                    self.field_types[f"{cls}.{self.code.text(pattern)}"] = type_name
        body = ctor.child_by_field_id(self.fields.body)
        for stmt in body.named_children if body is not None else []:
            expr = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
            if expr is None or expr.type != "assignment_expression":
                continue
            left, right = expr.child_by_field_id(self.fields.left), unwrap(expr.child_by_field_id(self.fields.right))
            if left is None or right is None or left.type != "member_expression":
                continue
            if self.code.text(left.child_by_field_id(self.fields.object)) == "this" and right.type in (
                "new_expression",
                "call_expression",
            ):
                type_name, _ = self.dotted(right, None)
                if type_name:
                    self.field_types[f"{cls}.{self.code.text(left.child_by_field_id(self.fields.property))}"] = (
                        type_name
                    )

    def expr(self, node: Node | None, scope: Scope, active: frozenset[str]) -> Taint:
        """What may flow out of an expression, walking it for calls, functions and assignments."""
        if node is None:
            return EMPTY
        kind = node.type
        while kind == "member_expression":  # what flows out of ``a.b.c`` is what flows out of ``a``
            node = node.child_by_field_id(self.fields.object)
            if node is None:
                return EMPTY
            kind = node.type
        if kind == "identifier" or kind == "shorthand_property_identifier":  # the commonest case by far
            return scope.taint_of(self.code.src[node.start_byte : node.end_byte].decode("utf-8", "replace"))
        handler = _EXPR_HANDLERS.get(kind)
        if handler is not None:
            return handler(self, node, scope, active)
        if kind in _LITERALS:
            return EMPTY
        return self.children_taint(node, scope, active)

    def children_taint(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        """Any other expression (arrays, templates, unary and update operators, spreads...): the union of
        what its parts carry."""
        taint = EMPTY
        for child in node.named_children:
            found = self.expr(child, scope, active)
            if found:  # most parts carry nothing: skip building a new set for them
                taint = taint | found if taint else found
        return taint

    def binary(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        operator = self.code.operator_of(node)
        left, right = node.child_by_field_id(self.fields.left), node.child_by_field_id(self.fields.right)
        if operator not in ("&&", "||"):
            # Long left-deep chains ("a" + b + "c" + ...) are walked iteratively, not recursively.
            rights: list[Node | None] = [right]
            while (
                left is not None
                and left.type == "binary_expression"
                and self.code.operator_of(left) not in ("&&", "||")
            ):
                rights.append(left.child_by_field_id(self.fields.right))
                left = left.child_by_field_id(self.fields.left)
            taint = self.expr(left, scope, active)
            for operand in reversed(rights):
                taint |= self.expr(operand, scope, active)
            return taint
        taint = self.expr(left, scope, active)
        cond = self.cond(left, scope)
        active = active | (cond.t if operator == "&&" else cond.f)
        return taint | self.expr(right, scope, active)

    def ternary(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        condition = node.child_by_field_id(self.fields.condition)
        self.expr(condition, scope, active)
        cond = self.cond(condition, scope)
        return self.expr(node.child_by_field_id(self.fields.consequence), scope, active | cond.t) | self.expr(
            node.child_by_field_id(self.fields.alternative), scope, active | cond.f
        )

    def anonymous(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        return self.inline(node, scope, active, EMPTY)

    def class_expr(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        del active
        self.class_body(node, scope, "")
        return EMPTY

    def inline(self, node: Node, scope: Scope, active: frozenset[str], param_taint: Taint) -> Taint:
        """Analyse an anonymous function where it is created; returns what it returns."""
        if node.id in self.claimed:
            return EMPTY
        sub = scope.child()
        names, types = self.params(node)
        for name in names:
            sub.taint[name] = param_taint
            sub.types.pop(name, None)
        sub.types.update(types)
        body = node.child_by_field_id(self.fields.body)
        if body is None:
            return EMPTY
        if body.type == "statement_block":
            self.block(body.named_children, sub, active)
        else:
            sub.returns |= self.expr(body, sub, active)
        return frozenset(sub.returns)

    def object(self, node: Node, scope: Scope, active: frozenset[str], owner: str | None = None) -> Taint:
        """An object literal: tool definitions in it, and functions in it (named ``owner.key`` when the
        object is bound at the top level, so ``handlers.run(x)`` calls ``<module>#handlers.run``)."""
        self.tool_recognizer.literal_tool(node, scope)
        taint = EMPTY
        sep = "" if owner is not None and owner.endswith("#") else "."
        for child in node.named_children:
            kind = child.type
            if kind == "pair":
                key = child.child_by_field_id(self.fields.key)
                value = child.child_by_field_id(self.fields.value)
                inner = unwrap(value)
                if inner is None:
                    continue
                inner_kind = inner.type
                if inner_kind == "identifier":
                    key_text = self.code.key_name(key)
                    self.tool_recognizer.rename(self.code.text(inner), key_text)
                    target, _ = self.dotted(inner, scope)
                    if key_text and target is not None and "#" in target:  # { get_weather: getWeather }
                        self.named_impls.setdefault(key_text, target)
                elif (
                    inner_kind in FUNCTIONS
                    and owner is not None
                    and key is not None
                    and key.type != "computed_property_name"
                ):
                    key_text = self.code.key_name(key)
                    if inner.id not in self.claimed:
                        self.defer(inner, f"{owner}{sep}{key_text}", key_text, cls=scope.cls)
                        if key_text:
                            self.named_impls.setdefault(key_text, f"{owner}{sep}{key_text}")
                    continue
                if key is not None and key.type == "computed_property_name":
                    self.expr(key, scope, active)
                taint |= self.expr(value, scope, active)
            elif kind == "method_definition":
                method = self.code.text(child.child_by_field_id(self.fields.name))
                if owner is not None and child.id not in self.claimed:
                    self.defer(child, f"{owner}{sep}{method}", method, cls=scope.cls)
                else:
                    self.inline(child, scope, active, EMPTY)
            else:
                taint |= self.expr(child, scope, active)
        return taint

    def callee_name(self, node: Node, func: Node | None, scope: Scope) -> tuple[str | None, bool]:
        """What a call calls. Resolving the outer call of a chain ``a.b().c()`` resolves its inner calls
        too; the walk then reaches each inner call through its receiver (member objects, wrappers,
        subscript objects) before anything in the chain can bind a name, so those names still hold."""
        known = self.known_callees.pop(node.id, None)
        if known is not None and known[0] is scope:
            return known[1], known[2]
        return self.dotted(func, scope, self.known_callees)

    def call(self, node: Node, scope: Scope, active: frozenset[str]) -> Taint:
        is_new = node.type == "new_expression"
        func = node.child_by_field_id(self.fields.constructor if is_new else self.fields.function)
        args_node = node.child_by_field_id(self.fields.arguments)
        if args_node is None:
            args: list[Node] = []
        elif args_node.type == "template_string":  # a tagged template: $`ls ${dir}`
            args = [args_node]
        else:
            args = args_node.named_children  # a fresh list each time, never changed here
        name, resolved = self.callee_name(node, func, scope)
        facts = classify(self.rules, name) if name else NOTHING
        gate_id = self.gate_site(scope, facts.gate, node, name) if facts.gate is not None and name else None
        self.call_gates[node.id] = gate_id
        if facts.tool and name:
            self.tool_recognizer.tool_call(node, name, args, scope)

        receiver = EMPTY
        keyed = False  # f[k](...) or f[k].m(...): a callee looked up by key
        inner_func = unwrap(func)
        if inner_func is not None:
            func_kind = inner_func.type
            if func_kind == "member_expression":
                obj = inner_func.child_by_field_id(self.fields.object)
                receiver = self.expr(obj, scope, active)
                inner_obj = unwrap(obj)
                keyed = inner_obj is not None and inner_obj.type == "subscript_expression"
            elif func_kind in FUNCTIONS:  # (() => {...})()
                receiver = self.inline(inner_func, scope, active, EMPTY)
            elif func_kind != "identifier":
                receiver = self.expr(inner_func, scope, active)
                keyed = func_kind == "subscript_expression"
        arg_taints: list[tuple[int, Taint]] = []
        callbacks: list[Node] = []
        all_args = receiver
        for index, arg in enumerate(args):
            inner = unwrap(arg) if arg.type in WRAPPERS else arg
            if inner is not None and inner.type in FUNCTIONS:
                callbacks.append(inner)
            else:
                taint = self.expr(arg, scope, active)
                arg_taints.append((index, taint))
                if taint:  # most arguments carry nothing: skip building a new set for them
                    all_args = all_args | taint if all_args else taint
        callback_active = active | {gate_id} if gate_id is not None else active
        returned = EMPTY
        for callback in callbacks:
            returned |= self.inline(callback, scope, callback_active, all_args)
        if inner_func is not None and (keyed or scope.dispatch_vars):
            self.dispatch(inner_func, node, scope)
        if not name:
            return all_args | returned
        if facts is NOTHING:  # most calls: the rules say nothing about them
            return self.plain_call(node, func, name, resolved, scope, active, arg_taints, receiver, returned, all_args)

        location: Location | None = None
        command, command_args = self.command(name, args, scope) if facts.command else (None, None)
        if facts.model is not None or facts.network or command is not None:
            model = self.model(node, name, command, args, scope)
            if model is not None:
                return EMPTY if is_new else frozenset({TaintOrigin(kind="model_output", location=model)})
        if facts.taint_source is not None:
            return frozenset({TaintOrigin(kind="model_output", location=self.loc(node))}) | all_args

        if facts.frontier is not None or facts.config_read:
            self.frontier_tools(node, name, args, scope)
        action_rule = (
            self.action_rule(name, command, command_args, args, func, scope) if (facts.action or command) else None
        )
        if action_rule is not None:
            location = self.loc(node)
            target = command or name
            gates = set(active)
            sandbox = self.rules.sandbox_target(target)
            if sandbox is not None:
                gates.add(self.gate_site(scope, sandbox, node, f"runs inside {target.rsplit('.', 1)[0]}"))
            scope.actions.append(
                trusted(
                    ActionSite,
                    id=short_id("act", self.path, location.line, location.column, action_rule.id),
                    actionClass=action_rule.actionClass or "network.egress",
                    impact=action_rule.impact or "medium",
                    ruleId=action_rule.id,
                    target=target,
                    location=location,
                    dominatingGates=sorted(gates),
                    taint=sorted(all_args, key=origin_key),
                )
            )
            return all_args | returned
        return self.plain_call(node, func, name, resolved, scope, active, arg_taints, receiver, returned, all_args)

    def plain_call(
        self,
        node: Node,
        func: Node | None,
        name: str,
        resolved: bool,
        scope: Scope,
        active: frozenset[str],
        arg_taints: list[tuple[int, Taint]],
        receiver: Taint,
        returned: Taint,
        all_args: Taint,
    ) -> Taint:
        """A call that is neither a model use nor an action: a call into the tree, or possibly unresolved."""
        if "#" in name:
            callee = self.inherited(f"{name}default" if name.endswith("#") else name)
            scope.calls.append(
                trusted(
                    CallFact,
                    location=self.loc(node),
                    callee=callee,
                    resolved=resolved,
                    dominatingGates=sorted(active),
                    # Validated: an argument's keyword is left unset (as the facts have always had it).
                    args=[ArgTaint(index=i, origins=sorted(t, key=origin_key)) for i, t in arg_taints if t],
                )
            )
            return call_return_taint(callee) | receiver | returned
        if not resolved or self.imports.unresolvable:
            self.unresolved(func, name, resolved, node, scope)
        return all_args | returned


# ``expr`` dispatches on the node type with one dict probe instead of a chain of comparisons. The table
# holds plain functions, not bound methods: an analyzer holding its own bound methods would be a
# reference cycle, kept (with its whole tree) until the cyclic collector runs.
_EXPR_HANDLERS: dict[str, Callable[[FileAnalyzer, Node, Scope, frozenset[str]], Taint]] = {
    "call_expression": FileAnalyzer.call,
    "new_expression": FileAnalyzer.call,
    "object": FileAnalyzer.object,
    "assignment_expression": FileAnalyzer.assign,
    "augmented_assignment_expression": FileAnalyzer.assign,
    "binary_expression": FileAnalyzer.binary,
    "ternary_expression": FileAnalyzer.ternary,
    "class": FileAnalyzer.class_expr,
    **dict.fromkeys(FUNCTIONS, FileAnalyzer.anonymous),
}

# ``stmt`` dispatches the same way (statements not listed are walked part by part).
_STMT_HANDLERS: dict[str, Callable[[FileAnalyzer, Node, Scope, frozenset[str]], frozenset[str]]] = {
    "expression_statement": FileAnalyzer.expression_stmt,
    "lexical_declaration": FileAnalyzer.declarations,
    "variable_declaration": FileAnalyzer.declarations,
    "if_statement": FileAnalyzer.if_stmt,
    "return_statement": FileAnalyzer.return_stmt,
    "statement_block": FileAnalyzer.statement_block,
    "function_declaration": FileAnalyzer.function_decl,
    "generator_function_declaration": FileAnalyzer.function_decl,
    "export_statement": FileAnalyzer.export,
    "class_declaration": FileAnalyzer.class_decl,
    "abstract_class_declaration": FileAnalyzer.class_decl,
    "try_statement": FileAnalyzer.try_stmt,
    "switch_statement": FileAnalyzer.switch,
    "import_statement": lambda self, stmt, scope, active: active,
    "empty_statement": lambda self, stmt, scope, active: active,
    "debugger_statement": lambda self, stmt, scope, active: active,
    **dict.fromkeys(_LOOPS, FileAnalyzer.loop_stmt),
}
