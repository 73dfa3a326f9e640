"""Gates and conditions: which gates a call or test proves, and where (``GateLogic``)."""

from __future__ import annotations

import ast
import re

from assay.backend.canonical import short_id
from assay.backend.engines.static.checked import VALUE_CHECKS, start_checks
from assay.backend.engines.static.facts import (
    GateSite,
    TaintOrigin,
)
from assay.backend.engines.static.pyast.base import AnalyzerBase
from assay.backend.engines.static.pyast.conditions import NOTHING, Condition, gate_when
from assay.backend.engines.static.pyast.fixed_text import bound_values, local_values
from assay.backend.engines.static.pyast.literals import (
    is_literal,
    literal_str,
    module_bindings,
    name_text,
)
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.pyast.syntax import walk
from assay.backend.engines.static.rules.pack import Rule

_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,8}")

# Comparison operators, by what a true comparison says (``_comparison``): membership passes an
# allow-list check when true (``in``) or false (``not in``); an ordering is true when the left side
# is over the right (``>``, ``>=``) or under it; an equality or identity holds when true or false.
_MEMBERSHIP: dict[type[ast.cmpop], bool] = {ast.In: True, ast.NotIn: False}
_ORDERING: dict[type[ast.cmpop], bool] = {ast.Gt: True, ast.GtE: True, ast.Lt: False, ast.LtE: False}
_EQUALITY: dict[type[ast.cmpop], bool] = {
    ast.Eq: True, ast.NotEq: False, ast.In: True, ast.NotIn: False, ast.Is: True, ast.IsNot: False
}  # fmt: skip


