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

The parts live beside it in ``link/``: ``graph`` (functions and callee resolution), ``gates`` (gates
that hold after a call), ``taint`` (the taint pass), ``sources`` (tools built from lists, records and
imports), ``tool_uses``, ``returned`` and ``sqlflow``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    CALL_RESULT,
    CALLBACK,
    NAMED_AT_RUN_TIME,
    PARAM,
    PARAM_ARG,
    PARAM_KW,
    ActionSite,
    FileFacts,
    SqlKind,
    ToolDef,
)
from assay.backend.engines.static.held_gates import held_on_every_listing
from assay.backend.engines.static.link.bound_classes import bound_classes, bound_targets
from assay.backend.engines.static.link.factories import factory_models
from assay.backend.engines.static.link.gates import gates_after_calls, tool_name_dispatches
from assay.backend.engines.static.link.graph import (
    MAX_DEPTH,
    NON_TOOL_PARAMS,
    TREE_ALIASES,
    Fn,
    Resolver,
    function_graph,
)
from assay.backend.engines.static.link.message_tools import join_messages
from assay.backend.engines.static.link.plugins import plugin_names
from assay.backend.engines.static.link.returned import chosen_calls, through_returns
from assay.backend.engines.static.link.served import route_gates
from assay.backend.engines.static.link.settings import settle_models
from assay.backend.engines.static.link.sources import (
    NameIndex,
    expand_lists,
    expand_records,
    module_heads,
    settle_constants,
    settle_described,
    settle_factories,
    settle_imported,
    settle_receivers,
    settle_renamed,
    settle_returned_servers,
    settle_routes,
    settle_served_apps,
    settle_subclassed,
)
from assay.backend.engines.static.link.sqlflow import NO_CTX, Ctx, SqlContexts
from assay.backend.engines.static.link.taint import Taint
from assay.backend.engines.static.link.tool_classes import answered_by_elements, settle_listed
from assay.backend.engines.static.link.tool_uses import bind_tools
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.rules.match import Patterns
from assay.backend.engines.static.rules.pack import Rule, RulePack
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

EXECUTION_SINKS = frozenset({"shell.exec", "code.exec", "sql.exec", "db.write"})
_SQL_KINDS: tuple[SqlKind, ...] = ("write", "read")
TAINT_EXEC_RULE = "TAINT-EXEC-001"
TAINT_ACTION_RULE = "TAINT-ACTION-001"


