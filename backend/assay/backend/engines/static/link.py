"""The linker: joins the per-file facts of a tree into the bundle's models, tools, actions, gates,
taint flows and frontier. Language-neutral: Python and JS/TS facts follow the same naming scheme.

- Calls are resolved to functions in the tree: exactly by qualname, or (dotted Python names) by a
  suffix on a segment boundary, so ``pkg.helpers.run`` finds ``src.pkg.helpers.run``. Several
  candidates are narrowed to those sharing the longest module prefix with the caller; a tie stays
  unresolved rather than guessed. ``pkg.mod.Class(...)`` runs ``pkg.mod.Class.__init__``.
- For each tool, every action reachable from its function (depth-bounded, cycle-safe) is recorded
  with one call chain and the gates guaranteed on every path from the tool to the action: a gate counts
  on a path when it dominates one of the path's call sites or the action itself.
- Taint: a tool's parameters are model-chosen; model outputs are model-chosen. Both flow through
  call arguments into callee parameters and out through return values. Return values are summarised
  per function (which sources it returns whatever its callers pass, and which parameters reach its
  return), so a helper called with model text by one caller does not taint another caller.
  Calls to code outside the tree pass their arguments' taint through.
- Calls on receivers the analyzer could not type, inside code a tool reaches, are ``unresolved_call``
  frontier items (one per function and callee) when the file's language has a rule asking for them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    AFTER,
    EXIT,
    NEVER,
    OK_EXIT,
    RESULT,
    ActionSite,
    ArgTaint,
    CallFact,
    FileFacts,
    FunctionFacts,
    GateSite,
    SqlKind,
    TaintOrigin,
    ToolDef,
)
from assay.backend.engines.static.link_sources import (
    expand_lists,
    expand_records,
    module_heads,
    settle_imported,
    settle_receivers,
    without_package,
)
from assay.backend.engines.static.returned import through_returns
from assay.backend.engines.static.rulepack import Rule, RulePack
from assay.backend.engines.static.sqlflow import NO_CTX, Ctx, SqlContexts, param_for
from assay.backend.engines.static.tool_uses import bind_tools
from assay.backend.scans.bundle import (
    Action,
    ActionClass,
    FrontierItem,
    Gate,
    Impact,
    Location,
    ModelUse,
    TaintFlow,
    Tool,
    ToolPath,
)

MAX_DEPTH = 12
# Project path aliases the JS/TS analyzer names as modules of the tree (``~/utils/x#name``).
_TREE_ALIASES = ("@/", "~/")
# Distinct sources kept per parameter: enough for every real tool graph, a bound for generated ones.
MAX_SOURCES = 32
EXECUTION_SINKS = frozenset({"shell.exec", "code.exec", "sql.exec", "db.write"})
_SQL_KINDS: tuple[SqlKind, ...] = ("write", "read")
TAINT_EXEC_RULE = "TAINT-EXEC-001"
TAINT_ACTION_RULE = "TAINT-ACTION-001"
# Parameters that never carry model-chosen values into a tool's function.
_RECEIVER_PARAMS = frozenset({"self", "cls"})
_NON_TOOL_PARAMS = _RECEIVER_PARAMS | {"ctx", "context", "run_context", "config", "callbacks", "run_manager"}


class Linked(BaseModel):
    """Everything the tree's files say together; every list sorted by (path, line, column, id)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: list[ModelUse]
    tools: list[Tool]
    actions: list[Action]
    gates: list[Gate]
    taintFlows: list[TaintFlow]
    frontier: list[FrontierItem]


@dataclass
class _Fn:
    id: str
    facts: FunctionFacts
    path: str
    language: str
    calls: list[CallFact]
    actions: list[ActionSite]
    returns: list[TaintOrigin]
    gates: list[GateSite]
    # Calls resolved to functions in the tree: (callee function id, the call).
    edges: list[tuple[str, CallFact]] = field(default_factory=list)
    # Calls by callee name, for reading ``call_return`` origins at their call sites.
    by_callee: dict[str, list[CallFact]] = field(default_factory=dict)
    targets: dict[str, str | None] = field(default_factory=dict)

    @property
    def params(self) -> list[str]:
        return self.facts.params


