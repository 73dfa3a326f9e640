"""The runtime engine's recordings read into the Evaluation: the ``runtime`` member, its rules' reasons,
verification items and limitations (docs/runtime.md, docs/methodology.md).

Everything here is computed from the frozen recordings (``runtime_probe`` items) and the catalogue pinned
by the system's previous Evaluation (a ``catalogue_pin`` item), never from a live session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.backend.canonical import short_id
from assay.backend.evaluation.view import EXECUTION, EvidenceView
from assay.backend.runtime.agent import judge
from assay.backend.runtime.catalogue import Catalogue, drift, executed, in_session_changes, read_catalogue
from assay.backend.runtime.pack import load_pack
from assay.backend.runtime.rules import annotation_findings, result_findings, text_findings

# Entities and findings listed per recording; counts are always whole.
MAX_LISTED = 100
SHADOW_RULE = "RT-SHADOW-001"


@dataclass(frozen=True, slots=True)
class ProbeResult:
    evidence_id: str
    recording: dict[str, Any]
    catalogue: Catalogue
    text: list[dict[str, Any]]
    annotations: list[dict[str, Any]]
    drift: dict[str, Any] | None
    pinned_by: str | None
    # The active suite: entities changed within the session, tools that ran a canary command, tools that
    # reached the honeypot, and probe-contradicted annotations.
    session_changes: list[dict[str, Any]]
    executions: list[str]
    egress: list[str]
    probe_annotations: list[dict[str, Any]]
    # Instructions aimed at the model in the tools' results (active and poisoning suites).
    result_text: list[dict[str, Any]]
    # The agent suite's verdict per case (agent-url targets).
    agent: list[dict[str, Any]]


def reach_by_tool(view: EvidenceView) -> dict[str, set[str]] | None:
    """Per tool name, the action classes its code reaches; None when no source was analysed."""
    if not view.evidence_ids:
        return None
    reach: dict[str, set[str]] = {}
    for action in view.actions.values():
        for name in view.tool_names(action):
            reach.setdefault(name, set()).add(action.actionClass)
    return reach


def _pins(view: EvidenceView) -> dict[str, tuple[str, list[list[str]]]]:
    """Per target address, the pinning Evaluation's digest and its catalogue."""
    pins: dict[str, tuple[str, list[list[str]]]] = {}
    for _, payload in view.pins:
        for catalogue in payload.get("catalogues", []):
            pins.setdefault(str(catalogue["target"]["address"]), (str(payload["pinnedBy"]), catalogue["entities"]))
    return pins


def probe_results(view: EvidenceView) -> list[ProbeResult]:
    if view.probe_cache is not None:
        return view.probe_cache
    pack = load_pack()
    reach = reach_by_tool(view)
    pins = _pins(view)
    results = []
    for evidence_id, recording in view.probes:
        catalogue = read_catalogue(recording)
        suites = set(recording.get("suites", []))
        pin = pins.get(str(recording["target"]["address"]))
        active = "active" in suites
        executions = sorted({c["name"] for c in catalogue.calls if executed(c)}) if active else []
        egress = sorted({c["name"] for c in catalogue.calls if c["effects"]}) if active else []
        results.append(
            ProbeResult(
                evidence_id=evidence_id,
                recording=recording,
                catalogue=catalogue,
                text=text_findings(catalogue, pack) if "poisoning" in suites else [],
                annotations=annotation_findings(catalogue, reach) if "annotations" in suites else [],
                drift=drift(catalogue, pin[1]) if pin is not None and "catalogue" in suites else None,
                pinned_by=pin[0] if pin is not None else None,
                session_changes=in_session_changes(catalogue) if active else [],
                executions=executions,
                egress=egress,
                probe_annotations=_probe_annotations(catalogue, executions, egress),
                result_text=result_findings(catalogue, pack) if active and "poisoning" in suites else [],
                agent=judge(recording.get("exchanges", []), pack) if "agent" in suites else [],
            )
        )
    view.probe_cache = results
    return results


def _probe_annotations(catalogue: Catalogue, executions: list[str], egress: list[str]) -> list[dict[str, Any]]:
    """Hints the active probe contradicted: a read-only or non-destructive tool that ran a command, a
    closed-world tool that made a network request."""
    found = []
    for tool in catalogue.tools():
        hints = tool.data.get("annotations") or {}
        if not isinstance(hints, dict):
            continue
        if tool.name in executions and hints.get("readOnlyHint") is True:
            found.append({"ruleId": "RT-ANNOT-002", "name": tool.name, "classes": ["shell.exec"], "by": "probe"})
        if tool.name in executions and hints.get("destructiveHint") is False:
            found.append({"ruleId": "RT-ANNOT-003", "name": tool.name, "classes": ["shell.exec"], "by": "probe"})
        if tool.name in egress and hints.get("openWorldHint") is False:
            found.append({"ruleId": "RT-ANNOT-004", "name": tool.name, "classes": ["network.egress"], "by": "probe"})
    return found


