"""The Master Report as a document for people (HTML and PDF): the same product as the API.

Page one answers at a glance: what was assessed (identity, and a dirty workspace said loudly), the
disposition and what it means, counts, what to fix first in plain words, and which tools reach which
actions through which gates. Then the reasons grouped by rule, one row per action with all its rules,
the Four Questions and every verification item with its `verificationNeeded` whole. Tables keep at most
``PRESENTATION_ROWS`` rows; the rest of the actions and verification items are in the appendices (up to
``APPENDIX_ROWS``), and every note says what was left out and where it is.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from assay.backend.reports.document import (
    Block,
    Bullets,
    Callout,
    Document,
    Heading,
    KeyValues,
    PageBreak,
    Paragraph,
    Table,
    cut,
    one_line,
)
from assay.backend.reports.identity import dirty_words
from assay.backend.reports.jurisdiction_document import jurisdiction_blocks
from assay.backend.reports.runtime_section import runtime_blocks

PRESENTATION_ROWS = 40
APPENDIX_ROWS = 500
FIX_FIRST = 6
IMPACTS = ("critical", "high", "medium", "low")
SEVERITIES = ("critical", "high", "medium", "low")
PLANES = ("REQUESTED", "POLICY_AUTHORIZED", "EFFECTIVELY_GRANTED", "CODE_CAPABLE", "OBSERVED")
_MEANING = {
    "ALLOW": "Nothing in the evaluated evidence stands in the way. This is not a statement that the system is safe: "
    "see the limitations.",
    "REVIEW": "A person must look at the reasons below before the system ships.",
    "BLOCK": "The system must not ship as it is: see the reasons below.",
}
# What each kind of verification item asks, in plain words, for the "fix first" list.
_FIX = {
    "model_output_to_execution": "Stop model-chosen input from reaching code or shell execution",
    "ungated_undeclared_high_impact": "Put a human approval gate before high-impact actions, and declare them",
    "unattributed_action": "Attribute or remove high-impact code that no known tool reaches",
    "approval_not_enforced": "Enforce in code the approval the declaration requires",
    "undeclared_action": "Declare the actions the code can perform, or remove them",
    "authority_unestablished": "Declare who authorized the high-impact actions",
    "undeclared_tool": "List every tool the model gets in the declaration",
    "unresolved_reach": "Make reach the analysis could not follow visible",
    "coverage_incomplete": "Fix the files the analysis could not read",
    "declaration_missing": "Add an assay.toml declaration of tools and actions",
    "jurisdiction_not_assessed": "Assess the requested jurisdiction's controls",
    "runtime_evidence_needed": "Provide runtime traces of the system's tool calls",
}


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _where(loc: dict[str, Any] | None) -> str:
    if not loc:
        return ""
    return f"{loc['path']}:{loc['line']}" if loc.get("line") is not None else str(loc["path"])


def _place(loc: dict[str, Any] | None) -> tuple[str, int]:
    """Sort key: path, then line as a number (so line 9 comes before line 10)."""
    return (str(loc.get("path") or ""), int(loc.get("line") or 0)) if loc else ("\uffff", 0)


def _element(ref: str) -> str:
    return ref.partition("#")[2]


def _action_rules(r: dict[str, Any]) -> dict[str, list[str]]:
    """Rule ids by action id: a reason names its action directly or through the taint flow that reaches it."""
    flow_action: dict[str, str] = {}
    for item in r.get("verificationItems", []):
        elements = [_element(e) for e in item.get("evidenceRefs", [])]
        actions = [e for e in elements if e.startswith("act-")]
        for flow in (e for e in elements if e.startswith("flow-")):
            if actions:
                flow_action[flow] = actions[0]
    rules: dict[str, set[str]] = {}
    for reason in r.get("reasons", []):
        for ref in reason.get("evidenceRefs", []):
            element = _element(ref)
            action = element if element.startswith("act-") else flow_action.get(element)
            if action:
                rules.setdefault(action, set()).add(reason["ruleId"])
    return {k: sorted(v) for k, v in rules.items()}


def _counts(values: list[str], order: tuple[str, ...]) -> str:
    counted = Counter(values)
    shown = [f"{counted[v]} {v}" for v in order if counted[v]]
    return " · ".join(shown) if shown else "none"


def _identity_rows(identity: dict[str, Any], r: dict[str, Any]) -> list[tuple[str, str]]:
    system = identity.get("systemName") or "-"
    commit = identity.get("commit") or "unknown"
    branch = identity.get("branch")
    return [
        ("AI System", f"{system} ({identity.get('aiSystemId') or r.get('aiSystemId') or '-'})"),
        ("Repository", identity.get("repository") or "local workspace (no git remote)"),
        ("Commit", f"{commit} on branch {branch}" if branch else commit),
        ("Workspace", dirty_words(identity.get("dirty", "unknown"))),
        ("Workspace digest", identity.get("workspaceDigest") or "-"),
        ("Evaluated", identity.get("evaluatedAt") or "-"),
        ("Evaluation", r["evaluationId"]),
        ("Methodology", r.get("methodologyVersion") or "-"),
        ("Signing key", identity.get("signingKeyId") or "none (this deployment signs no passports)"),
    ]


def _fix_first(items: list[dict[str, Any]]) -> list[list[str]]:
    """One row per kind of request, most severe first: plain words, how many, the first places."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        groups.setdefault(item.get("kind") or "other", []).append(item)
    rank = {s: n for n, s in enumerate(SEVERITIES)}
    ordered = sorted(
        groups.items(), key=lambda g: (min(rank.get(i.get("severity") or "low", 3) for i in g[1]), -len(g[1]), g[0])
    )
    rows = []
    for kind, group in ordered[:FIX_FIRST]:
        severity = min((i.get("severity") or "low" for i in group), key=lambda s: rank.get(s, 3))
        places = sorted((i["location"] for i in group if i.get("location")), key=_place)
        where = "\n".join(_where(p) for p in places[:3])
        if len(places) > 3:
            where += f"\n+{len(places) - 3} more"
        words = _FIX.get(kind, kind.replace("_", " "))
        rows.append([severity, words, str(len(group)), where or "the whole system"])
    return rows