class GateLogic(AnalyzerBase):
    """Gate calls, gate variables, allowlist membership, spend ceilings and human answers, composed
    through ``not``, ``and`` and ``or``."""

    def _gate(self, scope: Scope, rule: Rule, node: ast.expr, detail: str, values: tuple[str, ...] = ()) -> str:
        """The id of the gate ``rule`` finds at ``node``, recorded in ``scope`` the first time (with the strings
        of the literal list a membership check tests against, ``values``)."""
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
                    values=values,
                )
            )
        return gate_id

    def _note_checked(self, tested: ast.expr, ids: frozenset[str], scope: Scope) -> None:
        """``if agg not in {"sum", "mean"}: return``: the allow-list and path containment gates among ``ids``
        test the value ``tested`` reads; what that value may carry (the taint of the names it reads) is
        what the check is about. Not recorded when the test reads a check's answer (``if not ok:``, the
        value checked is elsewhere) or nothing that carries taint (a check of a constant or of state)."""
        names = [n.id for n in walk(tested) if type(n) is ast.Name]
        if any(n in scope.verdict_vars or n in scope.gate_vars for n in names):
            return
        origins: frozenset[TaintOrigin] = frozenset().union(*(scope.taint.get(n, frozenset()) for n in names))
        if not origins:
            return
        kinds = {g.id: g.kind for g in scope.gates if g.id in ids}
        for gate in ids:
            if kinds.get(gate) in VALUE_CHECKS:
                if not scope.checked:
                    start_checks(scope.given, (c.callee for c in scope.calls))
                scope.checked[gate] = scope.checked.get(gate, frozenset()) | origins

    def _gate_of_expr(self, node: ast.expr, scope: Scope, compared: bool = False) -> str | None:
        """The id of the gate a call is (approval, permission, limit check, sandbox), if it is one.
        A call whose answer must be compared to count (``input()``) is one only when ``compared``."""
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
        if not compared and self.rules.compared_gates.matches(name):
            return None
        if self._asks_for_data(node, name):
            return None
        gate = self._gate(scope, rule, node, name)
        if profile.unconditional:
            scope.unconditional.add(gate)
        return gate

    def _asks_for_data(self, call: ast.Call, name: str) -> bool:
        """``await ctx.elicit("Which branch?", response_type=str)``: a question to a person through the client
        that asks for input, not for approval; only an answer that is a yes or no (no type, ``None``, ``bool``,
        a class of the file whose every field is a ``bool``) or one of written choices approves the call."""
        found = self.rules.yes_no_asks
        if found is None or not found[0].matches(name):
            return False
        _, keywords, yes_no = found
        answer = next((kw.value for kw in call.keywords if kw.arg in keywords), None)
        if answer is None and len(call.args) > 1:
            answer = call.args[1]
        if answer is None or (isinstance(answer, ast.Constant) and answer.value is None):
            return False
        if isinstance(answer, ast.List | ast.Tuple):  # written choices: the answer is compared with one of them
            return False
        if isinstance(answer, ast.Name) and answer.id in yes_no:
            return False
        cls = next(
            (
                d
                for d in self.module_defs
                if isinstance(d, ast.ClassDef) and isinstance(answer, ast.Name) and d.name == answer.id
            ),
            None,
        )
        if cls is not None:
            fields = [st.annotation for st in cls.body if isinstance(st, ast.AnnAssign)]
            return not fields or any(not (isinstance(f, ast.Name) and f.id in yes_no) for f in fields)
        return True

    def _context_gate(self, node: ast.expr, scope: Scope) -> str | None:
        """A gate only as a ``with`` item: ``with RateLimiter(max_calls=5, period=60):``, or a limiter built
        once and entered by name (``limiter = AsyncLimiter(10, 60)`` ... ``async with limiter:``)."""
        if isinstance(node, ast.Name):
            name, resolved = self.dotted(node, scope)
            if not resolved:
                return None
        elif isinstance(node, ast.Call):
            name, _ = self._callee(node, scope)
        else:
            return None
        rule = self.rules.context_gates.first(name) if name else None
        return self._gate(scope, rule, node, name or "") if rule is not None else None

    def _gate_in_chain(self, node: ast.expr, scope: Scope) -> str | None:
        """A gate call or gate variable under method calls and subscripts: ``input('ok?').strip().lower()``,
        ``answer['action']``."""
        while True:
            if isinstance(node, ast.Name):
                found = scope.gate_vars.get(node.id)
                return found[0] if found is not None else None
            gate = self._gate_of_expr(node, scope, compared=True)
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

    def _answer_in_chain(self, node: ast.expr, scope: Scope) -> str | None:
        """A person's answer under method calls and subscripts (``input().strip().lower()``,
        ``answer.strip()``): the gate of a prompt whose answer counts only where compared, else none
        (a sandbox's result or a permission check's value, transformed, is no answer)."""
        while isinstance(node, ast.Call | ast.Subscript | ast.Attribute | ast.Await):
            if isinstance(node, ast.Call):
                name, _ = self._callee(node, scope)
                if name and self.rules.compared_gates.matches(name):
                    return self._gate_of_expr(node, scope, compared=True)
                if not isinstance(node.func, ast.Attribute):
                    return None
                node = node.func.value
            else:
                node = node.value
        if isinstance(node, ast.Name):
            found = scope.gate_vars.get(node.id)
            return found[0] if found is not None and found[1] == "compared" else None
        return None

    def _condition(self, test: ast.expr, scope: Scope) -> Condition:
        """The gates a test proves when true and when false."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._condition(test.operand, scope).negate()
        if isinstance(test, ast.BoolOp):
            parts = [self._condition(value, scope) for value in test.values]
            if self.rules.parent_lists is not None and any(part.when_true or part.when_false for part in parts):
                _root_equality(test.values, parts, self.rules.parent_lists[1])
            combined = parts[0]
            for part in parts[1:]:
                combined = combined.both(part) if isinstance(test.op, ast.And) else combined.either(part)
            return combined
        if isinstance(test, ast.NamedExpr):
            # ``if error := validate_sql(sql): return error``: the test is the value bound.
            errors = self._error_verdict(test.value, scope)
            if errors:
                scope.errors[test.target.id] = errors
                return Condition(when_false=errors)
            return self._condition(test.value, scope)
        if isinstance(test, ast.Name) and test.id in scope.errors:
            return Condition(when_false=scope.errors[test.id])
        if isinstance(test, ast.Name):
            verdict = scope.verdict_vars.get(test.id)
            if verdict and not _in_words(scope.refusals.get(test.id)):
                return Condition(when_true=verdict)
            found = scope.gate_vars.get(test.id)
            if found is None or found[1] == "compared":
                return NOTHING  # ``if answer:`` accepts any answer: nothing was compared
            return gate_when(found[0], found[1] == "positive")
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return self._comparison(test, scope)
        if scope.refusals and type(test) is ast.Call:
            refused = self._refusal_words(test, scope)
            if refused:
                return Condition(when_false=refused)
        if type(test) is ast.Call:
            opened = self._answer_opening(test, scope)
            if any(opened):
                return opened
        gate = self._gate_of_expr(test, scope) or self._prefix_gate(test, scope) or self._attribute_gate(test, scope)
        if gate is not None:
            return gate_when(gate, True)
        verdict = self._verdict(test, scope)
        if verdict:
            return Condition(when_true=verdict)
        errors = self._error_verdict(test, scope)
        return Condition(when_false=errors) if errors else NOTHING

    def _answer_opening(self, test: ast.Call, scope: Scope) -> Condition:
        """``input().lower().startswith("y")``: a person's answer tested for the opening of a yes (``y``,
        ``yes``, ``ok``) is compared as ``== "y"`` is, passed when true; for that of a no (``n``), passed
        when false."""
        func = test.func
        if not (isinstance(func, ast.Attribute) and func.attr == "startswith" and len(test.args) == 1):
            return NOTHING
        single = literal_str(test.args[0])
        words = (single,) if single is not None else _strings_of(test.args[0])
        if not words:
            return NOTHING
        lowered = {w.strip().lower() for w in words}
        if all(w.startswith("y") or w == "ok" for w in lowered):
            positive = True
        elif all(w.startswith("n") for w in lowered):
            positive = False
        else:
            return NOTHING
        answer = self._gate_in_chain(func.value, scope)
        if answer is None:
            return NOTHING
        return gate_when(self._decided_at(answer, test, scope), positive)

    def _error_verdict(self, node: ast.expr, scope: Scope) -> frozenset[str]:
        """``if error := validate_sql_safety(sql): return error``: a function of this file that hands back a message
        when a check it makes fails and nothing when it passes (``_error_sites``) is that check; its answer, tested
        by the caller, is a gate of each of their kinds there, passed when the answer is empty."""
        if isinstance(node, ast.Await):
            node = node.value
        if not isinstance(node, ast.Call):
            return frozenset()
        name, resolved = self._callee(node, scope)
        if not (name and resolved and name.startswith(self.module_prefix)):
            return frozenset()
        return self._answer_gates(self._error_sites(name), node, scope, name, "no message")

    def _error_sites(self, qualname: str) -> tuple[GateSite, ...]:
        """The gates met in a function of this file that hands back a message or nothing (``StatementLogic``)."""
        return ()

    def _verdict(self, node: ast.expr, scope: Scope) -> frozenset[str]:
        """``if not is_path_allowed(p): raise``, ``ok, why = is_command_safe(cmd)``: a function of this file
        that answers yes or no (``return False`` on some path; ``True``, or a test, on another) is a check
        of what it tests on the way: the gates met in it (a path's ``relative_to``, a host tested against
        each entry of an allow list, a command's first word looked up in a literal deny set). Its answer,
        tested by the caller, is a gate of each of their kinds there, passed when the answer is yes."""
        if isinstance(node, ast.Await):
            node = node.value
        if not isinstance(node, ast.Call):
            return frozenset()
        name, resolved = self._callee(node, scope)
        if not (name and resolved and name.startswith(self.module_prefix)):
            return frozenset()
        sites = self._verdict_sites(name)
        if not sites:
            return self._handed_back(name, scope)
        return self._answer_gates(sites, node, scope, name, "yes")

    def _answer_gates(
        self, sites: tuple[GateSite, ...], node: ast.Call, scope: Scope, name: str, answer: str
    ) -> frozenset[str]:
        """A gate of each kind met in the called function ``name``, placed at the call whose answer the caller
        tests: passed when it answers ``answer`` (``yes``, ``no message``)."""
        short = name.rsplit(".", 1)[-1]
        ids: set[str] = set()
        kinds: set[str] = set()
        for site in sites:
            if site.kind not in kinds:
                kinds.add(site.kind)
                ids.add(self._resited(site, node, scope, f"{short}(...) answers {answer} only past {site.detail}"))
        return frozenset(ids)

    def _verdict_sites(self, qualname: str) -> tuple[GateSite, ...]:
        """The gates met in a function of this file that answers yes or no (``StatementLogic`` reads it)."""
        return ()

    def _handed_back(self, qualname: str, scope: Scope, words: bool = False) -> frozenset[str]:
        """``path = resolve_path(p)`` ... ``if path is None: return``: a function of this file that hands back
        the value it checked, or refuses with ``None`` / ``False`` (``_refusing_sites``), is a check of what
        it tests on the way; the caller's test of its answer decides it. The ids of the gates that hold at
        each of its returns of a value, recorded where they stand in it (``scope`` learns them); none for a
        helper that refuses with a message (truthy as a value is) unless ``words`` (its answer is kept to be
        tested for the message's opening words, ``_refusal_words``)."""
        sites, refused = self._refusing_sites(qualname)
        if not words and _in_words(refused):
            return frozenset()
        ids: set[str] = set()
        for site in sites:
            if site.id not in scope.gate_ids:
                scope.gate_ids.add(site.id)
                scope.gates.append(site)
            ids.add(site.id)
        return frozenset(ids)

    def _refusing_sites(self, qualname: str) -> tuple[tuple[GateSite, ...], frozenset[object]]:
        """The gates a function of this file that hands back a value or refuses holds at each return of a
        value, and the constants it refuses with (``StatementLogic`` reads it)."""
        return (), frozenset()

    def _refusal_words(self, test: ast.Call, scope: Scope) -> frozenset[str]:
        """``if path.startswith("Error"): return path``: the answer of a helper that refuses with messages, each
        opening with the literal words tested: the gates it held, passed when the test is false."""
        func = test.func
        if not (
            type(func) is ast.Attribute
            and func.attr == "startswith"
            and type(func.value) is ast.Name
            and len(test.args) == 1
            and not test.keywords
        ):
            return frozenset()
        opening = literal_str(test.args[0])
        held = scope.verdict_vars.get(func.value.id)
        refused = scope.refusals.get(func.value.id)
        if not (opening and held and refused):
            return frozenset()
        return held if all(type(c) is str and c.startswith(opening) for c in refused) else frozenset()

    def _refused(self, node: ast.expr, constant: object, scope: Scope) -> frozenset[str]:
        """``path is None`` (``== None``, ``is False``): the gates a helper's answer held in ``node`` (a name
        bound to it or the call) passed when it is not ``constant``, the helper refusing with nothing else."""
        if type(node) is ast.Name:
            ids = scope.verdict_vars.get(node.id)
            return ids if ids and scope.refusals.get(node.id) == frozenset({constant}) else frozenset()
        call = node.value if isinstance(node, ast.Await) else node
        if not isinstance(call, ast.Call):
            return frozenset()
        name, resolved = self._callee(call, scope)
        if not (name and resolved and name.startswith(self.module_prefix)):
            return frozenset()
        if self._refusing_sites(name)[1] != frozenset({constant}):
            return frozenset()
        return self._handed_back(name, scope)

    def _denial(self, stmt: ast.If, scope: Scope) -> Condition:
        """``if role != "admin": raise PermissionError(...)``: a test whose one branch ends by raising an
        exception that says access was refused (``PermissionError``, ``*Forbidden*``, ``*Unauthorized*``...)
        is a check of that kind, passed on the other branch, whatever the test reads."""
        denials = self.rules.denials
        if not denials:
            return NOTHING
        for block, passes in ((stmt.body, False), (stmt.orelse, True)):
            last = block[-1] if block else None
            if not isinstance(last, ast.Raise) or last.exc is None:
                continue
            status = _status(last.exc)
            rule = self.rules.denial_statuses.get(status) if status is not None else None
            if rule is not None:
                # ``raise HTTPException(status_code=401)``: refused with an HTTP status that says why.
                return gate_when(self._gate(scope, rule, stmt.test, f"raise with status {status}"), passes)
            exc = last.exc.func if isinstance(last.exc, ast.Call) else last.exc
            name = name_text(exc)
            if not name:
                continue
            short = name.rsplit(".", 1)[-1]
            for rule, patterns in denials:
                if patterns.matches(short):
                    return gate_when(self._gate(scope, rule, stmt.test, f"raise {short}"), passes)
        return NOTHING

    def _spelled_denial(self, stmt: ast.If, scope: Scope) -> Condition:
        """``if "drop " in sql.lower() or "delete " in sql.lower(): return "Error: read-only"``: a parameter's text
        searched for each of several words written out in the test, joined by ``or``, one branch ending the path, is
        the deny list those words make (as ``any(w in sql for w in WORDS)`` over a literal list is), passed on the
        branch that goes on. One word alone is a test of that word, no list."""
        rule = self.rules.collection_gate
        test: ast.expr = stmt.test
        negated = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, not negated
        if rule is None or not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and len(test.values) > 1):
            return NOTHING
        words: list[str] = []
        searched: set[str] = set()
        for part in test.values:
            if not (
                isinstance(part, ast.Compare)
                and len(part.ops) == 1
                and isinstance(part.ops[0], ast.In)
                and (word := literal_str(part.left)) is not None
            ):
                return NOTHING
            words.append(word)
            searched.add(ast.unparse(part.comparators[0]))
        if len(searched) != 1 or not any(isinstance(n, ast.Name) and n.id in scope.params for n in walk(test)):
            # Several values, or not what the tool is given (``if "Failed" in message or ...`` reads what a
            # command printed: a result, not the input refused).
            return NOTHING
        body_ends, else_ends = _ends_path(stmt.body), _ends_path(stmt.orelse)
        if body_ends == else_ends:
            return NOTHING
        gate = self._gate(scope, rule, stmt.test, f"{', '.join(map(repr, words))} in {searched.pop()}")
        # The path goes on where no word is found: the test false (true under one ``not``).
        return gate_when(gate, negated if body_ends else not negated)

    def _pattern_denial(self, stmt: ast.If, scope: Scope) -> Condition:
        """``for pattern in PII_PATTERNS: if re.search(pattern, content): return "BLOCKED"``: text searched
        for each pattern of a list written out in the code, the path stopping on a match, is a deny list
        (kind ``allowlist``), passed when the search finds nothing; so is text searched for each entry as
        a substring (``for p in BLOCKED_PATTERNS: if p in command: return False``)."""
        found = self.rules.deny_searches
        test = stmt.test
        if found is None or not stmt.body or not isinstance(stmt.body[-1], ast.Return | ast.Raise):
            return NOTHING
        rule, searches = found
        name: str | None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In):
            name, pattern = "in", test.left
        elif isinstance(test, ast.Call) and test.args:
            name, pattern = self._callee(test, scope)[0], test.args[0]
            if name not in searches:
                return NOTHING
        else:
            return NOTHING
        if not isinstance(pattern, ast.Name):
            return NOTHING
        source = scope.iterables.get(pattern.id)
        if source is None and pattern.id in scope.loop_items:
            # ``for pattern, label in FORBIDDEN: if re.search(pattern, sql): return f"{label} not allowed"``: one
            # part of each entry of a module-level list of literal tuples.
            source = scope.loop_items[pattern.id]
            if not (isinstance(source, ast.Name) and source.id not in scope.taint and self._literal_rows(source.id)):
                return NOTHING
            return gate_when(self._gate(scope, rule, test, f"{name} against each of {source.id}"), False)
        if (
            isinstance(source, ast.Attribute)
            and type(source.value) is ast.Name
            and source.value.id == "self"
            and refuses(stmt.body[-1])
            and self._configured(source.attr)
        ):
            # ``for kw in self.banned_keywords: if kw in content: return {"jump_to": "end", ...}``: a list the
            # instance is given when built and keeps, searched the same way.
            return gate_when(self._gate(scope, rule, test, f"{name} against each of self.{source.attr}"), False)
        if not isinstance(source, ast.Name):
            return NOTHING
        listed = scope.list_vars.get(source.id)
        literal = (
            bool(listed) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in listed)
            if listed is not None
            else source.id in self._literal_collections() and source.id not in scope.taint
        )
        if not literal:
            return NOTHING
        return gate_when(self._gate(scope, rule, test, f"{name} against each of {source.id}"), False)

    def _configured(self, attr: str) -> bool:
        """Whether ``self.<attr>`` of the class being read (a class of the module) is set once, in its
        ``__init__``, and changed nowhere else: what the instance was built with."""
        cls = next(
            (d for d in self.module_defs if isinstance(d, ast.ClassDef) and d.name == self._class),
            None,
        )
        if cls is None:
            return False
        set_in_init = 0
        for method in cls.body:
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in walk(method):
                if not (
                    isinstance(node, ast.Attribute)
                    and node.attr == attr
                    and type(node.value) is ast.Name
                    and node.value.id == "self"
                ):
                    continue
                if isinstance(node.ctx, ast.Store | ast.Del):
                    if method.name != "__init__":
                        return False
                    set_in_init += 1
        if set_in_init != 1:
            return False
        # ``self.banned.append(x)`` elsewhere grows it: no longer only what the instance was built with.
        return not any(
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == attr
            and node.func.attr in ("append", "extend", "insert", "add", "update", "remove", "pop", "clear")
            for node in walk(cls)
        )

    def _kind_check(self, stmt: ast.If, scope: Scope) -> Condition:
        """``if await _is_write_query(query, ...): raise ValueError(...)``: a check that classifies the
        model's query or command by its kind (named for it: ``is_write_query``, ``is_read_only``,
        ``is_destructive``...), one branch ending the path, admits only that kind: an allow-list
        (deny-list) check, passed on the branch that goes on, whichever kind it admits."""
        found = self.rules.kind_checks
        if found is None:
            return NOTHING
        body_ends = bool(stmt.body) and isinstance(stmt.body[-1], _STOPS)
        else_ends = bool(stmt.orelse) and isinstance(stmt.orelse[-1], _STOPS)
        if body_ends == else_ends:
            return NOTHING
        # ``if not sql or not is_safe_query(sql): return``: a refusal when any of several tests holds goes on
        # only when each is false, the kind check among them.
        tests = (
            stmt.test.values
            if isinstance(stmt.test, ast.BoolOp) and isinstance(stmt.test.op, ast.Or) and body_ends
            else [stmt.test]
        )
        rule, patterns = found
        for test in tests:
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test = test.operand
            if isinstance(test, ast.Await):
                test = test.value
            if not isinstance(test, ast.Call):
                continue
            name, _ = self._callee(test, scope)
            if not name or not patterns.matches(name.rsplit(".", 1)[-1]):
                continue
            values = (*test.args, *(k.value for k in test.keywords))
            if not any(isinstance(n, ast.Name) and scope.taint.get(n.id) for v in values for n in walk(v)):
                continue  # a check of something the model does not choose
            return gate_when(self._gate(scope, rule, stmt.test, f"{name} decides the kind admitted"), not body_ends)
        return NOTHING

    def _token_check(self, stmt: ast.If, scope: Scope) -> Condition:
        """``token = get_access_token()`` then ``if "admin" not in token.scopes: raise ToolError(...)``: a test of
        the request's verified access token (FastMCP's or the MCP SDK's ``get_access_token``), one branch ending
        the path, lets only those requests go on: a ``permission_check`` where it reads the token's scopes,
        roles, claims, groups or permissions, else (``if token is None: return``) ``authentication``, passed on
        the branch that goes on."""
        if not self.reads_access_token or scope.function is None:
            return NOTHING
        body_ends = bool(stmt.body) and isinstance(stmt.body[-1], _STOPS)
        else_ends = bool(stmt.orelse) and isinstance(stmt.orelse[-1], _STOPS)
        if body_ends == else_ends:
            return NOTHING
        tokens = _token_names(scope.function)
        read = [
            n
            for n in walk(stmt.test)
            if (type(n) is ast.Name and n.id in tokens) or (type(n) is ast.Call and _reads_token(n))
        ]
        if not read:
            return NOTHING
        permits = any(
            (type(n) is ast.Attribute and n.attr in _TOKEN_GRANTS)
            or (type(n) is ast.Constant and n.value in _TOKEN_GRANTS)
            for n in walk(stmt.test)
        )
        rule = self.rules.gate_by_kind.get("permission_check" if permits else "authentication")
        if rule is None:
            return NOTHING
        detail = "the access token's grants" if permits else "the access token"
        return gate_when(self._gate(scope, rule, stmt.test, f"a test of {detail}"), not body_ends)

    def _switch_check(self, stmt: ast.If, scope: Scope) -> Condition:
        """``if not ctx.servicenow_enabled: return "disabled"``: a setting that switches what follows on, tested
        before it with the path ending when off, withholds it from the model: a permission check, passed when
        the switch is on (a setting an object holds, or a name the function does not take). A switch the model's
        call sets decides nothing."""
        test = stmt.test
        if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
            return NOTHING
        switch = test.operand
        word = switch.attr if isinstance(switch, ast.Attribute) else switch.id if isinstance(switch, ast.Name) else ""
        if not (word == "enabled" or word.endswith("_enabled")) or stmt.orelse:
            return NOTHING
        if not (stmt.body and isinstance(stmt.body[-1], ast.Return | ast.Raise)):
            return NOTHING
        if isinstance(switch, ast.Name) and (switch.id in scope.params or scope.taint.get(switch.id)):
            return NOTHING  # ``def tool(enabled: bool)``: a switch the model's call sets
        rule = self.rules.gate_by_kind.get("permission_check")
        if rule is None:
            return NOTHING
        return gate_when(self._gate(scope, rule, test, f"{word} switched on"), False)

    def _quantified_check(self, stmt: ast.If, scope: Scope) -> Condition:
        """``if not any(url.startswith(d) for d in ALLOWED_DOMAINS): return "Error: URL not allowed"``: a
        value tested against each entry of a collection written out in the code (``any`` / ``all`` over
        it), one branch ending the path, is an allow-list (or deny-list) check, passed on the branch that
        goes on."""
        test: ast.expr = stmt.test
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        found = self._quantified(test, scope)
        if found is None and type(test) is ast.Name and scope.function is not None:
            # ``has_valid_table = any(t in sql for t in TABLES)`` then ``if not has_valid_table: return``: the one
            # test the local is bound to.
            bound = bound_values(scope.function, test.id)
            found = self._quantified(bound[0], scope) if bound is not None and len(bound) == 1 else None
        body_ends = bool(stmt.body) and isinstance(stmt.body[-1], ast.Return | ast.Raise)
        else_ends = bool(stmt.orelse) and isinstance(stmt.orelse[-1], ast.Return | ast.Raise)
        if found is None or body_ends == else_ends:
            return NOTHING
        rule, detail = found
        return gate_when(self._gate(scope, rule, stmt.test, detail), not body_ends)

    def _quantified(self, test: ast.expr, scope: Scope) -> tuple[Rule, str] | None:
        """The allow-list rule of ``any(<test of x> for x in C)`` / ``all(...)`` over a collection ``C`` the
        code writes out (a module or local literal, a literal in place, or a name the rule pack reads as an
        allow list: ``ALLOWED_HOSTS``), and the gate's detail; None for anything else."""
        found = _quantified_over(test)
        if found is None:
            return None
        quantifier, quantified = found
        generator = quantified.generators[0]
        target = generator.target
        if not isinstance(target, ast.Name) or not any(
            isinstance(n, ast.Name) and n.id == target.id for n in walk(quantified.elt)
        ):
            return None
        ref = name_text(generator.iter)
        rule = (self.rules.allowlist.first(ref) if ref else None) or self._collection_gate(generator.iter, scope)
        if rule is None and _literal_collection(generator.iter):
            rule = self.rules.collection_gate
        if rule is None:
            return None
        return rule, f"{quantifier}(... for {target.id} in {ref or 'collection'})"

    def _risky_input(self, test: ast.expr, scope: Scope) -> bool:
        """Whether a test says the model's input is risky (or not): the input against each entry of a collection
        written out in the code (``any(k in cmd for k in DANGEROUS)``), its membership in one, or a helper of the
        file whose answer is made of checks (``is_dangerous(cmd)``)."""
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        if not any(isinstance(n, ast.Name) and scope.taint.get(n.id) for n in walk(test)):
            return False  # a test of nothing the model chooses
        if self._quantified(test, scope) is not None or self._class_listed(test):
            return True
        if isinstance(test, ast.Compare):
            listed = test.comparators[0]
            return (
                len(test.ops) == 1
                and type(test.ops[0]) in _MEMBERSHIP
                and (_literal_collection(listed) or self._collection_gate(listed, scope) is not None)
            )
        if isinstance(test, ast.Call):
            name, _ = self._callee(test, scope)
            return name is not None and bool(self._verdict_sites(name))
        return False

    def _answer_checks(self, value: ast.expr, scope: Scope) -> None:
        """``return any(path == f for f in allowed_files) or any(path.is_relative_to(d) for d in dirs)``:
        the checks a function's answer is made of, recorded as gates where they stand (read only while a
        function that answers yes or no is summarised: ``_verdict_sites``). Each part of the answer counts,
        and each test inside an ``any`` / ``all``."""
        if isinstance(value, ast.BoolOp):
            for part in value.values:
                self._answer_checks(part, scope)
            return
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            self._answer_checks(value.operand, scope)
            return
        self._condition(value, scope)
        found = self._quantified(value, scope)
        if found is not None and isinstance(value, ast.Call):
            rule, detail = found
            self._gate(scope, rule, value, detail)
            elt = value.args[0]
            if isinstance(elt, ast.GeneratorExp | ast.ListComp):
                self._answer_checks(elt.elt, scope)

    def _paused_branch(self, stmt: ast.If, scope: Scope) -> Condition:
        """``if not tool_context.tool_confirmation: tool_context.request_confirmation(...); return {...}``: a
        request for a person's approval in a branch that ends pauses the run there, and the code after the
        ``if`` runs only on the path resumed once the person has answered: it is behind that approval. A
        request in a branch that goes on pauses nothing."""
        for block, passes in ((stmt.body, False), (stmt.orelse, True)):
            if not block or not isinstance(block[-1], ast.Return | ast.Raise):
                continue
            for inner in block:
                gate = self._gate_of_expr(inner.value, scope) if isinstance(inner, ast.Expr) else None
                if gate is not None and any(g.id == gate and g.kind == "human_approval" for g in scope.gates):
                    return gate_when(gate, passes)
        return NOTHING

    def _inline_membership(self, stmt: ast.If, scope: Scope) -> Condition:
        """``if kind not in ("select", "with"): raise ValueError(...)``: a value the model chooses tested
        for membership in a collection written in place, one branch ending the path, is an allow-list
        check (as membership in a module constant is), passed on the branch that goes on."""
        test = stmt.test
        rule = self.rules.collection_gate
        if (
            rule is None
            or not isinstance(test, ast.Compare)
            or len(test.ops) != 1
            or type(test.ops[0]) not in _MEMBERSHIP
            or not _literal_collection(test.comparators[0])
        ):
            return NOTHING
        if not any(isinstance(n, ast.Name) and scope.taint.get(n.id) for n in walk(test.left)):
            return NOTHING  # a check of something the model does not choose
        body_ends = bool(stmt.body) and isinstance(stmt.body[-1], ast.Return | ast.Raise)
        else_ends = bool(stmt.orelse) and isinstance(stmt.orelse[-1], ast.Return | ast.Raise)
        if body_ends == else_ends:
            return NOTHING
        listed = test.comparators[0]
        values = self._listed_values(listed, scope)
        gate = self._gate(scope, rule, test, f"{ast.unparse(test.left)} in {ast.unparse(listed)}", values)
        return gate_when(gate, _MEMBERSHIP[type(test.ops[0])])

    def _literal_equality(self, stmt: ast.If, scope: Scope) -> Condition:
        """``if base_currency.upper() != "EUR": return {"status": "error", ...}``: a value the model chooses
        that must equal one word written in place, the path refused (raised, or answered with a message)
        otherwise, is an allow-list of that one value, passed where it is equal. A branch that answers with
        something computed (``if fmt != "json": return render(x)``) is another way through, no refusal."""
        test = stmt.test
        rule = self.rules.collection_gate
        if rule is None or not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return NOTHING
        positive = {ast.Eq: True, ast.NotEq: False}.get(type(test.ops[0]))
        if positive is None:
            return NOTHING
        value, word = test.left, test.comparators[0]
        if isinstance(value, ast.Constant):
            value, word = word, value
        if not (isinstance(word, ast.Constant) and isinstance(word.value, str) and word.value.strip()):
            return NOTHING
        refusing = stmt.orelse if positive else stmt.body
        going_on = stmt.body if positive else stmt.orelse
        if not (refusing and refuses(refusing[-1])) or (going_on and _ends(going_on[-1])):
            return NOTHING
        if not any(isinstance(n, ast.Name) and scope.taint.get(n.id) for n in walk(value)):
            return NOTHING  # a check of something the model does not choose
        gate = self._gate(scope, rule, test, f"{ast.unparse(value)} == {word.value!r}", (word.value,))
        return gate_when(gate, positive)

    def _statement_check(self, stmt: ast.If, scope: Scope) -> Condition:
        """A value tested for the few things it may begin or end with, written out in the code, one branch
        ending the path: an allow-list, passed on the branch that goes on. Text that must start with a
        read-only statement keyword the rule pack lists (``if not sql.upper().startswith("SELECT"): raise``)
        allows those statements; a path that must end with one of a literal set of file extensions
        (``if not path.lower().endswith((".mp3", ".wav")): return``, the tuple also a local or module
        constant) allows those files. Tests of one value joined by ``or`` (``if not (safe.startswith("select") or
        safe.startswith("with")): raise``) are one test of their words together, as a tuple argument is."""
        found = self.rules.statement_prefixes
        test: ast.expr = stmt.test
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        joined = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
        test = joined[0]
        if not (
            found is not None
            and isinstance(test, ast.Call)
            and isinstance(test.func, ast.Attribute)
            and test.func.attr in ("startswith", "endswith")
        ):
            return NOTHING
        method, receiver = test.func.attr, ast.unparse(test.func.value)
        calls = [
            each
            for each in joined
            if isinstance(each, ast.Call)
            and isinstance(each.func, ast.Attribute)
            and each.func.attr == method
            and len(each.args) == 1
            and ast.unparse(each.func.value) == receiver
        ]
        if len(calls) != len(joined):
            return NOTHING
        rule, keywords = found
        every = [self._literal_words(each.args[0], scope) for each in calls]
        words = [w for found_words in every for w in found_words] if all(every) else []
        if not words:
            return NOTHING
        if test.func.attr == "startswith":
            allowed = all(w.strip().upper() in keywords for w in words)
        else:
            allowed = all(_EXTENSION.fullmatch(w) for w in words)
        body_ends = bool(stmt.body) and isinstance(stmt.body[-1], _STOPS)
        else_ends = bool(stmt.orelse) and isinstance(stmt.orelse[-1], _STOPS)
        if not allowed:
            return NOTHING
        words_text = ", ".join(words)
        negations = 0
        inner: ast.expr = stmt.test
        while isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.Not):
            negations, inner = negations + 1, inner.operand
        passes = negations % 2 == 0
        if body_ends != else_ends:
            if test.func.attr == "startswith" and body_ends == passes:
                # ``if sql.upper().startswith("SELECT"): raise``: refusing the read-only statements admits
                # every write, no check.
                return NOTHING
            # ``if not text.startswith(...)`` ending the path passes when the test is false.
            gate = self._gate(scope, rule, stmt.test, f"{test.func.attr}({words_text})")
            return gate_when(gate, not body_ends)
        # ``if sql.lower().startswith("select"): pd.read_sql_query(sql, engine)``: the tested text, passed
        # to a call inside the branch the test allows, is passed only for those statements (none of it
        # holds after the ``if``). A test whose branch does not use the text it tested gates nothing.
        tested = {n.id for n in walk(test.func.value) if isinstance(n, ast.Name)}
        allowed_branch = stmt.body if passes else stmt.orelse
        used = (
            n
            for s in allowed_branch
            for call in walk(s)
            if isinstance(call, ast.Call)
            for argument in [*call.args, *(k.value for k in call.keywords)]
            for n in walk(argument)
        )
        if test.func.attr != "startswith" or not any(isinstance(n, ast.Name) and n.id in tested for n in used):
            return NOTHING
        return gate_when(self._gate(scope, rule, stmt.test, f"{test.func.attr}({words_text})"), passes)

    def _literal_words(self, node: ast.expr, scope: Scope) -> list[str]:
        """The strings a literal, a literal tuple, or a name bound only to one (local or module) holds."""
        values: list[ast.expr] = [node]
        if isinstance(node, ast.Name):
            bound = local_values(scope.function).get(node.id) if scope.function is not None else None
            if bound and len(bound) == 1:
                values = [bound[0][0]]
            else:
                module = module_bindings(self.tree, node.id)
                values = module if len(module) == 1 else []
        out: list[str] = []
        for value in values:
            for element in value.elts if isinstance(value, ast.Tuple | ast.List | ast.Set) else [value]:
                text = literal_str(element)
                if text is None:
                    return []
                out.append(text)
        return out

    def _listed_values(self, node: ast.expr, scope: Scope) -> tuple[str, ...]:
        """The strings a membership check tests against, sorted: a literal list, tuple or set of strings, or the
        keys of a literal dict (``TOOLS = {"search": search, ...}``), in place or bound to a module name; empty
        for anything else."""
        if isinstance(node, ast.Name):
            # A module constant: its strings are read once per file.
            found = self._listed.get(node.id)
            if found is None:
                module = module_bindings(self.tree, node.id) if node.id in self._literal_collections() else []
                found = self._listed[node.id] = _strings_of(module[0]) if len(module) == 1 else ()
            return found
        return _strings_of(node)

    def _attribute_gate(self, node: ast.expr, scope: Scope) -> str | None:
        """``if not credentials.valid: return``: a credential's or session's validity, tested."""
        found = self.rules.attribute_gate
        if found is None or not isinstance(node, ast.Attribute):
            return None
        rule, attrs, receivers = found
        receiver = name_text(node.value) if node.attr in attrs else None
        if receiver is None or not receivers.matches(receiver.rsplit(".", 1)[-1]):
            return None
        return self._gate(scope, rule, node, f"{receiver}.{node.attr}")

    def _prefix_gate(self, node: ast.expr, scope: Scope) -> str | None:
        """``str(target.resolve()).startswith(str(root))``: a path checked against a directory prefix.
        Counts only when the prefix is not a literal and the test speaks of paths (``resolve``,
        ``realpath``, ``root``, ``allowed``...): ``name.startswith("-")`` checks a flag, not a place."""
        found = self.rules.prefix_gate
        if found is None or not isinstance(node, ast.Call):
            return None
        rule, methods, words = found
        func = node.func
        args = node.args
        if not (isinstance(func, ast.Attribute) and func.attr in methods and args) or is_literal(args[0]):
            return None
        text = f"{ast.unparse(func.value)} {ast.unparse(args[0])}".lower()
        if not any(word in text for word in words) and not any(
            word in self._bound_text(side, scope) for side in (func.value, args[0]) for word in words
        ):
            return None
        return self._gate(scope, rule, node, f"{name_text(func) or 'path'}(...)")

    @staticmethod
    def _bound_text(node: ast.expr, scope: Scope) -> str:
        """What the function assigned to the locals ``node`` names, as text: ``cursor_file`` bound to
        ``os.path.realpath(...)`` speaks of paths however it is named."""
        if scope.function is None:
            return ""
        bound = local_values(scope.function)
        values = [
            ast.unparse(value)
            for name in walk(node)
            if isinstance(name, ast.Name)
            for value, _ in bound.get(name.id) or ()
        ]
        return " ".join(values).lower()

    def _collection_gate(self, node: ast.expr, scope: Scope) -> Rule | None:
        """Membership in (or a lookup of) a module-level collection written out in the code: a fixed
        set of values, whatever its name (``COMMANDS = {"ls": ..., "cat": ...}``)."""
        rule = self.rules.collection_gate
        if rule is None or not isinstance(node, ast.Name):
            return None
        if node.id in self._literal_collections():
            return rule
        # A local bound only to such a collection (``_CATALOGS = ("pg_catalog", ...)`` in the function).
        values = local_values(scope.function).get(node.id) if scope.function is not None else None
        return rule if values and all(_literal_collection(v) for v, _ in values) else None

    def _class_listed(self, test: ast.expr) -> bool:
        """``any(word in command for word in self.RISKY_KEYWORDS)``: the input against each entry of a collection
        written out in the body of the method's class."""
        found = _quantified_over(test)
        if found is None:
            return False
        listed = found[1].generators[0].iter
        return (
            isinstance(listed, ast.Attribute)
            and isinstance(listed.value, ast.Name)
            and listed.value.id in ("self", "cls")
            and listed.attr in self._class_collection_names()
        )

    def _class_collection_names(self) -> dict[str, bool]:
        """The names the class whose method is walked binds to literal collections in its own body."""
        name = self._class
        if name is None:
            return {}
        found = self._class_collections.get(name)
        if found is None:
            cls = next((d for d in self.module_defs if isinstance(d, ast.ClassDef) and d.name == name), None)
            found = _literal_collection_names(cls.body) if cls is not None else {}
            self._class_collections[name] = found
        return found

    def _literal_rows(self, name: str) -> bool:
        """Whether the module binds ``name`` (once) to a literal list or tuple of tuples of constants."""
        values = [
            stmt.value
            for stmt in self.tree.body
            if isinstance(stmt, ast.Assign | ast.AnnAssign)
            and stmt.value is not None
            and any(
                isinstance(t, ast.Name) and t.id == name
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
            )
        ]
        if len(values) != 1 or not isinstance(values[0], ast.List | ast.Tuple) or not values[0].elts:
            return False
        return all(
            isinstance(row, ast.Tuple | ast.List) and row.elts and all(isinstance(e, ast.Constant) for e in row.elts)
            for row in values[0].elts
        )

    def _literal_collections(self) -> dict[str, bool]:
        """Module names bound to literal collections, each with whether it is a dict."""
        if self._collections is None:
            self._collections = _literal_collection_names(self.tree.body)
        return self._collections

    def _comparison(self, node: ast.Compare, scope: Scope) -> Condition:
        op = type(node.ops[0])
        right = node.comparators[0]
        passes = _MEMBERSHIP.get(op)
        traversal = self.rules.traversal_markers
        step = _climbing_step(node.left, traversal[1]) if passes is not None and traversal is not None else None
        if step is not None and traversal is not None and not is_literal(right):
            # ``if ".." in filepath: return``: a path that climbs out of its directory is refused (passed when
            # it holds no such step).
            gate = self._gate(scope, traversal[0], node, f"{step!r} in the path")
            scope.step_checks.add(gate)
            return gate_when(gate, not passes)
        parents = self.rules.parent_lists
        if passes is not None and parents is not None and _parent_list(right, parents[1]) and not is_literal(node.left):
            # ``if root not in path.parents: return None``: a path whose parents hold the root lies under it.
            return gate_when(self._gate(scope, parents[0], node, f"in {name_text(right) or 'parents'}"), passes)
        if passes is not None:
            ref = name_text(right)
            rule = (self.rules.allowlist.first(ref) if ref else None) or self._collection_gate(right, scope)
            if rule is not None:
                gate = self._gate(scope, rule, node, ref or "allowlist", self._listed_values(right, scope))
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
        if over is not None and not any(_is_length(side) for side in (right, node.left)):
            # ``len(data) > MAX_BYTES`` measures a size, not an amount spent: no spend limit.
            for side, side_over in ((right, over), (node.left, not over)):
                ref = name_text(side)
                rule = self.rules.spend.first(ref) if ref else None
                if rule is not None:
                    # ``amount > MAX`` is the failure test; ``amount <= MAX`` the passing one.
                    return gate_when(self._gate(scope, rule, node, ref or "limit"), not side_over)
        positive = _EQUALITY.get(op)
        if positive is not None and type(right) is ast.Constant and (right.value is None or right.value is False):
            # ``if path is None: return "outside"``: a helper's refusal tested.
            refused = self._refused(node.left, right.value, scope)
            if refused:
                return Condition(when_false=refused) if positive else Condition(when_true=refused)
        common = self._common_path(node, scope) if positive is not None else None
        if common is not None:
            return gate_when(common, positive is True)
        if positive is not None:
            # ``input('ok? ') != 'y'``, ``answer.lower() in ('y', 'yes')``: a human's answer checked
            # against a literal. The literal side says nothing; the other side carries the gate.
            for side, other in ((node.left, right), (right, node.left)):
                if is_literal(other):
                    answer = self._gate_in_chain(side, scope)
                    if answer is not None:
                        return gate_when(self._decided_at(answer, node, scope), positive)
            decision = self._decision(node, scope)
            if decision is not None:
                gate, allows = decision
                return gate_when(gate, positive is allows)
        return NOTHING

    def _decision(self, node: ast.Compare, scope: Scope) -> tuple[str, bool] | None:
        """``if decision != "APPROVED": return``: a value compared with a word that decides whether an action
        may happen (a reviewer's verdict, a policy's answer, an approval record's state) is a check of it,
        whoever decided; passed when it is the allowing word (``"APPROVED"``) or not the refusing one
        (``"BLOCKED"``). The id of its gate, and whether the word allows."""
        found = self.rules.decision_words
        if found is None:
            return None
        rule, allowing, refusing = found
        for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if isinstance(side, ast.Constant) and isinstance(side.value, str) and not is_literal(other):
                word = side.value.upper()
                if word in allowing or word in refusing:
                    return self._gate(scope, rule, node, f"compared with {side.value!r}"), word in allowing
        return None

    def _common_path(self, node: ast.Compare, scope: Scope) -> str | None:
        """``os.path.commonpath([root, full]) == root``: the longest path a root and a path share is the root
        only when the path lies under it, a path containment check (passed when equal)."""
        found = self.rules.common_paths
        if found is None or not isinstance(node.ops[0], ast.Eq | ast.NotEq):
            return None
        rule, calls = found
        for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if isinstance(side, ast.Call) and not is_literal(other) and self._callee(side, scope)[0] in calls:
                return self._gate(scope, rule, node, "commonpath(...) is the root")
        return None

    def _decided_at(self, gate_id: str, compare: ast.Compare | ast.Call, scope: Scope) -> str:
        """A human's answer read on one line and compared on a later one (``response = await
        ctx.wait_for_event(...)`` ... ``if response.response == "yes":``) is decided where it is compared:
        the gate is recorded there, of the same rule and kind."""
        site = next((g for g in scope.gates if g.id == gate_id), None)
        if site is None or site.location.line == compare.lineno:
            return gate_id
        return self._resited(site, compare, scope, site.detail or "")

    def _resited(self, site: GateSite, node: ast.expr, scope: Scope, detail: str) -> str:
        """The id of a gate of ``site``'s kind and rule recorded at ``node``, where the check is decided
        (a human's answer compared, a helper's check called), recorded in ``scope`` the first time."""
        location = self.loc(node)
        gate_id = short_id("gate", self.path, location.line, location.column, site.kind, detail)
        if gate_id not in scope.gate_ids:
            scope.gate_ids.add(gate_id)
            scope.gates.append(site.model_copy(update={"id": gate_id, "location": location, "detail": detail}))
        return gate_id