class Linked(BaseModel):
    """Everything the tree's files say together; every list sorted by (path, line, column, id)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: list[ModelUse]
    tools: list[Tool]
    actions: list[Action]
    gates: list[Gate]
    taintFlows: list[TaintFlow]
    frontier: list[FrontierItem]


def _loc_key(loc: Location) -> tuple[str, int, int]:
    return (loc.path, loc.line, loc.column)


def link(files: Sequence[FileFacts], rules: RulePack) -> Linked:
    """Join per-file facts into the tree's evidence. Deterministic whatever the order of ``files``."""
    ordered = sorted(files, key=lambda f: f.path)
    functions = function_graph(ordered)
    resolver = Resolver(
        functions,
        module_heads(ordered),
        {k: v for f in ordered for k, v in f.reexports.items()},
        {k: v for f in ordered if f.language == "python" for k, v in f.bindings.items()},
        [k for f in ordered if f.language != "python" for k in f.bindings],
        {k: v for f in ordered for k, v in f.classBases.items()},
    )
    param_calls = False  # whether any call is on what a function's callers pass (``param:0.getContainer``)
    bound = bound_classes(ordered, resolver.reexports)
    for fn in functions.values():
        for call in fn.calls:
            if call.callee not in fn.targets:
                if call.callee.startswith((PARAM, CALLBACK)):
                    # ``param:0.getContainer``: a call on what the callers pass, read by ``through_returns``; a
                    # callback's ``conn.execute(...)`` on what the function it is handed to passes it likewise.
                    fn.targets[call.callee] = None
                    param_calls = True
                    continue
                target = resolver.resolve(call.callee, fn.facts.qualname)
                if target is None and "#" in call.callee:
                    # ``new Runner(command)``: the class's constructor runs (and may store what it is given).
                    target = resolver.exact.get(f"{call.callee}.constructor")
                if target is None and bound and "#" in call.callee:
                    # ``this.repo.save()`` with ``repo: IRepo`` a container binds to ``Repo``: ``Repo.save``.
                    found = bound_targets(call.callee, fn.facts.qualname, bound, resolver.resolve)
                    if found:
                        target = found[0]
                        fn.also.setdefault(call.callee, []).extend(found[1:])
                fn.targets[call.callee] = target
        # Middleware and handlers put on a route by name (``app.post("/", auth, handle)``): resolved, not called.
        if fn.facts.fronts or fn.facts.routes:
            for name in (*fn.facts.fronts, *(r.callee for r in fn.facts.routes)):
                if name not in fn.targets:
                    fn.targets[name] = resolver.resolve(name, fn.facts.qualname)
    alternatives = {k: v for f in ordered if f.language == "python" for k, v in f.alternatives.items()}
    if alternatives:
        chosen_calls(functions, alternatives, resolver.resolve, rules)
    through_returns(
        functions,
        resolver.resolve,
        rules,
        _module_values(ordered, resolver),
        resolver.reexports,
        _py_module_values(ordered, resolver.py_reexported),
        param_calls,
        resolver.inherited_names,
    )
    found_aliases = {
        short_id("fr", "unresolved_call", fn.path, fn.facts.qualname, callee)
        for fn in functions.values()
        for callee, target in fn.targets.items()
        if target is not None and callee.startswith(TREE_ALIASES)
    }
    # Calls on a value typed by a type of the tree (``jsts/sites.py`` ``typed_call``) that something of the tree
    # answers: a class implementing the type, a function returning what it names, a library call it leads to.
    answered_calls = {
        short_id("fr", "unresolved_call", fn.path, fn.facts.qualname, callee)
        for fn in functions.values()
        if fn.language in ("javascript", "typescript", "tsx")
        for callee, target in fn.targets.items()
        if target is not None or callee in fn.typed or callee in fn.model_calls
    }
    gates_after_calls(functions)
    for fn in functions.values():
        for call in fn.calls:
            target = fn.targets[call.callee]
            if target is not None:
                for each in resolver.every.get(functions[target].facts.qualname, (target,)):
                    fn.edges.append((each, call))
                for each in resolver.dispatched(call.callee, target):
                    fn.edges.append((each, call))
                for each in fn.also.get(call.callee, ()):
                    fn.edges.append((each, call))
            fn.by_callee.setdefault(call.callee, []).append(call)
        for origins in (fn.returns, *(a.taint for a in fn.actions)):
            for origin in origins:
                if origin.kind == "call_return" and origin.callee and origin.callee not in fn.targets:
                    fn.targets[origin.callee] = resolver.resolve(origin.callee, fn.facts.qualname)

    modules = {f.path: f.module for f in ordered}
    offered = join_messages(
        plugin_names(settle_factories([t for f in ordered for t in f.tools], ordered), resolver.py_reexported),
        ordered,
        rules,
    )
    joined, tool_frontier = bind_tools(offered, resolver.origins)
    tools, tool_fn, opaque, unlisted = _tools(ordered, resolver, modules, rules, joined)
    refusing = frozenset(r.id for r in rules.rules if "refusal_statuses" in r.match)
    tools = route_gates(tools, functions, resolver.resolve, refusing)
    tool_name_dispatches(functions, frozenset(t.name for t in tools))

    sql = SqlContexts(functions, resolver.every, rules)
    reach, reached = _reach(functions, tools, tool_fn, sql)
    flows = Taint(functions, tools, tool_fn).flows()
    through_sql = {site_id for site_id, _source, via_sql in flows if via_sql}

    actions: list[Action] = []
    # A SQL sink split by what its callers pass (``sqlflow``): flows through its SQL text go to the
    # action of its own class, flows of bound values to the fixed-SQL action (a write before a read).
    value_target: dict[str, str] = {}
    # One action per site: the links of a chain a rule matches whole (``db.select().from(t).where(c)``,
    # ``repo.git.log().split()``) start at the same place and share its id; the first recorded (the innermost
    # call) stands for the chain.
    sites_seen: set[str] = set()
    for fid, fn in functions.items():
        for site in fn.actions:
            if site.id in sites_seen:
                continue
            sites_seen.add(site.id)
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
            trusted(
                TaintFlow,
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
        trusted(Gate, id=g.id, kind=g.kind, ruleId=g.ruleId, location=g.location, function=fid, detail=g.detail)
        for fid, fn in functions.items()
        for g in fn.gates
    ]
    models = [
        trusted(
            ModelUse,
            id=m.id,
            provider=m.provider,
            api=m.api,
            via=m.via,
            ruleId=m.ruleId,
            location=m.location,
            model=m.model,
        )
        for m in [
            *settle_models(ordered, rules),
            *(m for fn in functions.values() for m in fn.models),
            *factory_models(ordered, functions, rules),
        ]
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
    # A tool object named by another module's constant: its name is visible once the linker read it.
    answered.update(
        (t.location.path, t.location.line, NAMED_AT_RUN_TIME)
        for f in ordered
        for t in f.tools
        if t.source is not None and t.source.kind == "constant" and t.id in kept
    )
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
    answered_registrations = answered_by_elements(ordered)
    if answered_registrations:  # registrations over typed elements that serve classes of the tree
        frontier = [f for f in frontier if f.id not in answered_registrations]
    frontier.extend(tool_frontier)
    frontier.extend(_opaque_results(opaque))
    frontier.extend(_unlisted_records(unlisted))
    frontier.extend(_unresolved(functions, reached, rules))
    if found_aliases:  # calls through a path alias that the tree's modules answered
        frontier = [f for f in frontier if f.id not in found_aliases]
    frontier = [f for f in frontier if f.kind != "unresolved_call" or f.id not in answered_calls]

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


def _tools(
    files: Sequence[FileFacts],
    resolver: Resolver,
    modules: dict[str, str],
    rules: RulePack,
    joined: list[ToolDef] | None = None,
) -> tuple[list[ToolDef], dict[str, str | None], list[ToolDef], list[ToolDef]]:
    """Tools with the function each resolves to, the tools arguments holding a function's result
    whose list is not visible, and the registrations naming tools by a field of records analysis cannot
    find. A function only listed as a tool somewhere (``ToolNode([f])``) is dropped
    when it is defined as a tool elsewhere (``@tool def f``), and is located at its def; a listed name
    that is a list of another module, or a function's result, stands for the functions of that list."""
    listed_rules = {
        r.id for r in rules.rules if r.kind == "tool" and ("tool_lists" in r.match or "role_tool_params" in r.match)
    }
    defined = [t for f in files for t in f.tools] if joined is None else joined
    for settle in (
        settle_listed,
        settle_constants,
        settle_described,
        settle_receivers,
        settle_returned_servers,
        settle_served_apps,
        settle_routes,
        settle_imported,
    ):
        defined = settle(defined, files)
    from_records, unlisted = expand_records(defined, files)
    defined = settle_renamed(
        settle_subclassed(from_records, files, *_library_tool_classes(rules)), files, _tool_class_methods(rules)
    )

    def resolve(tools: list[ToolDef]) -> dict[str, str | None]:
        return {
            t.id: resolver.resolve(t.function, modules.get(t.location.path, "")) if t.function else None for t in tools
        }

    tool_fn = resolve(defined)
    expanded, opaque = expand_lists(defined, listed_rules, {k: v is not None for k, v in tool_fn.items()}, files)
    if expanded is not defined:
        defined = expanded
        tool_fn = resolve(defined)
    defined = list(defined)
    for index, tool in enumerate(defined):
        fid = tool_fn[tool.id]
        if tool.source is not None and tool.source.kind == "agent" and fid is not None:
            named = resolver.functions[fid].facts.name
            at = tool.location
            renamed = tool.model_copy(
                update={
                    "id": short_id("tool", at.path, at.line, at.column, named, tool.ruleId),
                    "name": named,
                    "source": None,
                }
            )
            tool_fn[renamed.id] = tool_fn.pop(tool.id)
            defined[index] = renamed
    branches = _dispatch_branches(resolver.functions, files)
    tables = _name_tables(files, resolver)
    # The functions of each file, in the tree's order, when a record could tie a tool to its enclosing one.
    by_file: dict[str, list[tuple[str, Fn]]] | None = None
    if any(key.endswith("()") for key in tables):
        by_file = {}
        for fid, fn in resolver.functions.items():
            by_file.setdefault(fn.path, []).append((fid, fn))
    for tool in defined:
        if tool_fn[tool.id] is None and tool.function is None:
            tool_fn[tool.id] = (
                _branch_for(tool, branches.get(tool.name, []), resolver.functions)
                or _only(tables.get(tool.name, set()))
                or (
                    _only(tables.get(f"{_enclosing(tool, by_file.get(tool.location.path, []))}()", set()))
                    if by_file is not None
                    else None
                )
            )
    lookups = _name_lookups(files)
    if lookups:
        for tool in defined:
            if tool_fn[tool.id] is None and tool.function is None and tool.heldBy is not None:
                tool_fn[tool.id] = _looked_up(tool.heldBy, lookups, resolver)
    defining = {tool_fn[t.id] for t in defined if t.ruleId not in listed_rules and not t.byFunction}
    # The gates a before-tool hook holds over a function on every listing of it (``Agent(tools=[f],
    # before_tool_callback=check)``): they hold over its tool only when every agent given it runs them.
    # ``llm.bind_tools(tools)`` only gives the model the schemas: what runs the calls (an agent with its
    # gates) is another listing of the same functions.
    binds_only = {r.id for r in rules.rules if r.kind == "tool" and r.match.get("binds_only")}
    listings: dict[str, list[frozenset[str]]] = {}
    for tool in defined:
        fid = tool_fn[tool.id]
        if tool.ruleId in binds_only:
            continue
        if (tool.ruleId in listed_rules or tool.byFunction) and fid is not None:
            listings.setdefault(fid, []).append(frozenset(tool.hookGates))
    shared = any(len(held) > 1 and all(held) for held in listings.values())
    kinds = {g.id: g.kind for f in files for fn in f.functions for g in fn.gates} if shared else {}
    hooked = {fid: held_on_every_listing(held, kinds.get) for fid, held in listings.items()}
    kept: list[ToolDef] = []
    listed: set[str | None] = set()
    holders = _tool_holders(files, rules)
    registering = {r.id for r in rules.rules if r.kind == "tool" and "function_args" in r.match}
    # A name bound elsewhere to what a tool-building call returns, registered (``mcp.add_tool(soma)``) or listed
    # (``ReActAgent.from_tools([cmd_engine])``), stands for the tool that call builds where it is written.
    by_name = registering | listed_rules
    built = (
        _built_tools(files, rules)
        if any(t.ruleId in by_name and tool_fn[t.id] is None and t.function for t in defined)
        else None
    )
    for tool in defined:
        fid = tool_fn[tool.id]
        if tool.ruleId in listed_rules and fid is None and tool.function and holders.find(tool.function):
            continue  # ``tools=[available]``, ``available = types.Tool(function_declarations=[...])`` elsewhere
        if built is not None and tool.ruleId in by_name and fid is None and tool.function and built.find(tool.function):
            continue  # ``soma = Tool.from_function(...)`` elsewhere: that call is the tool
        if (tool.ruleId in listed_rules or tool.byFunction) and fid is not None:
            if fid in defining or fid in listed:
                continue
            listed.add(fid)
            facts = resolver.functions[fid].facts
            update: dict[str, object] = {"hookGates": tuple(sorted(hooked.get(fid, ())))}
            if "#" not in facts.qualname or resolver.functions[fid].language != "python":
                # a function (a JS/TS qualname always holds ``#``), not the dispatch branch a schema class runs
                update["location"] = facts.location
            tool = tool.model_copy(update=update)
        elif fid is not None and hooked.get(fid) and not tool.hookGates:
            # ``@tool def f`` given to agents that all check before each tool call.
            tool = tool.model_copy(update={"hookGates": tuple(sorted(hooked[fid]))})
        kept.append(tool)
    return kept, {t.id: tool_fn[t.id] for t in kept}, opaque, unlisted


_BASE_HOPS = 6


def _module_values(files: Sequence[FileFacts], resolver: Resolver) -> Callable[[str], str | None]:
    """The type of a JS/TS module's top-level value (``FileFacts.bindings``), named as an importer names it:
    exactly, through a path alias or through the modules that re-export it."""
    values = {name: typed for f in files if f.language != "python" for name, typed in f.bindings.items() if "#" in name}
    bases = {cls: found[0] for f in files if f.language != "python" for cls, found in f.classBases.items() if found}

    def value_of(name: str) -> str | None:
        for _ in range(_BASE_HOPS):
            for candidate in (name, *resolver.origins(name)):
                found = values.get(candidate)
                if found is not None:
                    return found
            # A field a base class of another file declares (``this._apiClient`` in ``class Ds extends Auth``,
            # ``Auth extends Methods``, ``Methods`` typing ``_apiClient``): the subclass's field too.
            cls, dot, field = name.rpartition(".")
            base = bases.get(cls) if dot and "#" in cls else None
            if base is None:
                base = next((bases[o] for o in resolver.origins(cls) if o in bases), None) if dot else None
            if base is None:
                return None
            name = f"{base}.{field}"
        return None

    return value_of


def _py_module_values(
    files: Sequence[FileFacts], reexported: Callable[[str], list[str]]
) -> Callable[[str], str | None]:
    """The type of a Python module's top-level value (``FileFacts.bindings``: ``llm.llm`` ->
    ``langchain_openai.ChatOpenAI``), named as an importer names it: exactly, by a unique dotted suffix or
    without the package's name (``NameIndex``), or through a package that re-exports it (``from data import
    Session`` with ``data/__init__.py`` importing ``Session`` from ``data.database``)."""
    values = {
        name: typed
        for f in files
        if f.language == "python"
        for name, typed in f.bindings.items()
        if "#" not in name and "[" not in name
    }
    index = NameIndex(values, module_heads(files))

    def value_of(name: str) -> str | None:
        found = index.find(name)
        if found is None:
            found = next((f for f in map(index.find, reexported(name)) if f is not None), None)
        return values[found] if found is not None else None

    return value_of


def _library_tool_classes(rules: RulePack) -> tuple[dict[str, str], tuple[str, ...]]:
    """The pack's Python library tool classes, each with the name the library gives its tool, and the methods
    through which such a tool runs (``library_tool_calls``: ``invoke``, ``_run``...), in the pack's order."""
    names = {
        cls: spec[0]
        for rule in rules.rules
        if rule.kind == "tool" and rule.language == "python"
        for cls, spec in rule.match.get("library_tools", {}).items()
    }
    runs = tuple(
        m
        for rule in rules.rules
        if rule.kind == "action" and rule.language == "python"
        for m in rule.match.get("library_tool_calls", ())
    )
    return names, runs


def _tool_class_methods(rules: RulePack) -> frozenset[str]:
    """The methods that run a tool class's tool (``forward``, ``_run``, ``__call__``...), by the pack's
    class rules (``class_bases`` + ``method``) and role rules (``tool_classes``)."""
    out: set[str] = set()
    for rule in rules.rules:
        if rule.kind != "tool" or rule.language != "python":
            continue
        if "class_bases" in rule.match:
            method = rule.match.get("method", "_run")
            out.update([method] if isinstance(method, str) else method)
        classes = rule.match.get("tool_classes")
        if isinstance(classes, dict):
            out.update(classes.get("methods", ()))
    return frozenset(out)


def _dispatch_branches(functions: dict[str, Fn], files: Sequence[FileFacts]) -> dict[str, list[str]]:
    """Branches of a dispatch on a tool's name (functions named ``case:<tool name>``), by tool name; a
    branch labelled by another file's constant (``case ToolName.LIST:``) by the string it names."""
    refs = {qualname: ref for f in files for qualname, ref in f.caseRefs.items()}
    named = _case_ref_names(set(refs.values()), files) if refs else {}
    out: dict[str, list[str]] = {}
    for fid in sorted(functions):
        facts = functions[fid].facts
        if facts.qualname in refs:
            label: str | None = named.get(refs[facts.qualname])
        else:
            label = facts.name[len("case:") :] if facts.name.startswith("case:") else None
        if label:
            out.setdefault(label, []).append(fid)
    return out


def _tool_holders(files: Sequence[FileFacts], rules: RulePack) -> NameIndex:
    """Module-level names of the tree bound to a tool object or a container of them (Gemini
    ``FunctionDeclaration(...)``, ``Tool(function_declarations=[...])``): listed where a model is given
    tools, they stand for the declarations, which are tools where they are written."""
    kinds = Patterns(
        name
        for r in rules.rules
        if r.kind == "tool"
        for name in (*r.match.get("objects", ()), *r.match.get("containers", ()))
    )
    names = [name for f in files for name, typed in f.bindings.items() if kinds.matches(typed)]
    return NameIndex(names, module_heads(files))


def _built_tools(files: Sequence[FileFacts], rules: RulePack) -> NameIndex:
    """Module-level Python names of the tree bound to what a tool-building call returns (``soma =
    Tool.from_function(_soma, name="soma")``): registered elsewhere (``mcp.add_tool(soma)``), they stand
    for the tool that call builds, which is a tool where it is written."""
    calls = Patterns(name for r in rules.rules if r.kind == "tool" for name in r.match.get("calls", ()))
    names = [
        name for f in files if f.language == "python" for name, typed in f.bindings.items() if calls.matches(typed)
    ]
    return NameIndex(names, module_heads(files))


def _name_tables(files: Sequence[FileFacts], resolver: Resolver) -> dict[str, set[str]]:
    """What the tree's name -> function tables map each tool name to (``{"get_file": get_file}`` in any
    file, a class naming itself ``"Bash"`` and run by ``execute``): the functions, by name. A record pairing
    a function's result with a function (``{"schema": m.get_tool_schema(), "execute": m.execute}``) is
    kept under the first function's id and ``()``."""
    out: dict[str, set[str]] = {}
    for f in files:
        for name, target in f.tables.items():
            fid = resolver.resolve(target, f.module)
            if fid is None:
                continue
            if name.endswith("()"):
                made = resolver.resolve(name[:-2], f.module)
                if made is None:
                    continue
                name = f"{made}()"
            out.setdefault(name, set()).add(fid)
    return out


def _name_lookups(files: Sequence[FileFacts]) -> dict[str, set[str]]:
    """The tree's lookups by tool name over tool objects (``FileFacts.nameLookups``): the path from an
    element to its name -> the members called on the element found."""
    out: dict[str, set[str]] = {}
    for f in files:
        for path, members in f.nameLookups.items():
            out.setdefault(path, set()).update(members)
    return out


def _looked_up(held_by: str, lookups: dict[str, set[str]], resolver: Resolver) -> str | None:
    """The function that runs a tool literal held by the top-level name ``held_by`` when a lookup by name
    finds it: a module listed as a tool object (``import * as getStats``) whose ``definition`` holds the
    name runs its own ``handler`` (``tools.find((t) => t.definition.name === name).handler(args)``); an
    object whose own ``name`` is looked up runs its own member (``tools.find((t) => t.name === n).run()``)."""
    module, _, held = held_by.partition("#")
    candidates = [f"{module}#{member}" for member in sorted(lookups.get(held, ()))]
    candidates.extend(f"{module}#{held}.{member}" for member in sorted(lookups.get("", ())))
    found = {fid for fid in (resolver.resolve(c, module) for c in candidates) if fid is not None}
    return _only(found)


def _enclosing(tool: ToolDef, functions: Sequence[tuple[str, Fn]]) -> str | None:
    """The id of the innermost function (of ``functions``, the tool's file's) whose body holds a tool's
    literal definition."""
    at = tool.location
    best: tuple[int, str] | None = None
    for fid, fn in functions:
        where = fn.facts.location
        if fn.path != at.path or where.endLine is None or "#" in fn.facts.qualname:
            continue
        if where.line <= at.line <= where.endLine and (best is None or where.line > best[0]):
            best = (where.line, fid)
    return best[1] if best is not None else None


def _only(found: set[str]) -> str | None:
    """The one function a tool's name is tied to; none when the tree ties it to several."""
    return next(iter(found)) if len(found) == 1 else None


def _case_ref_names(refs: set[str], files: Sequence[FileFacts]) -> dict[str, str]:
    """``src/names#ToolName.LIST`` -> the string it names, read from that module's constants, through
    re-exports (``export { ToolName } from``, ``export * from``) up to a few files away."""
    by_module = {f.module: f for f in files}
    out: dict[str, str] = {}
    for ref in refs:
        pending = [ref]
        for _ in range(4):
            found = None
            following: list[str] = []
            for candidate in pending:
                module, _, dotted = candidate.partition("#")
                facts = by_module.get(module)
                if facts is None:
                    continue
                found = facts.constants.get(dotted)
                if found is not None:
                    break
                head, _, rest = dotted.partition(".")
                for target in facts.reexports.get(f"{module}#{head}", []):
                    following.append(f"{target}.{rest}" if rest else target)
                for target in facts.reexports.get(f"{module}#*", []):
                    following.append(f"{target}{dotted}")
            if found is not None:
                out[ref] = found
                break
            pending = following
    return out


def _branch_for(tool: ToolDef, candidates: list[str], functions: dict[str, Fn]) -> str | None:
    """The dispatch branch implementing a tool defined without a function (an MCP tool listed as a
    literal, dispatched by name in another file): the only one, or the only one in the tool's file."""
    if len(candidates) == 1:
        return candidates[0]
    local = [fid for fid in candidates if functions[fid].path == tool.location.path]
    return local[0] if len(local) == 1 else None


def _tool(tool: ToolDef, fid: str | None, functions: dict[str, Fn]) -> Tool:
    parameters = tool.parameters
    if not parameters and fid is not None:
        # Constructor-registered tools (``Tool(func=f)``) take their parameters from the function.
        parameters = [p for p in functions[fid].params if p not in NON_TOOL_PARAMS]
    return trusted(
        Tool,
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
    return trusted(
        Action,
        id=action_id,
        actionClass=action_class,
        impact=impact,
        ruleId=rule_id,
        target=site.target,
        location=site.location,
        function=fid,
        reachedFrom=sorted(paths, key=lambda p: (p.toolId, [(c.path, c.line, c.column) for c in p.calls])),
        gateIds=sorted(_common(paths) | own) if paths else sorted(own),
    )


def _common(paths: Sequence[ToolPath]) -> set[str]:
    common = set(paths[0].gateIds)
    for path in paths[1:]:
        common &= set(path.gateIds)
    return common


def _reach(
    functions: dict[str, Fn], tools: Sequence[ToolDef], tool_fn: dict[str, str | None], sql: SqlContexts
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
        guaranteed: dict[tuple[str, Ctx], frozenset[str]] = {first: frozenset(tool.hookGates)}
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
                    paths[key] = trusted(
                        ToolPath, toolId=tool.id, calls=list(chain[(fid, ctx)]), gateIds=sorted(gate_ids)
                    )
                elif not set(known_path.gateIds) <= gate_ids:  # the same kind by another context
                    paths[key] = known_path.model_copy(update={"gateIds": sorted(set(known_path.gateIds) & gate_ids)})
        for (site_id, kind), path in paths.items():
            out.setdefault(site_id, {}).setdefault(kind, []).append(path)
    return out, reached


def _opaque_results(opaque: Sequence[ToolDef]) -> list[FrontierItem]:
    """A tools argument holding what a function returns, when that function's list is not visible, or
    only in part (its named functions are tools as well)."""
    out: list[FrontierItem] = []
    for tool in opaque:
        location = tool.location
        made_by = (tool.function or "").removesuffix(CALL_RESULT)
        callable_, arg, position = made_by.partition(PARAM_ARG)
        if arg:
            made_by = f"what the calls of {callable_} give its argument at position {position}, which"
        elif PARAM_KW in made_by:
            callable_, _, keyword = made_by.partition(PARAM_KW)
            made_by = f"what the calls of {callable_} give its parameter {keyword}, which"
        else:
            made_by = f"what {made_by} returns, which"
        out.append(
            FrontierItem(
                id=short_id("fr", "runtime_registered_tools", location.path, location.line, location.column),
                kind="runtime_registered_tools",
                detail=f"the tools given here are {made_by} analysis cannot list in full; "
                "which tools the model is given, and what they reach, is not all visible",
                location=location,
                path=location.path,
                ruleId=tool.ruleId,
            )
        )
    return out


def _unlisted_records(unlisted: Sequence[ToolDef]) -> list[FrontierItem]:
    """A registration naming each tool by a field of a list of records (``server.tool(tool.method, ...)``
    over ``tools.forEach``) whose records analysis cannot find, or none of which has that field: the
    tools it gives the model are not visible, which is said at the call, never a silent zero."""
    out: list[FrontierItem] = []
    for tool in unlisted:
        source = tool.source
        location = tool.location
        where = f"{source.ref.rsplit('#', 1)[-1]}[{source.key}]" if source is not None else tool.name
        out.append(
            FrontierItem(
                id=short_id("fr", "runtime_registered_tools", location.path, location.line, location.column, where),
                kind="runtime_registered_tools",
                detail=f"the tools registered here are named by {where}, a field of records analysis cannot find; "
                "which tools the model is given, and what they reach, is not visible",
                location=location,
                path=location.path,
                ruleId=tool.ruleId,
            )
        )
    return out


def _unresolved_rules(rules: RulePack) -> dict[str, tuple[Rule, frozenset[str]]]:
    """Per language, the rule asking for unresolved calls in code tools reach, with its skipped names."""
    out: dict[str, tuple[Rule, frozenset[str]]] = {}
    for language in ("python", "javascript"):
        for rule in rules.for_language(language, "frontier"):
            if rule.match.get("unresolved_in_tool_reach"):
                out[language] = (rule, frozenset(rule.match.get("skip_methods", [])))
    return out


def _unresolved(functions: dict[str, Fn], reached: set[str], rules: RulePack) -> list[FrontierItem]:
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
            if callee.startswith(PARAM):  # a parameter's member: the analyzer names such calls no other way
                continue
            if not untyped or fn.targets.get(callee) is not None or callee in seen or "." not in callee:
                continue
            if callee in fn.typed:
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
