"""proofBoundary: the unresolved frontier verbatim, and the next evidence that would move it.

Each next-evidence need is a verification item with the member names of contract 2.5. Its
``verificationNeeded`` is the only evidence request the Evaluation makes; the agent audit projects
these items verbatim and invents nothing beyond them.
"""

from __future__ import annotations

from typing import Any

from assay.backend.canonical import short_id
from assay.backend.evaluation.caps import MAX_NAMES_IN_TEXT, bounded_names
from assay.backend.evaluation.imported import imported_errors
from assay.backend.evaluation.observed import observed_tools, outside_declared_reach
from assay.backend.evaluation.questions import UNRESOLVED_KINDS, planes, unattributed
from assay.backend.evaluation.view import EXECUTION, HIGH_IMPACT, EvidenceView
from assay.backend.scans.bundle import Action, Location, TaintFlow

NEW_RUN = "then start a NEW run."
RUNTIME_EVIDENCE_HOWTO = (
    "Record the system's tool calls as OpenTelemetry GenAI spans (`execute_tool` spans with `gen_ai.tool.name`; "
    "enable the instrumentation of the framework in use, with OTEL_SEMCONV_STABILITY_OPT_IN="
    "gen_ai_latest_experimental, or OpenInference), export them over OTLP/HTTP to `POST /api/otlp/v1/traces` "
    "with the header `X-Binder-Id` of a binder created by `assay admin binder create --adapter otlp`, and "
    "attach the receipt's producerRunId to a NEW run as externalEvidenceAttachments "
    '[{"producerId": "structured-ingress", "producerRunId": ...}] (docs/intake.md).'
)
SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def _where(action: Action) -> str:
    return f"{action.location.path}:{action.location.line}"


def _toml_list(names: list[str]) -> str:
    return bounded_names(names, '"{}"')


def _tools(names: list[str]) -> str:
    return bounded_names(names)


def _from_tool(names: list[str]) -> str:
    """Where an action is reached from, for the prose: a tool, or module code with no tool in between."""
    return f"reached from tool {bounded_names(names)}" if names else "with no tool in between (module code)"


def _tool_or_module(names: list[str]) -> str:
    return f"tool {bounded_names(names)}" if names else "module code"


def _for_tools(names: list[str]) -> str:
    return f" for tool(s) {bounded_names(names)}" if names else ""


def _model_written(flow: TaintFlow) -> bool:
    """Code the model writes, run as code (a code agent such as smolagents' CodeAgent, or ``exec`` of a reply)."""
    return flow.sourceKind == "model_output" and flow.actionClass == "code.exec"


def _code_agent_advice(action: Action) -> str:
    """What to do about code a model writes and the system runs (a code agent): there is no value to check
    against an allowlist and no tool to take the capability from, so contain where it runs, or have a
    person approve each run."""
    return (
        f"Contain the code the model writes that {action.target} at {_where(action)} runs: run its executor in a "
        "sandbox with no credentials and no network (a container or a remote sandbox executor, not the local "
        "process), or require a human approval for each execution. Model-written code that runs stays BLOCK-001 "
        "whatever the executor (docs/methodology.md): the sandbox or the approval is what the reviewer who "
        f"accepts it checks; {NEW_RUN}"
    )


def _break_flow_advice(origin: str, action: Action, tools: list[str]) -> str:
    remove = f"remove the capability from tool {_tools(tools)}" if tools else f"remove the call at {_where(action)}"
    return (
        f"Break the flow from {origin} to {action.target} at {_where(action)}: validate the value against an "
        f"allowlist that stops the path before the call (for example `if value not in ALLOWED_...: raise`), or "
        f"{remove}; {NEW_RUN}"
    )


def _about(
    location: Location | None, tools: list[str], action_class: str | None = None, path: str | None = None
) -> dict[str, Any]:
    """The structured members an agent reads instead of parsing the prose: where, which tool, which class.
    ``tools`` keeps the first names as the prose does (caps.MAX_NAMES_IN_TEXT); ``toolCount`` counts them all."""
    where = {"path": location.path, "line": location.line} if location is not None else None
    return {
        "location": where if where is not None or path is None else {"path": path, "line": None},
        "tool": tools[0] if tools else None,
        "tools": tools[:MAX_NAMES_IN_TEXT],
        "toolCount": len(tools),
        "actionClass": action_class,
    }


NOWHERE: dict[str, Any] = {"location": None, "tool": None, "tools": [], "toolCount": 0, "actionClass": None}