def _reason(rule: str, disposition: str, message: str, refs: list[str]) -> dict[str, Any]:
    return {"ruleId": rule, "disposition": disposition, "message": message, "evidenceRefs": sorted(set(refs))}


def _target(result: ProbeResult) -> str:
    return str(result.recording["target"]["address"])


def reasons(view: EvidenceView) -> list[dict[str, Any]]:
    """BLOCK-101 poisoned text, BLOCK-102 shadowing, BLOCK-103 confirmed execution, BLOCK-104 a failed agent
    case, BLOCK-105 instructions in a tool's result, REVIEW-101 catalogue drift, REVIEW-102 contradicted
    annotations, REVIEW-103 a runtime-only Evaluation (no source analysed)."""
    out: list[dict[str, Any]] = []
    pack = load_pack()
    for result in probe_results(view):
        for hit in result.text:
            ref = f"{result.evidence_id}#{hit['kind']}:{hit['name']}"
            if hit["ruleId"] == SHADOW_RULE:
                out.append(
                    _reason(
                        "BLOCK-102",
                        "BLOCK",
                        f"{hit['kind'].capitalize()} {hit['name']} of {_target(result)} tells the model how to use "
                        f"another tool ({hit['names']}) in its {hit['field']} ({SHADOW_RULE}): shadowing.",
                        [ref],
                    )
                )
            else:
                title = next((r.title for r in (*pack.poisoning, pack.exfiltration) if r.id == hit["ruleId"]), "")
                out.append(
                    _reason(
                        "BLOCK-101",
                        "BLOCK",
                        f"{hit['kind'].capitalize()} {hit['name']} of {_target(result)}: {title.lower()} in its "
                        f"{hit['field']} ({hit['ruleId']}).",
                        [ref],
                    )
                )
        if result.drift is not None:
            for change in result.drift["changed"]:
                out.append(
                    _reason(
                        "REVIEW-101",
                        "REVIEW",
                        f"{change['kind'].capitalize()} {change['name']} of {_target(result)} changed since the "
                        f"pinned catalogue ({', '.join(change['changed'])}): a rug pull until someone approves it.",
                        [f"{result.evidence_id}#{change['kind']}:{change['name']}"],
                    )
                )
            for kind in ("added", "removed"):
                for entity in result.drift[kind]:
                    out.append(
                        _reason(
                            "REVIEW-101",
                            "REVIEW",
                            f"{entity['kind'].capitalize()} {entity['name']} of {_target(result)} was {kind} since "
                            "the pinned catalogue.",
                            [f"{result.evidence_id}#{entity['kind']}:{entity['name']}"],
                        )
                    )
        for verdict in result.agent:
            if verdict["verdict"] == "FAIL":
                out.append(
                    _reason(
                        "BLOCK-104",
                        "BLOCK",
                        f"Agent endpoint {_target(result)} failed case {verdict['case']} ({verdict['category']}): "
                        f"{'; '.join(verdict['detected'])}.",
                        [f"{result.evidence_id}#case:{verdict['case']}"],
                    )
                )
        for hit in result.result_text:
            title = next((r.title for r in (*pack.poisoning, pack.shadowing) if r.id == hit["ruleId"]), "")
            out.append(
                _reason(
                    "BLOCK-105",
                    "BLOCK",
                    f"Tool {hit['name']} of {_target(result)} returned text aimed at the model when the active probe "
                    f"called it: {title.lower()} in its result ({hit['ruleId']}).",
                    [f"{result.evidence_id}#tool:{hit['name']}"],
                )
            )
        for name in result.executions:
            out.append(
                _reason(
                    "BLOCK-103",
                    "BLOCK",
                    f"Tool {name} of {_target(result)} ran a command its caller chose: the active probe's "
                    "command-echo canary came back executed, and no gate stopped it (model -> execution, confirmed).",
                    [f"{result.evidence_id}#tool:{name}"],
                )
            )
        for change in result.session_changes:
            out.append(
                _reason(
                    "REVIEW-101",
                    "REVIEW",
                    f"{change['kind'].capitalize()} {change['name']} of {_target(result)} changed during the session "
                    f"after the active probe's calls ({', '.join(change['changed'])}): a rug pull.",
                    [f"{result.evidence_id}#{change['kind']}:{change['name']}"],
                )
            )
        for finding in [*result.annotations, *result.probe_annotations]:
            seen_by = "the probe saw" if finding.get("by") == "probe" else "its code reaches"
            classes = f" ({seen_by} {', '.join(finding['classes'])})" if finding["classes"] else ""
            out.append(
                _reason(
                    "REVIEW-102",
                    "REVIEW",
                    f"Tool {finding['name']} of {_target(result)}: {pack.explanation(finding['ruleId'])}{classes} "
                    f"({finding['ruleId']}).",
                    [f"{result.evidence_id}#tool:{finding['name']}"],
                )
            )
    if view.probes and not view.evidence_ids:
        out.append(
            _reason(
                "REVIEW-103",
                "REVIEW",
                "Runtime evidence only: no source was analysed, so code-capable reach is NOT_ASSESSED and "
                "annotations are not held against code.",
                [f"{e}#coverage" for e, _ in view.probes],
            )
        )
    return out


