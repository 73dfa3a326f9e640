"""Checks of values and what they gate: a check of a value gates a call only where that value reaches it.

An allow-list, deny-list or path containment check tests a value (``if agg not in {"sum", "mean"}: return``,
``if (!resolved.startsWith(root)) throw``). It decides whether an effect happens on that value, so it gates a
call (an action, or a call into the tree that leads to one) only when the value, or one made from it, is among
what the call is given (its arguments and receiver). Both analyzers record, per function, what each such check
tested (the taint origins of the names its test reads) and what each call of the tree was given (so that the
result of ``conn = Connection(path)`` is read as made of ``path``); ``reached`` keeps, of the gates that
dominate a call, those whose tested value it is given. Where analysis cannot see what a value is made of (a
field, what a call given nothing returned), or a call is given nothing that carries taint (a constant, a value
the check cleaned), every gate is kept: the rule only removes a gate where the flow is seen not to happen. A check
that allow-lists the very names it tests (``if cmd not in ALLOWED: return``, ``ALLOWED.includes(cmd)``) stops their
taint (the value is then one the list allows), so where they go is not followed: such a check is not recorded and
gates what follows it as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from assay.backend.engines.static.facts import ActionSite, CallFact, TaintOrigin

T = TypeVar("T", ActionSite, CallFact)

# Gates that check a value: they gate what the value reaches.
VALUE_CHECKS = frozenset({"allowlist", "path_containment"})
# What a function gave a callee is recorded only once it has met a check of a value (most never do): a callee
# called before that is given this, a making not seen (``made_of`` answers None for a field).
UNSEEN: frozenset[TaintOrigin] = frozenset({TaintOrigin(kind="field", callee="<called before a check>")})


def start_checks(given: dict[str, frozenset[TaintOrigin]], callees: Iterable[str]) -> None:
    """At a function's first check of a value: what it gave the callees it called before is not recorded."""
    for callee in callees:
        given[callee] = UNSEEN


def made_of(
    origins: frozenset[TaintOrigin], given: Mapping[str, frozenset[TaintOrigin]]
) -> frozenset[TaintOrigin] | None:
    """What values carrying ``origins`` are made of in one function: a call's result (``call_return``) read as
    what the function gave that call (``given``, by callee), the other origins as they are; None when the
    making of one of them is not seen there (a field, the result of a call given nothing that carries taint)."""
    made: set[TaintOrigin] = set()
    pending = list(origins)
    while pending:
        origin = pending.pop()
        if origin in made:
            continue
        made.add(origin)
        if origin.kind == "field":
            return None
        if origin.kind == "call_return":
            found = given.get(origin.callee or "")
            if found is None:
                return None
            pending.extend(found)
    return frozenset(made)


def reached(
    active: frozenset[str],
    reach: frozenset[TaintOrigin],
    checked: Mapping[str, frozenset[TaintOrigin]],
    given: Mapping[str, frozenset[TaintOrigin]],
) -> frozenset[str]:
    """The gates of ``active`` that gate a call given values carrying ``reach``: each gate not a check of a
    value (not in ``checked``), and each check whose tested value is seen to reach the call; every gate when
    the call is given nothing that carries taint, or what it is given is not seen made."""
    if not reach or not any(g in checked for g in active):
        return active
    made = made_of(reach, given)
    if made is None:
        return active
    kept = []
    for gate in active:
        tested = checked.get(gate)
        tested_made = made_of(tested, given) if tested is not None else None
        if tested_made is None or not tested_made.isdisjoint(made):
            kept.append(gate)
    return frozenset(kept)


def _seen(origins: frozenset[TaintOrigin], given: Mapping[str, frozenset[TaintOrigin]]) -> frozenset[TaintOrigin]:
    """What values carrying ``origins`` are seen to be made of (``made_of`` without giving up on a field)."""
    made: set[TaintOrigin] = set()
    pending = list(origins)
    while pending:
        origin = pending.pop()
        if origin not in made:
            made.add(origin)
            if origin.kind == "call_return":
                pending.extend(given.get(origin.callee or "", ()))
    return frozenset(made)


def branch_dispatches(
    ids: frozenset[str],
    first: Sequence[tuple[str, frozenset[TaintOrigin]]],
    second: Sequence[tuple[str, frozenset[TaintOrigin]]],
    checked: Mapping[str, frozenset[TaintOrigin]],
    given: Mapping[str, frozenset[TaintOrigin]],
) -> frozenset[str]:
    """``if (q.startsWith("INSERT")) { client.query(q + " RETURNING id") } else { client.query(q) }``: the checks
    of ``ids`` after which both branches of an ``if`` hand the tested value to the same call (``first`` and
    ``second``: each branch's calls and actions, as (callee or target, origins given)). Such a test chooses how
    the value is used, not whether: it gates neither branch."""
    made_first = [(target, _seen(origins, given)) for target, origins in first]
    made_second = [(target, _seen(origins, given)) for target, origins in second]
    out = set()
    for gate in ids:
        tested = checked.get(gate)
        if tested is None:
            continue
        seen = _seen(tested, given)
        in_first = {target for target, made in made_first if not seen.isdisjoint(made)}
        if any(target in in_first and not seen.isdisjoint(made) for target, made in made_second):
            out.add(gate)
    return frozenset(out)


def without(sites: list[T], dropped: frozenset[str]) -> list[T]:
    """``sites`` (calls or actions) with the gates of ``dropped`` taken out of what dominates them."""
    return [
        s.model_copy(update={"dominatingGates": [g for g in s.dominatingGates if g not in dropped]})
        if dropped.intersection(s.dominatingGates)
        else s
        for s in sites
    ]