# Statements that end the path a branch is on: a ``continue`` or ``break`` skips the rest of the loop's body
# (``if not is_safe_query(sql): continue``), refusing what follows in it as a ``return`` does.
_STOPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


# What a verified access token grants, read by a check of it (``token.scopes``, ``token.claims.get("roles")``).
_TOKEN_GRANTS = frozenset({"scopes", "scope", "roles", "role", "claims", "groups", "permissions"})


def _reads_token(call: ast.Call) -> bool:
    """``get_access_token()``: the request's verified access token."""
    return (name_text(call.func) or "").rsplit(".", 1)[-1] == "get_access_token"


def _token_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names a function binds to the request's access token (``token = get_access_token()``)."""
    names: set[str] = set()
    for node in walk(fn):
        if type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            value = node.value.value if type(node.value) is ast.Await else node.value
            if type(value) is ast.Call and _reads_token(value):
                names.add(node.targets[0].id)
    return frozenset(names)


def _quantified_over(test: ast.expr) -> tuple[str, ast.GeneratorExp | ast.ListComp] | None:
    """``any`` or ``all`` and the comprehension it is given (``any(... for x in C)``, ``all([... for x in C])``),
    or None for any other test."""
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id in ("any", "all")
        and len(test.args) == 1
        and isinstance(test.args[0], ast.GeneratorExp | ast.ListComp)
    ):
        return test.func.id, test.args[0]
    return None


