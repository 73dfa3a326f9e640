"""Compare one unit's labels with the bundle the engine made of it (the scoring rules of CORPUS-FORMAT.md).

Both sides are plain JSON dicts (the bundle as ``model_dump(mode="json")`` gives it), so the rules can be
tested on hand-made bundles. Matching is one-to-one for tools: a bundle tool matches at most one label,
so a tool reported twice counts once as found and once against precision.

A location matches a label when the path is equal and the label's line is within the tolerance of the
bundle's line, or inside the bundle location's span [line, endLine].
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

TOOL_TOLERANCE = 3
ACTION_TOLERANCE = 2
GATE_TOLERANCE = 2
TAINT_TOLERANCE = 2
PROVIDER_TOLERANCE = 3
DECOY_TOLERANCE = 2

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Count:
    found: int
    total: int

    def __add__(self, other: Count) -> Count:
        return Count(self.found + other.found, self.total + other.total)

    @property
    def ratio(self) -> float | None:
        return self.found / self.total if self.total else None


@dataclass(slots=True)
class UnitScore:
    """What matched in one unit, and every miss with the reason the engine helpers need."""

    tools: Count = Count(0, 0)
    tool_precision: Count = Count(0, 0)
    actions: Count = Count(0, 0)
    gates: Count = Count(0, 0)
    # found = gates tied to a tool's action that match a gate label, total = gates tied to a tool's action
    gate_precision: Count = Count(0, 0)
    taint: Count = Count(0, 0)
    providers: Count = Count(0, 0)
    model_ids: Count = Count(0, 0)
    decoys: Count = Count(0, 0)  # found = decoys attributed to a tool (target 0), total = decoys labelled
    misses: list[str] = field(default_factory=list)


def located(location: Json, path: str, line: int, tolerance: int) -> bool:
    """True when ``location`` (a bundle Location) is at ``path`` and within ``tolerance`` of ``line``
    or spans it."""
    if location.get("path") != path:
        return False
    start = int(location["line"])
    end = location.get("endLine")
    if abs(start - line) <= tolerance:
        return True
    return end is not None and start <= line <= int(end)


def score_unit(label: Json, bundle: Json) -> UnitScore:
    score = UnitScore()
    tool_ids = _match_tools(label, bundle, score)
    _match_actions(label, bundle, tool_ids, score)
    _match_gates(label, bundle, tool_ids, score)
    _match_gate_precision(label, bundle, score)
    _match_taint(label, bundle, score)
    _match_providers(label, bundle, score)
    _match_decoys(label, bundle, score)
    return score


def _match_tools(label: Json, bundle: Json, score: UnitScore) -> dict[str, set[str]]:
    """Match labelled tools to bundle tools; return label tool name -> matched bundle tool ids."""
    bundle_tools: list[Json] = list(bundle.get("tools", []))
    taken: set[str] = set()
    ids: dict[str, set[str]] = {}
    found = 0
    labelled = label.get("tools", [])
    for tool in labelled:
        candidates = [
            t
            for t in bundle_tools
            if t["id"] not in taken
            and t["name"] == tool["name"]
            and located(t["location"], tool["path"], tool["line"], TOOL_TOLERANCE)
        ]
        ids.setdefault(tool["name"], set())
        if not candidates:
            near = [t for t in bundle_tools if t["name"] == tool["name"]]
            hint = f"; the engine has it at {_where(near[0]['location'])}" if near else ""
            score.misses.append(f"tool {tool['name']} ({tool['path']}:{tool['line']}) not found{hint}")
            continue
        best = min(candidates, key=lambda t: abs(int(t["location"]["line"]) - tool["line"]))
        taken.add(best["id"])
        ids[tool["name"]].add(best["id"])
        found += 1
    score.tools = Count(found, len(labelled))
    score.tool_precision = Count(len(taken), len(bundle_tools))
    for t in bundle_tools:
        if t["id"] not in taken:
            score.misses.append(f"extra tool {t['name']} at {_where(t['location'])} ({t['framework']}) is not labelled")
    return ids


def _reached_from(action: Json, tool_ids: set[str]) -> bool:
    return any(p["toolId"] in tool_ids for p in action.get("reachedFrom", []))


def _match_actions(label: Json, bundle: Json, tool_ids: dict[str, set[str]], score: UnitScore) -> None:
    actions: list[Json] = bundle.get("actions", [])
    found = 0
    labelled = label.get("actions", [])
    for item in labelled:
        ids = tool_ids.get(item["tool"], set())
        at = [
            a
            for a in actions
            if a["actionClass"] == item["class"]
            and located(a["location"], item["path"], item["line"], ACTION_TOLERANCE)
        ]
        if any(_reached_from(a, ids) for a in at):
            found += 1
            continue
        what = f"action {item['class']} at {item['path']}:{item['line']} from tool {item['tool']}"
        if not ids:
            reason = "the tool itself was not found"
        elif at:
            reason = f"the action is seen ({at[0]['target']}) but not reached from the tool"
        else:
            other = [a for a in actions if located(a["location"], item["path"], item["line"], ACTION_TOLERANCE)]
            seen = ", ".join(sorted({f"{a['actionClass']} ({a['target']})" for a in other}))
            reason = f"the engine has {seen} there" if other else "no action there"
        score.misses.append(f"{what}: {reason}")
    score.actions = Count(found, len(labelled))


def _dominating_gate_ids(bundle: Json, ids: set[str]) -> set[str]:
    """Ids of gates that dominate some action on a path from one of the tools ``ids``."""
    gates: set[str] = set()
    for action in bundle.get("actions", []):
        paths = [p for p in action.get("reachedFrom", []) if p["toolId"] in ids]
        if not paths:
            continue
        gates.update(action.get("gateIds", []))
        for path in paths:
            gates.update(path.get("gateIds", []))
    return gates


def _match_gates(label: Json, bundle: Json, tool_ids: dict[str, set[str]], score: UnitScore) -> None:
    gates: list[Json] = bundle.get("gates", [])
    found = 0
    labelled = label.get("gates", [])
    for item in labelled:
        at = [g for g in gates if g["kind"] == item["kind"] and located(g["location"], item["path"], item["line"], 2)]
        tool = item.get("tool")
        if tool is None:
            ok = bool(at)
        else:
            dominating = _dominating_gate_ids(bundle, tool_ids.get(tool, set()))
            ok = any(g["id"] in dominating for g in at)
        if ok:
            found += 1
            continue
        what = f"gate {item['kind']} at {item['path']}:{item['line']}" + (f" for tool {tool}" if tool else "")
        if tool is not None and not tool_ids.get(tool):
            reason = "the tool itself was not found"
        elif at:
            reason = "the gate is seen but dominates no action reached from the tool"
        else:
            other = [g for g in gates if located(g["location"], item["path"], item["line"], GATE_TOLERANCE)]
            reason = f"the engine has a {other[0]['kind']} gate there" if other else "no gate there"
        score.misses.append(f"{what}: {reason}")
    score.gates = Count(found, len(labelled))


def _tied_gates(bundle: Json) -> dict[str, list[Json]]:
    """Gate id -> the actions reached from a tool whose ``gateIds`` (every path) hold it: the gates that
    lower a disposition."""
    tied: dict[str, list[Json]] = {}
    for action in bundle.get("actions", []):
        if not action.get("reachedFrom"):
            continue
        for gate_id in action.get("gateIds", []):
            tied.setdefault(gate_id, []).append(action)
    return tied


def _match_gate_precision(label: Json, bundle: Json, score: UnitScore) -> None:
    """Gate precision: of the bundle gates tied to an action reached from a tool, those at a gate label of the
    same kind (the recall's place matching; gate labels are exhaustive within a unit). The others are false
    gates, listed with the actions they are tied to."""
    labelled = label.get("gates", [])
    tied = _tied_gates(bundle)
    names = {t["id"]: t["name"] for t in bundle.get("tools", [])}
    found = counted = 0
    for gate in bundle.get("gates", []):
        actions = tied.get(gate["id"])
        if not actions:
            continue
        counted += 1
        if any(
            gate["kind"] == item["kind"] and located(gate["location"], item["path"], item["line"], GATE_TOLERANCE)
            for item in labelled
        ):
            found += 1
            continue
        tools = sorted({names.get(p["toolId"], p["toolId"]) for a in actions for p in a["reachedFrom"]})
        over = ", ".join(sorted({f"{a['actionClass']} at {_where(a['location'])}" for a in actions}))
        detail = f", {gate['detail']}" if gate.get("detail") else ""
        score.misses.append(
            f"false gate {gate['kind']} at {_where(gate['location'])} ({gate['ruleId']}{detail}): "
            f"no gate labelled there, yet it gates {over} (tools {', '.join(tools)})"
        )
    score.gate_precision = Count(found, counted)


def _match_taint(label: Json, bundle: Json, score: UnitScore) -> None:
    flows: list[Json] = bundle.get("taintFlows", [])
    found = 0
    labelled = label.get("taint", [])
    for item in labelled:
        if any(
            f["actionClass"] == item["class"] and located(f["sink"], item["path"], item["line"], TAINT_TOLERANCE)
            for f in flows
        ):
            found += 1
            continue
        other = [f for f in flows if located(f["sink"], item["path"], item["line"], TAINT_TOLERANCE)]
        reason = f"the engine has a {other[0]['actionClass']} flow there" if other else "no flow to that sink"
        score.misses.append(f"taint {item['class']} to {item['path']}:{item['line']}: {reason}")
    score.taint = Count(found, len(labelled))


def _match_providers(label: Json, bundle: Json, score: UnitScore) -> None:
    models: list[Json] = bundle.get("models", [])
    found = right = named = 0
    labelled = label.get("providers", [])
    for item in labelled:
        at = [
            m
            for m in models
            if m["provider"] == item["provider"]
            and located(m["location"], item["path"], item["line"], PROVIDER_TOLERANCE)
        ]
        if not at:
            other = [m for m in models if located(m["location"], item["path"], item["line"], PROVIDER_TOLERANCE)]
            reason = f"the engine says {other[0]['provider']}" if other else "no model call there"
            score.misses.append(f"provider {item['provider']} at {item['path']}:{item['line']}: {reason}")
            continue
        found += 1
        if item["model"] is not None:
            named += 1
            if any(m.get("model") == item["model"] for m in at):
                right += 1
            else:
                got = sorted({str(m.get("model")) for m in at})
                score.misses.append(
                    f"model id at {item['path']}:{item['line']}: labelled {item['model']!r}, engine {', '.join(got)}"
                )
    score.providers = Count(found, len(labelled))
    score.model_ids = Count(right, named)


def _match_decoys(label: Json, bundle: Json, score: UnitScore) -> None:
    actions: list[Json] = bundle.get("actions", [])
    attributed = 0
    labelled = label.get("decoys", [])
    for item in labelled:
        hits = [
            a
            for a in actions
            if a.get("reachedFrom") and located(a["location"], item["path"], item["line"], DECOY_TOLERANCE)
        ]
        if hits:
            attributed += 1
            names = {t["id"]: t["name"] for t in bundle.get("tools", [])}
            tools = sorted({names.get(p["toolId"], p["toolId"]) for a in hits for p in a["reachedFrom"]})
            score.misses.append(
                f"decoy {item['class']} at {item['path']}:{item['line']} is attributed to {', '.join(tools)}"
            )
    score.decoys = Count(attributed, len(labelled))


def _where(location: Json) -> str:
    return f"{location['path']}:{location['line']}"


def total(scores: Iterable[UnitScore]) -> UnitScore:
    """Micro-averaged totals: every labelled item of every unit counts once."""
    result = UnitScore()
    for s in scores:
        result.tools += s.tools
        result.tool_precision += s.tool_precision
        result.actions += s.actions
        result.gates += s.gates
        result.gate_precision += s.gate_precision
        result.taint += s.taint
        result.providers += s.providers
        result.model_ids += s.model_ids
        result.decoys += s.decoys
    return result
