"""The Evaluation-bound scenario snapshot: declared scenarios compared with the transitions seen in the
frozen evidence, in declared order and trace structure only (never timestamps).

A declared scenario is an ordered list of states. A state is seen when a tool of that name is called
(a tool-call span or record) or a structured ``state`` record names it. Within one trace, the states
seen in trace order (runtime.py) form a sequence, repeats collapsed; each consecutive pair is a
transition. A trace follows the scenario when it starts at the first declared state and every
transition goes to the next declared state. The first place a trace does not is a divergence; the
earliest established divergence is the one at the smallest declared position (ties: trace id).

Top-level members follow the contract (status, states, declaredOrder, transitions, earliestDivergence,
snapshotDigest, limitations) for the scenario that diverges earliest, or the first declared one;
``scenarios`` carries the same detail for every declared scenario.
"""

from __future__ import annotations

import itertools
from typing import Any

from assay.backend.canonical import digest_json
from assay.backend.evaluation.view import EvidenceView
from assay.backend.scans.bundle import DeclaredScenario

REFS_PER_TRANSITION = 5


def _sequences(view: EvidenceView, states: set[str]) -> dict[str, list[tuple[str, str]]]:
    """Per trace, the declared states seen in trace order as (state, evidence ref), repeats collapsed."""
    out: dict[str, list[tuple[str, str]]] = {}
    for trace, steps in view.runtime.state_sequences().items():
        seq: list[tuple[str, str]] = []
        for name, ref in steps:
            if name in states and (not seq or seq[-1][0] != name):
                seq.append((name, ref))
        if seq:
            out[trace] = seq
    return out


def _compare(scenario: DeclaredScenario, view: EvidenceView) -> dict[str, Any]:
    states = list(scenario.states)
    position = {s: i for i, s in enumerate(states)}
    sequences = _sequences(view, set(states))
    transitions: dict[tuple[str, str], list[str]] = {}
    divergences: list[tuple[int, str, dict[str, Any]]] = []
    for trace, seq in sorted(sequences.items()):
        first = seq[0]
        diverged = False
        if position[first[0]] != 0:
            divergences.append(
                (
                    0,
                    trace,
                    {
                        "traceId": trace,
                        "afterState": None,
                        "expectedState": states[0],
                        "observedState": first[0],
                        "declaredPosition": 0,
                        "evidenceRefs": [first[1]],
                    },
                )
            )
            diverged = True
        for (a, _), (b, ref) in itertools.pairwise(seq):
            transitions.setdefault((a, b), []).append(ref)
            expected_at = position[a] + 1
            if position[b] != expected_at and not diverged:
                divergences.append(
                    (
                        expected_at,
                        trace,
                        {
                            "traceId": trace,
                            "afterState": a,
                            "expectedState": states[expected_at] if expected_at < len(states) else None,
                            "observedState": b,
                            "declaredPosition": expected_at,
                            "evidenceRefs": [ref],
                        },
                    )
                )
                diverged = True
    earliest = min(divergences, key=lambda d: (d[0], d[1]))[2] if divergences else None
    status = "EVIDENCE_NEEDED" if not sequences else "DIVERGED" if earliest is not None else "ESTABLISHED"
    return {
        "scenarioId": scenario.id,
        "status": status,
        "states": states,
        "declaredOrder": [[a, b] for a, b in itertools.pairwise(states)],
        "transitions": [
            {
                "from": a,
                "to": b,
                "count": len(refs),
                "inDeclaredOrder": position[b] == position[a] + 1,
                "evidenceRefs": refs[:REFS_PER_TRANSITION],
            }
            for (a, b), refs in sorted(transitions.items(), key=lambda e: (position[e[0][0]], position[e[0][1]]))
        ],
        "tracesCompared": len(sequences),
        "earliestDivergence": earliest,
    }


def scenario_snapshot(view: EvidenceView) -> dict[str, Any]:
    decl = view.declaration
    scenarios = [_compare(s, view) for s in (decl.scenarios if decl else [])]
    limitations: list[str] = []
    if decl is None:
        limitations.append("No declaration: no scenario is declared, so none can be compared.")
    elif not scenarios:
        limitations.append("The declaration declares no scenario.")
    elif not view.runtime.present:
        limitations.append(
            "No runtime evidence in the membership: no transition was observed, so no divergence can be established."
        )
    else:
        limitations.extend(
            f"Scenario {s['scenarioId']}: no declared state was observed in the attached runtime evidence."
            for s in scenarios
            if s["status"] == "EVIDENCE_NEEDED"
        )
        limitations.append(
            "Order comes from trace structure (depth first from each root, siblings in the order the evidence holds "
            "them) and declared order, never from timestamps."
        )
    if not scenarios:
        status = "NOT_ASSESSED"
        primary: dict[str, Any] = {
            "states": [],
            "declaredOrder": [],
            "transitions": [],
            "earliestDivergence": None,
        }
    else:
        statuses = {s["status"] for s in scenarios}
        if "DIVERGED" in statuses:
            status = "DIVERGED"
        elif statuses == {"ESTABLISHED"}:
            status = "ESTABLISHED"
        elif "ESTABLISHED" in statuses:
            status = "PARTIAL"
        else:
            status = "EVIDENCE_NEEDED"
        diverged = [s for s in scenarios if s["earliestDivergence"] is not None]
        primary = (
            min(
                diverged,
                key=lambda s: (s["earliestDivergence"]["declaredPosition"], s["earliestDivergence"]["traceId"]),
            )
            if diverged
            else scenarios[0]
        )
    body = {
        "status": status,
        "scenarioId": primary.get("scenarioId"),
        "states": primary["states"],
        "declaredOrder": primary["declaredOrder"],
        "transitions": primary["transitions"],
        "earliestDivergence": None
        if primary["earliestDivergence"] is None
        else {"scenarioId": primary["scenarioId"], **primary["earliestDivergence"]},
        "limitations": limitations,
        "scenarios": scenarios,
    }
    return {**body, "snapshotDigest": digest_json(body)}
