"""Gates and conditions: which gates a call or test proves, and where (``GateLogic``)."""

from __future__ import annotations

import ast

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    GateSite,
)
from assay.backend.engines.static.pyast.base import AnalyzerBase
from assay.backend.engines.static.pyast.conditions import NOTHING, Condition, gate_when
from assay.backend.engines.static.pyast.literals import (
    is_literal,
    name_text,
)
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.rulepack import Rule

# Comparison operators, by what a true comparison says (``_comparison``): membership passes an
# allow-list check when true (``in``) or false (``not in``); an ordering is true when the left side
# is over the right (``>``, ``>=``) or under it; an equality or identity holds when true or false.
_MEMBERSHIP: dict[type[ast.cmpop], bool] = {ast.In: True, ast.NotIn: False}
_ORDERING: dict[type[ast.cmpop], bool] = {ast.Gt: True, ast.GtE: True, ast.Lt: False, ast.LtE: False}
_EQUALITY: dict[type[ast.cmpop], bool] = {
    ast.Eq: True, ast.NotEq: False, ast.In: True, ast.NotIn: False, ast.Is: True, ast.IsNot: False
}  # fmt: skip
# Statement class -> its walker (``FileAnalyzer._walk_block``); others are ``FileAnalyzer._plain``.


class GateLogic(AnalyzerBase):
    """Gate calls, gate variables, allowlist membership, spend ceilings and human answers, composed
    through ``not``, ``and`` and ``or``."""

    def _gate(self, scope: Scope, rule: Rule, node: ast.expr, detail: str) -> str:
        """The id of the gate ``rule`` finds at ``node``, recorded in ``scope`` the first time."""
        location = self.loc(node)
        gate_id = short_id("gate", self.path, location.line, location.column, rule.gateKind, detail)
        if gate_id not in scope.gate_ids:
            scope.gate_ids.add(gate_id)
            scope.gates.append(
                trusted(
                    GateSite,
                    id=gate_id,
                    kind=rule.gateKind or "permission_check",
                    ruleId=rule.id,
                    location=location,
                    detail=detail,
                )
            )
        return gate_id

    def _gate_of_expr(self, node: ast.expr, scope: Scope) -> str | None:
        """The id of the gate a call is (approval, permission, limit check, sandbox), if it is one."""
        if isinstance(node, ast.Await):
            node = node.value
        if not isinstance(node, ast.Call):
            return None
        name, _ = self._callee(node, scope)
        if not name:
            return None
        profile = self.rules.profile(name)
        # An action that runs in a sandbox is gated where it runs (``_call``), not after it.
        rule = profile.action_gate
        if rule is None:
            return None
        gate = self._gate(scope, rule, node, name)
        if profile.unconditional:
            scope.unconditional.add(gate)
        return gate

    def _context_gate(self, node: ast.expr, scope: Scope) -> str | None:
        """A gate only as a ``with`` item: ``with RateLimiter(max_calls=5, period=60):``."""
        if not isinstance(node, ast.Call):
            return None
        name, _ = self._callee(node, scope)
        rule = self.rules.context_gates.first(name) if name else None
        return self._gate(scope, rule, node, name or "") if rule is not None else None

    def _gate_in_chain(self, node: ast.expr, scope: Scope) -> str | None:
        """A gate call or gate variable under method calls and subscripts: ``input('ok?').strip().lower()``,
        ``answer['action']``."""
        while True:
            if isinstance(node, ast.Name):
                found = scope.gate_vars.get(node.id)
                return found[0] if found is not None else None
            gate = self._gate_of_expr(node, scope)
            if gate is not None:
                return gate
            if isinstance(node, ast.Await):
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                node = node.func.value
            elif isinstance(node, ast.Subscript | ast.Attribute):
                node = node.value
            else:
                return None

    def _condition(self, test: ast.expr, scope: Scope) -> Condition:
        """The gates a test proves when true and when false."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._condition(test.operand, scope).negate()
        if isinstance(test, ast.BoolOp):
            parts = [self._condition(value, scope) for value in test.values]
            combined = parts[0]
            for part in parts[1:]:
                combined = combined.both(part) if isinstance(test.op, ast.And) else combined.either(part)
            return combined
        if isinstance(test, ast.Name):
            found = scope.gate_vars.get(test.id)
            return gate_when(found[0], found[1] == "positive") if found is not None else NOTHING
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return self._comparison(test, scope)
        gate = self._gate_of_expr(test, scope)
        return gate_when(gate, True) if gate is not None else NOTHING

    def _comparison(self, node: ast.Compare, scope: Scope) -> Condition:
        op = type(node.ops[0])
        right = node.comparators[0]
        passes = _MEMBERSHIP.get(op)
        if passes is not None:
            ref = name_text(right)
            rule = self.rules.allowlist.first(ref) if ref else None
            if rule is not None:
                gate = self._gate(scope, rule, node, ref or "allowlist")
                condition = gate_when(gate, passes)
                if isinstance(node.left, ast.Name):
                    clean = frozenset({node.left.id})
                    condition = Condition(
                        condition.when_true,
                        condition.when_false,
                        clean if passes else frozenset(),
                        frozenset() if passes else clean,
                    )
                return condition
        over = _ORDERING.get(op)
        if over is not None:
            for side, side_over in ((right, over), (node.left, not over)):
                ref = name_text(side)
                rule = self.rules.spend.first(ref) if ref else None
                if rule is not None:
                    # ``amount > MAX`` is the failure test; ``amount <= MAX`` the passing one.
                    return gate_when(self._gate(scope, rule, node, ref or "limit"), not side_over)
        positive = _EQUALITY.get(op)
        if positive is not None:
            # ``input('ok? ') != 'y'``, ``answer.lower() in ('y', 'yes')``: a human's answer checked
            # against a literal. The literal side says nothing; the other side carries the gate.
            for side, other in ((node.left, right), (right, node.left)):
                if is_literal(other):
                    answer = self._gate_in_chain(side, scope)
                    if answer is not None:
                        return gate_when(answer, positive)
        return NOTHING