def make_item(
    kind: str,
    severity: str,
    key: str,
    found: str,
    establishes: str,
    not_established: str,
    why: str,
    needed: str,
    questions: list[str],
    paths: list[str],
    refs: list[str],
    relations: list[str],
    boundary: str,
    about: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "id": short_id("vi", kind, key),
        "kind": kind,
        "severity": severity,
        **(about if about is not None else NOWHERE),
        "whatHaiecFound": found,
        "whatItEstablishes": establishes,
        "whatHaiecDidNotEstablish": not_established,
        "whyItMatters": why,
        "verificationNeeded": needed,
        "affectedQuestionIds": questions,
        "affectedPathIds": sorted(set(paths)),
        "evidenceRefs": sorted(set(refs)),
        "relationIds": sorted(set(relations)),
        "boundary": boundary,
    }


def verification_items(view: EvidenceView, more: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The verification items the evidence calls for, with ``more`` (the jurisdiction's), ordered."""
    items: list[dict[str, Any]] = []
    findings_by_element: dict[str, list[str]] = {}
    for finding in view.findings.values():
        for related in finding.relatedIds:
            findings_by_element.setdefault(related, []).append(finding.id)

    for flow in view.flows.values():
        if flow.actionClass not in EXECUTION or flow.actionId not in view.actions:
            continue
        action = view.actions[flow.actionId]
        tools = view.tool_names(action)
        origin = "a model-chosen tool argument" if flow.sourceKind == "tool_argument" else "a model's output"
        items.append(
            make_item(
                "model_output_to_execution",
                "critical",
                flow.id,
                found=f"{origin} (from {flow.source.path}:{flow.source.line}) reaches {action.actionClass} via "
                f"{action.target} at {_where(action)}, {_from_tool(tools)}.",
                establishes=f"The system can run {action.actionClass} with content the model chooses.",
                not_established="Whether anything outside the analysed code constrains that content, and whether it "
                "has happened at run time.",
                why="Model output reaching code or shell execution lets a prompt injection run arbitrary commands.",
                needed=_code_agent_advice(action)
                if _model_written(flow)
                else _break_flow_advice(origin, action, tools),
                questions=["reach", "authority", "proofBoundary"],
                paths=[flow.id],
                refs=[view.ref(flow.id), view.ref(action.id)],
                relations=findings_by_element.get(flow.id, []),
                boundary="CODE_CAPABLE is ESTABLISHED; OBSERVED is EVIDENCE_NEEDED.",
                about=_about(action.location, tools, action.actionClass),
            )
        )

    for action in view.actions.values():
        tools = view.tool_names(action)
        covering = view.covering_declarations(action)
        relations = findings_by_element.get(action.id, [])
        ref = [view.ref(action.id)]
        gated = bool(action.gateIds)
        high = action.actionClass in HIGH_IMPACT
        if high and action.reachedFrom and not gated and not covering:
            items.append(
                make_item(
                    "ungated_undeclared_high_impact",
                    "high",
                    action.id,
                    found=f"{action.actionClass} via {action.target} at {_where(action)}, {_from_tool(tools)}, "
                    "with no gate that dominates it and no declaration that covers it.",
                    establishes=f"A model can make the system perform {action.actionClass} with no check in the code.",
                    not_established="Who authorized this capability, and whether credentials allow it in production.",
                    why=f"{action.actionClass} is high impact: done wrongly it cannot be undone.",
                    needed=f"Add a human approval gate that dominates the call to {action.target} at {_where(action)} "
                    f"(call an approval function and return or raise when it is refused, before the call; a prompt "
                    f"that only asks the model to ask the user first is not a gate), "
                    f"and declare {action.actionClass}{_for_tools(tools)} with requires_approval = true "
                    f"in assay.toml, or remove the capability; {NEW_RUN}",
                    questions=["reach", "authority"],
                    paths=[action.id],
                    refs=ref,
                    relations=relations,
                    boundary=f"POLICY_AUTHORIZED is {planes(view, action)['POLICY_AUTHORIZED']}; "
                    "CODE_CAPABLE is ESTABLISHED.",
                    about=_about(action.location, tools, action.actionClass),
                )
            )
        elif view.declaration is not None and not covering:
            items.append(
                make_item(
                    "undeclared_action",
                    "high" if high else "medium",
                    action.id,
                    found=f"{action.actionClass} via {action.target} at {_where(action)}, {_from_tool(tools)}, "
                    f"is not declared in {view.declaration.path}.",
                    establishes=f"The code can perform {action.actionClass}.",
                    not_established="Whether the system's owners intend it to.",
                    why="Undeclared capabilities are outside the reach anyone reviewed.",
                    needed=f"If the system is meant to do this, add an [[actions]] entry with class = "
                    f'"{action.actionClass}" and tools = [{_toml_list(tools)}] '
                    f"to {view.declaration.path}; otherwise remove the call at {_where(action)}; {NEW_RUN}",
                    questions=["reach", "authority"],
                    paths=[action.id],
                    refs=ref,
                    relations=relations,
                    boundary="REQUESTED and POLICY_AUTHORIZED are MISSING; CODE_CAPABLE is ESTABLISHED.",
                    about=_about(action.location, tools, action.actionClass),
                )
            )
        elif covering and any(d.requiresApproval for d in covering) and "human_approval" not in view.gate_kinds(action):
            items.append(
                make_item(
                    "approval_not_enforced",
                    "high",
                    action.id,
                    found=f"{view.declaration.path if view.declaration else 'The declaration'} requires approval for "
                    f"{action.actionClass}, but no human approval gate dominates {action.target} at "
                    f"{_where(action)} ({_tool_or_module(tools)}).",
                    establishes="The declared approval requirement is not enforced in the code on every path.",
                    not_established="Whether approval happens outside the analysed code.",
                    why="A declared control that the code does not enforce gives false assurance.",
                    needed=f"Add a human approval gate that dominates the call to {action.target} at {_where(action)} "
                    f"on every path {f'from tool {_tools(tools)}' if tools else 'to it'} (a prompt that only asks "
                    f"the model to ask the user first is not a gate); {NEW_RUN}",
                    questions=["authority"],
                    paths=[action.id],
                    refs=ref,
                    relations=relations,
                    boundary="POLICY_AUTHORIZED is PARTIAL.",
                    about=_about(action.location, tools, action.actionClass),
                )
            )
        elif high and view.declaration is None and action.reachedFrom:
            items.append(
                make_item(
                    "authority_unestablished",
                    "medium",
                    action.id,
                    found=f"{action.actionClass} via {action.target} at {_where(action)} ({_tool_or_module(tools)}) has no "
                    "declaration to establish who authorized it.",
                    establishes=f"The code can perform {action.actionClass}.",
                    not_established="Whether it is requested or authorized.",
                    why="High-impact actions need established authority.",
                    needed=f"Declare {action.actionClass}{_for_tools(tools)} in assay.toml (docs/declaration.md); "
                    f"{NEW_RUN}",
                    questions=["authority"],
                    paths=[action.id],
                    refs=ref,
                    relations=relations,
                    boundary="REQUESTED and POLICY_AUTHORIZED are EVIDENCE_NEEDED.",
                    about=_about(action.location, tools, action.actionClass),
                )
            )

    if view.declaration is not None and view.declaration.tools:
        for tool in view.tools.values():
            if tool.name not in view.declaration.tools:
                items.append(
                    make_item(
                        "undeclared_tool",
                        "medium",
                        tool.id,
                        found=f"Tool `{tool.name}` ({tool.framework}) at {tool.location.path}:{tool.location.line} is "
                        f"not listed in {view.declaration.path}.",
                        establishes="The system gives models a tool its declaration does not list.",
                        not_established="Whether the owners intend the model to have this tool.",
                        why="Every tool widens what a model can do.",
                        needed=f'Add "{tool.name}" to `tools` in {view.declaration.path}, or stop giving the tool to '
                        f"the model; {NEW_RUN}",
                        questions=["reach"],
                        paths=[tool.id],
                        refs=[view.ref(tool.id)],
                        relations=findings_by_element.get(tool.id, []),
                        boundary="Declared reach is incomplete.",
                        about=_about(tool.location, [tool.name]),
                    )
                )

    written = {flow.actionId for flow in view.flows.values() if _model_written(flow)}
    for action in unattributed(view):
        items.append(
            make_item(
                "unattributed_action",
                "high",
                action.id,
                found=f"{action.actionClass} via {action.target} at {_where(action)} is code-capable, but no tool the "
                "analysis recognised reaches it.",
                establishes=f"The code can perform {action.actionClass}; which tool, if any, can make it happen is "
                "not established.",
                not_established="That no tool given to a model reaches it: a tool the analysis did not recognise, or "
                "a call it could not follow, may.",
                why="An action nobody attributed is reach nobody reviewed; absence of a path is not proof of none.",
                needed=_code_agent_advice(action)
                if action.id in written
                else f"Show who can reach {action.target} at {_where(action)}: if a tool calls it, define that tool "
                "with a supported framework API (docs/rule-pack.md) or make the call chain static so the tool is "
                "attributed; if it is not part of the AI system (a script, a CLI, a migration), leave it out "
                f"with `exclude` in assay.toml (or `--exclude`); {NEW_RUN}",
                questions=["reach", "proofBoundary"],
                paths=[action.id],
                refs=[view.ref(action.id)],
                relations=findings_by_element.get(action.id, []),
                boundary="Reach is UNKNOWN for this action; CODE_CAPABLE is ESTABLISHED.",
                about=_about(action.location, [], action.actionClass),
            )
        )

    for item in view.frontier.values():
        if item.kind not in UNRESOLVED_KINDS:
            continue
        where = f" at {item.location.path}:{item.location.line}" if item.location else ""
        if item.kind == "unresolved_call":
            found = f"A call the analysis could not follow{where}, in code a tool reaches: {item.detail}."
            establishes = "A tool reaches code whose effect is not visible to static analysis."
            not_established = "What that call does: it may perform an action no rule saw."
            needed = (
                f"Make the call{where} resolvable: give its receiver a type the analysis can follow "
                "(an annotated parameter or attribute, a direct import), or provide runtime traces "
                f"(OpenTelemetry GenAI `execute_tool` spans) of the tool that makes it; {NEW_RUN}"
            )
            beyond = "this call"
        else:
            found = f"Unresolved reach ({item.kind}){where}: {item.detail}."
            establishes = "Part of what the system can do is decided at run time."
            not_established = "Which tools and actions are reachable through it."
            needed = (
                f"Make the reach{where} visible: list the tools it can yield in assay.toml `tools` and bind them "
                "statically, or provide runtime traces (OpenTelemetry GenAI `execute_tool` spans) of the tools "
                f"it yields; {NEW_RUN}"
            )
            beyond = "this point"
        items.append(
            make_item(
                "unresolved_reach",
                "medium",
                item.id,
                found=found,
                establishes=establishes,
                not_established=not_established,
                why="Reach that analysis cannot see is reach nobody reviewed.",
                needed=needed,
                questions=["reach", "proofBoundary"],
                paths=[item.id],
                refs=[view.ref(item.id)],
                relations=findings_by_element.get(item.id, []),
                boundary=f"Reach is UNKNOWN beyond {beyond}.",
                about=_about(item.location, [], path=item.path),
            )
        )

    incomplete = [
        f for f in view.frontier.values() if f.kind in ("parse_error", "skipped_file", "unsupported_language")
    ]
    if incomplete:
        named = ", ".join(sorted({(f.path or (f.location.path if f.location else f.detail)) for f in incomplete})[:5])
        items.append(
            make_item(
                "coverage_incomplete",
                "medium",
                "coverage",
                found=f"{len(incomplete)} part(s) of the source could not be analysed: {named}.",
                establishes="Coverage is partial.",
                not_established="What the unanalysed code can do.",
                why="Unavailable evidence is a limitation, never a pass.",
                needed=f"Fix or remove the files that could not be analysed ({named}), or move unsupported code out of "
                f"the evaluated tree; {NEW_RUN}",
                questions=["reach", "proofBoundary"],
                paths=[f.id for f in incomplete],
                refs=[view.ref(f.id) for f in incomplete],
                relations=[],
                boundary="codeCapable reach is PARTIAL.",
                about=NOWHERE,
            )
        )

    if view.declaration is None and view.evidence_ids:
        items.append(
            make_item(
                "declaration_missing",
                "medium",
                "declaration",
                found="The evaluated source has no assay.toml declaration.",
                establishes="Nothing about the declared reach.",
                not_established="What the system is meant to do, and so whether any action is authorized.",
                why="Without a declaration, no action's authority can be established.",
                needed="Add assay.toml at the repository root declaring the system's purpose, its tools and its actions "
                f"(docs/declaration.md); {NEW_RUN}",
                questions=["reach", "authority"],
                paths=[],
                refs=[f"{e}#declaration" for e in view.evidence_ids],
                relations=[],
                boundary="Declared reach is EVIDENCE_NEEDED.",
                about=NOWHERE,
            )
        )

    items.extend(_observed_items(view))
    for (scanner, rule), group in imported_errors(view).items():
        where = ", ".join(f"{f.path}:{f.line}" for f in group[:5]) + (
            f" and {len(group) - 5} more" if len(group) > 5 else ""
        )
        items.append(
            make_item(
                "imported_finding",
                "high",
                f"{scanner}:{rule}",
                found=f"{scanner} reported {len(group)} error-level result(s) of rule {rule} on code a tool reaches: "
                f"{where} ({group[0].message or 'no message'}).",
                establishes="Another scanner found an error in code the AI system's tools run.",
                not_established="Whether the error can be triggered through a tool.",
                why="A defect in code a model can drive is reachable by whoever steers the model.",
                needed=f"Fix the {scanner} result(s) of rule {rule} at {where}, or suppress them in {scanner} with a "
                f"justification; run {scanner} again, ingest its SARIF through a sarif binder and attach the receipt "
                'as {"producerId": "sarif-import", "producerRunId": ...} to a NEW run.',
                questions=["reach", "proofBoundary"],
                paths=[],
                refs=[f.evidence_ref for f in group[:10]],
                relations=[f.id for f in group[:10]],
                boundary="CODE_CAPABLE is ESTABLISHED for the affected files; exploitability is UNKNOWN.",
            )
        )
    if view.actions and not view.runtime.present:
        items.append(
            make_item(
                "runtime_evidence_needed",
                "low",
                "observed",
                found=f"{len(view.actions)} code-capable action(s) and no runtime evidence.",
                establishes="What the code can do, not what it was seen doing.",
                not_established="Which actions the system performs at run time, and how often.",
                why="Observed behaviour outside the declared reach is the strongest signal of misuse.",
                needed=RUNTIME_EVIDENCE_HOWTO,
                questions=["observed"],
                paths=[],
                refs=[view.ref(a) for a in sorted(view.actions)][:20],
                relations=[],
                boundary="OBSERVED is EVIDENCE_NEEDED for every action.",
                about=NOWHERE,
            )
        )

    items.extend(more or [])
    return sorted(items, key=lambda i: (SEVERITY_ORDER[i["severity"]], i["kind"], i["id"]))


def _observed_items(view: EvidenceView) -> list[dict[str, Any]]:
    items = []
    for observed in observed_tools(view):
        refs = list(observed.stats.refs)
        for action_class in outside_declared_reach(view, observed):
            items.append(
                make_item(
                    "observed_outside_declared_reach",
                    "critical",
                    f"{observed.name}:{action_class}",
                    found=f"Tool `{observed.name}` was seen performing {action_class} in {observed.stats.count} "
                    "recorded call(s), which the declaration does not cover for it.",
                    establishes=f"The system did perform {action_class} at run time, outside its declared reach.",
                    not_established="Who authorized it, and whether it was harmful.",
                    why="A high-impact action observed outside the declared reach is the strongest sign of misuse.",
                    needed=f"Stop tool `{observed.name}` from performing {action_class} (remove the capability or "
                    f"gate it), or, if it is intended, declare {action_class} for tool `{observed.name}` in "
                    f"assay.toml with requires_approval = true; {NEW_RUN}",
                    questions=["observed", "authority"],
                    paths=list(observed.action_ids),
                    refs=refs,
                    relations=[],
                    boundary="OBSERVED is ESTABLISHED; POLICY_AUTHORIZED is MISSING.",
                    about=_about(None, [observed.name], action_class),
                )
            )
        if not observed.tool_ids:
            items.append(
                make_item(
                    "observed_tool_not_in_code",
                    "medium",
                    observed.name,
                    found=f"Tool `{observed.name}` was seen called {observed.stats.count} time(s) at run time, but "
                    "the analysed code defines no tool of that name.",
                    establishes="The running system has a tool the evaluated code does not show.",
                    not_established="What that tool can do.",
                    why="A tool that runs but was never analysed is reach nobody reviewed.",
                    needed=f"Evaluate the code that defines tool `{observed.name}` (include it in the evaluated "
                    "tree, or define it with a framework API the static engine recognises), or list it in "
                    f"assay.toml `tools` if it comes from an MCP server at run time; {NEW_RUN}",
                    questions=["reach", "observed"],
                    paths=[],
                    refs=refs,
                    relations=[],
                    boundary="Reach is UNKNOWN for this tool; OBSERVED is ESTABLISHED.",
                    about=_about(None, [observed.name]),
                )
            )
    return items


def proof_boundary(view: EvidenceView, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "unresolved": [
            {"id": f.id, "kind": f.kind, "detail": f.detail, "evidenceRefs": [view.ref(f.id)]}
            for f in view.frontier.values()
        ],
        "nextEvidence": [{"verificationItemId": i["id"], "verificationNeeded": i["verificationNeeded"]} for i in items],
    }
