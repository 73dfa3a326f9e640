"""The difference between two Evaluations of one AI System, as the workspace's compare page shows it.

Both sides are read from the Evaluations' own frozen payloads; nothing is recomputed.

- Reasons are matched by their line-free fingerprint (``reports.check_result.fingerprints``, the one the
  ``assay check`` baseline and SARIF ``partialFingerprints`` use): the rule, the message with every
  ``path:line`` reduced to ``path``, and the reason's rank among equal ones. A reason whose code only moved
  is unchanged; one only in the newer Evaluation is new; one only in the older is fixed.
- Tools the code gives a model (``fourQuestions.reach.codeCapable.tools``) are keyed by name, framework and
  file; actions the code can take (``…codeCapable.actions``) by action class, target, file and the tools
  that reach it. Lines and the engines' ids (which are derived from locations) are not part of a key, so
  moved code is neither added nor removed; identical keys are counted (two equal calls in one file are two).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anyio import to_thread
from starlette.responses import Response

from assay.backend.dashboard import urls
from assay.backend.dashboard.access import PageContext
from assay.backend.dashboard.manage import member_system
from assay.backend.reports.check_result import fingerprints, impact_rank
from assay.backend.storage.models import Evaluation


@dataclass(frozen=True, slots=True)
class ReasonLine:
    """A reason as the compare page lists it (the message of the side it is shown from)."""

    fingerprint: str
    rule_id: str
    disposition: str
    message: str


@dataclass(frozen=True, slots=True)
class Capability:
    """A tool or an action of one side: its stable key, what to call it, and where it is (with the line)."""

    key: tuple[str, ...]
    label: str
    location: str | None


@dataclass(slots=True)
class Difference:
    new: list[ReasonLine] = field(default_factory=list)
    fixed: list[ReasonLine] = field(default_factory=list)
    unchanged: list[ReasonLine] = field(default_factory=list)
    tools_added: list[Capability] = field(default_factory=list)
    tools_removed: list[Capability] = field(default_factory=list)
    actions_added: list[Capability] = field(default_factory=list)
    actions_removed: list[Capability] = field(default_factory=list)


def _reasons(data: Mapping[str, Any]) -> list[ReasonLine]:
    reasons = [r for r in data.get("reasons") or [] if isinstance(r, Mapping)]
    prints = fingerprints([(str(r.get("ruleId")), str(r.get("message"))) for r in reasons])
    lines = [
        ReasonLine(fp, str(r.get("ruleId", "?")), str(r.get("disposition", "")), str(r.get("message", "")))
        for r, fp in zip(reasons, prints, strict=True)
    ]
    # Heaviest first (a stable sort keeps the Evaluation's order within one rule), as every other view does.
    return sorted(lines, key=lambda line: impact_rank({"ruleId": line.rule_id, "disposition": line.disposition}))


def _code_capable(data: Mapping[str, Any]) -> Mapping[str, Any]:
    section = ((data.get("fourQuestions") or {}).get("reach") or {}).get("codeCapable") or {}
    return section if isinstance(section, Mapping) else {}


def _where(item: Mapping[str, Any]) -> tuple[str, str | None]:
    """The file of an item (part of its key) and its ``path:line`` (shown only)."""
    location = item.get("location")
    if not isinstance(location, Mapping) or not location.get("path"):
        return "", None
    path = str(location["path"])
    return path, f"{path}:{location['line']}" if location.get("line") is not None else path


def tools(data: Mapping[str, Any]) -> list[Capability]:
    """The tools the code gives a model, keyed by name, framework and file."""
    out = []
    for tool in _code_capable(data).get("tools") or []:
        if not isinstance(tool, Mapping):
            continue
        path, shown = _where(tool)
        name, framework = str(tool.get("name", "?")), str(tool.get("framework") or "")
        label = f"{name} ({framework})" if framework else name
        out.append(Capability(("tool", name, framework, path), label, shown))
    return out


def actions(data: Mapping[str, Any]) -> list[Capability]:
    """The actions the code can take, keyed by action class, target, file and the tools that reach them."""
    out = []
    for action in _code_capable(data).get("actions") or []:
        if not isinstance(action, Mapping):
            continue
        path, shown = _where(action)
        kind, target = str(action.get("actionClass", "?")), str(action.get("target") or "")
        reached_by = sorted(str(t) for t in action.get("tools") or [])
        label = f"{kind} {target}".strip() + (f" via {', '.join(reached_by)}" if reached_by else "")
        out.append(Capability(("action", kind, target, path, *reached_by), label, shown))
    return out


def _only_in(side: Sequence[Capability], other: Iterable[Capability]) -> list[Capability]:
    """The items of ``side`` its key count exceeds ``other``'s by (a multiset difference, in side's order)."""
    remaining = Counter(c.key for c in other)
    out = []
    for item in side:
        if remaining[item.key] > 0:
            remaining[item.key] -= 1
        else:
            out.append(item)
    return out


def difference(base: Mapping[str, Any], head: Mapping[str, Any]) -> Difference:
    """What changed from the ``base`` Evaluation's payload to the ``head``'s."""
    before, after = _reasons(base), _reasons(head)
    known = {r.fingerprint for r in before}
    kept = {r.fingerprint for r in after}
    base_tools, head_tools = tools(base), tools(head)
    base_actions, head_actions = actions(base), actions(head)
    return Difference(
        new=[r for r in after if r.fingerprint not in known],
        fixed=[r for r in before if r.fingerprint not in kept],
        unchanged=[r for r in after if r.fingerprint in known],
        tools_added=_only_in(head_tools, base_tools),
        tools_removed=_only_in(base_tools, head_tools),
        actions_added=_only_in(head_actions, base_actions),
        actions_removed=_only_in(base_actions, head_actions),
    )


def _side(row: Evaluation) -> dict[str, Any]:
    return {
        "id": row.id,
        "disposition": row.disposition,
        "created": urls.display_time(row.created_at),
        "methodology": row.methodology_version,
        "url": urls.evaluation(row.id),
    }


def _compare(base_json: str, head_json: str) -> Difference:
    return difference(json.loads(base_json), json.loads(head_json))


async def compare_page(page: PageContext) -> Response:
    """GET /dashboard/systems/{aiSystemId}/compare?base=E1&head=E2: what changed from E1 to E2."""
    assert page.user is not None
    system = await member_system(page)
    if system is None:
        return page.renderer.not_found(page.user)
    base_id = page.request.query_params.get("base", "").strip()
    head_id = page.request.query_params.get("head", "").strip()
    refuse = page.renderer.error
    if not base_id or not head_id:
        return refuse(page.user, 400, "Choose two evaluations", "Pick an older and a newer evaluation to compare.")
    if base_id == head_id:
        return refuse(
            page.user, 400, "Choose two different evaluations", "An evaluation compared with itself has no difference."
        )
    rows = []
    for evaluation_id in (base_id, head_id):
        row = await page.session.get(Evaluation, evaluation_id)
        if row is None or row.organization_id != system.organization_id:
            return page.renderer.not_found(page.user)
        if row.ai_system_id != system.id:
            return refuse(
                page.user,
                400,
                "Not an evaluation of this system",
                f"Evaluation {evaluation_id} is of another AI System; only evaluations of one system are compared.",
            )
        rows.append(row)
    base, head = rows
    changes = await to_thread.run_sync(_compare, base.payload_json, head.payload_json)
    return page.renderer.page(
        "compare.html",
        user=page.user,
        system=system,
        workspace=urls.system_workspace(system.id),
        base=_side(base),
        head=_side(head),
        swap=urls.compare(system.id, head.id, base.id),
        d=changes,
    )