def _literal_collection_names(body: list[ast.stmt]) -> dict[str, bool]:
    """Module names bound to a literal list, tuple, set or dict of constants (or ``frozenset({...})``),
    each with whether it is a dict."""
    out: dict[str, bool] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target: ast.expr = stmt.targets[0]
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target = stmt.target
        else:
            continue
        value = stmt.value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and len(value.args) == 1
            and value.func.id in ("frozenset", "set", "tuple", "list", "dict")
        ):
            value = value.args[0]
        if isinstance(target, ast.Name) and _literal_collection(value):
            out[target.id] = isinstance(value, ast.Dict)
    return out


def _literal_collection(value: ast.expr | None) -> bool:
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        return bool(value.elts) and all(isinstance(e, ast.Constant) for e in value.elts)
    if isinstance(value, ast.Dict):
        return bool(value.keys) and all(isinstance(k, ast.Constant) for k in value.keys)
    return False


def _in_words(refused: frozenset[object] | None) -> bool:
    """Whether a helper refuses with a message (the literal words each of its refusals opens with)."""
    return bool(refused) and any(type(c) is str for c in refused)  # type: ignore[union-attr]


def _parent_list(node: ast.expr, attrs: frozenset[str]) -> bool:
    """``path.parents``: the directories a path lies under."""
    return type(node) is ast.Attribute and node.attr in attrs


