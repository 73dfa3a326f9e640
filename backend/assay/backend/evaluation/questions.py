"""Three of the Four Assurance Questions: reach, authority and observed (proofBoundary is boundary.py).

Statuses are words with fixed meanings (docs/methodology.md): ESTABLISHED, PARTIAL, MISSING for what the
evidence shows; EVIDENCE_NEEDED, NOT_ASSESSED, UNKNOWN for what it cannot show, passed through verbatim.
"""

from __future__ import annotations

from typing import Any

from assay.backend.evaluation.observed import observed_plane, observed_question
from assay.backend.evaluation.view import HIGH_IMPACT, EvidenceView
from assay.backend.scans.bundle import Action

# Frontier kinds that leave reach unknown: what runs there is decided at run time, or is a call the
# analysis could not follow inside code a tool reaches (methodology 1.1.0: unresolved_call counts too).
UNRESOLVED_KINDS = frozenset(
    {"dynamic_dispatch", "config_registered_tools", "runtime_registered_tools", "unresolved_call"}
)
# The taxonomy's critical and high impact levels: an action of these levels that no recognised tool
# reaches is unresolved reach in a system that calls models or gives them tools (REVIEW-008).
UNATTRIBUTED_IMPACTS = frozenset({"critical", "high"})
PLANES = ("REQUESTED", "POLICY_AUTHORIZED", "EFFECTIVELY_GRANTED", "CODE_CAPABLE", "OBSERVED")


def unattributed(view: EvidenceView) -> list[Action]:
    """Critical or high impact actions no recognised tool reaches, in a system with model calls or tools.

    Nothing in a static bundle proves such an action outside every tool's reach (a tool the engine did
    not recognise may call it), so it is unresolved reach, never absence."""
    if not view.models and not view.tools:
        return []
    return [a for a in view.actions.values() if a.impact in UNATTRIBUTED_IMPACTS and not a.reachedFrom]


def coverage_complete(view: EvidenceView) -> bool:
    return bool(view.coverages) and all(c.complete for c in view.coverages)


def reach(view: EvidenceView) -> dict[str, Any]:
    decl = view.declaration
    declared: dict[str, Any] = {
        "status": "ESTABLISHED" if decl is not None else "EVIDENCE_NEEDED",
        "source": decl.path if decl else None,
        "declarationDigest": decl.digest if decl else None,
        "purpose": decl.purpose if decl else None,
        "tools": list(decl.tools) if decl else [],
        "actions": [
            {
                "actionClass": d.actionClass,
                "tools": list(d.tools),
                "requiresApproval": d.requiresApproval,
                "conditions": list(d.conditions),
            }
            for d in decl.actions
        ]
        if decl
        else [],
    }
    analysed = sum(c.analysed.count for c in view.coverages)
    code_status = "NOT_ASSESSED" if analysed == 0 else ("ESTABLISHED" if coverage_complete(view) else "PARTIAL")
    by_class: dict[str, int] = {}
    actions = []
    for action in view.actions.values():
        by_class[action.actionClass] = by_class.get(action.actionClass, 0) + 1
        actions.append(
            {
                "actionId": action.id,
                "actionClass": action.actionClass,
                "impact": action.impact,
                "target": action.target,
                "location": view.location(action),
                "tools": view.tool_names(action),
                "gates": view.gate_kinds(action),
                "evidenceRefs": [view.ref(action.id)],
            }
        )
    unresolved = [
        {
            "id": f.id,
            "kind": f.kind,
            "detail": f.detail,
            "location": f.location.model_dump(mode="json") if f.location else None,
            "path": f.path,
            "evidenceRefs": [view.ref(f.id)],
        }
        for f in view.frontier.values()
    ]
    unresolved.extend(
        {
            "id": a.id,
            "kind": "unattributed_action",
            "detail": f"{a.actionClass} via {a.target}: no recognised tool reaches it",
            "location": view.location(a),
            "path": None,
            "evidenceRefs": [view.ref(a.id)],
        }
        for a in unattributed(view)
    )
    return {
        "declared": declared,
        "codeCapable": {
            "status": code_status,
            "actions": actions,
            "byClass": dict(sorted(by_class.items())),
            "tools": [
                {
                    "toolId": t.id,
                    "name": t.name,
                    "framework": t.framework,
                    "location": t.location.model_dump(mode="json"),
                    "evidenceRefs": [view.ref(t.id)],
                }
                for t in view.tools.values()
            ],
            "models": [
                {"provider": m.provider, "api": m.api, "location": m.location.model_dump(mode="json")}
                for m in view.models.values()
            ],
        },
        "unresolved": {
            "status": "UNKNOWN"
            if any(u["kind"] in UNRESOLVED_KINDS or u["kind"] == "unattributed_action" for u in unresolved)
            else ("PARTIAL" if unresolved else "ESTABLISHED"),
            "items": unresolved,
        },
        "differences": differences(view),
    }