class _Resolver:
    """Callee names -> function ids, exactly or by a dotted suffix on a segment boundary, or through
    the modules that re-export a name (JS/TS ``export { X } from "./x"``, ``export * from``)."""

    def __init__(
        self,
        functions: dict[str, _Fn],
        heads: frozenset[str] = frozenset(),
        reexports: dict[str, list[str]] | None = None,
    ) -> None:
        self.heads = heads
        self.reexports = reexports or {}
        self.exact: dict[str, str] = {}
        # Qualnames defined in several files: a method of an interface or base class, defined by each
        # implementing class (JS/TS), is called on all of them.
        self.every: dict[str, list[str]] = {}
        self.suffix: dict[str, list[str]] = {}
        for fid in sorted(functions):
            qualname = functions[fid].facts.qualname
            first = self.exact.setdefault(qualname, fid)
            if first != fid and "#" in qualname:
                self.every.setdefault(qualname, [first]).append(fid)
            if "#" in qualname:
                continue
            parts = qualname.split(".")
            for start in range(1, len(parts) - 1):
                self.suffix.setdefault(".".join(parts[start:]), []).append(fid)
        self.functions = functions
        # Modules of the tree (JS/TS), for names imported through a project path alias (``~/utils/x``).
        self.modules = sorted(
            {q.partition("#")[0] for q in self.exact if "#" in q} | {n.partition("#")[0] for n in self.reexports}
        )
        self._aliased: dict[str, str | None] = {}

    def resolve(self, callee: str, caller: str, depth: int = 0) -> str | None:
        """The function ``callee`` names, as seen from the function or module ``caller``; failing
        that, the same name without the tree's own package name (``without_package``), or the name
        a re-exporting module stands for."""
        for name in (callee, f"{callee}.__init__"):
            found = self.exact.get(name)
            if found is not None:
                return found
            candidates = self.suffix.get(name)
            if candidates:
                return self._closest(candidates, caller)
        if callee.startswith(_TREE_ALIASES) and depth < 8:
            module, _, rest = callee.partition("#")
            found_module = self.aliased(module)
            return self.resolve(f"{found_module}#{rest}", caller, depth + 1) if found_module else None
        for stripped in without_package(callee, self.heads):
            return self.resolve(stripped, caller)
        if self.reexports and "#" in callee and depth < 8:
            for name in self._reexported(callee):
                found = self.resolve(name, caller, depth + 1)
                if found is not None:
                    return found
        return None

    def _reexported(self, callee: str) -> list[str]:
        """What ``types#Manager.cleanup`` names where ``types`` re-exports ``Manager`` from another module."""
        module, _, rest = callee.partition("#")
        head = rest
        while True:
            targets = self.reexports.get(f"{module}#{head}")
            if targets:
                return [t + rest[len(head) :] for t in targets]
            if "." not in head:
                break
            head = head.rsplit(".", 1)[0]
        return [f"{t}{rest}" for t in self.reexports.get(f"{module}#*", ())]

    def aliased(self, module: str) -> str | None:
        """The module of the tree a path alias names (``~/utils/x`` -> ``src/utils/x``, as tsconfig
        ``paths`` map ``~/*`` or ``@/*`` to a source root): the module that is the rest of the path, or
        the only one ending with it; None when none or several do."""
        if module not in self._aliased:
            rest = module[2:]
            exact = [m for m in self.modules if m == rest]
            ending = exact or [m for m in self.modules if m.endswith(f"/{rest}")]
            self._aliased[module] = ending[0] if len(ending) == 1 else None
        return self._aliased[module]

    def origins(self, name: str, depth: int = 0) -> list[str]:
        """Every name a JS/TS name may stand for through path aliases and re-exports, nearest first
        (``mcp/tools#getDataTool`` -> ``mcp/tools/get-data-tool#getDataTool``), for joining tools."""
        if depth > 4 or "#" not in name:
            return []
        module, _, rest = name.partition("#")
        if module.startswith(_TREE_ALIASES):
            found = self.aliased(module)
            out = [f"{found}#{rest}"] if found else []
        else:
            out = self._reexported(name) if self.reexports else []
        for each in list(out):
            out.extend(self.origins(each, depth + 1))
        return out

    def _closest(self, candidates: list[str], caller: str) -> str | None:
        if len(candidates) == 1:
            return candidates[0]
        origin = caller.split(".")
        scored: dict[int, list[str]] = {}
        for fid in candidates:
            parts = self.functions[fid].facts.qualname.split(".")
            shared = 0
            for mine, theirs in zip(origin, parts, strict=False):
                if mine != theirs:
                    break
                shared += 1
            scored.setdefault(shared, []).append(fid)
        best = scored[max(scored)]
        return best[0] if len(best) == 1 else None