def _root_equality(values: list[ast.expr], parts: list[Condition], attrs: frozenset[str]) -> None:
    """``root not in path.parents and path != root``: beside a test of a root among a path's parents, the
    path compared with that root is the same containment check (a path is in its root as well as under it);
    its part of ``parts`` takes the parents test's gates."""
    tested: dict[frozenset[str], frozenset[str]] = {}
    for value, part in zip(values, parts, strict=True):
        if type(value) is ast.Compare and len(value.ops) == 1 and type(value.ops[0]) in _MEMBERSHIP:
            listed = value.comparators[0]
            if _parent_list(listed, attrs):
                pair = frozenset({ast.unparse(value.left), ast.unparse(listed.value)})  # type: ignore[attr-defined]
                tested[pair] = part.when_true | part.when_false
    if not tested:
        return
    for index, value in enumerate(values):
        if type(value) is ast.Compare and len(value.ops) == 1 and type(value.ops[0]) in (ast.Eq, ast.NotEq):
            ids = tested.get(frozenset({ast.unparse(value.left), ast.unparse(value.comparators[0])}))
            if ids:
                parts[index] = Condition(when_true=ids) if type(value.ops[0]) is ast.Eq else Condition(when_false=ids)


def refuses(stmt: ast.stmt) -> bool:
    """A statement that refuses: a raise, or a return of a message or an error record written in place."""
    if isinstance(stmt, ast.Raise):
        return True
    if not isinstance(stmt, ast.Return):
        return False
    value = stmt.value
    return isinstance(value, ast.JoinedStr | ast.Dict) or (isinstance(value, ast.Constant) and type(value.value) is str)