def differences(view: EvidenceView) -> list[dict[str, Any]]:
    """Declared vs code-capable: what the code can do that is not declared, and the reverse."""
    decl = view.declaration
    if decl is None:
        return []
    out: list[dict[str, Any]] = []
    for action in view.actions.values():
        if not view.covering_declarations(action):
            out.append(
                {
                    "id": f"diff-undeclared-{action.id}",
                    "kind": "UNDECLARED_ACTION",
                    "actionClass": action.actionClass,
                    "tools": view.tool_names(action),
                    "location": view.location(action),
                    "evidenceRefs": [view.ref(action.id)],
                }
            )
    present = {a.actionClass for a in view.actions.values()}
    for declared in decl.actions:
        if declared.actionClass not in present:
            out.append(
                {
                    "id": f"diff-notfound-{declared.actionClass}",
                    "kind": "DECLARED_NOT_FOUND",
                    "actionClass": declared.actionClass,
                    "tools": list(declared.tools),
                    "location": None,
                    "evidenceRefs": [f"{view.origin[f'declaration:{decl.digest}']}#declaration"],
                }
            )
    if decl.tools:
        for tool in view.tools.values():
            if tool.name not in decl.tools:
                out.append(
                    {
                        "id": f"diff-tool-{tool.id}",
                        "kind": "UNDECLARED_TOOL",
                        "actionClass": None,
                        "tools": [tool.name],
                        "location": tool.location.model_dump(mode="json"),
                        "evidenceRefs": [view.ref(tool.id)],
                    }
                )
    return sorted(out, key=lambda d: d["id"])


def planes(view: EvidenceView, action: Action) -> dict[str, str]:
    """The status of each authority plane for ``action`` (the same dict for every caller: never mutated)."""
    state = view.planes_by_action.get(action.id)
    if state is None:
        state = view.planes_by_action[action.id] = _planes(view, action)
    return state


def _planes(view: EvidenceView, action: Action) -> dict[str, str]:
    decl = view.declaration
    covering = view.covering_declarations(action)
    approval_required = any(d.requiresApproval for d in covering)
    approval_enforced = "human_approval" in view.gate_kinds(action)
    if decl is None:
        requested = policy = "EVIDENCE_NEEDED"
    else:
        requested = ("ESTABLISHED" if decl.purpose else "PARTIAL") if covering else "MISSING"
        if not covering:
            policy = "MISSING"
        elif approval_required and not approval_enforced:
            policy = "PARTIAL"
        else:
            policy = "ESTABLISHED"
    return {
        "REQUESTED": requested,
        "POLICY_AUTHORIZED": policy,
        # Static analysis cannot see which credentials a deployment wires in.
        "EFFECTIVELY_GRANTED": "EVIDENCE_NEEDED",
        "CODE_CAPABLE": "ESTABLISHED",
        # Only from observed tool calls (evaluation/observed.py); never MISSING: not seen is not "did not happen".
        "OBSERVED": observed_plane(view, action),
    }


def authority(view: EvidenceView) -> dict[str, Any]:
    entries = []
    counts: dict[str, dict[str, int]] = {p: {} for p in PLANES}
    for action in view.actions.values():
        state = planes(view, action)
        for plane, status in state.items():
            counts[plane][status] = counts[plane].get(status, 0) + 1
        covering = view.covering_declarations(action)
        entries.append(
            {
                "actionId": action.id,
                "actionClass": action.actionClass,
                "impact": action.impact,
                "highImpact": action.actionClass in HIGH_IMPACT,
                "target": action.target,
                "location": view.location(action),
                "tools": view.tool_names(action),
                "planes": state,
                "context": {
                    "gates": [
                        {
                            "gateId": g,
                            "kind": view.gates[g].kind,
                            "location": view.gates[g].location.model_dump(mode="json"),
                        }
                        for g in action.gateIds
                        if g in view.gates
                    ],
                    "approvalRequired": any(d.requiresApproval for d in covering),
                    "approvalEnforced": "human_approval" in view.gate_kinds(action),
                    "conditions": sorted({c for d in covering for c in d.conditions}),
                },
                "evidenceRefs": [view.ref(action.id), *(view.ref(g) for g in action.gateIds if g in view.gates)],
            }
        )
    return {
        "actions": entries,
        "summary": {plane: dict(sorted(c.items())) for plane, c in counts.items()},
    }


def observed(view: EvidenceView) -> dict[str, Any]:
    return observed_question(view)