@dataclass(frozen=True, slots=True)
class _Source:
    kind: Literal["model_output", "tool_argument"]
    location: Location
    path: tuple[Location, ...]
    # Identifies the source (kind and location) whatever the path it came by; read very often.
    key: tuple[str, str, int, int]

    @classmethod
    def at(cls, kind: Literal["model_output", "tool_argument"], location: Location) -> _Source:
        return cls(kind, location, (), (kind, location.path, location.line, location.column))

    def through(self, call: Location) -> _Source:
        return _Source(self.kind, self.location, (*self.path, call), self.key)


_Sources = dict[tuple[str, str, int, int], _Source]


def _loc_key(loc: Location) -> tuple[str, int, int]:
    return (loc.path, loc.line, loc.column)


def link(files: Sequence[FileFacts], rules: RulePack) -> Linked:
    """Join per-file facts into the tree's evidence. Deterministic whatever the order of ``files``."""
    ordered = sorted(files, key=lambda f: f.path)
    functions = _functions(ordered)
    resolver = _Resolver(functions, module_heads(ordered), {k: v for f in ordered for k, v in f.reexports.items()})
    for fn in functions.values():
        for call in fn.calls:
            if call.callee not in fn.targets:
                fn.targets[call.callee] = resolver.resolve(call.callee, fn.facts.qualname)
    through_returns(functions, resolver.resolve, rules)
    found_aliases = {
        short_id("fr", "unresolved_call", fn.path, fn.facts.qualname, callee)
        for fn in functions.values()
        for callee, target in fn.targets.items()
        if target is not None and callee.startswith(_TREE_ALIASES)
    }
    _after_calls(functions)
    for fn in functions.values():
        for call in fn.calls:
            target = fn.targets[call.callee]
            if target is not None:
                for each in resolver.every.get(functions[target].facts.qualname, (target,)):
                    fn.edges.append((each, call))
            fn.by_callee.setdefault(call.callee, []).append(call)
        for origin in (*fn.returns, *(o for a in fn.actions for o in a.taint)):
            if origin.kind == "call_return" and origin.callee and origin.callee not in fn.targets:
                fn.targets[origin.callee] = resolver.resolve(origin.callee, fn.facts.qualname)

    modules = {f.path: f.module for f in ordered}
    joined, tool_frontier = bind_tools([t for f in ordered for t in f.tools], resolver.origins)
    tools, tool_fn = _tools(ordered, resolver, modules, rules, joined)

    sql = SqlContexts(functions, resolver.every, rules)
    reach, reached = _reach(functions, tools, tool_fn, sql)
    flows = _Taint(functions, tools, tool_fn).flows()
    through_sql = {site_id for site_id, _source, via_sql in flows if via_sql}

    actions: list[Action] = []
    # A SQL sink split by what its callers pass (``sqlflow``): flows through its SQL text go to the
    # action of its own class, flows of bound values to the fixed-SQL action (a write before a read).
    value_target: dict[str, str] = {}
    for fid, fn in functions.items():
        for site in fn.actions:
            by_kind = reach.get(site.id, {})
            variants = sql.rules.get(site.ruleId, {}) if site.sqlParam is not None else {}
            kinds = [k for k in _SQL_KINDS if k in by_kind and k in variants]
            own_paths = by_kind.get(None, [])
            if own_paths or not kinds or site.id in through_sql:
                actions.append(_action(site, fid, own_paths, site.id, site.actionClass, site.impact, site.ruleId))
            for kind in kinds:
                fixed = variants[kind]
                action_id = short_id("act", site.id, kind)
                actions.append(
                    _action(
                        site,
                        fid,
                        by_kind[kind],
                        action_id,
                        fixed.actionClass or site.actionClass,
                        fixed.impact or site.impact,
                        fixed.id,
                    )
                )
                value_target.setdefault(site.id, action_id)
    action_index = {a.id: a for a in actions}

    taint_flows = []
    for site_id, source, via_sql in flows:
        action_id = site_id if via_sql else value_target.get(site_id, site_id)
        action = action_index[action_id]
        rule = TAINT_EXEC_RULE if action.actionClass in EXECUTION_SINKS else TAINT_ACTION_RULE
        taint_flows.append(
            TaintFlow(
                id=short_id("flow", action_id, *source.key),
                ruleId=rule,
                sourceKind=source.kind,
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
        for g in fn.gates
    ]
    models = [
        ModelUse(
            id=m.id, provider=m.provider, api=m.api, via=m.via, ruleId=m.ruleId, location=m.location, model=m.model
        )
        for f in ordered
        for m in f.models
    ]
    bundle_tools = [_tool(t, tool_fn.get(t.id), functions) for t in tools]
    # A literal tool's dispatch frontier item is answered once a branch in another file implements it,
    # or once no file imports it (an exported schema never listed to a model is no tool).
    kept = {t.id for t in tools}
    answered = {
        (t.location.path, t.location.line, f"tool {t.name} is defined as a literal")
        for t in (*tools, *(t for f in ordered for t in f.tools if t.source is not None and t.id not in kept))
        if t.function is None and (tool_fn.get(t.id) is not None or t.id not in kept)
    }
    frontier = [
        FrontierItem(id=s.id, kind=s.kind, detail=s.detail, location=s.location, path=f.path, ruleId=s.ruleId)
        for f in ordered
        for s in f.frontier
        if not (
            answered
            and s.kind == "dynamic_dispatch"
            and s.location is not None
            and (f.path, s.location.line, s.detail.split(";", 1)[0]) in answered
        )
    ]
    frontier.extend(tool_frontier)
    frontier.extend(_unresolved(functions, reached, rules))
    if found_aliases:  # calls through a path alias that the tree's modules answered
        frontier = [f for f in frontier if f.id not in found_aliases]

    def by_location(item: ModelUse | Tool | Action | Gate) -> tuple[str, int, int, str]:
        return (*_loc_key(item.location), item.id)

    def frontier_key(item: FrontierItem) -> tuple[str, int, int, str]:
        if item.location is not None:
            return (*_loc_key(item.location), item.id)
        return (item.path or "", 0, 0, item.id)

    return Linked(
        models=sorted(_dedupe(models), key=by_location),
        tools=sorted(_dedupe(bundle_tools), key=by_location),
        actions=sorted(actions, key=by_location),
        gates=sorted(_dedupe(gates), key=by_location),
        taintFlows=sorted(taint_flows, key=lambda f: (*_loc_key(f.sink), *_loc_key(f.source), f.id)),
        frontier=sorted(_dedupe(frontier), key=frontier_key),
    )


def _functions(files: Sequence[FileFacts]) -> dict[str, _Fn]:
    """Functions by id; a redefinition in the same file (same id) adds its calls and actions."""
    functions: dict[str, _Fn] = {}
    for facts in files:
        for function in facts.functions:
            known = functions.get(function.id)
            if known is None:
                functions[function.id] = _Fn(
                    id=function.id,
                    facts=function,
                    path=facts.path,
                    language=facts.language,
                    calls=list(function.calls),
                    actions=list(function.actions),
                    returns=list(function.returns),
                    gates=list(function.gates),
                )
            else:
                known.calls.extend(function.calls)
                known.actions.extend(function.actions)
                known.returns.extend(function.returns)
    return functions


def _after_calls(functions: dict[str, _Fn]) -> None:
    """Replaces each ``after:<callee>`` gate id by the gates that hold whenever that callee returns
    (its ``<exit>`` call's gates, themselves expanded), so a validator that throws unless its check
    passes gates what its caller does after calling it."""
    exits: dict[str, frozenset[str]] = {}
    ok_exits: dict[str, frozenset[str]] = {}
    for fid, fn in functions.items():
        for call in fn.calls:
            if call.callee == EXIT:
                exits[fid] = frozenset(call.dominatingGates)
            elif call.callee == OK_EXIT:
                ok_exits[fid] = frozenset(call.dominatingGates)
    sites = {g.id: g for fn in functions.values() for g in fn.gates} if ok_exits else {}

    def result_gate(fn: _Fn, gate: str, depth: int) -> str | None:
        """``result:<callee>|<line>|<column>``: a gate at that check, of the kind of the gates that hold
        where the callee returns its success result."""
        callee, line, column = gate[len(RESULT) :].rsplit("|", 2)
        target = fn.targets.get(callee)
        if target is None or target not in ok_exits or depth >= MAX_DEPTH:
            return None
        held = sorted(g for g in expand(functions[target], ok_exits[target], depth + 1) if g in sites)
        if not held:
            return None
        first = sites[held[0]]
        location = Location(path=fn.path, line=int(line), column=int(column))
        detail = f"{callee} returned its success result"
        site = GateSite(
            id=short_id("gate", fn.path, location.line, location.column, first.kind, detail),
            kind=first.kind,
            ruleId=first.ruleId,
            location=location,
            detail=detail,
        )
        if site.id not in sites:
            sites[site.id] = site
            fn.gates.append(site)
        return site.id

    def expand(fn: _Fn, ids: Iterable[str], depth: int) -> set[str]:
        out: set[str] = set()
        for gate in ids:
            if gate.startswith(RESULT):
                made = result_gate(fn, gate, depth)
                if made is not None:
                    out.add(made)
                continue
            if gate.startswith(NEVER):
                callee, _, held = gate[len(NEVER) :].rpartition("|")
                target = fn.targets.get(callee)
                if target is not None and functions[target].facts.returnType == "never":
                    out.add(held)
                continue
            if not gate.startswith(AFTER):
                out.add(gate)
                continue
            target = fn.targets.get(gate[len(AFTER) :])
            if target is not None and target in exits and depth < MAX_DEPTH:
                out |= expand(functions[target], exits[target], depth + 1)
        return out

    def changed(ids: list[str]) -> bool:
        return any(g.startswith((AFTER, NEVER, RESULT)) for g in ids)

    for fn in functions.values():
        if any(changed(c.dominatingGates) for c in fn.calls):
            fn.calls = [
                c.model_copy(update={"dominatingGates": sorted(expand(fn, c.dominatingGates, 0))})
                if changed(c.dominatingGates)
                else c
                for c in fn.calls
            ]
        if any(changed(a.dominatingGates) for a in fn.actions):
            fn.actions = [
                a.model_copy(update={"dominatingGates": sorted(expand(fn, a.dominatingGates, 0))})
                if changed(a.dominatingGates)
                else a
                for a in fn.actions
            ]


def _tools(
    files: Sequence[FileFacts],
    resolver: _Resolver,
    modules: dict[str, str],
    rules: RulePack,
    joined: list[ToolDef] | None = None,
) -> tuple[list[ToolDef], dict[str, str | None]]:
    """Tools with the function each resolves to. A function only listed as a tool somewhere
    (``ToolNode([f])``) is dropped when it is defined as a tool elsewhere (``@tool def f``), and is
    located at its def; a listed name that is a list of another module stands for its functions."""
    listed_rules = {r.id for r in rules.rules if r.kind == "tool" and "tool_lists" in r.match}
    defined = expand_records(
        settle_imported(
            settle_receivers(joined if joined is not None else [t for f in files for t in f.tools], files), files
        ),
        files,
    )

    def resolve(tools: list[ToolDef]) -> dict[str, str | None]:
        return {
            t.id: resolver.resolve(t.function, modules.get(t.location.path, "")) if t.function else None for t in tools
        }

    tool_fn = resolve(defined)
    expanded = expand_lists(defined, listed_rules, {k: v is not None for k, v in tool_fn.items()}, files)
    if expanded is not defined:
        defined = expanded
        tool_fn = resolve(defined)
    branches = _dispatch_branches(resolver.functions)
    for tool in defined:
        if tool_fn[tool.id] is None and tool.function is None:
            tool_fn[tool.id] = _branch_for(tool, branches.get(tool.name, []), resolver.functions)
    defining = {tool_fn[t.id] for t in defined if t.ruleId not in listed_rules}
    kept: list[ToolDef] = []
    listed: set[str | None] = set()
    for tool in defined:
        fid = tool_fn[tool.id]
        if tool.ruleId in listed_rules and fid is not None:
            if fid in defining or fid in listed:
                continue
            listed.add(fid)
            facts = resolver.functions[fid].facts
            if "#" not in facts.qualname:  # a function, not the dispatch branch a schema class runs
                tool = tool.model_copy(update={"location": facts.location})
        kept.append(tool)
    return kept, {t.id: tool_fn[t.id] for t in kept}


def _dispatch_branches(functions: dict[str, _Fn]) -> dict[str, list[str]]:
    """Branches of a dispatch on a tool's name (functions named ``case:<tool name>``), by tool name."""
    out: dict[str, list[str]] = {}
    for fid in sorted(functions):
        name = functions[fid].facts.name
        if name.startswith("case:"):
            out.setdefault(name[len("case:") :], []).append(fid)
    return out


def _branch_for(tool: ToolDef, candidates: list[str], functions: dict[str, _Fn]) -> str | None:
    """The dispatch branch implementing a tool defined without a function (an MCP tool listed as a
    literal, dispatched by name in another file): the only one, or the only one in the tool's file."""
    if len(candidates) == 1:
        return candidates[0]
    local = [fid for fid in candidates if functions[fid].path == tool.location.path]
    return local[0] if len(local) == 1 else None


def _tool(tool: ToolDef, fid: str | None, functions: dict[str, _Fn]) -> Tool:
    parameters = tool.parameters
    if not parameters and fid is not None:
        # Constructor-registered tools (``Tool(func=f)``) take their parameters from the function.
        parameters = [p for p in functions[fid].params if p not in _NON_TOOL_PARAMS]
    return Tool(
        id=tool.id,
        name=tool.name,
        description=tool.description,
        framework=tool.framework,
        ruleId=tool.ruleId,
        location=tool.location,
        function=fid,
        parameters=parameters,
        annotations=tool.annotations,
    )


def _action(
    site: ActionSite,
    fid: str,
    paths: list[ToolPath],
    action_id: str,
    action_class: ActionClass,
    impact: Impact,
    rule_id: str,
) -> Action:
    own = set(site.dominatingGates)
    return Action(
        id=action_id,
        actionClass=action_class,
        impact=impact,
        ruleId=rule_id,
        target=site.target,
        location=site.location,
        function=fid,
        reachedFrom=sorted(paths, key=lambda p: (p.toolId, [_loc_key(c) for c in p.calls])),
        gateIds=sorted(_common(paths) | own) if paths else sorted(own),
    )


def _common(paths: Sequence[ToolPath]) -> set[str]:
    common = set(paths[0].gateIds)
    for path in paths[1:]:
        common &= set(path.gateIds)
    return common


def _reach(
    functions: dict[str, _Fn], tools: Sequence[ToolDef], tool_fn: dict[str, str | None], sql: SqlContexts
) -> tuple[dict[str, dict[SqlKind | None, list[ToolPath]]], set[str]]:
    """For every action: one ToolPath per tool that reaches it, by the kind of fixed SQL its SQL
    parameter holds on that path (None: not fixed, or not a SQL sink; see ``sqlflow``); and every
    function a tool reaches."""
    out: dict[str, dict[SqlKind | None, list[ToolPath]]] = {}
    reached: set[str] = set()
    contexts = bool(sql.params)
    for tool in tools:
        start = tool_fn.get(tool.id)
        if start is None:
            continue
        # Gates guaranteed at each (function, SQL context)'s entry on every path from the tool: the
        # intersection over the edges that reach it. Sets only shrink, so revisiting terminates.
        first: tuple[str, Ctx] = (start, NO_CTX)
        guaranteed: dict[tuple[str, Ctx], frozenset[str]] = {first: frozenset()}
        chain: dict[tuple[str, Ctx], tuple[Location, ...]] = {first: ()}
        queue = deque([first])
        while queue:
            state = queue.popleft()
            if len(chain[state]) >= MAX_DEPTH:
                continue
            fid, ctx = state
            for target, call in functions[fid].edges:
                incoming = guaranteed[state] | frozenset(call.dominatingGates)
                following = (target, sql.enter(fid, ctx, target, call) if contexts else NO_CTX)
                known = guaranteed.get(following)
                if known is None:
                    guaranteed[following] = incoming
                    chain[following] = (*chain[state], call.location)
                    queue.append(following)
                elif not known <= incoming:
                    guaranteed[following] = known & incoming
                    queue.append(following)
        paths: dict[tuple[str, SqlKind | None], ToolPath] = {}
        for (fid, ctx), gates in guaranteed.items():
            reached.add(fid)
            for site in functions[fid].actions:
                key = (site.id, sql.kind_at(ctx, site.sqlParam))
                gate_ids = gates | frozenset(site.dominatingGates)
                known_path = paths.get(key)
                if known_path is None:
                    paths[key] = ToolPath(toolId=tool.id, calls=list(chain[(fid, ctx)]), gateIds=sorted(gate_ids))
                elif not set(known_path.gateIds) <= gate_ids:  # the same kind by another context
                    paths[key] = known_path.model_copy(update={"gateIds": sorted(set(known_path.gateIds) & gate_ids)})
        for (site_id, kind), path in paths.items():
            out.setdefault(site_id, {}).setdefault(kind, []).append(path)
    return out, reached


class _Taint:
    """Interprocedural taint over the resolved call graph.

    1. Return summaries, to a fixpoint: the sources each function returns whatever its callers pass
       (``direct``), and the parameters whose values reach its return (``through``).
    2. Parameter sources, over a worklist: tool parameters, then every tainted call argument into the
       callee's parameter, read in the caller's context (its own parameters' sources, and each
       ``call_return`` through the summaries with the arguments of that caller's calls).
    3. Every action's taint origins, read in its function's context.
    """

    def __init__(self, functions: dict[str, _Fn], tools: Sequence[ToolDef], tool_fn: dict[str, str | None]) -> None:
        self.functions = functions
        self.order = sorted(functions)
        self.direct: dict[str, _Sources] = {fid: {} for fid in functions}
        self.through: dict[str, frozenset[str]] = {fid: frozenset() for fid in functions}
        self.params: dict[str, dict[str, _Sources]] = {}
        for tool in tools:
            fid = tool_fn.get(tool.id)
            if fid is None:
                continue
            env = self.params.setdefault(fid, {})
            for param in functions[fid].params:
                if param not in _NON_TOOL_PARAMS:
                    source = _Source.at("tool_argument", tool.location)
                    env.setdefault(param, {}).setdefault(source.key, source)

    def flows(self) -> list[tuple[str, _Source, bool]]:
        """Every (action site, source) flow, and whether it reaches a SQL sink through its SQL text
        (``sqlParam``) rather than through bound values."""
        self._summaries()
        self._propagate()
        out: dict[tuple[str, tuple[str, str, int, int]], tuple[_Source, bool]] = {}
        for fid in self.order:
            fn = self.functions[fid]
            env = self.params.get(fid, {})
            for site in fn.actions:
                if site.sqlParam is not None:
                    text = [o for o in site.taint if o.kind == "param" and o.param == site.sqlParam]
                    for source in self._read(fid, text, env).values():
                        out.setdefault((site.id, source.key), (source, True))
                for source in self._read(fid, site.taint, env).values():
                    out.setdefault((site.id, source.key), (source, False))
        return [(action_id, *out[(action_id, key)]) for action_id, key in sorted(out)]

    # ----- summaries ------------------------------------------------------------------------------

    def _summaries(self) -> None:
        """Return summaries over a worklist: a function is read again only when one it calls changed.
        Summaries only grow, so this terminates; the budget is a guard for pathological graphs."""
        callers: dict[str, set[str]] = {}
        for fid in self.order:
            for target, _call in self.functions[fid].edges:
                callers.setdefault(target, set()).add(fid)
        pending = [fid for fid in self.order if self.functions[fid].returns]
        queue = deque(pending)
        queued = set(pending)
        budget = 4 * MAX_DEPTH * max(len(pending), 1)
        while queue and budget > 0:
            budget -= 1
            fid = queue.popleft()
            queued.discard(fid)
            fn = self.functions[fid]
            through = self._params_reaching(fid, fn.returns, set())
            direct = self._read(fid, fn.returns, {})
            if through != self.through[fid] or direct.keys() != self.direct[fid].keys():
                self.through[fid] = through
                self.direct[fid] = direct
                for caller in sorted(callers.get(fid, ())):
                    if caller not in queued and self.functions[caller].returns:
                        queue.append(caller)
                        queued.add(caller)

    def _params_reaching(self, fid: str, origins: Iterable[TaintOrigin], seen: set[str]) -> frozenset[str]:
        out: set[str] = set()
        fn = self.functions[fid]
        for origin in origins:
            if origin.kind == "param" and origin.param is not None:
                out.add(origin.param)
            elif origin.kind == "call_return" and origin.callee and origin.callee not in seen:
                seen.add(origin.callee)
                for _call, arg in self._returned_args(fn, origin.callee):
                    out |= self._params_reaching(fid, arg.origins, seen)
        return frozenset(out)

    # ----- reading origins in a function's context ---------------------------------------------------

    def _returned_args(self, fn: _Fn, callee: str) -> Iterable[tuple[CallFact, ArgTaint]]:
        """The arguments of ``fn``'s calls to ``callee`` whose values come back in its return value:
        those bound to a parameter the callee returns, or all of them for code outside the tree."""
        target = fn.targets.get(callee)
        for call in fn.by_callee.get(callee, ()):
            for arg in call.args:
                if target is None:
                    yield call, arg
                else:
                    name = param_for(self.functions[target], arg)
                    if name is not None and name in self.through[target]:
                        yield call, arg

    def _read(self, fid: str, origins: Iterable[TaintOrigin], env: dict[str, _Sources]) -> _Sources:
        out: _Sources = {}
        self._read_into(fid, origins, env, out, set())
        return out

    def _read_into(
        self, fid: str, origins: Iterable[TaintOrigin], env: dict[str, _Sources], out: _Sources, seen: set[str]
    ) -> None:
        fn = self.functions[fid]
        for origin in origins:
            if origin.kind == "model_output" and origin.location is not None:
                source = _Source.at("model_output", origin.location)
                out.setdefault(source.key, source)
            elif origin.kind == "param" and origin.param is not None:
                for key, source in env.get(origin.param, {}).items():
                    out.setdefault(key, source)
            elif origin.kind == "call_return" and origin.callee and origin.callee not in seen:
                seen.add(origin.callee)
                calls = fn.by_callee.get(origin.callee, ())
                at = calls[0].location if calls else None
                target = fn.targets.get(origin.callee)
                if target is not None:
                    for key, source in self.direct[target].items():
                        out.setdefault(key, source.through(at) if at is not None else source)
                for call, arg in self._returned_args(fn, origin.callee):
                    inner: _Sources = {}
                    self._read_into(fid, arg.origins, env, inner, seen)
                    for key, source in inner.items():
                        out.setdefault(key, source.through(call.location) if target is not None else source)

    # ----- parameters ---------------------------------------------------------------------------------

    def _propagate(self) -> None:
        queue = deque(self.order)
        queued = set(self.order)
        while queue:
            fid = queue.popleft()
            queued.discard(fid)
            fn = self.functions[fid]
            env = self.params.get(fid, {})
            for target, call in fn.edges:
                callee = self.functions[target]
                for arg in call.args:
                    name = param_for(callee, arg)
                    if name is None:
                        continue
                    sources = self._read(fid, arg.origins, env)
                    if not sources:
                        continue
                    into = self.params.setdefault(target, {}).setdefault(name, {})
                    grew = False
                    for key in sorted(sources):
                        if key not in into and len(into) < MAX_SOURCES:
                            into[key] = sources[key].through(call.location)
                            grew = True
                    if grew and target not in queued:
                        queue.append(target)
                        queued.add(target)


def _unresolved_rules(rules: RulePack) -> dict[str, tuple[Rule, frozenset[str]]]:
    """Per language, the rule asking for unresolved calls in code tools reach, with its skipped names."""
    out: dict[str, tuple[Rule, frozenset[str]]] = {}
    for language in ("python", "javascript"):
        for rule in rules.for_language(language, "frontier"):
            if rule.match.get("unresolved_in_tool_reach"):
                out[language] = (rule, frozenset(rule.match.get("skip_methods", [])))
    return out


def _unresolved(functions: dict[str, _Fn], reached: set[str], rules: RulePack) -> list[FrontierItem]:
    """``unresolved_call`` for calls a tool reaches whose callee is a method on an untyped receiver."""
    wanted = _unresolved_rules(rules)
    out: list[FrontierItem] = []
    for fid in sorted(reached):
        fn = functions[fid]
        language = "javascript" if fn.language in ("javascript", "typescript", "tsx") else fn.language
        entry = wanted.get(language)
        if entry is None:
            continue
        rule, skip = entry
        seen: set[str] = set()
        # ``self.attr.method()`` on an attribute of unknown type: named under the method's class.
        owner = fn.facts.qualname.rsplit(".", 1)[0] + "."
        for call in fn.calls:
            callee = call.callee
            untyped = not call.resolved or (callee.startswith(owner) and callee.count(".") - owner.count(".") >= 1)
            if not untyped or fn.targets.get(callee) is not None or callee in seen or "." not in callee:
                continue
            seen.add(callee)
            if callee.rsplit(".", 1)[1] in skip:
                continue
            out.append(
                FrontierItem(
                    id=short_id("fr", "unresolved_call", fn.path, fn.facts.qualname, callee),
                    kind="unresolved_call",
                    detail=(
                        f"{callee} is called on a value whose type analysis does not know, in code a tool "
                        "reaches; what it runs is not visible"
                    ),
                    location=call.location,
                    path=fn.path,
                    ruleId=rule.id,
                )
            )
    return out


_T = TypeVar("_T", ModelUse, Tool, Gate, FrontierItem)


def _dedupe(items: list[_T]) -> list[_T]:
    seen: dict[str, _T] = {}
    for item in items:
        seen.setdefault(item.id, item)
    return list(seen.values())
