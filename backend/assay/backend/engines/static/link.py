"""The linker: joins the per-file facts of a tree into the bundle's models, tools, actions, gates,
taint flows and frontier. Language-neutral: Python and JS/TS facts follow the same naming scheme.

- Calls are resolved to functions in the tree: exactly by qualname, or (Python) by a dotted suffix on
  a segment boundary, so ``pkg.helpers.run`` finds ``src.pkg.helpers.run`` when that is unambiguous.
- For each tool, every action reachable from its function (depth-bounded, cycle-safe) is recorded
  with one call chain and the gates guaranteed on every path from the tool to the action: a gate counts
  on a path when it dominates one of the path's call sites or the action itself.
- Taint: a tool's parameters are model-chosen; model outputs are model-chosen. Both flow through
  call arguments into callee parameters and out through return values, to a fixpoint.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from assay.backend.bundle import (
    Action,
    FrontierItem,
    Gate,
    Location,
    ModelUse,
    TaintFlow,
    Tool,
    ToolPath,
)
from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import CallFact, FileFacts, FunctionFacts, TaintOrigin, ToolDef
from assay.backend.engines.static.rulepack import RulePack

MAX_DEPTH = 12
EXECUTION_SINKS = frozenset({"shell.exec", "code.exec", "db.write"})
TAINT_EXEC_RULE = "TAINT-EXEC-001"
TAINT_ACTION_RULE = "TAINT-ACTION-001"


class Linked(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    models: list[ModelUse]
    tools: list[Tool]
    actions: list[Action]
    gates: list[Gate]
    taintFlows: list[TaintFlow]
    frontier: list[FrontierItem]


@dataclass
class _Fn:
    facts: FunctionFacts
    path: str
    # Calls resolved to functions in the tree: (callee function id, the call).
    edges: list[tuple[str, CallFact]] = field(default_factory=list)


@dataclass(frozen=True)
class _Source:
    kind: str  # "model_output" | "tool_argument"
    location: Location
    path: tuple[Location, ...]


class _Resolver:
    def __init__(self, functions: dict[str, _Fn]) -> None:
        self.exact: dict[str, str] = {}
        suffixes: dict[str, set[str]] = {}
        for fid, fn in functions.items():
            qualname = fn.facts.qualname
            self.exact[qualname] = fid
            if "#" in qualname:
                continue
            parts = qualname.split(".")
            for start in range(1, len(parts) - 1):
                suffixes.setdefault(".".join(parts[start:]), set()).add(fid)
        self.suffix = {name: next(iter(ids)) for name, ids in suffixes.items() if len(ids) == 1}

    def resolve(self, callee: str) -> str | None:
        if callee in self.exact:
            return self.exact[callee]
        if callee in self.suffix:
            return self.suffix[callee]
        # ``pkg.mod.Class`` called as a constructor: its ``__init__`` runs.
        init = self.exact.get(f"{callee}.__init__") or self.suffix.get(f"{callee}.__init__")
        return init


def _loc_key(loc: Location) -> tuple[str, int, int]:
    return (loc.path, loc.line, loc.column)


def link(files: Sequence[FileFacts], rules: RulePack) -> Linked:
    """Join per-file facts into the tree's evidence. Deterministic: every list is sorted."""
    del rules  # the linker applies no rules of its own; kept for a stable signature
    functions: dict[str, _Fn] = {}
    for facts in files:
        for function in facts.functions:
            functions[function.id] = _Fn(facts=function, path=facts.path)
    resolver = _Resolver(functions)
    for fn in functions.values():
        for call in fn.facts.calls:
            target = resolver.resolve(call.callee)
            if target is not None:
                fn.edges.append((target, call))

    tools = [t for f in files for t in f.tools]
    tool_fn = {t.id: resolver.resolve(t.function) if t.function else None for t in tools}

    reach = _reach(functions, tools, tool_fn)
    flows = _taint(functions, tools, tool_fn)

    actions: list[Action] = []
    for fid, fn in functions.items():
        for site in fn.facts.actions:
            paths = reach.get(site.id, [])
            own = set(site.dominatingGates)
            gate_ids = sorted(_common(paths) | own) if paths else sorted(own)
            actions.append(
                Action(
                    id=site.id,
                    actionClass=site.actionClass,
                    impact=site.impact,
                    ruleId=site.ruleId,
                    target=site.target,
                    location=site.location,
                    function=fid,
                    reachedFrom=sorted(paths, key=lambda p: (p.toolId, [_loc_key(c) for c in p.calls])),
                    gateIds=gate_ids,
                )
            )

    action_index = {a.id: a for a in actions}
    taint_flows = []
    for action_id, source in sorted(flows, key=lambda f: (f[0], f[1].kind, _loc_key(f[1].location))):
        action = action_index[action_id]
        rule = TAINT_EXEC_RULE if action.actionClass in EXECUTION_SINKS else TAINT_ACTION_RULE
        taint_flows.append(
            TaintFlow(
                id=short_id("flow", action_id, source.kind, *_loc_key(source.location)),
                ruleId=rule,
                sourceKind="model_output" if source.kind == "model_output" else "tool_argument",
                source=source.location,
                sink=action.location,
                actionId=action_id,
                actionClass=action.actionClass,
                path=[*source.path, action.location],
            )
        )

    gates = [
        Gate(id=g.id, kind=g.kind, ruleId=g.ruleId, location=g.location, function=fid, detail=g.detail)
        for fid, fn in functions.items()
        for g in fn.facts.gates
    ]
    models = [
        ModelUse(id=m.id, provider=m.provider, api=m.api, via=m.via, ruleId=m.ruleId, location=m.location)
        for f in files
        for m in f.models
    ]
    bundle_tools = [
        Tool(
            id=t.id,
            name=t.name,
            description=t.description,
            framework=t.framework,
            ruleId=t.ruleId,
            location=t.location,
            function=tool_fn.get(t.id),
            parameters=t.parameters,
            annotations=t.annotations,
        )
        for t in tools
    ]
    frontier = [
        FrontierItem(id=s.id, kind=s.kind, detail=s.detail, location=s.location, path=f.path, ruleId=s.ruleId)
        for f in files
        for s in f.frontier
    ]
    return Linked(
        models=sorted(_dedupe(models), key=lambda m: (*_loc_key(m.location), m.id)),
        tools=sorted(_dedupe(bundle_tools), key=lambda t: (*_loc_key(t.location), t.id)),
        actions=sorted(actions, key=lambda a: (*_loc_key(a.location), a.id)),
        gates=sorted(_dedupe(gates), key=lambda g: (*_loc_key(g.location), g.id)),
        taintFlows=taint_flows,
        frontier=sorted(_dedupe(frontier), key=lambda f: (f.kind, f.path or "", f.id)),
    )


