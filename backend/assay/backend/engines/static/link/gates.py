"""Gates that hold after a call: ``after:``, ``never:``, ``result:`` and ``front:`` gate ids made concrete.

An analyzer records, at a call site or action, gate ids that depend on another function: the gates that
hold whenever a callee returns (``after:``), a gate that holds if a callee never returns (``never:``), a
check on a callee's success result (``result:``) or on a value it returned (``present:``), a check of the
answer of a callee that asks a person (``answer:``), the middleware put in front of a route (``front:``). Once calls are resolved, these become the gate ids
they stand for (``facts.py`` defines the prefixes).
"""

from __future__ import annotations

from collections.abc import Iterable

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    AFTER,
    ANSWER,
    EXIT,
    FRONT,
    NEVER,
    OK_EXIT,
    PRESENT,
    RESULT,
    VALUE_EXIT,
    GateSite,
    checked_call,
)
from assay.backend.engines.static.link.graph import MAX_DEPTH, Fn
from assay.backend.scans.bundle import Location


def front_gate(functions: dict[str, Fn], fn: Fn, name: str) -> str | None:
    """The gate of the middleware ``name`` (a function of the tree ``fn`` puts in front of a route, or the
    factory it calls for one) is or returns, if it refuses requests."""
    target = fn.targets.get(name)
    return functions[target].facts.frontGate if target is not None else None


def gates_after_calls(functions: dict[str, Fn]) -> None:
    """Replaces each ``after:<callee>`` gate id by the gates that hold whenever that callee returns
    (its ``<exit>`` call's gates, themselves expanded), so a validator that throws unless its check
    passes gates what its caller does after calling it."""
    exits: dict[str, frozenset[str]] = {}
    ok_exits: dict[str, frozenset[str]] = {}
    value_exits: dict[str, frozenset[str]] = {}
    for fid, fn in functions.items():
        for call in fn.calls:
            if call.callee == EXIT:
                exits[fid] = frozenset(call.dominatingGates)
            elif call.callee == OK_EXIT:
                ok_exits[fid] = frozenset(call.dominatingGates)
            elif call.callee == VALUE_EXIT:
                value_exits[fid] = frozenset(call.dominatingGates)
    sites = {g.id: g for fn in functions.values() for g in fn.gates}
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
        """``result:<callee>|<line>|<column>`` (``present:...``): a gate at that check, of the kind of
        the gates that hold where the callee returns its success result (a value)."""
        prefix, table, said = (
            (RESULT, ok_exits, "its success result") if gate.startswith(RESULT) else (PRESENT, value_exits, "a value")
        )
        if prefix == RESULT:
            callee, line_text, column_text = gate[len(prefix) :].rsplit("|", 2)
            line, column, besides = int(line_text), int(column_text), None
        else:
            callee, line, column, besides = checked_call(gate[len(prefix) :])
        target = fn.targets.get(callee)
        if target is None or depth >= MAX_DEPTH:
            return None
        # A function whose every exit returns a value records them once, as its ``EXIT`` gates.
        found = table.get(target, exits.get(target) if prefix == PRESENT else None)
        if found is None:
            return None
        held = sorted(g for g in expand(functions[target], found, depth + 1) if g in sites and sites[g].kind != besides)
        if not held:
            return None
        return placed(fn, sites[held[0]], line, column, f"{callee} returned {said}")

    def answer_gate(fn: Fn, gate: str) -> str | None:
        """``answer:<callee>|<line>|<column>``: a ``human_approval`` gate at that call when the callee puts
        a question to a person (a prompt among its own gates)."""
        callee, line, column, besides = checked_call(gate[len(ANSWER) :])
        target = fn.targets.get(callee)
        asked = next((g for g in functions[target].gates if g.kind == "human_approval"), None) if target else None
        if asked is None or besides == asked.kind:
            return None
        return placed(fn, asked, line, column, f"{callee} asks a person")

    def placed(fn: Fn, like: GateSite, line: int, column: int, detail: str) -> str:
        location = Location(path=fn.path, line=line, column=column)
        site = GateSite(
            id=short_id("gate", fn.path, location.line, location.column, like.kind, detail),
            kind=like.kind,
            ruleId=like.ruleId,
            location=location,
            detail=detail,
        )
        if site.id not in sites:
            sites[site.id] = site
            fn.gates.append(site)
        return site.id

    def expand(fn: Fn, ids: Iterable[str], depth: int) -> set[str]:
        out: set[str] = set()
        ids = list(ids)
        # A path already checked against its root here (``if (!abs.startsWith(root + sep)) throw``): a helper
        # called after it that checks it again (``relative.startsWith("..")`` in ``assertNoReparsePoints``) is
        # the same containment, one gate, not a second.
        contained = any(g in sites and sites[g].kind == "path_containment" for g in ids)
        # ``if (!isDirectoryAllowed(dir)) throw``: a function named as a check (a gate of its name's kind at
        # the call) whose body is seen to check something of another kind is a check of that kind; its name
        # was a guess, and one check is not reported twice at one place.
        named: set[tuple[int, int, str]] = set()
        for gate in ids:
            if gate.startswith((RESULT, PRESENT)):
                made = result_gate(fn, gate, depth)
                if made is not None:
                    out.add(made)
                    if gate.startswith(PRESENT):
                        _, line, column, besides = checked_call(gate[len(PRESENT) :])
                        if besides is not None:
                            named.add((line, column, besides))
                continue
            if gate.startswith(ANSWER):
                made = answer_gate(fn, gate)
                if made is not None:
                    out.add(made)
                continue
            if gate.startswith(FRONT):
                front = front_gate(functions, fn, gate[len(FRONT) :])
                if front is not None:
                    out.add(front)
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
                after = expand(functions[target], exits[target], depth + 1)
                if contained:
                    after = {g for g in after if g not in sites or sites[g].kind != "path_containment"}
                out |= after
        if named:
            out = {
                g
                for g in out
                if g not in sites
                or sites[g].location.path != fn.path
                or (sites[g].location.line, sites[g].location.column, sites[g].kind) not in named
            }
        return out

    def changed(ids: list[str]) -> bool:
        return any(g.startswith((AFTER, NEVER, RESULT, PRESENT, ANSWER, FRONT)) for g in ids)

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