def _matrix(reach: dict[str, Any]) -> list[list[str]]:
    """Tools x actions x gates: each tool, whether every action it reaches is gated, what and through what."""
    rows = []
    for tool in reach["codeCapable"]["tools"]:
        reached = sorted(
            (a for a in reach["codeCapable"]["actions"] if tool["name"] in a["tools"]),
            key=lambda a: (IMPACTS.index(a["impact"]) if a["impact"] in IMPACTS else 9, _place(a["location"])),
        )
        high = [a for a in reached if a["impact"] in ("critical", "high")]
        if not reached:
            status = "NO ACTION"
        elif not high:
            status = "LOW IMPACT"
        elif any(not a["gates"] for a in high):
            status = "UNGATED"
        else:
            status = "GATED"
        actions = "; ".join(f"{a['actionClass']} via {one_line(a['target'])} ({a['impact']})" for a in reached) or "-"
        gates = ", ".join(sorted({g for a in reached for g in a["gates"]})) or "none"
        # Where the tool is defined: five tools named `shell` are five rows a reader can tell apart.
        rows.append([one_line(tool["name"]), _where(tool.get("location")) or "-", status, actions, gates])
    order = {"UNGATED": 0, "GATED": 1, "LOW IMPACT": 2, "NO ACTION": 3}
    return sorted(rows, key=lambda row: (order[row[2]], row[0], _place(_located(row[1]))))


def _located(where: str) -> dict[str, Any] | None:
    """``path:line`` back as a location, for sorting rows by place."""
    path, _, line = where.rpartition(":")
    return {"path": path, "line": int(line)} if path and line.isdigit() else None


def _appendix_table(
    columns: list[str], rows: list[list[str]], widths: list[float], kinds: list[Any], noun: str, api: str | None
) -> Table:
    shown, omitted = cut(rows, APPENDIX_ROWS)
    rest = (
        f"The complete list is in the JSON report: GET {api}?detail=full."
        if api
        else "The JSON report (?detail=full) has them all."
    )
    return Table(columns=columns, rows=shown, omitted=omitted, widths=widths, kinds=kinds, noun=noun, rest=rest)


