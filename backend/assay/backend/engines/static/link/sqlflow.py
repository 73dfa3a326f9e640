"""SQL whose text the caller fixes: the class of a shared SQL sink, per reaching call.

A helper or adapter method that runs the SQL it is given (``all(query) { this.db.all(query) }``) is one
sink reached by many callers. What it does depends on what reaches it: a caller that passes SQL fixed
in the code (``dbAll("SELECT ...")``, a function that returns a fixed query, a constant) makes it a
read or a write; a caller that passes text the model wrote or that was assembled at run time makes it
SQL executed verbatim. The analyzers record the sink's SQL parameter (``ActionSite.sqlParam``), what
each call argument is (``ArgTaint.text``: fixed SQL of a kind; ``ArgTaint.whole``: a parameter or a
call's result passed on unchanged) and what each function returns (``FunctionFacts.returnShape``).

Here, the *SQL parameters* of a function are those whose value reaches a sink's SQL unchanged, directly
or through the functions it calls. A *context* is what is known of them on entry: the kind of fixed SQL
each holds. The linker walks each tool's call graph over (function, context) pairs, so the same sink is
a read on the path that passed ``SELECT``, a write on the one that passed ``INSERT``, and keeps its own
class (``sql.exec``) wherever the text is not fixed, each path with its own gates.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from assay.backend.engines.static.facts import ArgTaint, CallFact, SqlKind
from assay.backend.engines.static.rules.pack import Rule, RulePack

if TYPE_CHECKING:
    from assay.backend.engines.static.link.graph import Fn

# What is known on entry of a function: (SQL parameter, the kind of fixed SQL it holds), sorted.
Ctx = frozenset[tuple[str, SqlKind]]
NO_CTX: Ctx = frozenset()
_MAX_DEPTH = 12


def param_for(callee: Fn, arg: ArgTaint) -> str | None:
    """The callee parameter an argument binds to (methods skip their ``self``/``cls``)."""
    params = callee.params
    if arg.keyword is not None:
        return arg.keyword if arg.keyword in params else None
    if arg.index is None:
        return None
    offset = 1 if params[:1] in (["self"], ["cls"]) else 0
    position = arg.index + offset
    return params[position] if position < len(params) else None


class SqlContexts:
    """SQL parameters, return kinds and the context each call gives its callee."""

    def __init__(self, functions: Mapping[str, Fn], every: Mapping[str, Sequence[str]], rules: RulePack) -> None:
        self.functions = functions
        self.every = every
        self.params = self._sql_params()
        self._returns: dict[tuple[str, str], SqlKind | None] = {}
        # The rules a dynamic-SQL sink becomes when its text is fixed: dynamic rule id -> kind -> rule.
        self.rules: dict[str, dict[SqlKind, Rule]] = {}
        by_id = {r.id: r for r in rules.rules}
        for rule in rules.rules:
            dynamic = rule.match.get("sql_dynamic_rule") if rule.kind == "action" else None
            read = by_id.get(rule.match.get("sql_read_rule", "")) if dynamic else None
            if dynamic and read is not None:
                self.rules[dynamic] = {"write": rule, "read": read}

    def _sql_params(self) -> dict[str, frozenset[str]]:
        """Per function, its parameters whose value reaches a sink's SQL unchanged (a worklist from the
        sinks up through the calls that pass a parameter on whole)."""
        found: dict[str, set[str]] = {}
        for fid, fn in self.functions.items():
            for site in fn.actions:
                if site.sqlParam is not None:
                    found.setdefault(fid, set()).add(site.sqlParam)
        if not found:
            return {}
        callers: dict[str, list[tuple[str, CallFact]]] = {}
        for fid, fn in self.functions.items():
            for target, call in fn.edges:
                if any(a.whole for a in call.args):
                    callers.setdefault(target, []).append((fid, call))
        queue = deque(sorted(found))
        while queue:
            target = queue.popleft()
            wanted = found[target]
            for fid, call in callers.get(target, ()):
                for arg in call.args:
                    origin = arg.origins[0] if arg.whole and len(arg.origins) == 1 else None
                    if origin is None or origin.kind != "param" or origin.param is None:
                        continue
                    if param_for(self.functions[target], arg) not in wanted:
                        continue
                    mine = found.setdefault(fid, set())
                    if origin.param not in mine:
                        mine.add(origin.param)
                        queue.append(fid)
        return {fid: frozenset(names) for fid, names in found.items()}

    def enter(self, caller: str, ctx: Ctx, target: str, call: CallFact) -> Ctx:
        """The context ``call`` (in ``caller``, entered with ``ctx``) gives ``target``."""
        wanted = self.params.get(target)
        if not wanted:
            return NO_CTX
        callee = self.functions[target]
        pairs: list[tuple[str, SqlKind]] = []
        for arg in call.args:
            name = param_for(callee, arg)
            if name is None or name not in wanted:
                continue
            kind = self._kind(caller, ctx, arg)
            if kind is not None:
                pairs.append((name, kind))
        return frozenset(pairs) if pairs else NO_CTX

    def _kind(self, fid: str, ctx: Ctx, arg: ArgTaint) -> SqlKind | None:
        if arg.text is not None:
            return arg.text
        if not arg.whole or len(arg.origins) != 1:
            return None
        origin = arg.origins[0]
        if origin.kind == "param":
            return next((kind for name, kind in ctx if name == origin.param), None)
        if origin.kind == "call_return" and origin.callee:
            return self.returns(fid, origin.callee, 0)
        return None

    def returns(self, fid: str, callee: str, depth: int) -> SqlKind | None:
        """The kind of fixed SQL every implementation of ``callee`` (called from ``fid``) returns, if
        they all return fixed SQL of one kind (``getListTablesQuery()`` -> ``"SELECT name FROM ..."``)."""
        key = (fid, callee)
        if key in self._returns:
            return self._returns[key]
        self._returns[key] = None  # (a cycle reads None)
        found: SqlKind | None = None
        target = self.functions[fid].targets.get(callee)
        if target is not None and depth < _MAX_DEPTH:
            kinds: set[SqlKind | None] = set()
            for impl in self.every.get(self.functions[target].facts.qualname, (target,)):
                shape = self.functions[impl].facts.returnShape
                if shape is not None and shape.text is not None:
                    kinds.add(shape.text)
                elif shape is not None and shape.whole and len(shape.origins) == 1 and shape.origins[0].callee:
                    kinds.add(self.returns(impl, shape.origins[0].callee, depth + 1))
                else:
                    kinds.add(None)
            if len(kinds) == 1:
                found = kinds.pop()
        self._returns[key] = found
        return found

    @staticmethod
    def kind_at(ctx: Ctx, param: str | None) -> SqlKind | None:
        """The kind of fixed SQL a sink's parameter holds in a context (None: not fixed, or no context)."""
        if param is None or not ctx:
            return None
        return next((kind for name, kind in ctx if name == param), None)
