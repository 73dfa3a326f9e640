"""Gates that hold after a call: ``after:``, ``never:`` and ``result:`` gate ids made concrete.

An analyzer records, at a call site or action, gate ids that depend on another function: the gates that
hold whenever a callee returns (``after:``), a gate that holds if a callee never returns (``never:``), a
check on a callee's success result (``result:``). Once calls are resolved, these become the gate ids
they stand for (``facts.py`` defines the prefixes).
"""

from __future__ import annotations

from collections.abc import Iterable

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import AFTER, EXIT, NEVER, OK_EXIT, RESULT, GateSite
from assay.backend.engines.static.link.graph import MAX_DEPTH, Fn
from assay.backend.scans.bundle import Location


def gates_after_calls(functions: dict[str, Fn]) -> None:
    """Replaces each ``after:<callee>`` gate id by the gates that hold whenever that callee returns
    (its ``<exit>`` call's gates, themselves expanded), so a validator that throws unless its check
    passes gates what its caller does after calling it."""
    exits: dict[str, frozenset[str]] = {}
    ok_exits: dict[str, frozenset[str]] = {}
    for fid, fn in functions.items():
        for call in fn.calls:
            if call.callee == EXIT:
                exits[fid] = frozenset(call.dominatingGates)
            elif call.callee == OK_EXIT:
                ok_exits[fid] = frozenset(call.dominatingGates)
    sites = {g.id: g for fn in functions.values() for g in fn.gates} if ok_exits else {}
    # A tool's branch walked as a function of its own (``<handler>.case:update``) keeps the ``after:``
    # gates of the calls its handler made before the dispatch (``checkReadOnlyMode(op)``): those callees
    # are named as the tree names them, resolved here by whichever function calls them (one target).
    shared: dict[str, str | None] = {}
    for fn in functions.values():
        for name, target in fn.targets.items():
            if target is not None and "#" in name:
                shared[name] = target if shared.get(name, target) == target else None

    def target_of(fn: Fn, callee: str) -> str | None:
        found = fn.targets.get(callee)
        return found if found is not None else shared.get(callee)

    def result_gate(fn: Fn, gate: str, depth: int) -> str | None:
        """``result:<callee>|<line>|<column>``: a gate at that check, of the kind of the gates that hold
        where the callee returns its success result."""
        callee, line, column = gate[len(RESULT) :].rsplit("|", 2)
        target = fn.targets.get(callee)
        if target is None or target not in ok_exits or depth >= MAX_DEPTH:
            return None
        held = sorted(g for g in expand(functions[target], ok_exits[target], depth + 1) if g in sites)
        if not held:
            return None
        first = sites[held[0]]
        location = Location(path=fn.path, line=int(line), column=int(column))
        detail = f"{callee} returned its success result"
        site = GateSite(
            id=short_id("gate", fn.path, location.line, location.column, first.kind, detail),
            kind=first.kind,
            ruleId=first.ruleId,
            location=location,
            detail=detail,
        )
        if site.id not in sites:
            sites[site.id] = site
            fn.gates.append(site)
        return site.id

    def expand(fn: Fn, ids: Iterable[str], depth: int) -> set[str]:
        out: set[str] = set()
        for gate in ids:
            if gate.startswith(RESULT):
                made = result_gate(fn, gate, depth)
                if made is not None:
                    out.add(made)
                continue
            if gate.startswith(NEVER):
                callee, _, held = gate[len(NEVER) :].rpartition("|")
                target = target_of(fn, callee)
                if target is not None and functions[target].facts.returnType == "never":
                    out.add(held)
                continue
            if not gate.startswith(AFTER):
                out.add(gate)
                continue
            target = target_of(fn, gate[len(AFTER) :])
            if target is not None and target in exits and depth < MAX_DEPTH:
                out |= expand(functions[target], exits[target], depth + 1)
        return out

    def changed(ids: list[str]) -> bool:
        return any(g.startswith((AFTER, NEVER, RESULT)) for g in ids)

    for fn in functions.values():
        if any(changed(c.dominatingGates) for c in fn.calls):
            fn.calls = [
                c.model_copy(update={"dominatingGates": sorted(expand(fn, c.dominatingGates, 0))})
                if changed(c.dominatingGates)
                else c
                for c in fn.calls
            ]
        if any(changed(a.dominatingGates) for a in fn.actions):
            fn.actions = [
                a.model_copy(update={"dominatingGates": sorted(expand(fn, a.dominatingGates, 0))})
                if changed(a.dominatingGates)
                else a
                for a in fn.actions
            ]
