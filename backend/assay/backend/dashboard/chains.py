"""The evaluation page's view of one frozen Evaluation: its reasons grouped by rule, heaviest rule first,
each reason a chain from the rule to the evidence it rests on (a code location, a trace span, a probe
record) and to the verification item that would close it.

Nothing is recomputed: every step is looked up in the Evaluation's own payload by the ids its reasons
cite (``evidenceRefs``: ``<evidenceId>#<fragment>``). A cited fragment the payload does not describe is
shown as it is, never dropped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.backend.evaluation.fingerprint import fingerprints
from assay.backend.reports.check_result import IMPACT_ORDER
from assay.backend.reports.rule_help import DISPOSITION_RULES

# What a fragment's prefix names (the engines' id prefixes).
_KINDS = {
    "act": "Action",
    "flow": "Data flow",
    "fr": "Unresolved reach",
    "gate": "Gate",
    "fnd": "Finding",
    "diff": "Declaration difference",
    "span": "Trace span",
    "obs": "Observed action",
    "call": "Observed tool call",
    "probe": "Probe record",
    "rec": "Probe record",
    "tool": "Tool",
}
_ID_KEYS = ("id", "actionId", "gateId", "pathId", "flowId", "findingId", "recordId", "spanId", "probeId", "itemId")
_SKIP = ("reasons", "verificationItems", "membership")


@dataclass(frozen=True, slots=True)
class Step:
    """One cited piece of evidence: what it is, where (path:line), and span or probe identity if any."""

    ref: str
    kind: str
    summary: str
    location: str | None
    detail: list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class ReasonView:
    disposition: str
    message: str
    steps: list[Step]
    items: list[dict[str, Any]]
    # The reason's stable fingerprint (what a risk acceptance names), and the acceptance this Evaluation
    # applied to it or found expired (the payload's ``acceptance`` / ``acceptanceExpired``), if any.
    fingerprint: str = ""
    acceptance: dict[str, Any] | None = None
    acceptance_expired: dict[str, Any] | None = None


@dataclass(slots=True)
class RuleGroup:
    rule_id: str
    name: str
    short: str
    help: str
    disposition: str
    reasons: list[ReasonView] = field(default_factory=list)


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _walk(child)
    elif isinstance(value, list):
        for child in value:
            yield from _walk(child)


def index_fragments(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every object of the payload that carries an id, by that id (the first, outermost, description wins)."""
    index: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        if key in _SKIP:
            continue
        for node in _walk(value):
            for id_key in _ID_KEYS:
                ident = node.get(id_key)
                if isinstance(ident, str) and ident not in index:
                    index[ident] = node
    return index


def location_text(node: Mapping[str, Any]) -> str | None:
    """``path:line`` of a node (its ``location``, or its own ``path`` / ``line``), or None."""
    where = node.get("location")
    source = where if isinstance(where, dict) else node
    path = source.get("path")
    if not isinstance(path, str):
        return None
    line = source.get("line")
    return f"{path}:{line}" if isinstance(line, int) else path


def _summary(node: Mapping[str, Any]) -> str:
    parts: list[str] = []
    for key in ("actionClass", "kind", "target", "name", "toolName", "detail", "message"):
        value = node.get(key)
        if isinstance(value, str) and value and value not in parts:
            parts.append(value)
    tools = node.get("tools")
    if isinstance(tools, list) and tools:
        parts.append("tools: " + ", ".join(str(t) for t in tools[:5]) + (" …" if len(tools) > 5 else ""))
    return " · ".join(parts)


def _detail(node: Mapping[str, Any]) -> list[tuple[str, str]]:
    keys = ("traceId", "spanId", "probeId", "suite", "target", "requestIndex", "recordedAt", "producerRunId")
    return [(key, str(node[key])) for key in keys if key in node and isinstance(node[key], str | int)]


def _step(ref: str, index: Mapping[str, dict[str, Any]], evidence: Mapping[str, dict[str, Any]]) -> Step:
    evidence_id, _, fragment = ref.partition("#")
    source = evidence.get(evidence_id, {})
    origin = " ".join(str(source[k]) for k in ("kind", "producerId") if k in source)
    if not fragment:
        return Step(ref, "Evidence", origin, None, [])
    node = index.get(fragment)
    kind = _KINDS.get(fragment.split("-", 1)[0], "Evidence")
    if node is None:
        return Step(ref, kind, origin, None, [])
    return Step(ref, kind, _summary(node), location_text(node), _detail(node))


def _items_for(reason: Mapping[str, Any], items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    refs = set(reason.get("evidenceRefs") or [])
    fragments = {r.partition("#")[2] for r in refs}
    matched = [
        item
        for item in items
        if refs & set(item.get("evidenceRefs") or []) or fragments & set(item.get("affectedPathIds") or [])
    ]
    # An item about a code location closes this reason; a general request (runtime evidence for every action)
    # that merely cites the same action is listed once, among the other evidence requests, instead.
    located = [item for item in matched if item.get("location")]
    return located or matched


def _rule_rank(rule_id: str) -> tuple[int, str]:
    return (IMPACT_ORDER.index(rule_id) if rule_id in IMPACT_ORDER else len(IMPACT_ORDER), rule_id)


def rule_groups(data: Mapping[str, Any]) -> list[RuleGroup]:
    """The Evaluation's reasons grouped by rule, heaviest rule first, reasons in the Evaluation's order."""
    index = index_fragments(data)
    evidence = {m["evidenceId"]: m for m in data.get("membership", []) if isinstance(m, dict) and "evidenceId" in m}
    items = [i for i in data.get("verificationItems", []) if isinstance(i, dict)]
    groups: dict[str, RuleGroup] = {}
    reasons = [r for r in data.get("reasons", []) if isinstance(r, dict)]
    prints = fingerprints([(str(r.get("ruleId")), str(r.get("message"))) for r in reasons])
    for reason, fingerprint in zip(reasons, prints, strict=True):
        rule_id = str(reason.get("ruleId", "?"))
        group = groups.get(rule_id)
        if group is None:
            known = DISPOSITION_RULES.get(rule_id)
            group = groups[rule_id] = RuleGroup(
                rule_id=rule_id,
                name=known.name if known else rule_id,
                short=known.short if known else "",
                help=known.help if known else "",
                disposition=str(reason.get("disposition", "")),
            )
        if reason.get("disposition") == "BLOCK":
            group.disposition = "BLOCK"
        steps = [_step(ref, index, evidence) for ref in reason.get("evidenceRefs") or []]
        group.reasons.append(
            ReasonView(
                disposition=str(reason.get("disposition", "")),
                message=str(reason.get("message", "")),
                steps=steps,
                items=_items_for(reason, items),
                fingerprint=fingerprint,
                acceptance=reason.get("acceptance"),
                acceptance_expired=reason.get("acceptanceExpired"),
            )
        )
    return sorted(groups.values(), key=lambda g: _rule_rank(g.rule_id))