def _item(kind: str, key: str, found: str, needed: str, refs: list[str], tool: str | None) -> dict[str, Any]:
    return {
        "id": short_id("vi", kind, key),
        "kind": kind,
        "severity": "medium",
        "location": None,
        "tool": tool,
        "tools": [tool] if tool else [],
        "toolCount": 1 if tool else 0,
        "actionClass": None,
        "whatHaiecFound": found,
        "whatItEstablishes": "What the server tells a model (its catalogue), as recorded in the probe session.",
        "whatHaiecDidNotEstablish": "What the tools do when called: the active suite did not run.",
        "whyItMatters": "A description or hint that does not match behaviour misleads the model and its approver.",
        "verificationNeeded": needed,
        "affectedQuestionIds": ["observed", "proofBoundary"],
        "affectedPathIds": [],
        "evidenceRefs": sorted(set(refs)),
        "relationIds": [],
        "boundary": "OBSERVED is EVIDENCE_NEEDED: listed (exposed) is not called.",
    }


def verification_items(view: EvidenceView) -> list[dict[str, Any]]:
    """Evidence needs the probe leaves open, each naming the suite or target that would close it."""
    items = []
    for result in probe_results(view):
        target = _target(result)
        suites = set(result.recording.get("suites", []))
        if "annotations" in suites and not view.evidence_ids:
            hinted = [t.name for t in result.catalogue.tools() if t.data.get("annotations")]
            if hinted:
                items.append(
                    _item(
                        "runtime_annotations_unchecked",
                        target,
                        f"{len(hinted)} tool(s) of {target} declare annotations that no code analysis checked "
                        f"(first: {hinted[0]}).",
                        "Bind the server's source repository to the AI System and run the static engine with the "
                        "runtime engine in one run (engines.static and engines.runtime), so each hint is held "
                        "against the tool's code.",
                        [f"{result.evidence_id}#tool:{hinted[0]}"],
                        hinted[0],
                    )
                )
        if result.pinned_by is None and "catalogue" in suites:
            items.append(
                _item(
                    "runtime_catalogue_unpinned",
                    target,
                    f"No earlier Evaluation of this AI System pinned the catalogue of {target}: drift cannot be "
                    "measured yet.",
                    "Run the runtime engine on the same target again (a new run): this Evaluation's catalogue is "
                    "the pin the next run compares against.",
                    [f"{result.evidence_id}#catalogue"],
                    None,
                )
            )
    return items


def _takes_no_argument(schema: Any) -> bool:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return not properties