def _ends(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Return | ast.Raise)


def _is_length(node: ast.expr) -> bool:
    """``len(x)``: a size."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def _status(exc: ast.expr) -> int | None:
    """The HTTP status an exception is raised with: ``HTTPException(status_code=401)``, ``HTTPException(403,
    ...)``, ``abort(401)`` style first argument; None when it names none."""
    if not isinstance(exc, ast.Call):
        return None
    values = [kw.value for kw in exc.keywords if kw.arg in ("status_code", "status", "code")]
    values += exc.args[:1]
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, int) and not isinstance(value.value, bool):
            return value.value
    return None


def _strings_of(value: ast.expr | None) -> tuple[str, ...]:
    """The strings of a literal list, tuple or set of strings, or the keys of a literal dict, sorted (also under
    ``frozenset(...)`` and the like); empty for anything else."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("frozenset", "set", "tuple", "list", "dict")
        and len(value.args) == 1
    ):
        value = value.args[0]
    if isinstance(value, ast.Dict):
        elements: list[ast.expr | None] = list(value.keys)
    elif isinstance(value, ast.List | ast.Tuple | ast.Set):
        elements = list(value.elts)
    else:
        return ()
    texts = [literal_str(e) if e is not None else None for e in elements]
    if not texts or any(t is None for t in texts):
        return ()
    return tuple(sorted({t for t in texts if t is not None}))


def _climbing_step(node: ast.expr, markers: frozenset[str]) -> str | None:
    """``".."`` (or ``"../"``): a literal step out of a directory, tested for in a path."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in markers:
        return node.value
    return None


def _ends_path(block: list[ast.stmt]) -> bool:
    """Whether a branch ends the path (its last statement returns or raises)."""
    return bool(block) and isinstance(block[-1], ast.Return | ast.Raise)
