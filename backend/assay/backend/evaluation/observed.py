"""The observed question: the exact actions seen in the runtime evidence of the membership, joined to the
static tools by name and to the code-capable actions those tools reach.

Missing evidence is EVIDENCE_NEEDED, never "did not happen": a tool nobody saw called may still be
called; only what the records show is reported, with counts and evidence references.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.backend.evaluation.runtime import ToolStats
from assay.backend.evaluation.view import HIGH_IMPACT, EvidenceView
from assay.backend.scans.bundle import Action

# Evidence references kept per observed gate kind, verdict and target.
REFS_PER_GATE = 10


@dataclass(frozen=True, slots=True)
class ObservedTool:
    """Every call of one tool name in the runtime evidence."""

    name: str
    stats: ToolStats
    tool_ids: tuple[str, ...]  # static tools of that name
    action_ids: tuple[str, ...]  # code-capable actions those tools reach

    @property
    def evidenced_classes(self) -> set[str]:
        return self.stats.classes


def observed_tools(view: EvidenceView) -> list[ObservedTool]:
    """The tools seen called, sorted by name (computed once per view)."""
    cached = view.observed_cache
    if cached is not None:
        return cached
    by_name = view.runtime.tools
    tool_ids: dict[str, list[str]] = {}
    for tool in view.tools.values():
        tool_ids.setdefault(tool.name, []).append(tool.id)
    reached: dict[str, list[str]] = {}
    for action in view.actions.values():
        for path in action.reachedFrom:
            reached.setdefault(path.toolId, []).append(action.id)
    out = []
    for name in sorted(by_name):
        ids = sorted(tool_ids.get(name, []))
        actions = sorted({a for t in ids for a in reached.get(t, [])})
        out.append(ObservedTool(name, by_name[name], tuple(ids), tuple(actions)))
    view.observed_cache = out
    return out


def observed_plane(view: EvidenceView, action: Action) -> str:
    """OBSERVED for one action: ESTABLISHED when a call of a tool that reaches it was seen and a span under
    that call evidences the action's class; PARTIAL when such a tool was seen called; EVIDENCE_NEEDED
    otherwise (never MISSING: not seen is not "did not happen")."""
    status = "EVIDENCE_NEEDED"
    for observed in observed_tools(view):
        if action.id not in observed.action_ids:
            continue
        if action.actionClass in observed.evidenced_classes:
            return "ESTABLISHED"
        status = "PARTIAL"
    return status


def outside_declared_reach(view: EvidenceView, observed: ObservedTool) -> list[str]:
    """High-impact classes this tool was seen performing that the declaration does not cover for it."""
    decl = view.declaration
    if decl is None:
        return []
    undeclared_tool = bool(decl.tools) and observed.name not in decl.tools
    out = []
    for action_class in sorted(observed.evidenced_classes & HIGH_IMPACT):
        covered = any(d.actionClass == action_class and (not d.tools or observed.name in d.tools) for d in decl.actions)
        if undeclared_tool or not covered:
            out.append(action_class)
    return out


def observed_question(view: EvidenceView) -> dict[str, Any]:
    runtime = view.runtime
    summary = {
        "records": runtime.records,
        "spans": runtime.spans,
        "toolCalls": runtime.calls,
        "agentRuns": runtime.agent_runs,
        "gates": len(runtime.gates),
    }
    if not runtime.present:
        note = (
            "No runtime evidence is in this Evaluation's membership: observed actions are EVIDENCE_NEEDED, "
            "never reported as not having occurred."
        )
        if view.probes:
            # A runtime probe listed what the servers expose, and with the active suite called each tool with
            # canaries (docs/runtime.md): its observations are in the Evaluation's runtime member.
            from assay.backend.evaluation.probes import probe_results

            calls = sum(len(r.catalogue.calls) for r in probe_results(view))
            note = (
                f"Runtime probe of {len(view.probes)} target(s): their catalogues were listed (tools exposed)"
                + (
                    f" and {calls} canary call(s) made (active suite; see runtime.recordings[].active)"
                    if calls
                    else ", no tool was called"
                )
                + "; observed actions of the system are EVIDENCE_NEEDED, never reported as not having occurred."
            )
        return {"status": "EVIDENCE_NEEDED", "actions": [], "gates": [], "summary": summary, "note": note}
    actions = []
    for observed in observed_tools(view):
        classes = sorted({view.actions[a].actionClass for a in observed.action_ids})
        actions.append(
            {
                "tool": observed.name,
                "count": observed.stats.count,
                "errors": observed.stats.errors,
                "toolIds": list(observed.tool_ids),
                "staticMatch": bool(observed.tool_ids),
                "reachableActionClasses": classes,
                "evidencedActionClasses": sorted(observed.evidenced_classes),
                "actionIds": list(observed.action_ids),
                "outsideDeclaredReach": outside_declared_reach(view, observed),
                "vocabularies": sorted(observed.stats.vocabularies),
                "evidenceRefs": list(observed.stats.refs),
            }
        )
    gates: dict[tuple[str, str, str | None], list[str]] = {}
    for gate in runtime.gates:
        gates.setdefault((gate.kind, gate.verdict, gate.target), []).append(gate.evidence_ref)
    return {
        "status": "ESTABLISHED" if actions else "EVIDENCE_NEEDED",
        "actions": actions,
        "gates": [
            {"kind": k, "verdict": v, "target": t, "count": len(refs), "evidenceRefs": refs[:REFS_PER_GATE]}
            for (k, v, t), refs in sorted(gates.items(), key=lambda e: (e[0][0], e[0][1], e[0][2] or ""))
        ],
        "summary": summary,
        "note": "Only what the attached runtime evidence shows is reported; a tool not seen here may still run."
        if actions
        else "Runtime evidence is attached but holds no recognised tool call (docs/intake.md lists the span "
        "vocabularies): observed actions stay EVIDENCE_NEEDED.",
    }
