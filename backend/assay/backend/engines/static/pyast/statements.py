"""Statements walked in order, with structured gate dominance (``StatementLogic``)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any

from assay.backend.engines.static.facts import (
    TaintOrigin,
)
from assay.backend.engines.static.pyast.conditions import Outcome, meet
from assay.backend.engines.static.pyast.scope import DEFINITION_KINDS, MODULE_PARAMS, NO_CALLEE, NO_TAINT, Scope
from assay.backend.engines.static.pyast.taint import ExpressionLogic
from assay.backend.engines.static.python_syntax import (
    node_fields,
)


class StatementLogic(ExpressionLogic):
    """Blocks and statements: which gates dominate each point, and what a branch proves."""

    def _walk_block(self, body: Sequence[ast.stmt], scope: Scope, active: frozenset[str]) -> Outcome:
        """Walk statements in order; return the gates that dominate the point after the block, or
        ``None`` when control never falls out of it. Code after a ``return`` is still read (its
        calls and models exist) with the gates known before it."""
        outcome: Outcome = active
        for stmt in body:
            kind = type(stmt)
            if kind in DEFINITION_KINDS:
                scope.defines = True
                if scope.params is not MODULE_PARAMS:
                    # A nested definition is called by its local name: resolve it to its qualname.
                    name = stmt.name  # type: ignore[attr-defined]
                    scope.types[name] = f"{scope.qualname}.{name}"
                    self._last_callee = NO_CALLEE
                    scope.taint.setdefault(name, NO_TAINT)
                continue
            after = _STATEMENTS.get(kind, StatementLogic._plain)(self, stmt, scope, active)
            if after is None:
                outcome = None
            else:
                active = after
                if outcome is not None:
                    outcome = after
        return outcome

    def _expression_statement(self, stmt: ast.Expr, scope: Scope, active: frozenset[str]) -> Outcome:
        value = stmt.value
        self._expr(value, scope, active)
        gate = self._gate_of_expr(value, scope)
        # An unconditional approval/limit call: everything after it in the block is behind it.
        return active | {gate} if gate is not None else active

    def _return(self, stmt: ast.Return, scope: Scope, active: frozenset[str]) -> Outcome:
        if stmt.value is not None:
            scope.returns |= self._expr(stmt.value, scope, active)
        return None

    def _raise(self, stmt: ast.Raise, scope: Scope, active: frozenset[str]) -> Outcome:
        for part in (stmt.exc, stmt.cause):
            if part is not None:
                self._expr(part, scope, active)
        return None

    def _jump(self, stmt: ast.Continue | ast.Break, scope: Scope, active: frozenset[str]) -> Outcome:
        return None

    def _loop(self, stmt: ast.For | ast.AsyncFor | ast.While, scope: Scope, active: frozenset[str]) -> Outcome:
        head = stmt.iter if isinstance(stmt, ast.For | ast.AsyncFor) else stmt.test
        taint = self._expr(head, scope, active)
        if isinstance(stmt, ast.For | ast.AsyncFor):
            self._assign(stmt.target, taint, None, scope)
        # The body may run no times: nothing in it dominates what follows the loop.
        self._walk_block(stmt.body, scope, active)
        self._walk_block(stmt.orelse, scope, active)
        return active

    def _with(self, stmt: ast.With | ast.AsyncWith, scope: Scope, active: frozenset[str]) -> Outcome:
        inside = active
        for item in stmt.items:
            taint = self._expr(item.context_expr, scope, active)
            gate = self._gate_of_expr(item.context_expr, scope) or self._context_gate(item.context_expr, scope)
            if gate is not None:
                # ``with Sandbox() as sbx:`` or ``with limiter:``: the body runs behind it.
                inside = inside | {gate}
            if item.optional_vars is not None:
                self._assign(item.optional_vars, taint, self._type_of(item.context_expr, scope), scope)
        after = self._walk_block(stmt.body, scope, inside)
        return None if after is None else active | (after - inside) | (after & inside & active)

    def _assert(self, stmt: ast.Assert, scope: Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.test, scope, active)
        condition = self._condition(stmt.test, scope)
        self._clean(condition.clean_true, scope)
        return active | condition.when_true

    def _plain(self, stmt: ast.stmt, scope: Scope, active: frozenset[str]) -> Outcome:
        """Any other statement: the expressions it holds are read; it changes no gates."""
        for attr in node_fields(type(stmt)):
            value = getattr(stmt, attr)
            for child in value if type(value) is list else (value,):
                if isinstance(child, ast.expr):
                    self._expr(child, scope, active)
        return active

    def _assignment(
        self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: Scope, active: frozenset[str]
    ) -> Outcome:
        value = stmt.value
        if value is None:
            return active
        taint = self._expr(value, scope, active)
        name = self._type_of(value, scope) if type(value) is ast.Call or type(value) is ast.BinOp else None
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        gate = self._gate_of_expr(value, scope)
        for target in targets:
            if isinstance(stmt, ast.AugAssign) and isinstance(target, ast.Name):
                taint = taint | scope.taint.get(target.id, NO_TAINT)
            self._assign(target, taint, name, scope)
            if gate is not None and isinstance(target, ast.Name):
                scope.gate_vars[target.id] = (gate, "positive")
        if gate is not None and gate in scope.unconditional:
            # ``sbx = Sandbox()`` (code after it runs against the sandbox) and ``answer = interrupt(...)``
            # (the run pauses there until a human resumes it).
            return active | {gate}
        return active

    def _if(self, stmt: ast.If, scope: Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.test, scope, active)
        self._if_dispatch(stmt, scope)
        condition = self._condition(stmt.test, scope)
        if condition.empty:
            # Most tests prove nothing: both branches start from what held before.
            return meet(self._walk_block(stmt.body, scope, active), self._walk_block(stmt.orelse, scope, active))
        saved = self._clean(condition.clean_true, scope)
        after_body = self._walk_block(stmt.body, scope, active | condition.when_true)
        self._restore(saved, scope)
        saved = self._clean(condition.clean_false, scope)
        after_else = self._walk_block(stmt.orelse, scope, active | condition.when_false)
        self._restore(saved, scope)
        # A branch that never falls through leaves what the other branch proved for the code after.
        if after_body is None and after_else is not None:
            self._clean(condition.clean_false, scope)
        elif after_else is None and after_body is not None:
            self._clean(condition.clean_true, scope)
        return meet(after_body, after_else)

    def _try(self, stmt: ast.Try | ast.TryStar, scope: Scope, active: frozenset[str]) -> Outcome:
        after_body = self._walk_block(stmt.body, scope, active)
        # A handler may start anywhere in the body: only what held before the ``try`` holds in it.
        handlers = [self._walk_block(h.body, scope, active) for h in stmt.handlers]
        after_else = self._walk_block(stmt.orelse, scope, after_body if after_body is not None else active)
        joined = meet(after_else if after_body is not None else None, *handlers)
        if not stmt.finalbody:
            return joined
        after_final = self._walk_block(stmt.finalbody, scope, joined if joined is not None else active)
        return None if joined is None or after_final is None else after_final

    def _match(self, stmt: ast.Match, scope: Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.subject, scope, active)
        outcomes: list[Outcome] = []
        exhaustive = False
        for case in stmt.cases:
            if case.guard is not None:
                self._expr(case.guard, scope, active)
            elif isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None:
                exhaustive = True
            self._case_dispatch(stmt.subject, case, scope)
            outcomes.append(self._walk_block(case.body, scope, active))
        return meet(*outcomes) if exhaustive else meet(active, *outcomes)

    def _clean(self, names: frozenset[str], scope: Scope) -> dict[str, frozenset[TaintOrigin]]:
        """After ``if x not in ALLOWED: raise``, ``x`` holds an allow-listed value, not free model text."""
        saved = {}
        for name in names:
            saved[name] = scope.taint.get(name, NO_TAINT)
            scope.taint[name] = NO_TAINT
        return saved

    def _restore(self, saved: dict[str, frozenset[TaintOrigin]], scope: Scope) -> None:
        scope.taint.update(saved)


# Statement class -> its walker (``StatementLogic._walk_block``); others are ``StatementLogic._plain``.
_STATEMENTS: dict[type[ast.stmt], Callable[[StatementLogic, Any, Scope, frozenset[str]], Outcome]] = {
    ast.If: StatementLogic._if,
    ast.Expr: StatementLogic._expression_statement,
    ast.Assign: StatementLogic._assignment,
    ast.AnnAssign: StatementLogic._assignment,
    ast.AugAssign: StatementLogic._assignment,
    ast.Return: StatementLogic._return,
    ast.Raise: StatementLogic._raise,
    ast.Continue: StatementLogic._jump,
    ast.Break: StatementLogic._jump,
    ast.For: StatementLogic._loop,
    ast.AsyncFor: StatementLogic._loop,
    ast.While: StatementLogic._loop,
    ast.Try: StatementLogic._try,
    ast.TryStar: StatementLogic._try,
    ast.With: StatementLogic._with,
    ast.AsyncWith: StatementLogic._with,
    ast.Match: StatementLogic._match,
    ast.Assert: StatementLogic._assert,
}
