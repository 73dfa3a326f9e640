"""Gates and conditions: which gates a condition proves when it is true or false (``Cond``)."""

from __future__ import annotations

from tree_sitter import Node

from assay.backend.engines.static.jsts.base import AnalyzerBase
from assay.backend.engines.static.jsts.scope import NO_COND, Cond, Scope
from assay.backend.engines.static.jsts.syntax import unwrap


class GateLogic(AnalyzerBase):
    """Gate calls, allowlist membership, spend ceilings, and their combinations with ``!``/``&&``/``||``."""

    def gate_call(self, node: Node | None, scope: Scope) -> str | None:
        """The gate id when ``node`` is a call to a gate function (approval, permission, rate, budget)."""
        node = unwrap(node)
        if node is None or node.type != "call_expression":
            return None
        if node.id in self.call_gates:  # the call was already walked
            return self.call_gates[node.id]
        name, _ = self.dotted(node.child_by_field_id(self.fields.function), scope)
        rule = self.rules.gate(name) if name else None
        if rule is None or name is None:
            return None
        return self.gate_site(scope, rule, node, name)

    def cond(self, node: Node | None, scope: Scope) -> Cond:
        """What a condition proves when it is true and when it is false (see ``Cond``)."""
        node = unwrap(node)
        if node is None:
            return NO_COND
        kind = node.type
        if kind == "unary_expression" and self.code.operator_of(node) == "!":
            return self.cond(node.child_by_field_id(self.fields.argument), scope).negate()
        if kind == "identifier":
            return scope.gate_vars.get(self.code.text(node), NO_COND)
        if kind == "call_expression":
            gate = self.gate_call(node, scope)
            if gate is not None:
                return Cond(t=frozenset({gate}))
            return self.membership(node, scope)
        if kind == "binary_expression":
            operator = self.code.operator_of(node)
            left, right = node.child_by_field_id(self.fields.left), node.child_by_field_id(self.fields.right)
            if operator == "&&":
                return self.cond(left, scope).both(self.cond(right, scope))
            if operator == "||":
                return self.cond(left, scope).either(self.cond(right, scope))
            if operator in ("===", "==", "!==", "!="):
                # ``ok === true``, ``answer !== "y"``: the gate of the compared value, or its negation.
                for side, other in ((right, left), (left, right)):
                    if side is not None and side.type in ("true", "false", "string", "number"):
                        inner = self.cond(self.root_value(other), scope)
                        positive = side.type != "false"
                        if operator in ("!==", "!="):
                            positive = not positive
                        return inner if positive else inner.negate()
                return NO_COND
            if operator in (">", ">=", "<", "<="):
                return self.ceiling(node, operator, left, right, scope)
        return NO_COND

    def membership(self, node: Node, scope: Scope) -> Cond:
        """``ALLOWED.includes(x)`` / ``ALLOWLIST.has(x)``: an allowlist gate that also clears ``x``."""
        func = node.child_by_field_id(self.fields.function)
        if func is None or func.type != "member_expression":
            return NO_COND
        if self.code.raw(func.child_by_field_id(self.fields.property)) not in (b"includes", b"has"):
            return NO_COND
        holder = self.code.text(func.child_by_field_id(self.fields.object))
        rule = self.rules.allowlist(holder)
        if rule is None:
            return NO_COND
        gate = self.gate_site(scope, rule, node, holder)
        args = node.child_by_field_id(self.fields.arguments)
        checked = frozenset(
            self.code.text(a) for a in (args.named_children if args is not None else []) if a.type == "identifier"
        )
        return Cond(t=frozenset({gate}), t_clean=checked)

    def ceiling(self, node: Node, operator: str, left: Node | None, right: Node | None, scope: Scope) -> Cond:
        """``amount > MAX_REFUND``: a spend limit, passed when the comparison says the value is within it."""
        for side, over in ((right, operator in (">", ">=")), (left, operator in ("<", "<="))):
            ref = self.code.text(side) if side is not None else ""
            rule = self.rules.spend(ref) if ref else None
            if rule is not None:
                gate = frozenset({self.gate_site(scope, rule, node, ref)})
                return Cond(f=gate) if over else Cond(t=gate)
        return NO_COND

    def root_value(self, node: Node | None) -> Node | None:
        """``answer`` for ``answer.trim().toLowerCase()``: the value a chain of calls and members starts from."""
        node = unwrap(node)
        fields = self.fields
        while node is not None and node.type in ("call_expression", "member_expression"):
            inner = node.child_by_field_id(fields.function if node.type == "call_expression" else fields.object)
            inner = unwrap(inner)
            if inner is None or (node.type == "call_expression" and inner.type != "member_expression"):
                return node
            node = inner
        return node