def _accepted_note(reasons: list[dict[str, Any]]) -> str:
    accepted = sum(1 for x in reasons if "acceptance" in x)
    return f" ({accepted} accepted as known risks: see Accepted risks)" if accepted else ""


def _accepted_risks(section: dict[str, Any] | None) -> list[Block]:
    """The "Accepted risks" section: every reason a person accepted as a known risk (it no longer drives the
    disposition; REVIEW-013 keeps it at least REVIEW), and every acceptance found expired."""
    if section is None:
        return []
    blocks: list[Block] = [
        Heading("Accepted risks", 2),
        Paragraph(
            "Reasons accepted as known risks when the run was created: each stays listed, but no longer drives the "
            "disposition, which stays at least REVIEW while any is accepted. An acceptance is a decision with an "
            "owner and an expiry, not evidence that the risk is gone.",
            "muted",
        ),
    ]
    accepted = [
        [
            a["disposition"],
            a["ruleId"],
            one_line(a["message"]),
            a["owner"],
            a["justification"],
            a["expiresOn"],
            a["fingerprint"],
        ]
        for a in section.get("accepted", [])
    ]
    blocks.append(
        Table(
            columns=["Disposition", "Rule", "Reason", "Owner", "Justification", "Until", "Fingerprint"],
            rows=accepted,
            widths=[0.1, 0.11, 0.23, 0.13, 0.2, 0.11, 0.12],
            kinds=["badge", "mono", "text", "text", "text", "text", "mono"],
            noun="accepted risks",
        )
        if accepted
        else Paragraph("No reason of this Evaluation is accepted.", "muted")
    )
    expired = [
        [a["disposition"], a["ruleId"], one_line(a["message"]), a["owner"], a["expiresOn"], a["fingerprint"]]
        for a in section.get("expired", [])
    ]
    if expired:
        blocks += [
            Paragraph("Expired acceptances: not applied, so these reasons drive the disposition again.", "muted"),
            Table(
                columns=["Disposition", "Rule", "Reason", "Owner", "Expired after", "Fingerprint"],
                rows=expired,
                widths=[0.1, 0.11, 0.34, 0.15, 0.12, 0.18],
                kinds=["badge", "mono", "text", "text", "text", "mono"],
                noun="expired acceptances",
            ),
        ]
    missing = section.get("notPresent", [])
    if missing:
        blocks.append(
            Paragraph(
                f"Not in this Evaluation (fixed, or changed): {_many(len(missing), 'reason')} with an active "
                "acceptance: " + ", ".join(missing) + ".",
                "muted",
            )
        )
    return blocks


