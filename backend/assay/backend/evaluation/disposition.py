"""The disposition rules: explicit, versioned, each with an id (docs/methodology.md gives each rule
with the example that triggers it). BLOCK beats REVIEW beats ALLOW; ALLOW needs no rule to fire."""

from __future__ import annotations

from typing import Any

from assay.backend.evaluation import probes
from assay.backend.evaluation.caps import bounded_names
from assay.backend.evaluation.imported import imported_errors
from assay.backend.evaluation.observed import observed_tools, outside_declared_reach
from assay.backend.evaluation.questions import UNRESOLVED_KINDS, coverage_complete, planes, unattributed
from assay.backend.evaluation.view import EXECUTION, HIGH_IMPACT, EvidenceView

_RANK = {"BLOCK": 0, "REVIEW": 1, "ALLOW": 2}


def _reason(rule: str, disposition: str, message: str, refs: list[str]) -> dict[str, Any]:
    return {"ruleId": rule, "disposition": disposition, "message": message, "evidenceRefs": sorted(set(refs))}


def reasons(view: EvidenceView, more: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The reasons the evidence gives, with ``more`` (the jurisdiction's), deduplicated and ordered."""
    out: list[dict[str, Any]] = []
    for flow in view.flows.values():
        if flow.actionClass in EXECUTION:
            out.append(
                _reason(
                    "BLOCK-001",
                    "BLOCK",
                    f"Model-chosen data ({flow.sourceKind}) reaches {flow.actionClass} at "
                    f"{flow.sink.path}:{flow.sink.line}.",
                    [view.ref(flow.id)],
                )
            )
    for action in view.actions.values():
        where = f"{action.location.path}:{action.location.line}"
        tools = bounded_names(view.tool_names(action), "{}") or "-"
        covering = view.covering_declarations(action)
        if action.actionClass in HIGH_IMPACT and action.reachedFrom and not action.gateIds and not covering:
            out.append(
                _reason(
                    "BLOCK-002",
                    "BLOCK",
                    f"High-impact {action.actionClass} via {action.target} at {where} (tools: {tools}) is code-capable, "
                    "undeclared and ungated.",
                    [view.ref(action.id)],
                )
            )
        if view.declaration is not None and not covering:
            out.append(
                _reason(
                    "REVIEW-002",
                    "REVIEW",
                    f"{action.actionClass} via {action.target} at {where} (tools: {tools}) is not declared.",
                    [view.ref(action.id)],
                )
            )
        if action.actionClass in HIGH_IMPACT and planes(view, action)["POLICY_AUTHORIZED"] != "ESTABLISHED":
            out.append(
                _reason(
                    "REVIEW-003",
                    "REVIEW",
                    f"High-impact {action.actionClass} at {where} lacks established authority "
                    f"(POLICY_AUTHORIZED is {planes(view, action)['POLICY_AUTHORIZED']}).",
                    [view.ref(action.id)],
                )
            )
    for observed in observed_tools(view):
        refs = list(observed.stats.refs)
        for action_class in outside_declared_reach(view, observed):
            out.append(
                _reason(
                    "BLOCK-003",
                    "BLOCK",
                    f"Tool {observed.name} was observed performing high-impact {action_class} outside the declared "
                    f"reach ({observed.stats.count} call(s) in the runtime evidence).",
                    refs,
                )
            )
        if not observed.tool_ids:
            out.append(
                _reason(
                    "REVIEW-009",
                    "REVIEW",
                    f"Tool {observed.name} was observed called ({observed.stats.count} call(s)) but is not in the "
                    "code-capable reach: the analysed code does not define it.",
                    refs,
                )
            )
    for (scanner, rule), group in imported_errors(view).items():
        first = group[0]
        out.append(
            _reason(
                "REVIEW-010",
                "REVIEW",
                f"{len(group)} error-level {scanner} result(s) of rule {rule} on code a tool reaches "
                f"(first at {first.path}:{first.line}).",
                [f.evidence_ref for f in group[:10]],
            )
        )
    for action in unattributed(view):
        out.append(
            _reason(
                "REVIEW-008",
                "REVIEW",
                f"Unresolved reach: {action.impact}-impact {action.actionClass} via {action.target} at "
                f"{action.location.path}:{action.location.line} is code-capable, but no recognised tool reaches it "
                "and nothing shows it is outside every tool's reach.",
                [view.ref(action.id)],
            )
        )
    if view.declaration is not None and view.declaration.tools:
        for tool in view.tools.values():
            if tool.name not in view.declaration.tools:
                out.append(_reason("REVIEW-002", "REVIEW", f"Tool {tool.name} is not declared.", [view.ref(tool.id)]))
    for item in view.frontier.values():
        if item.kind in UNRESOLVED_KINDS:
            out.append(
                _reason("REVIEW-001", "REVIEW", f"Unresolved reach ({item.kind}): {item.detail}.", [view.ref(item.id)])
            )
    out.extend(probes.reasons(view))
    # Without any static evidence (a runtime-only run) the source rules have nothing to read: REVIEW-103
    # says so instead of a coverage or "no AI code" reason about code that was never in scope.
    static_in_scope = bool(view.evidence_ids) or not view.probes
    if static_in_scope and not view.coverages:
        # A wizard-only run: no source in the run at all.
        out.append(
            _reason(
                "REVIEW-005",
                "REVIEW",
                "No source was analysed: the run has no static evidence, so what the code can do is EVIDENCE_NEEDED.",
                [],
            )
        )
    elif static_in_scope and not coverage_complete(view):
        out.append(
            _reason(
                "REVIEW-005",
                "REVIEW",
                "Source coverage is partial: not every source file was analysed.",
                [f"{e}#coverage" for e in view.evidence_ids],
            )
        )
    if view.declaration is None:
        out.append(
            _reason(
                "REVIEW-006",
                "REVIEW",
                "No declaration file: the declared reach is unknown.",
                [f"{e}#declaration" for e in view.evidence_ids],
            )
        )
    if view.declaration_conflict:
        out.append(
            _reason(
                "REVIEW-006",
                "REVIEW",
                "The membership holds different declarations; the first is used.",
                [f"{e}#declaration" for e in view.evidence_ids],
            )
        )
    if static_in_scope and view.coverages and not view.models and not view.tools:
        out.append(
            _reason(
                "REVIEW-007",
                "REVIEW",
                "No AI code recognised (no model calls and no tools): zero findings is not evidence of safety.",
                [f"{e}#coverage" for e in view.evidence_ids],
            )
        )
    out.extend(more or [])
    unique = {(r["ruleId"], r["message"]): r for r in out}
    return ordered(list(unique.values()))


def ordered(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Reasons in the Evaluation's order: BLOCK first, then by rule and message."""
    return sorted(found, key=lambda r: (_RANK[r["disposition"]], r["ruleId"], r["message"]))


def decide(found: list[dict[str, Any]]) -> str:
    """BLOCK beats REVIEW beats ALLOW. An accepted reason (it carries ``acceptance``) drives nothing itself;
    REVIEW-013, present whenever one is accepted, keeps the disposition at least REVIEW."""
    driving = [r for r in found if "acceptance" not in r]
    if any(r["disposition"] == "BLOCK" for r in driving):
        return "BLOCK"
    if any(r["disposition"] == "REVIEW" for r in driving):
        return "REVIEW"
    return "ALLOW"