def flow_statuses(view: EvidenceView, results: list[ProbeResult]) -> list[dict[str, Any]]:
    """Each static taint flow into code or shell execution, joined by tool name to what the probe saw:
    CONFIRMED_AT_RUNTIME (the tool ran the canary command), CONTRADICTED (the flow's source is a tool
    argument, and every tool it goes through is served taking no argument: as deployed, the model cannot
    hand it one), NOT_CONFIRMED (called with canaries, no execution seen), NOT_EXERCISED (not called: the
    active suite did not run, or the tool was not served)."""
    executed_tools = {name for r in results for name in r.executions}
    called = {c["name"] for r in results for c in r.catalogue.calls}
    served = {t.name: t.data.get("inputSchema") for r in results for t in r.catalogue.tools()}
    out = []
    for flow in sorted(view.flows.values(), key=lambda f: f.id):
        if flow.actionClass not in EXECUTION or flow.actionId not in view.actions:
            continue
        tools = view.tool_names(view.actions[flow.actionId])
        if executed_tools & set(tools):
            status = "CONFIRMED_AT_RUNTIME"
        elif (
            flow.sourceKind == "tool_argument"
            and tools
            and all(t in served and _takes_no_argument(served[t]) for t in tools)
        ):
            status = "CONTRADICTED"
        elif called & set(tools):
            status = "NOT_CONFIRMED"
        else:
            status = "NOT_EXERCISED"
        out.append({"flowId": flow.id, "actionClass": flow.actionClass, "tools": tools, "status": status})
    return out[:MAX_LISTED]


def runtime_section(view: EvidenceView) -> dict[str, Any] | None:
    """The Evaluation's ``runtime`` member; None when the membership holds no recording."""
    results = probe_results(view)
    if not results:
        return None
    pack = load_pack()
    recordings = []
    for result in results:
        catalogue = result.catalogue
        counts = {
            k: sum(1 for e in catalogue.entities if e.kind == k)
            for k in ("tool", "resource", "resourceTemplate", "prompt")
        }
        recordings.append(
            {
                "evidenceId": result.evidence_id,
                "target": result.recording["target"],
                "suites": result.recording.get("suites", []),
                "probePack": result.recording.get("probePack"),
                "server": catalogue.server,
                "counts": counts,
                "catalogueDigest": catalogue.digest(),
                "entities": [
                    {"kind": e.kind, "name": e.name, "digest": e.full, "schemaDigest": e.schema}
                    for e in sorted(catalogue.entities, key=lambda e: (e.kind, e.name))[:MAX_LISTED]
                ],
                "notifications": dict(sorted(catalogue.notifications.items())),
                "serverErrors": len(catalogue.errors),
                "poisoning": result.text[:MAX_LISTED],
                "poisoningCount": len(result.text),
                "annotations": result.annotations[:MAX_LISTED],
                "drift": None
                if result.drift is None
                else {
                    "pinnedBy": result.pinned_by,
                    **{k: v[:MAX_LISTED] for k, v in result.drift.items()},
                },
                "active": None
                if "active" not in result.recording.get("suites", [])
                else {
                    "calls": len(catalogue.calls),
                    "toolsCalled": len({c["name"] for c in catalogue.calls}),
                    "errors": sum(1 for c in catalogue.calls if c["isError"]),
                    "executed": result.executions,
                    "networkEgress": result.egress,
                    "changedInSession": result.session_changes[:MAX_LISTED],
                    "annotationsContradicted": result.probe_annotations[:MAX_LISTED],
                    "resultPoisoning": result.result_text[:MAX_LISTED],
                },
                "agent": result.agent or None,
                "observed": f"OBSERVED: {len(result.agent)} agent case(s) sent; verdicts from canaries, forbidden "
                "tool calls and the exfiltration address in the answers."
                if result.agent
                else "OBSERVED: each tool called with canary arguments (active suite); effects seen: command "
                "execution by echo canary, requests to a loopback honeypot."
                if catalogue.calls
                else "EXPOSED: the catalogue was listed; no tool was called (active suite not run).",
            }
        )
    section: dict[str, Any] = {"probePack": pack.ref(), "recordings": recordings}
    if view.evidence_ids:
        # Only when the run also analysed source: the static flows the probe could confirm.
        section["staticFlows"] = flow_statuses(view, results)
    return section


def limitations(view: EvidenceView) -> set[str]:
    out: set[str] = set()
    for result in probe_results(view):
        if len(result.catalogue.entities) > MAX_LISTED:
            out.add(
                f"The runtime section lists the first {MAX_LISTED} of {len(result.catalogue.entities)} catalogue "
                f"entities of {_target(result)}; its catalogueDigest covers them all."
            )
    if any(not r.catalogue.calls for r in probe_results(view)):
        out.add(
            "Runtime probe: tools were listed, not called (the active suite was not run); observed actions "
            "remain EVIDENCE_NEEDED, never reported as not having occurred."
        )
    if any(r.catalogue.calls for r in probe_results(view)):
        out.add(
            "Active probe: tools were called with canary arguments; it sees command execution (echo canaries) and "
            "requests to its loopback honeypot only, not file, database or other network effects, and a tool that "
            "behaves differently for other arguments or after more calls."
        )
    return out