def master_document(master: dict[str, Any]) -> Document:
    """``master`` is the ``masterReport`` object (full detail gives the complete document)."""
    r = master
    identity: dict[str, Any] = r.get("identity") or {}
    links = r.get("links") or {}
    fq = r["fourQuestions"]
    reach, authority, observed, boundary = fq["reach"], fq["authority"], fq["observed"], fq["proofBoundary"]
    disposition = r["disposition"]
    reasons = r.get("reasons", [])
    items = r.get("verificationItems", [])
    actions = reach["codeCapable"]["actions"]
    dirty = identity.get("dirty", "unknown")
    appendix: list[Block] = []
    doc_links = [
        (label, str(links[key]))
        for label, key in (
            ("PDF", "pdf"),
            ("HTML", "html"),
            ("Passport", "passport"),
            ("Agent audit", "agentAudit"),
            ("JSON", "api"),
        )
        if links.get(key)
    ]

    blocks: list[Block] = [
        Callout(kind=disposition, title=f"Disposition: {disposition}", text=_MEANING.get(disposition, ""))
    ]
    if dirty is True:
        blocks.append(
            Callout(
                "warning",
                "Dirty workspace",
                "The assessed tree had uncommitted changes: this report is about the files named by the workspace "
                "digest, not about the commit. Commit the changes and assess again to get a report about a commit.",
            )
        )
    blocks += [
        Heading("What was assessed", 2),
        KeyValues(rows=_identity_rows(identity, r)),
        Heading("At a glance", 2),
        KeyValues(
            rows=[
                (
                    "Reasons",
                    _counts([x["disposition"] for x in reasons], ("BLOCK", "REVIEW", "ALLOW"))
                    + _accepted_note(reasons),
                ),
                ("Actions by impact", _counts([a["impact"] for a in actions], IMPACTS)),
                ("Tools", f"{len(reach['codeCapable']['tools'])} given to models"),
                ("Verification items", _counts([i.get("severity") or "low" for i in items], SEVERITIES)),
            ]
        ),
        Heading("Fix first", 2),
    ]
    fix = _fix_first(items)
    blocks.append(
        Table(
            columns=["Severity", "What to do", "Items", "Where"],
            rows=fix,
            widths=[0.1, 0.5, 0.07, 0.33],
            kinds=["badge", "text", "text", "path"],
            noun="kinds of request",
            rest="Every item is under Proof boundary.",
        )
        if fix
        else Paragraph("Nothing to fix: no verification item is open.", "muted")
    )
    matrix = _matrix(reach)
    if matrix:
        shown, hidden = cut(matrix, PRESENTATION_ROWS)
        blocks += [
            Heading("Tools, actions and gates", 2),
            Paragraph(
                "Each tool the model is given, the actions it reaches and the gates in front of them. UNGATED: a "
                "critical or high impact action it reaches has no gate; GATED: every such action has one; LOW "
                "IMPACT: it reaches only medium or low impact actions; NO ACTION: it reaches none.",
                "muted",
            ),
            Table(
                columns=["Tool", "Where", "Status", "Reaches (impact)", "Gates"],
                rows=shown,
                omitted=hidden,
                widths=[0.15, 0.2, 0.1, 0.37, 0.18],
                kinds=["mono", "path", "badge", "text", "badge"],
                noun="tools",
                rest="The Actions table lists every action with its tools.",
            ),
        ]

    blocks += [PageBreak(), Heading("Why: reasons by rule", 1)]
    by_rule: dict[str, list[dict[str, Any]]] = {}
    for reason in reasons:
        by_rule.setdefault(reason["ruleId"], []).append(reason)
    rank = {"BLOCK": 0, "REVIEW": 1, "ALLOW": 2}
    rule_rows = [
        [
            group[0]["disposition"],
            rule,
            str(len(group)),
            one_line(group[0]["message"]) + (f" (and {len(group) - 1} more like it)" if len(group) > 1 else ""),
        ]
        for rule, group in sorted(by_rule.items(), key=lambda g: (rank.get(g[1][0]["disposition"], 3), g[0]))
    ]
    blocks.append(
        Table(
            columns=["Disposition", "Rule", "Count", "Reason (the first of its rule)"],
            rows=rule_rows,
            widths=[0.12, 0.12, 0.07, 0.69],
            kinds=["badge", "mono", "text", "text"],
            noun="rules",
        )
        if rule_rows
        else Paragraph("No disposition rule fired.", "muted")
    )
    blocks += _accepted_risks(r.get("acceptedRisks"))

    rules = _action_rules(r)
    action_rows = [
        [
            a["impact"],
            a["actionClass"],
            one_line(a["target"]),
            _where(a["location"]),
            ", ".join(one_line(t) for t in a["tools"]) or "-",
            ", ".join(a["gates"]) or "none",
            ", ".join(rules.get(a.get("actionId", ""), [])) or "-",
        ]
        for a in sorted(actions, key=lambda a: _place(a["location"]))
    ]
    action_columns = ["Impact", "Class", "Target", "Where", "Tools", "Gates", "Rules"]
    action_widths = [0.09, 0.12, 0.16, 0.22, 0.15, 0.12, 0.14]
    action_kinds: list[Any] = ["badge", "badge", "mono", "path", "mono", "badge", "mono"]
    shown, hidden = cut(action_rows, PRESENTATION_ROWS)
    blocks += [
        Heading("Actions: one row per action, with every rule it triggers", 2),
        Table(
            columns=action_columns,
            rows=shown,
            omitted=hidden,
            widths=action_widths,
            kinds=action_kinds,
            noun="actions",
            rest="They are in Appendix A.",
        )
        if action_rows
        else Paragraph("No code-capable action was found.", "muted"),
    ]
    if hidden:
        appendix += [
            Heading("Appendix A: the rest of the actions", 1),
            _appendix_table(
                action_columns,
                action_rows[PRESENTATION_ROWS:],
                action_widths,
                action_kinds,
                "actions",
                links.get("api"),
            ),
        ]

    blocks += [Heading("The Four Assurance Questions", 1), Heading("Reach: what can it do?", 2)]
    blocks.append(
        KeyValues(
            rows=[
                ("Declared", f"{reach['declared']['status']} ({reach['declared'].get('source') or 'no declaration'})"),
                ("Code-capable", f"{reach['codeCapable']['status']} ({_many(len(actions), 'action')})"),
                ("Unresolved", f"{reach['unresolved']['status']} ({_many(len(reach['unresolved']['items']), 'item')})"),
            ]
        )
    )
    if reach["differences"]:
        diffs = sorted(
            (
                [
                    d["kind"],
                    d.get("actionClass") or "-",
                    ", ".join(one_line(t) for t in d["tools"]) or "-",
                    _where(d.get("location")),
                ]
                for d in reach["differences"]
            ),
            key=lambda row: (row[0], row[3]),
        )
        shown, hidden = cut(diffs, PRESENTATION_ROWS)
        blocks += [
            Heading("Declared vs code-capable", 3),
            Table(
                ["Difference", "Class", "Tools", "Where"],
                shown,
                hidden,
                [0.25, 0.15, 0.3, 0.3],
                ["mono", "mono", "text", "path"],
                noun="differences",
                rest="The JSON report (?detail=full) has them all.",
            ),
        ]
    if reach["unresolved"]["items"]:
        unresolved = sorted(
            reach["unresolved"]["items"],
            key=lambda u: _place(u.get("location") or ({"path": u.get("path")} if u.get("path") else None)),
        )
        shown_u, hidden_u = cut(
            [
                [u["kind"], _where(u.get("location")) or (u.get("path") or ""), one_line(u["detail"])]
                for u in unresolved
            ],
            PRESENTATION_ROWS,
        )
        blocks += [
            Heading("Unresolved reach", 3),
            Table(
                ["Kind", "Where", "Detail"],
                shown_u,
                hidden_u,
                [0.2, 0.3, 0.5],
                ["mono", "path", "text"],
                noun="unresolved items",
                rest="The JSON report (?detail=full) has them all.",
            ),
        ]

    blocks.append(Heading("Authority: who authorized it?", 2))
    blocks.append(
        Table(
            ["Plane", "Actions by status"],
            [[p, ", ".join(f"{k} {v}" for k, v in authority["summary"].get(p, {}).items()) or "-"] for p in PLANES],
            widths=[0.3, 0.7],
            kinds=["mono", "text"],
        )
    )
    plane_rows = [
        [
            f"{a['actionClass']}\n{_where(a['location'])}",
            *(a["planes"][p] for p in PLANES),
        ]
        for a in sorted(authority["actions"], key=lambda a: _place(a["location"]))
    ]
    shown, hidden = cut(plane_rows, PRESENTATION_ROWS)
    blocks.append(
        Table(
            ["Action (its gates are in the Actions table)", "Requested", "Policy", "Granted", "Code", "Observed"],
            shown,
            hidden,
            [0.4, 0.12, 0.12, 0.12, 0.12, 0.12],
            ["mono", "badge", "badge", "badge", "badge", "badge"],
            noun="actions",
            rest="The JSON report (?detail=full) has every action's planes.",
        )
    )

    blocks += jurisdiction_blocks(authority.get("jurisdiction"))
    blocks += [
        Heading("Observed: what was it seen doing?", 2),
        Paragraph(f"Status: {observed['status']}. {observed.get('note', '')}"),
        Heading("Proof boundary: what is still unproven?", 2),
        Paragraph(
            "Each item's last column is its verificationNeeded: the authoritative evidence request, shown whole. "
            "Nothing beyond it is required.",
            "muted",
        ),
    ]
    item_columns = ["Severity", "Where", "Tool", "Verification needed"]
    item_widths = [0.1, 0.24, 0.14, 0.52]
    item_kinds: list[Any] = ["badge", "path", "mono", "text"]
    item_rows = [
        [
            i.get("severity") or "",
            _where(i.get("location")) or "whole system",
            one_line(i.get("tool") or "-"),
            i["verificationNeeded"],
        ]
        for i in items
    ]
    shown, hidden = cut(item_rows, PRESENTATION_ROWS)
    blocks.append(
        Table(
            item_columns,
            shown,
            hidden,
            item_widths,
            item_kinds,
            noun="verification items",
            rest="They are in Appendix B.",
        )
        if item_rows
        else Paragraph("No open verification items.", "muted")
    )
    if hidden:
        appendix += [
            Heading("Appendix B: the rest of the verification items", 1),
            _appendix_table(
                item_columns,
                item_rows[PRESENTATION_ROWS:],
                item_widths,
                item_kinds,
                "verification items",
                links.get("api"),
            ),
        ]
    if boundary["unresolved"]:
        blocks.append(
            Paragraph(f"{len(boundary['unresolved'])} unresolved frontier item(s), listed under Reach.", "muted")
        )

    blocks += runtime_blocks(r.get("runtime"))
    snapshot = r["evaluationScenarioSnapshot"]
    blocks += [
        Heading("Scenario snapshot", 1),
        Paragraph(f"Status: {snapshot['status']}. Declared order only, never timestamps."),
    ]
    for scenario in snapshot.get("scenarios", []):
        blocks.append(
            Paragraph(
                f"{scenario['scenarioId']}: {' → '.join(scenario['states'])} ({scenario['status']}; "
                f"earliest divergence: {scenario.get('earliestDivergence') or 'none established'})"
            )
        )
    blocks.append(Bullets(items=list(snapshot.get("limitations", []))))

    omitted = r.get("omitted") or {}
    if omitted:
        blocks += [
            Heading("Left out by the report's bounds", 2),
            Paragraph(
                "This rendering was made from the bounded report; GET the report with ?detail=full for the rest.",
                "muted",
            ),
            Table(
                columns=["List", "Omitted"],
                rows=[[k, str(v)] for k, v in omitted.items()],
                widths=[0.8, 0.2],
                kinds=["mono", "text"],
            ),
        ]
    limitations, hidden = r["limitations"][:PRESENTATION_ROWS], max(0, len(r["limitations"]) - PRESENTATION_ROWS)
    blocks += [
        Heading("Limitations", 1),
        Bullets(
            items=limitations, omitted=hidden, noun="limitations", rest="The JSON report (?detail=full) has them all."
        ),
        Heading("What this report means", 2),
        Bullets(items=list(r["semantics"])),
        Heading("Digests", 2),
        KeyValues(
            rows=[
                ("coreTruthDigest", r["coreTruthDigest"]),
                ("evidenceBundleDigest", r["evidenceBundleDigest"] or "-"),
                ("snapshotDigest", snapshot.get("snapshotDigest", "-")),
                (
                    "Report",
                    f"{r['reportId']} (report {r['reportVersion']}, projection {r['projectionVersion']}, {r['timeBasis']})",
                ),
            ],
            mono=True,
        ),
        *appendix,
    ]
    name = identity.get("systemName") or r.get("aiSystemId") or "-"
    commit = identity.get("commit")
    source = (
        f"{identity['repository']}@{commit[:12]}"
        if commit and identity.get("repository")
        else (commit or "no commit")[:12]
    )
    when = identity.get("evaluatedAt") or "time unknown"
    dirty_mark = " · DIRTY WORKSPACE" if dirty is True else ""
    return Document(
        title=f"Master Assurance Report: {name}",
        subtitle=f"{disposition} · {source}{' (dirty)' if dirty is True else ''} · evaluated {when} · Evaluation {r['evaluationId']}",
        footer=f"{name} · {disposition}{dirty_mark} · Evaluation {r['evaluationId']} · {when} · {source}",
        blocks=blocks,
        created=identity.get("evaluatedAt"),
        links=[(label, href) for label, href in doc_links if label != "HTML"],
    )