def tool_name_dispatches(functions: dict[str, Fn], tool_names: frozenset[str]) -> None:
    """``if (!validOperations.includes(operation)) throw`` with ``validOperations`` the names of the tree's
    tools, ``if name in TOOLS:`` over a table keyed by them: a check whether a name is one of the tools' names
    decides which tool runs, not whether an effect happens on a value, so it gates nothing (its site stays a
    gate of the bundle, tied to no action). Only allow-list checks whose literal list (``GateSite.values``) is
    made of tool names count."""
    dispatch = {
        g.id
        for fn in functions.values()
        for g in fn.gates
        if g.values and g.kind == "allowlist" and tool_names.issuperset(g.values)
    }
    if not dispatch:
        return
    for fn in functions.values():
        if any(dispatch.intersection(c.dominatingGates) for c in fn.calls):
            # The calls are also held by the function's edges and by callee: each is replaced there too.
            kept = {
                id(c): c.model_copy(update={"dominatingGates": [g for g in c.dominatingGates if g not in dispatch]})
                for c in fn.calls
                if dispatch.intersection(c.dominatingGates)
            }
            fn.calls = [kept.get(id(c), c) for c in fn.calls]
            fn.edges = [(target, kept.get(id(c), c)) for target, c in fn.edges]
            fn.by_callee = {name: [kept.get(id(c), c) for c in calls] for name, calls in fn.by_callee.items()}
        if any(dispatch.intersection(a.dominatingGates) for a in fn.actions):
            fn.actions = [
                a.model_copy(update={"dominatingGates": [g for g in a.dominatingGates if g not in dispatch]})
                if dispatch.intersection(a.dominatingGates)
                else a
                for a in fn.actions
            ]