def _common(paths: Sequence[ToolPath]) -> set[str]:
    common = set(paths[0].gateIds)
    for path in paths[1:]:
        common &= set(path.gateIds)
    return common


def _reach(
    functions: dict[str, _Fn], tools: Sequence[ToolDef], tool_fn: dict[str, str | None]
) -> dict[str, list[ToolPath]]:
    """For every action: one ToolPath per tool that reaches it."""
    out: dict[str, list[ToolPath]] = {}
    for tool in tools:
        start = tool_fn.get(tool.id)
        if start is None:
            continue
        # Gates guaranteed at each function's entry on every path from the tool: intersect over edges.
        guaranteed: dict[str, frozenset[str]] = {start: frozenset()}
        chain: dict[str, tuple[Location, ...]] = {start: ()}
        depth: dict[str, int] = {start: 0}
        queue = deque([start])
        while queue:
            fid = queue.popleft()
            if depth[fid] >= MAX_DEPTH:
                continue
            for target, call in functions[fid].edges:
                incoming = guaranteed[fid] | frozenset(call.dominatingGates)
                if target not in guaranteed:
                    guaranteed[target] = incoming
                    chain[target] = (*chain[fid], call.location)
                    depth[target] = depth[fid] + 1
                    queue.append(target)
                else:
                    narrowed = guaranteed[target] & incoming
                    if narrowed != guaranteed[target]:
                        guaranteed[target] = narrowed
                        queue.append(target)
        for fid, gates in guaranteed.items():
            for site in functions[fid].facts.actions:
                out.setdefault(site.id, []).append(
                    ToolPath(
                        toolId=tool.id,
                        calls=list(chain[fid]),
                        gateIds=sorted(gates | frozenset(site.dominatingGates)),
                    )
                )
    return out


