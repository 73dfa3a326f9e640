"""Statements, with structured gate dominance: which gates hold after each statement, per branch."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tree_sitter import Node

from assay.backend.engines.static.checked import VALUE_CHECKS, branch_dispatches, start_checks, without
from assay.backend.engines.static.facts import AFTER, NEVER, ArgTaint, CallFact
from assay.backend.engines.static.jsts.base import origin_key
from assay.backend.engines.static.jsts.expressions import ExprLogic
from assay.backend.engines.static.jsts.graph_state import returned_object, state_field
from assay.backend.engines.static.jsts.scope import EMPTY, Cond, Scope, Taint, call_return_taint, param_taint
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, LITERALS, namespace_members, unwrap
from assay.backend.engines.static.pyast.models import trusted

_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
_EQUALITY = frozenset({"===", "==", "!==", "!="})
# Returned expressions that may be checks (``return ALLOWED.has(x)``, ``return !re.test(x)``).
_CHECK_VALUES = frozenset({"call_expression", "unary_expression", "binary_expression"})
# Calls that give back the object they are handed, sealed (``return Object.freeze({ ... })``).
_FROZEN = frozenset({b"Object.freeze", b"Object.seal"})


class StmtLogic(ExprLogic):
    """Blocks, branches, loops, switches, try, exports and declarations of functions and classes."""

    def block(self, statements: Sequence[Node], scope: Scope, active: frozenset[str]) -> frozenset[str]:
        kinds = self.code.kinds
        if not scope.is_module:
            # Function declarations are hoisted: callable by name anywhere in the block.
            for stmt in statements:
                if kinds[stmt.kind_id] in ("function_declaration", "generator_function_declaration"):
                    name = self.code.text(stmt.child_by_field_id(self.fields.name))
                    scope.locals[name] = self.nested_qualname(scope, name)
        for index, stmt in enumerate(statements):
            kind = kinds[stmt.kind_id]
            if kind == "switch_statement" and index + 1 < len(statements):
                rest = statements[index + 1 :]
                if self.names_tool(stmt.child_by_field_id(self.fields.value)):
                    # ``switch (name) { case "ng_add": args = [...]; break; ... } run(cmd, args)``: what
                    # follows the switch is part of every tool branch that breaks out of it.
                    after = self.switch(stmt, scope, active, rest)
                    return active if after is None else after
            active = self.stmt(stmt, scope, active)
            if scope.pauses:  # ``const answer = interrupt(...)``: what follows runs after a human answered
                active = active | frozenset(scope.pauses)
                scope.pauses.clear()
            if kind == "if_statement" and index + 1 < len(statements):
                label, ref = self.name_guard(stmt, scope)
                if label is not None:  # ``if (name !== "mysql_query") throw ...``: the rest is its branch
                    after = self.case_function(stmt, statements[index + 1 :], label, scope, active)
                    if ref is not None:
                        self.case_refs[self.named_impls[label]] = ref
                    return after
        return active

    def name_guard(self, stmt: Node, scope: Scope) -> tuple[str | None, str | None]:
        """The tool name of ``if (request.params.name !== "mysql_query") throw ...`` (no else): what
        follows in the block runs for that tool only. With a constant of another file, a placeholder
        label and the reference the linker names it by."""
        if stmt.child_by_field_id(self.fields.alternative) is not None:
            return None, None
        label, on_name, negated, ref = self.compared_name(stmt, scope)
        if not (label and on_name and negated) or not self.code.terminates(
            stmt.child_by_field_id(self.fields.consequence)
        ):
            return None, None
        return label, ref

    def compared_name(self, stmt: Node, scope: Scope) -> tuple[str | None, bool, bool, str | None]:
        """``compared_string`` of an ``if``'s condition, or, when the name is compared with a constant of
        another file (``name === ToolName.LIST``), a placeholder label and that constant's reference."""
        kinds = self.code.kinds
        condition = stmt.child_by_field_id(self.fields.condition)
        label, on_name, negated = self.compared_string(condition, scope)
        if label is not None:
            return label, on_name, negated, None
        node = unwrap(condition)
        if node is None or kinds[node.kind_id] != "binary_expression" or self.code.operator_of(node) not in _EQUALITY:
            return None, False, False, None
        right, left = node.child_by_field_id(self.fields.right), node.child_by_field_id(self.fields.left)
        for side, other in ((right, left), (left, right)):
            ref = self.tree_constant(side) if side is not None and self.names_tool(other) else None
            if ref is not None:
                negated = self.code.operator_of(node) in ("!==", "!=")
                return f"@{stmt.start_point[0] + 1}", True, negated, ref
        return None, False, False, None

    def stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        """Walks one statement; returns the gates that hold after it."""
        kinds = self.code.kinds
        kind = kinds[stmt.kind_id]
        handler = _STMT_HANDLERS.get(kind)
        if handler is not None:
            return handler(self, stmt, scope, active)
        if kind in LITERALS:
            return active
        for child in stmt.named_children:
            child_kind = kinds[child.kind_id]
            if child_kind.endswith("statement") or child_kind in (
                "statement_block",
                "switch_body",
                "switch_case",
                "switch_default",
            ):
                self.stmt(child, scope, active)
            elif child_kind in ("catch_clause", "finally_clause"):
                continue
            else:
                self.expr(child, scope, active)
        return active

    def expression_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        expr = stmt.named_children[0] if stmt.named_children else None
        if expr is None:
            return active
        if expr.type == "internal_module":  # ``namespace Computer { ... }`` (not exported)
            return self.namespace(expr, scope, active)
        pushed = self.pushed_to(expr)
        if pushed is not None and stmt.id not in self.failure_pushes:
            scope.spoiled.add(pushed)
        before = len(scope.calls)
        self.expr(expr, scope, active)
        gate = self.gate_call(expr, scope)
        active = self.after_call(expr, scope, before, active)
        return active | {gate} if gate is not None else active

    def declarations(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        kinds = self.code.kinds
        fields = self.fields
        for decl in stmt.named_children:
            if kinds[decl.kind_id] == "variable_declarator":
                before = len(scope.calls)
                target, value = decl.child_by_field_id(fields.name), decl.child_by_field_id(fields.value)
                if (
                    target is not None
                    and kinds[target.kind_id] == "identifier"
                    and value is not None
                    and self.names_tool(value)
                ):
                    self.tool_name_vars.add(self.code.text(target))
                self.declare(decl, scope, active, target, value)
                if value is not None:
                    active = self.after_call(value, scope, before, active)
        return active

    def after_call(self, value: Node | None, scope: Scope, before: int, active: frozenset[str]) -> frozenset[str]:
        """After ``await validatePath(p);`` or ``const safe = await validatePath(p)``: whatever gates
        hold when that function of the tree returns (resolved by the linker: ``after:<callee>``)."""
        kinds = self.code.kinds
        node = unwrap(value)
        if node is None or kinds[node.kind_id] != "call_expression" or len(scope.calls) <= before:
            return active
        call = scope.calls[-1]
        if call.location is not self.loc(node):
            return active
        return active | {AFTER + call.callee}

    def return_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        value = stmt.named_children[0] if stmt.named_children else None
        for child in stmt.named_children:
            taint = self.return_value(child, scope, active)
            scope.returns |= taint
            self.note_return(value, taint, scope)
            self.returned_type(child, scope)
        self.returned_middleware(value, scope)
        self.tool_recognizer.returned_tools(value, scope)
        if value is None:
            self.note_return(None, EMPTY, scope)
        scope.exits = active if scope.exits is None else scope.exits & active
        proved = self.success_gates(value, scope)
        if proved is not None and not scope.vacuous:
            scope.ok_exits = active | proved if scope.ok_exits is None else scope.ok_exits & (active | proved)
        self.value_exit(value, scope, active)
        return active

    def return_value(self, value: Node, scope: Scope, active: frozenset[str]) -> Taint:
        """What a returned value carries; in a graph node, an object returned is its update of the graph's
        state, each key written from what its value carries (``graph_state.py``)."""
        update = returned_object(value) if scope.state is not None else None
        if update is None:
            methods = self.returned_methods(value, scope)
            if methods is not None:
                return self.object(methods, scope, active, owner=scope.qualname)
            return self.expr(value, scope, active)
        keys: dict[str, Taint] = {}
        taint = self.object(update, scope, active, keys=keys)
        state_type = scope.state[1]  # type: ignore[index]
        for key, found in keys.items():
            field_key = state_field(state_type, key)
            scope.field_writes[field_key] = scope.field_writes.get(field_key, EMPTY) | found
        return taint

    def returned_methods(self, value: Node, scope: Scope) -> Node | None:
        """The object literal of functions a factory returns (``return { async readNote(p) {...} }``,
        ``return Object.freeze({ ... })``): its methods are functions of their own, named as a member of
        the factory's result (``<factory>.readNote``), the name a call on that result has
        (``const notes = createService(); notes.readNote(p)``). Not in a callback walked in place, whose
        result is not the function's."""
        if scope.is_module or scope.inner_params is not None:
            return None
        inner = unwrap(value)
        if (
            inner is not None
            and inner.type == "call_expression"
            and self.code.raw(inner.child_by_field_id(self.fields.function)) in _FROZEN
        ):
            args = inner.child_by_field_id(self.fields.arguments)
            inner = unwrap(args.named_children[0]) if args is not None and args.named_children else None
        if inner is None or inner.type != "object":
            return None
        return inner if self.has_methods(inner) else None

    def value_exit(self, value: Node | None, scope: Scope, active: frozenset[str]) -> None:
        """A return of a value (not ``null``, ``undefined``, ``false`` or nothing) and the gates that hold
        there; a returned check (``return !FORBIDDEN.some((w) => sql.includes(w))``) ran on that path,
        whatever it answered, so the caller that refuses on its answer passes it (``present:``)."""
        returned = unwrap(value)
        if returned is None or returned.type in ("null", "undefined", "false"):
            return
        if (
            returned.type == "binary_expression"
            and self.code.operator_of(returned) in ("||", "??")
            and (fallback := unwrap(returned.child_by_field_id(self.fields.right))) is not None
            and fallback.type in ("null", "undefined", "false")
        ):
            # ``return matched || null``: a value only where ``matched`` holds one
            held = self.cond(returned.child_by_field_id(self.fields.left), scope)
            active = active | frozenset(g for g in held.t if g in scope.gate_ids)
        elif returned.type in _CHECK_VALUES and (checked := self.cond(returned, scope)):
            active = active | frozenset(g for g in (*checked.t, *checked.f) if g in scope.gate_ids)
        scope.value_exits = active if scope.value_exits is None else scope.value_exits & active

    def note_return(self, value: Node | None, taint: Taint, scope: Scope) -> None:
        """Keeps what every ``return`` gives while they agree (``FunctionFacts.returnShape``): SQL fixed in
        the code, or one call's result passed on unchanged."""
        text, whole = self.value_shape(value, taint, scope)
        shape = ArgTaint(origins=sorted(taint, key=origin_key), text=text, whole=whole) if text or whole else None
        if not scope.returned:
            scope.returned = True
            scope.return_shape = shape
        elif scope.return_shape != shape:
            scope.return_shape = None

    def statement_block(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        return self.block(stmt.named_children, scope, active)

    def function_decl(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        name = self.code.text(stmt.child_by_field_id(self.fields.name))
        self.defer(stmt, self.nested_qualname(scope, name), name, cls=scope.cls, outer=scope)
        return active

    def namespace(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        """``export namespace Computer { export async function click(...) {...} }``: each function of the
        namespace is ``<module>#Computer.click``, called as ``Computer.click(...)`` here and by importers,
        and by its bare name inside the namespace (``names.py`` binds it)."""
        name = self.code.text(stmt.child_by_field_id(self.fields.name))
        body = stmt.child_by_field_id(self.fields.body)
        if not scope.is_module or not name or body is None:
            return active
        for member in namespace_members(body, self.fields):
            member_name = self.code.text(member.child_by_field_id(self.fields.name))
            if member_name:
                self.defer(member, f"{self.module}#{name}.{member_name}", member_name, outer=scope)
        return active

    def class_decl(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        self.class_body(stmt, scope, self.code.text(stmt.child_by_field_id(self.fields.name)))
        return active

    def loop_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        """After ``while (!approved) { approved = await ask() }`` (no ``break``), the loop's condition is
        false: what it proves when false holds; with a refusal ending the body (``if (!ok && tries >= 5)
        return``), what ``settled`` proves too."""
        after_body = self.loop(stmt, scope, active)
        if stmt.type == "for_in_statement":
            # ``for (const cmd of commands) { if (!check(cmd).ok) return }``: every element passed what
            # the body ends having checked (no ``break`` or ``continue`` leaves it early).
            body = stmt.child_by_field_id(self.fields.body)
            return active | after_body if body is not None and not self.breaks(body, continues=True) else active
        if stmt.type not in ("while_statement", "do_statement"):
            return active
        condition, body = stmt.child_by_field_id(self.fields.condition), stmt.child_by_field_id(self.fields.body)
        if condition is None or body is None or self.breaks(body):
            return active
        done = self.cond(condition, scope).f
        last = body.named_children[-1] if body.type == "statement_block" and body.named_children else body
        if (
            last.type == "if_statement"
            and last.child_by_field_id(self.fields.alternative) is None
            and self.code.terminates(last.child_by_field_id(self.fields.consequence))
        ):
            done |= self.settled(condition, last.child_by_field_id(self.fields.condition), scope)
        return active | done

    def breaks(self, body: Node, *, continues: bool = False) -> bool:
        """Whether a ``break`` (or, with ``continues``, a ``continue``) leaves this loop's body early (one
        not inside a nested loop, switch or function)."""
        kinds = self.code.kinds
        pending = [body]
        while pending:
            node = pending.pop()
            kind = kinds[node.kind_id]
            if kind == "break_statement" or (continues and kind == "continue_statement"):
                return True
            if node is not body and (kind in _LOOPS or kind == "switch_statement" or kind in FUNCTIONS):
                continue
            if node.named_child_count:
                pending.extend(node.named_children)
        return False

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

    def switch_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        after = self.switch(stmt, scope, active)
        return active if after is None else after

    def switch(
        self, stmt: Node, scope: Scope, active: frozenset[str], rest: Sequence[Node] = ()
    ) -> frozenset[str] | None:
        """Each case runs with the gates that hold before the switch. A switch on a tool's name
        (``switch (request.params.name)``) makes each ``case "read_file":`` a function of its own,
        ``<function>.case:read_file``, which implements the tool of that name; on anything else,
        ``case "get_weather":`` names the first function of the tree its body calls."""
        value_node = stmt.child_by_field_id(self.fields.value)
        self.expr(value_node, scope, active)
        on_name = self.names_tool(value_node)
        body = stmt.child_by_field_id(self.fields.body)
        cases = []
        for case in body.named_children if body is not None else []:
            value = case.child_by_field_id(self.fields.value)
            label = self.constant(value, scope) if value is not None else None
            statements = [
                c
                for c in case.named_children
                if c != value and (c.type.endswith(("statement", "declaration")) or c.type == "statement_block")
            ]
            ref = self.tree_constant(value) if on_name and value is not None and label is None else None
            if ref is not None:  # ``case ToolName.LIST:`` with ``ToolName`` imported: named by the linker
                label = f"@{case.start_point[0] + 1}"
            cases.append((case, value, label if on_name else None, label, statements, ref))
        # With ``rest`` (the statements after a switch on a tool's name): when every way out of the
        # switch is a tool's branch (the default, if any, returns or throws), each branch that breaks
        # out carries on with ``rest`` as part of its tool, and the switch returns None (nothing of the
        # function is left to walk). Otherwise ``rest`` stays the function's own, walked once after it.
        carry = (
            bool(rest)
            and any(case.type == "switch_default" for case, *_ in cases)
            and all(
                self.falls_out(statements) is False for _, _, tool_label, _, statements, _ in cases if not tool_label
            )
        )
        switched = self.code.text(unwrap(value_node)) if value_node is not None else ""
        for case, value, tool_label, label, statements, ref in cases:
            if value is not None:
                self.expr(value, scope, active)
            # ``case "query":`` after ``if (COLLECTION_OPERATIONS.includes(operation)) { validate(c) }``
            held = active.union(*(g for name, values, g in scope.keyed if name == switched and label in values))
            if tool_label:
                falls = carry and self.falls_out(statements) is not False
                self.case_function(case, [*statements, *rest] if falls else statements, tool_label, scope, held)
                if ref is not None:
                    self.case_refs[self.named_impls[tool_label]] = ref
                continue
            before = len(scope.calls)
            for child in statements:
                self.stmt(child, scope, held)
            self.name_case(label, scope, before)
        if carry:
            return None
        if rest:
            return self.block(rest, scope, active)
        return active

    def tree_constant(self, node: Node) -> str | None:
        """``<other>#ToolName.LIST`` for ``ToolName.LIST`` (or ``LIST_TOOL``, ``listTool.name``) whose
        first name is imported from a file of the tree: a constant only that file knows."""
        inner = unwrap(node)
        if inner is None or inner.type not in ("identifier", "member_expression"):
            return None
        text = self.code.text(inner)
        head, dot, rest = text.partition(".")
        alias = self.imports.aliases.get(head)
        if alias is None or "#" not in alias or not all(p.isidentifier() for p in text.split(".")):
            return None
        if alias.endswith("#"):  # ``import * as names from "./names"``: ``names.ToolName.LIST``
            return f"{alias}{rest}" if rest else None
        return f"{alias}{dot}{rest}"

    def falls_out(self, statements: Sequence[Node]) -> bool | None:
        """Whether a case's statements leave the switch (``break``: True), the function (``return``,
        ``throw``, ``process.exit()``: False) or fall through to the next case (None)."""
        for stmt in statements:
            if stmt.type == "break_statement" and not stmt.named_children:
                return True
            if stmt.type == "statement_block":
                inner = self.falls_out(stmt.named_children)
                if inner is not None:
                    return inner
            elif self.code.terminates(stmt):
                return False
        return None

    def case_function(
        self, node: Node, statements: Sequence[Node], label: str, scope: Scope, active: frozenset[str]
    ) -> frozenset[str]:
        """Walks the branch taken for the tool ``label`` as a function of its own, called from ``scope``
        where the branch is (with the gates that hold there), so that what the branch does is reached
        from that tool only. Returns the gates that hold after the branch."""
        # The branch's parameters are those of the function it sits in (the handler's ``request``):
        # what the model sends the tool.
        params = scope.inner_params if scope.inner_params is not None else scope.params
        sub = scope.detached(f"{scope.qualname}.case:{label}", params)
        for index, param in enumerate(params):
            sub.taint[param] = param_taint(param, index)
        after = active
        for child in statements:
            after = self.stmt(child, sub, after)
        qualname = self.emit(sub, node, f"case:{label}")
        self.named_impls[label] = qualname
        scope.calls.append(
            trusted(
                CallFact,
                location=self.loc(node),
                callee=qualname,
                resolved=True,
                dominatingGates=sorted(active),
                args=[
                    ArgTaint(index=i, origins=sorted(scope.taint_of(p), key=origin_key))
                    for i, p in enumerate(params)
                    if scope.taint_of(p)
                ],
            )
        )
        if sub.returns:
            scope.returns |= call_return_taint(qualname)
        return after

    def compared_string(self, condition: Node | None, scope: Scope) -> tuple[str | None, bool, bool]:
        """``("get_weather", True, False)`` for ``if (call.name === "get_weather")`` (or a constant naming
        it); the first flag says whether the other side reads a tool's name, the second whether the
        comparison is ``!==``."""
        kinds = self.code.kinds
        node = unwrap(condition)
        if node is None or kinds[node.kind_id] != "binary_expression":
            return None, False, False
        operator = self.code.operator_of(node)
        if operator not in ("===", "==", "!==", "!="):
            return None, False, False
        negated = operator in ("!==", "!=")
        right, left = node.child_by_field_id(self.fields.right), node.child_by_field_id(self.fields.left)
        for side, other in ((right, left), (left, right)):
            inner = unwrap(side)
            if inner is not None and kinds[inner.kind_id] in (
                "string",
                "template_string",
                "identifier",
                "member_expression",
            ):
                if kinds[inner.kind_id] != "string" and self.names_tool(inner):
                    continue
                value = self.constant(inner, scope)
                if value is not None:
                    return value, self.names_tool(other), negated
        return None, False, False

    def name_case(self, label: str | None, scope: Scope, before: int) -> None:
        if label and len(scope.calls) > before:
            self.named_impls.setdefault(label, scope.calls[before].callee)

    def loop(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        """Walks a loop's header and body once; returns the gates that hold at the end of its body."""
        kinds = self.code.kinds
        body = stmt.child_by_field_id(self.fields.body)
        if kinds[stmt.kind_id] == "for_in_statement":
            left, right = stmt.child_by_field_id(self.fields.left), stmt.child_by_field_id(self.fields.right)
            taint = self.expr(right, scope, active)
            if left is not None:
                for name in self.code.pattern_names(left):
                    scope.taint[name] = taint
                    scope.element_types.pop(name, None)
                element = self.loop_element_type(left, right, scope) if self.code.operator_of(stmt) == "of" else None
                if element is not None:
                    scope.element_types[element[0]] = element[1]
        else:
            for field in (self.fields.initializer, self.fields.condition, self.fields.increment):
                part = stmt.child_by_field_id(field)
                if part is not None:
                    if kinds[part.kind_id].endswith("declaration"):
                        self.stmt(part, scope, active)
                    else:
                        self.expr(part, scope, active)
        return self.stmt(body, scope, active) if body is not None else active

    def loop_element_type(self, left: Node, right: Node | None, scope: Scope) -> tuple[str, str] | None:
        """``for (const tool of this.tools)`` with ``tools: Tool[]`` a field of the class: the loop variable and
        the type of the tree each element is. Over a field of an element of such a loop (``for (const tool of
        group.tools)`` with ``group`` a ``ToolGroup``), the elements of that field of the type, which the file
        declaring it says (``ToolGroup.tools[]``, ``frontend._member_types``)."""
        right = unwrap(right)
        if right is None or right.type != "member_expression" or left.type != "identifier":
            return None
        held = unwrap(right.child_by_field_id(self.fields.object))
        prop = self.code.text(right.child_by_field_id(self.fields.property))
        found: str | None = None
        if held is not None and held.type == "this" and scope.cls is not None:
            found = self.field_elements.get(f"{scope.cls}.{prop}")
        elif held is not None and held.type == "identifier" and scope.element_types:
            element = scope.element_types.get(self.code.text(held))
            found = f"{element}.{prop}[]" if element is not None and not element.endswith("[]") else None
        return (self.code.text(left), found) if found is not None else None

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

    def refuses(self, branch: Node | None) -> bool:
        """Whether a branch ends by refusing: its last statement throws, or returns no value, a literal or
        an object or error it builds (``return { error: "..." }``), not the result of work it calls."""
        last = branch
        while last is not None and last.type == "statement_block":
            last = last.named_children[-1] if last.named_children else None
        if last is None:
            return False
        if last.type == "throw_statement":
            return True
        if last.type != "return_statement":
            return False
        value = unwrap(last.named_children[0]) if last.named_children else None
        if value is not None and value.type == "string" and self.classifier(last):
            return False  # ``if (ext === ".svg") return "svg"``: an answer of a classifier, not a refusal
        return value is None or value.type in (*LITERALS, "object", "template_string", "new_expression")

    def classifier(self, returned: Node) -> bool:
        """Whether the function a ``return`` is in answers with one of at least three string literals at every
        ``return`` (``detectFileType`` giving ``"text"``, ``"svg"``, ``"image"``...): its tests choose the
        answer, none of them refuses anything."""
        function = returned.parent
        while function is not None and function.type not in FUNCTIONS and function.type != "method_definition":
            function = function.parent
        if function is None:
            return False
        found = self.classifiers.get(function.id)
        if found is None:
            texts: set[str] = set()
            found = True
            pending = [function.child_by_field_id(self.fields.body)]
            for _ in range(4096):
                if not pending:
                    break
                node = pending.pop()
                if node is None or node.type in FUNCTIONS or node.type == "class_declaration":
                    continue
                if node.type == "return_statement":
                    value = unwrap(node.named_children[0]) if node.named_children else None
                    text = self.code.string_value(value) if value is not None and value.type == "string" else None
                    if text is None:
                        found = False
                        break
                    texts.add(text)
                    continue
                pending.extend(node.named_children)
            else:
                found = False
            found = found and len(texts) >= 3
            self.classifiers[function.id] = found
        return found

    def denied(self, cond: Cond, scope: Scope) -> frozenset[str]:
        """``if (name.startsWith("system.")) throw ...`` / ``if (BLOCKED.includes(cmd)) return``: a
        check against a list whose true branch ends is a deny list; every path past it was checked, so
        its allowlist gates hold after the ``if`` (as ``!ALLOWED.includes(x)`` ending does), and so does a
        read-only mode switch tested with it (``if (readOnly && WRITES.includes(op)) throw``)."""
        if not cond.t or cond.f:
            return frozenset()
        readonly = self.rules.readonly_check.id if self.rules.readonly_check is not None else None
        # (``if (q.startsWith("select")) throw`` refuses reads and admits every write: no check.)
        return frozenset(
            g.id
            for g in scope.gates
            if g.id in cond.t and (g.kind == "allowlist" or g.ruleId == readonly) and g.id not in self.read_prefixes
        )

    def if_stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        condition = stmt.child_by_field_id(self.fields.condition)
        consequence = stmt.child_by_field_id(self.fields.consequence)
        alternative = stmt.child_by_field_id(self.fields.alternative)
        other = alternative.named_children[0] if alternative is not None and alternative.named_children else None
        self.expr(condition, scope, active)
        cond = self.cond(condition, scope)
        if (cond.t or cond.f) and not (cond.t_clean or cond.f_clean):
            # (A check that allow-lists the names it tests stops their taint: where they go is not followed.)
            self.note_checked(condition, cond.t | cond.f, scope)
        then_ends, else_ends = self.code.terminates(consequence), self.code.terminates(other)
        choice = (other is not None or then_ends) and self.mode_choice(stmt, condition, consequence, other)
        refused = (
            self.request_refusal(stmt, consequence, cond, scope)
            if self.refuses_requests and then_ends and other is None
            else frozenset()
        )
        collected = self.failure_list(consequence) if other is None and not then_ends else None
        if collected is not None:
            if cond.f:
                scope.failures[collected] = scope.failures.get(collected, frozenset()) | cond.f
            else:
                scope.spoiled.add(collected)
        emptied = self.emptiness(condition)
        vacuous = scope.vacuous
        if emptied is not None and emptied[1] and emptied[0] not in scope.failures:
            scope.vacuous = True
        before = len(scope.calls)
        actions_before = len(scope.actions)
        paused = len(scope.pause_log)
        # A name assigned in one branch keeps, after the ``if``, what it held on the other path too
        # (``let x = reply; if (c) { x = "" }``): each branch starts from what names held before it.
        held = dict(scope.taint)
        label, on_name, negated, ref = self.compared_name(stmt, scope)
        if negated:
            label = None
        if on_name and label and consequence is not None:
            after_then = self.case_function(consequence, [consequence], label, scope, active | cond.t)
            if ref is not None:
                self.case_refs[self.named_impls[label]] = ref
        else:
            chosen = frozenset() if choice else cond.t
            after_then = self.branch(
                consequence, scope, active | chosen, cond.t_clean, keep=else_ends and not then_ends
            )
            self.name_case(label, scope, before)
        scope.vacuous = vacuous
        then_paused = frozenset(scope.pause_log[paused:])
        paused = len(scope.pause_log)
        after_then_taint = self.restart(scope, held)
        if other is not None:
            middle = (len(scope.calls), len(scope.actions))
            chosen_f = frozenset() if choice else cond.f
            after_else = self.branch(other, scope, active | chosen_f, cond.f_clean, keep=then_ends and not else_ends)
            if not then_ends and not else_ends and scope.checked and (cond.t | cond.f) & scope.checked.keys():
                dropped = self.dispatched(cond.t | cond.f, scope, (before, actions_before), middle)
                if dropped:
                    after_then, after_else = after_then - dropped, after_else - dropped
        else:
            after_else = (
                active
                | cond.f
                | refused
                | (
                    self.denied(cond, scope)
                    if then_ends and not choice and self.refuses(consequence) and not self.memo(condition, consequence)
                    else frozenset()
                )
            )
            if then_ends:
                self.clean(scope, cond.f_clean)
        self.join(scope, after_then_taint, consequence, then_ends, other, else_ends)
        # ``if (!approved) { return suspend({ reason }) }``: a branch that pauses for a person and ends
        # leaves the code after the ``if`` to the run that was resumed, past that pause.
        if then_ends and not else_ends:
            return after_else | then_paused
        if else_ends and not then_ends:
            return after_then | frozenset(scope.pause_log[paused:])
        if then_ends and else_ends:
            return active
        if not then_ends and not else_ends:
            self.keyed_branch(condition, (after_then - after_else) - cond.t, scope)
        if other is None and not then_ends and self.refusal_gates:
            # ``if (config.authEnabled) { if (!valid(token)) return res.status(401)... }``: a refusal under a
            # configuration test still guards what follows (the configuration it needs said in its detail).
            kept = (after_then - after_else) & self.refusal_gates
            if kept:
                after_else = after_else | kept
        if other is None and cond.f - active:
            # ``if (!isWithin(base, p)) { tagError(...) }``: if that call never returns (a function typed
            # ``never``, known to the linker), the branch ends there and the check's gates hold after it.
            callee = self.last_call(consequence, scope, before)
            if callee is not None:
                return (after_then & after_else) | {f"{NEVER}{callee}|{g}" for g in cond.f - active}
        return after_then & after_else

    def pushed_to(self, expr: Node | None) -> str | None:
        """``refused`` for ``refused.push(p)``."""
        expr = unwrap(expr)
        if expr is None or expr.type != "call_expression":
            return None
        func = expr.child_by_field_id(self.fields.function)
        if (
            func is None
            or func.type != "member_expression"
            or self.code.raw(func.child_by_field_id(self.fields.property)) != b"push"
        ):
            return None
        holder = unwrap(func.child_by_field_id(self.fields.object))
        return self.code.text(holder) if holder is not None and holder.type == "identifier" else None

    def failure_list(self, consequence: Node | None) -> str | None:
        """The list an ``if``'s whole branch pushes to (``if (!allowed(p)) { refused.push(p) }``), its push
        statements noted as a check's (``failure_pushes``); None when the branch does anything else."""
        if consequence is None:
            return None
        statements = consequence.named_children if consequence.type == "statement_block" else [consequence]
        if not statements or any(s.type != "expression_statement" for s in statements):
            return None
        names = {self.pushed_to(s.named_children[0] if s.named_children else None) for s in statements}
        if len(names) != 1:
            return None
        name = names.pop()
        if name is not None:
            self.failure_pushes.update(s.id for s in statements)
        return name

    def mode_choice(self, stmt: Node, condition: Node | None, consequence: Node | None, other: Node | None) -> bool:
        """``if (method === "semantic") { await db.query(...); return {...} } await db.find(...)``: a value
        compared equal to one literal, whose branch awaits work of its own and ends without throwing, while the
        other way on (the ``else`` branch, ``if (format === "svg") { await res.text() ... } else { await
        res.arrayBuffer() ... }``, or without one the code past the ``if``) awaits work too and, an ``else``,
        ends without throwing: both sides act, so the comparison picks between two ways of acting (or of
        producing output) and refuses neither (a choice, not an allowlist of one nor a deny list)."""
        test = unwrap(condition)
        if test is None or test.type != "binary_expression" or self.code.operator_of(test) not in ("===", "=="):
            return False
        sides = (unwrap(test.child_by_field_id(self.fields.left)), unwrap(test.child_by_field_id(self.fields.right)))
        if not any(side is not None and side.type == "string" for side in sides):
            return False
        last = consequence
        while last is not None and last.type == "statement_block":
            last = last.named_children[-1] if last.named_children else None
        if last is None or last.type == "throw_statement" or not _awaits([consequence]):
            return False
        if other is not None:
            return not _throws(other) and _awaits([other])
        rest: list[Node] = []
        sibling = stmt.next_named_sibling
        while sibling is not None:
            rest.append(sibling)
            sibling = sibling.next_named_sibling
        return _awaits(rest)

    def memo(self, condition: Node | None, consequence: Node | None) -> bool:
        """``if (this.open.has(uri)) return; ...; this.open.add(uri)`` / ``if (cache.has(k)) return cache.get(k)``:
        a membership test of a collection the function itself fills with the tested value, or whose true branch
        answers from that collection, remembers work already done: its true branch returns what was done
        before (nothing, or the cached result) and refuses nothing, so it is no deny list. A branch that
        throws stays a refusal."""
        test = unwrap(condition)
        if test is None or test.type != "call_expression" or consequence is None or _throws(consequence):
            return False
        func = test.child_by_field_id(self.fields.function)
        args = test.child_by_field_id(self.fields.arguments)
        if func is None or func.type != "member_expression" or args is None or not args.named_children:
            return False
        if self.code.raw(func.child_by_field_id(self.fields.property)) not in (b"has", b"includes"):
            return False
        holder = self.code.text(func.child_by_field_id(self.fields.object))
        key = self.code.text(args.named_children[0])
        last = _last(consequence)
        value = unwrap(last.named_children[0]) if last is not None and last.named_children else None
        if value is not None and self.calls_on(value, holder, (b"get",)):
            return True
        function = test.parent
        while function is not None and function.type not in FUNCTIONS and function.type != "method_definition":
            function = function.parent
        body = function.child_by_field_id(self.fields.body) if function is not None else None
        return body is not None and self.calls_on(body, holder, (b"add", b"set", b"push"), key)

    def calls_on(self, node: Node, holder: str, methods: tuple[bytes, ...], key: str | None = None) -> bool:
        """Whether ``node`` calls one of ``methods`` on ``holder`` (with ``key`` first, when given), outside the
        functions it defines (a bounded walk)."""
        pending = [node]
        for _ in range(4096):
            if not pending:
                return False
            item = pending.pop()
            if item.type in FUNCTIONS or item.type == "class_declaration":
                continue
            if item.type == "call_expression":
                func = item.child_by_field_id(self.fields.function)
                args = item.child_by_field_id(self.fields.arguments)
                if (
                    func is not None
                    and func.type == "member_expression"
                    and self.code.raw(func.child_by_field_id(self.fields.property)) in methods
                    and self.code.text(func.child_by_field_id(self.fields.object)) == holder
                    and (
                        key is None
                        or (
                            args is not None
                            and bool(args.named_children)
                            and self.code.text(args.named_children[0]) == key
                        )
                    )
                ):
                    return True
            pending.extend(item.named_children)
        return False

    def note_checked(self, condition: Node | None, ids: frozenset[str], scope: Scope) -> None:
        """``if (!ALLOWED.includes(cmd)) throw``: the allow-list and path containment gates among ``ids`` test
        the value the condition reads; what it may carry (the taint of the names it reads) is what the check
        is about (``checked.reached``). Not recorded when the condition reads a check's answer held in a name
        (``if (!ok)``) or nothing that carries taint."""
        if condition is None:
            return
        names = self.identifiers(condition)
        if any(n in scope.gate_vars for n in names):
            return
        origins = EMPTY.union(*(scope.taint_of(n) for n in names))
        if not origins:
            return
        for gate in scope.gates:
            if gate.id in ids and gate.kind in VALUE_CHECKS:
                if not scope.checked:
                    start_checks(scope.given, (c.callee for c in scope.calls))
                scope.checked[gate.id] = scope.checked.get(gate.id, EMPTY) | origins

    def dispatched(
        self, ids: frozenset[str], scope: Scope, start: tuple[int, int], middle: tuple[int, int]
    ) -> frozenset[str]:
        """The checks of ``ids`` after which both branches of an ``if`` (their calls and actions from ``start``
        to ``middle``, and on) hand the tested value to the same call (``checked.branch_dispatches``), taken
        out of what dominates the branches' calls and actions."""
        calls, actions = scope.calls, scope.actions

        def sites(c0: int, c1: int, a0: int, a1: int) -> list[tuple[str, Taint]]:
            made = [(c.callee, EMPTY.union(*(frozenset(a.origins) for a in c.args))) for c in calls[c0:c1]]
            return made + [(a.target, frozenset(a.taint)) for a in actions[a0:a1]]

        first = sites(start[0], middle[0], start[1], middle[1])
        second = sites(middle[0], len(calls), middle[1], len(actions))
        dropped = branch_dispatches(ids, first, second, scope.checked, scope.given)
        if dropped:
            calls[start[0] :] = without(calls[start[0] :], dropped)
            actions[start[1] :] = without(actions[start[1] :], dropped)
        return dropped

    def keyed_branch(self, condition: Node | None, gates: frozenset[str], scope: Scope) -> None:
        """``if (COLLECTION_OPERATIONS.includes(operation)) { ...; validateCollection(c) }`` with the list
        written in the file: what the branch made hold, holds wherever ``operation`` is one of the
        list's values (a later ``case "query":`` on it), though not after the ``if`` in general."""
        node = unwrap(condition)
        if not gates or node is None or node.type != "call_expression":
            return
        func = node.child_by_field_id(self.fields.function)
        args = node.child_by_field_id(self.fields.arguments)
        if func is None or func.type != "member_expression" or args is None or len(args.named_children) != 1:
            return
        checked = unwrap(args.named_children[0])
        if self.code.raw(func.child_by_field_id(self.fields.property)) != b"includes" or checked is None:
            return
        values = self.listed_strings(func.child_by_field_id(self.fields.object))
        if values and checked.type == "identifier":
            scope.keyed.append((self.code.text(checked), values, gates))

    def last_call(self, branch: Node | None, scope: Scope, before: int) -> str | None:
        """The function of the tree a branch's last statement calls (``fail(...)``), if it is a call."""
        last = branch.named_children[-1] if branch is not None and branch.type == "statement_block" else branch
        if last is None or last.type != "expression_statement" or not last.named_children:
            return None
        call = unwrap(last.named_children[0])
        location = self.locations.get(call.id) if call is not None and call.type == "call_expression" else None
        if location is None:
            return None
        return next((c.callee for c in scope.calls[before:] if c.location is location), None)

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
    def restart(scope: Scope, held: dict[str, Taint]) -> dict[str, Taint]:
        """What names hold after the first branch, the scope set back to what they held before it (for
        the other branch)."""
        if scope.taint == held:
            return held
        after = dict(scope.taint)
        scope.taint.clear()
        scope.taint.update(held)
        return after

    def join(
        self,
        scope: Scope,
        after_then: dict[str, Taint],
        consequence: Node | None,
        then_ends: bool,
        other: Node | None,
        else_ends: bool,
    ) -> None:
        """Names after an ``if``: what either branch that falls out of it (or leaves a loop by ``break``
        or ``continue``, reaching the code after the loop) left in them; a branch that returns or throws
        adds nothing."""
        if scope.taint == after_then:  # most ``if``s: neither branch bound a name
            return
        if then_ends and (consequence is None or not self.breaks(consequence, continues=True)):
            return
        if else_ends and other is not None and not self.breaks(other, continues=True):
            scope.taint.clear()
            scope.taint.update(after_then)
            return
        for name, taint in after_then.items():
            now = scope.taint.get(name)
            if now is None:
                scope.taint[name] = taint
            elif now is not taint:
                scope.taint[name] = now | taint

    @staticmethod
    def clean(scope: Scope, names: frozenset[str]) -> None:
        for name in names:
            if name in scope.taint:
                scope.taint[name] = EMPTY


# ``stmt`` dispatches the same way (statements not listed are walked part by part).
_STMT_HANDLERS: dict[str, Callable[[StmtLogic, Node, Scope, frozenset[str]], frozenset[str]]] = {
    "expression_statement": StmtLogic.expression_stmt,
    "lexical_declaration": StmtLogic.declarations,
    "variable_declaration": StmtLogic.declarations,
    "if_statement": StmtLogic.if_stmt,
    "return_statement": StmtLogic.return_stmt,
    "statement_block": StmtLogic.statement_block,
    "function_declaration": StmtLogic.function_decl,
    "generator_function_declaration": StmtLogic.function_decl,
    "export_statement": StmtLogic.export,
    "class_declaration": StmtLogic.class_decl,
    "abstract_class_declaration": StmtLogic.class_decl,
    "internal_module": StmtLogic.namespace,
    "try_statement": StmtLogic.try_stmt,
    "switch_statement": StmtLogic.switch_stmt,
    "import_statement": lambda self, stmt, scope, active: active,
    "empty_statement": lambda self, stmt, scope, active: active,
    "debugger_statement": lambda self, stmt, scope, active: active,
    **dict.fromkeys(_LOOPS, StmtLogic.loop_stmt),
}


def _last(branch: Node | None) -> Node | None:
    """The last statement a branch runs (inside nested blocks)."""
    last = branch
    while last is not None and last.type == "statement_block":
        last = last.named_children[-1] if last.named_children else None
    return last


def _throws(branch: Node | None) -> bool:
    """Whether a branch ends by throwing."""
    last = _last(branch)
    return last is not None and last.type == "throw_statement"


def _awaits(nodes: Sequence[Node | None]) -> bool:
    """Whether the statements await anything (outside the functions they define): work done on that path."""
    pending = [n for n in nodes if n is not None]
    for _ in range(4096):
        if not pending:
            return False
        node = pending.pop()
        if node.type in FUNCTIONS or node.type == "class_declaration":
            continue
        if node.type == "await_expression":
            return True
        pending.extend(node.named_children)
    return False
