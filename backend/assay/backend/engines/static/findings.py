"""Findings: rule-level observations the static engine draws from linked facts and the declaration.

Each finding names a finding rule (ids below, documented in docs/rule-pack.md), a severity, the
locations it rests on and the ids of the bundle elements it relates. Messages are built from names
and locations only, never from source text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assay.backend.canonical import short_id
from assay.backend.scans.bundle import (
    Action,
    ActionClass,
    Declaration,
    Finding,
    FrontierItem,
    Gate,
    Location,
    Severity,
    TaintFlow,
    Tool,
)

# The high-impact classes of the domain primer: execution, payment, deletion, outbound messaging,
# privilege change.
HIGH_IMPACT_CLASSES: frozenset[ActionClass] = frozenset(
    {"shell.exec", "code.exec", "payment", "file.delete", "message.send", "privilege.change"}
)
EXECUTION_CLASSES: frozenset[ActionClass] = frozenset({"shell.exec", "code.exec"})
# Raw SQL text (not ORM calls, whose values are bound parameters): where model-chosen data is injection.
RAW_SQL_RULES = frozenset({"PY-DB-001", "JS-DB-001"})
UNRESOLVED_REACH_KINDS = frozenset({"dynamic_dispatch", "config_registered_tools", "runtime_registered_tools"})

RULE_TAINT_EXEC = "F-TAINT-EXEC"
RULE_TAINT_SQL = "F-TAINT-SQL"
RULE_UNGATED = "F-UNGATED-HIGH-IMPACT"
RULE_UNDECLARED_ACTION = "F-UNDECLARED-ACTION"
RULE_DECLARED_NOT_FOUND = "F-DECLARED-NOT-FOUND"
RULE_UNDECLARED_TOOL = "F-UNDECLARED-TOOL"
RULE_APPROVAL_NOT_ENFORCED = "F-APPROVAL-NOT-ENFORCED"
RULE_UNRESOLVED_REACH = "F-UNRESOLVED-REACH"
RULE_READONLY_WRITES = "F-READONLY-WRITES"
# Classes that change the world: a tool that says it is read-only (MCP ``readOnlyHint``) must reach none.
WRITE_CLASSES: frozenset[ActionClass] = frozenset(
    {"file.write", "file.delete", "db.write", "payment", "message.send", "cloud.change", "privilege.change"}
)


def _where(loc: Location) -> str:
    return f"{loc.path}:{loc.line}"


def _finding(
    rule: str,
    category: str,
    severity: Severity,
    message: str,
    locations: Sequence[Location],
    related: Iterable[str],
) -> Finding:
    related_ids = sorted(set(related))
    return Finding.model_validate(
        {
            "id": short_id("fnd", rule, *related_ids, *(_where(loc) for loc in locations)),
            "ruleId": rule,
            "category": category,
            "severity": severity,
            "message": message,
            "locations": list(locations),
            "relatedIds": related_ids,
        }
    )


def compute_findings(
    tools: Sequence[Tool],
    actions: Sequence[Action],
    gates: Sequence[Gate],
    taint_flows: Sequence[TaintFlow],
    frontier: Sequence[FrontierItem],
    declaration: Declaration | None,
) -> list[Finding]:
    tool_names = {t.id: t.name for t in tools}
    action_rules = {a.id: a.ruleId for a in actions}
    approval_gates = {g.id for g in gates if g.kind == "human_approval"}
    findings: list[Finding] = []

    for flow in taint_flows:
        origin = "a model's output" if flow.sourceKind == "model_output" else "a model-chosen tool argument"
        if flow.actionClass in EXECUTION_CLASSES:
            findings.append(
                _finding(
                    RULE_TAINT_EXEC,
                    "model_output_to_execution",
                    "critical",
                    f"{origin} at {_where(flow.source)} reaches {flow.actionClass} at {_where(flow.sink)}",
                    [flow.source, flow.sink],
                    [flow.id, flow.actionId],
                )
            )
        elif flow.actionClass == "sql.exec" or (
            flow.actionClass == "db.write" and action_rules.get(flow.actionId) in RAW_SQL_RULES
        ):
            what = "SQL executed verbatim" if flow.actionClass == "sql.exec" else "a database write"
            findings.append(
                _finding(
                    RULE_TAINT_SQL,
                    "model_output_to_execution",
                    "high",
                    f"{origin} at {_where(flow.source)} reaches {what} at {_where(flow.sink)}",
                    [flow.source, flow.sink],
                    [flow.id, flow.actionId],
                )
            )

    read_only = {t.id: t for t in tools if t.annotations.get("readOnlyHint") is True}
    for action in actions:
        if action.actionClass in WRITE_CLASSES:
            for tool_id in sorted({p.toolId for p in action.reachedFrom} & read_only.keys()):
                tool = read_only[tool_id]
                findings.append(
                    _finding(
                        RULE_READONLY_WRITES,
                        "annotation_contradicted",
                        "high",
                        f"tool {tool.name} at {_where(tool.location)} is annotated readOnlyHint=true but reaches "
                        f"{action.actionClass} via {action.target} at {_where(action.location)}",
                        [tool.location, action.location],
                        [tool.id, action.id],
                    )
                )
        reaching = sorted({tool_names.get(p.toolId, p.toolId) for p in action.reachedFrom})
        via = f" reached from tool(s) {', '.join(reaching)}" if reaching else ""
        if action.actionClass in HIGH_IMPACT_CLASSES and action.reachedFrom and not action.gateIds:
            findings.append(
                _finding(
                    RULE_UNGATED,
                    "ungated_high_impact_action",
                    "high",
                    f"{action.actionClass} via {action.target} at {_where(action.location)}{via} "
                    "has no gate that dominates it",
                    [action.location],
                    [action.id, *(p.toolId for p in action.reachedFrom)],
                )
            )
        if declaration is None:
            continue
        covering = [
            d
            for d in declaration.actions
            if d.actionClass == action.actionClass and (not d.tools or not reaching or set(d.tools) & set(reaching))
        ]
        if not covering:
            findings.append(
                _finding(
                    RULE_UNDECLARED_ACTION,
                    "undeclared_action",
                    "high" if action.actionClass in HIGH_IMPACT_CLASSES else "medium",
                    f"{action.actionClass} via {action.target} at {_where(action.location)}{via} "
                    f"is not declared in {declaration.path}",
                    [action.location],
                    [action.id],
                )
            )
        elif any(d.requiresApproval for d in covering) and approval_gates.isdisjoint(action.gateIds):
            findings.append(
                _finding(
                    RULE_APPROVAL_NOT_ENFORCED,
                    "approval_declared_not_enforced",
                    "high",
                    f"{declaration.path} requires approval for {action.actionClass}, but no human approval gate "
                    f"dominates {action.target} at {_where(action.location)}{via}",
                    [action.location],
                    [action.id],
                )
            )

    if declaration is not None:
        present = {a.actionClass for a in actions}
        for declared in declaration.actions:
            if declared.actionClass not in present:
                findings.append(
                    _finding(
                        RULE_DECLARED_NOT_FOUND,
                        "declared_not_found",
                        "info",
                        f"{declaration.path} declares {declared.actionClass}, which analysis did not find in code",
                        [],
                        [declared.actionClass],
                    )
                )
        if declaration.tools:
            declared_tools = set(declaration.tools)
            for tool in tools:
                if tool.name not in declared_tools:
                    findings.append(
                        _finding(
                            RULE_UNDECLARED_TOOL,
                            "undeclared_tool",
                            "medium",
                            f"tool {tool.name} at {_where(tool.location)} is not listed in {declaration.path}",
                            [tool.location],
                            [tool.id],
                        )
                    )

    for item in frontier:
        if item.kind in UNRESOLVED_REACH_KINDS:
            findings.append(
                _finding(
                    RULE_UNRESOLVED_REACH,
                    "unresolved_reach",
                    "medium",
                    f"unresolved reach ({item.kind}): {item.detail}",
                    [item.location] if item.location else [],
                    [item.id],
                )
            )

    return sorted(findings, key=lambda f: (f.ruleId, f.id))