def _taint(
    functions: dict[str, _Fn], tools: Sequence[ToolDef], tool_fn: dict[str, str | None]
) -> set[tuple[str, _Source]]:
    """(action id, source) pairs: model-chosen data reaching an action's sink."""
    tainted: dict[str, dict[str, _Source]] = {}
    for tool in tools:
        fid = tool_fn.get(tool.id)
        if fid is None:
            continue
        params = tainted.setdefault(fid, {})
        for param in functions[fid].facts.params:
            params.setdefault(param, _Source("tool_argument", tool.location, ()))

    returns: dict[str, _Source] = {}

    def origin_source(fid: str, origin: TaintOrigin, resolve: dict[str, str | None]) -> _Source | None:
        if origin.kind == "model_output" and origin.location is not None:
            return _Source("model_output", origin.location, ())
        if origin.kind == "param" and origin.param is not None:
            return tainted.get(fid, {}).get(origin.param)
        if origin.kind == "call_return" and origin.callee is not None:
            target = resolve.get(origin.callee)
            return returns.get(target) if target else None
        return None

    resolver = _Resolver(functions)
    resolve_cache: dict[str, str | None] = {}
    for fn in functions.values():
        for origin in (*fn.facts.returns, *(o for a in fn.facts.actions for o in a.taint)):
            if origin.callee and origin.callee not in resolve_cache:
                resolve_cache[origin.callee] = resolver.resolve(origin.callee)
        for call in fn.facts.calls:
            for arg in call.args:
                for origin in arg.origins:
                    if origin.callee and origin.callee not in resolve_cache:
                        resolve_cache[origin.callee] = resolver.resolve(origin.callee)

    changed = True
    rounds = 0
    while changed and rounds < 50:
        changed = False
        rounds += 1
        for fid, fn in functions.items():
            for origin in fn.facts.returns:
                source = origin_source(fid, origin, resolve_cache)
                if source is not None and fid not in returns:
                    returns[fid] = source
                    changed = True
            for target, call in fn.edges:
                callee = functions[target].facts
                offset = 1 if callee.params[:1] in (["self"], ["cls"]) and "." in callee.qualname else 0
                for arg in call.args:
                    name: str | None = None
                    if arg.keyword is not None:
                        name = arg.keyword if arg.keyword in callee.params else None
                    elif arg.index is not None and arg.index + offset < len(callee.params):
                        name = callee.params[arg.index + offset]
                    if name is None:
                        continue
                    for origin in arg.origins:
                        source = origin_source(fid, origin, resolve_cache)
                        if source is None:
                            continue
                        params = tainted.setdefault(target, {})
                        if name not in params:
                            params[name] = _Source(source.kind, source.location, (*source.path, call.location))
                            changed = True
                        break

    flows: set[tuple[str, _Source]] = set()
    for fid, fn in functions.items():
        for site in fn.facts.actions:
            for origin in site.taint:
                source = origin_source(fid, origin, resolve_cache)
                if source is not None:
                    flows.add((site.id, source))
    return flows


_T = TypeVar("_T", ModelUse, Tool, Gate, FrontierItem)


def _dedupe(items: list[_T]) -> list[_T]:
    seen: dict[str, _T] = {}
    for item in items:
        seen.setdefault(item.id, item)
    return list(seen.values())
