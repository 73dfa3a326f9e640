"""Calls on what a function of the tree returns, resolved once every file's facts are known.

``const sandbox = await getSandbox(id); await sandbox.commands.run(cmd)``: one file's analyzer names
that call ``src/utils#getSandbox.commands.run``, a member of a function's result. The function's facts
say what it returns (``returnType``: its annotation, or what its return statements give), so the linker
reads the call as a call on that: ``@e2b/code-interpreter.Sandbox.connect.commands.run``. A result of a
class of the tree (``return new Store()``) leads to that class's method, an ordinary call edge; a
library result is matched against the JavaScript rules by name, as the analyzer would have matched it:
an action at the call (its arguments' taint, its gates, and a sandbox gate where the rules say the call
runs inside one), or a model call whose result is model output (``llm().invoke(msgs)`` with ``llm`` returning
a chat model: ``Fn.model_calls``, read by the taint pass). SQL clients are left out: whether their SQL writes depends on text only the analyzer
sees. A top-level value of another module of the tree is read the same way: ``export const pg = postgres(url)``
in ``src/db/client`` (``FileFacts.bindings``: ``src/db/client#pg`` -> ``postgres``) makes an importer's
``pg.unsafe(query)`` (``src/db/client#pg.unsafe``) a call of ``postgres.unsafe``, and ``run(cmd)`` with
``export const run = promisify(exec)`` a call of ``child_process.exec``.

Python the same way: ``search_client = get_search_client()`` with ``def get_search_client(): return
TavilyClient(...)`` in another module makes ``search_client.search(q)`` (``config.get_search_client.search``)
a call of ``tavily.TavilyClient.search``, matched against the Python rules whose match does not depend on
the call's arguments, else against the client classes of the role rules (a network service's client).
A method of what a package's client factory returns, or of an object a package call was handed where to
connect (``CallFact.client``: ``create_client(...).send_message``), is that package's network egress when
no prefix of the call names a function or class of the tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    CALL_RESULT,
    CALLBACK,
    PARAM,
    ActionSite,
    ArgTaint,
    CallFact,
    GateSite,
    ModelSite,
    TaintOrigin,
)
from assay.backend.engines.static.jsts.rules import JsRules, compile_rules
from assay.backend.engines.static.link.sqlflow import param_for
from assay.backend.engines.static.pyast.role_rules import Roles, compile_roles
from assay.backend.engines.static.pyast.rules import CompiledRules
from assay.backend.engines.static.pyast.rules import compile_rules as compile_py_rules
from assay.backend.engines.static.pyast.scope import model_output
from assay.backend.engines.static.rules.pack import Rule, RulePack

if TYPE_CHECKING:
    from assay.backend.engines.static.link.graph import Fn

_JS = frozenset({"javascript", "typescript", "tsx"})
# Returned results followed through at most this many functions (``a()`` returns ``b()``...).
_HOPS = 4
# The most different things the callers of a Python function may give one parameter for a call on it to be read as
# a call on each.
_ALTERNATIVES = 6


def through_returns(
    functions: dict[str, Fn],
    resolve: Callable[[str, str], str | None],
    rules: RulePack,
    value_of: Callable[[str], str | None] = lambda _name: None,
    reexports: dict[str, list[str]] | None = None,
    py_value_of: Callable[[str], str | None] = lambda _name: None,
    param_calls: bool = True,
    inherited: Callable[[str], list[str]] = lambda _name: [],
) -> None:
    """Resolves each JS/TS call left unresolved whose callee is a member of a function's result, of
    another module's top-level value whose type is known (``value_of``; an interface's member as well:
    ``src/types#ToolContext.docker`` -> ``dockerode``), or of an untyped parameter every caller passes the
    same thing to (``param:0.getContainer``): a function of the tree becomes the call's target
    (``fn.targets``); a library call the rules name becomes an action (and its sandbox gate) of the calling
    function, and an awaited call of a package's client no rule names the general rule's network egress. A
    Python call through a library module another module of the tree imports (``reexports``) is that
    library's call. ``param_calls``: whether any function calls a member of an untyped parameter (``param:``
    callees), which the linker learns as it resolves the calls; the members' types are read only then."""
    returns = {fid: fn.facts.returnType for fid, fn in functions.items() if fn.facts.returnType}
    candidates = {fid: fn.facts.returnCandidates for fid, fn in functions.items() if fn.facts.returnCandidates}
    js = compile_rules(rules)
    passed = _passed_types(functions) if param_calls else {}
    handed: dict[tuple[str, int, int], str] | None = None  # what functions pass their callbacks, when asked
    held_packages = _field_objects(functions, resolve)
    param_types = _python_passed(functions)

    def constructs(fid: str) -> bool:
        """Whether calling what resolved to ``fid`` builds an object: a class's constructor."""
        return functions[fid].facts.name == "__init__"

    for fn in functions.values():
        if fn.language == "python":
            _python_returns(
                fn,
                resolve,
                returns,
                candidates,
                rules,
                reexports or {},
                param_types,
                constructs,
                py_value_of,
                inherited,
                held_packages,
            )
            continue
        if fn.language not in _JS:
            continue
        done: set[str] = set()
        for call in list(fn.calls):
            callee = call.callee
            if fn.targets.get(callee) is not None or callee in done:
                continue
            if callee.startswith(PARAM):
                index, _, rest = callee[len(PARAM) :].partition(".")
                given = passed.get((fn.id, int(index))) if index.isdigit() and rest else None
                if given is None:
                    continue
                callee_name = f"{given}.{rest}"
            elif callee.startswith(CALLBACK):
                if handed is None:
                    handed = _handed_types(functions)
                found = _handed_to(callee, fn.facts.qualname, resolve, handed)
                if found is None:
                    continue
                callee_name = found
            elif "#" in callee:
                callee_name = callee
            else:
                continue
            done.add(callee)
            name = (
                _rewrite(
                    callee_name, fn.facts.qualname, resolve, returns, value_of, candidates, lambda n: _js_named(n, js)
                )
                if "#" in callee_name
                else callee_name
            )
            if name is None:
                continue
            if "#" in name:
                fn.targets[callee] = resolve(name, fn.facts.qualname)
                continue
            if js.taint_source(name) is not None:
                # ``llm().invoke(msgs)`` with ``llm`` returning a chat model: what it gives is model output.
                fn.model_calls[callee] = _calls_of(fn.calls, callee)[0].location
                continue
            model = js.model(name)
            if model is not None and not model.match.get("returns_handle"):
                # ``getOpenAi(key).createChatCompletion(...)``: a model call on a client a helper returns.
                _model_calls(fn, callee, model, name)
                continue
            rule = js.action(name)
            if rule is None and js.client_rule is not None and _package_call(name, js):
                sites = [c for c in _calls_of(fn.calls, callee) if c.client]  # awaited: a request and its answer
                for site in sites:
                    _add_action(fn, site, js.client_rule, name, None, None)
                continue
            if rule is None:
                continue
            if rule.match.get("sql_write"):
                # Text that carries a value from elsewhere is not fixed in the code: executed verbatim
                # (``db.query(generatedSQL)``); SQL fixed in the code (the kind the analyzer read at the call,
                # ``ArgTaint.text``) writes (the rule) or only reads (its read rule).
                dynamic = js.by_id.get(rule.match.get("sql_dynamic_rule", ""))
                read = js.by_id.get(rule.match.get("sql_read_rule", ""))
                for site in _calls_of(fn.calls, callee):
                    if _carries(site, 0):
                        if dynamic is not None:
                            _add_action(fn, site, dynamic, name, None, None, _sql_param(site))
                        continue
                    kind = next((a.text for a in site.args if a.index == 0), None)
                    fixed = rule if kind == "write" else read if kind == "read" else None
                    if fixed is not None:
                        _add_action(fn, site, fixed, name, None, None)
                continue
            sandbox = js.sandbox_target(name) if not rule.match.get("outside_sandbox") else None
            id_kind = sandbox.gateKind if sandbox is not None else None
            for site in _calls_of(fn.calls, callee):
                _add_action(fn, site, rule, name, sandbox, id_kind)


def _field_objects(functions: dict[str, Fn], resolve: Callable[[str, str], str | None]) -> dict[str, str]:
    """Python: a field a class's constructor stores from one of its parameters (``self.model = model``), when
    every construction of the class in the tree passes there an object of the same class of the tree
    (``CodeRAGAgent(..., Model(...), ...)``), holds that object: a call on it (``self.model.invoke(p)``,
    ``agent.CodeRAGAgent.model.invoke``) is a call of that class's method (``model.Model.invoke``). When every
    construction passes an object of the same package class instead (``Notifier(client=WebClient(token=t))``),
    the field holds that: returned (field -> the package type) for the calls on it to be read as the package's
    (``svc.Notifier.client.chat_postMessage`` -> ``slack_sdk.WebClient.chat_postMessage``)."""
    stored: dict[str, tuple[str, str]] = {}  # field -> (constructor id, parameter)
    for fid, fn in functions.items():
        if fn.language != "python" or not fn.facts.qualname.endswith(".__init__"):
            continue
        for write in fn.facts.fieldWrites:
            params = {o.param for o in write.origins if o.kind == "param" and o.param and o.param != "self"}
            if len(params) == 1 and all(o.kind == "param" for o in write.origins):
                stored[write.field] = (fid, params.pop())
    if not stored:
        return {}
    by_constructor: dict[str, list[tuple[Fn, CallFact]]] = {}
    for fn in functions.values():
        for call in fn.calls:
            target = fn.targets.get(call.callee)
            if target is not None:
                by_constructor.setdefault(target, []).append((fn, call))
    held: dict[str, str] = {}
    packages: dict[str, str] = {}
    for field, (init, param) in sorted(stored.items()):
        kinds: set[str] = set()
        given: set[str | None] = set()
        constructions = by_constructor.get(init, [])
        for caller, call in constructions:
            arg = next((a for a in call.args if param_for(functions[init], a) == param), None)
            given.add(_package_given(arg, caller, resolve))
            made = [o.callee for o in arg.origins if o.kind == "call_return" and o.callee] if arg is not None else []
            if arg is None or len(arg.origins) != 1 or len(made) != 1:
                kinds.add("")
                continue
            target = resolve(made[0], caller.facts.qualname)
            if target is None or functions[target].facts.qualname != f"{made[0]}.__init__":
                kinds.add("")
                continue
            kinds.add(made[0])
        if len(kinds) == 1 and "" not in kinds:
            held[field] = kinds.pop()
        elif constructions and len(given) == 1 and None not in given:
            packages[field] = given.pop()  # type: ignore[assignment]
    if not held:
        return packages
    for fn in functions.values():
        if fn.language != "python":
            continue
        for call in fn.calls:
            callee = call.callee
            if fn.targets.get(callee) is not None:
                continue
            found = _held_prefix(callee, held)
            if found is not None:
                fn.targets[callee] = resolve(held[found] + callee[len(found) :], fn.facts.qualname)
    return packages


def _package_given(arg: ArgTaint | None, caller: Fn, resolve: Callable[[str, str], str | None]) -> str | None:
    """The package class an argument is an object of, when analysis knows (``ArgTaint.valueType``:
    ``slack_sdk.WebClient`` for ``WebClient(token=t)``) and it is no function or class of the tree."""
    given = arg.valueType if arg is not None else None
    if not given or given.startswith(PARAM) or "." not in given or "#" in given:
        return None
    if not given.rpartition(".")[2][:1].isupper():
        return None  # what a function returned, not an object of a class
    if resolve(given, caller.facts.qualname) is not None or resolve(f"{given}.__init__", caller.facts.qualname):
        return None
    return given


def _held_prefix(callee: str, held: dict[str, str]) -> str | None:
    """The shortest field of ``held`` that ``callee`` is a member of (``field.rest``), if any: the first such
    field in sorted order, since a field that is a prefix of another sorts before it."""
    end = callee.find(".")
    while end != -1:
        if callee[:end] in held:
            return callee[:end]
        end = callee.find(".", end + 1)
    return None


def _passed_types(functions: dict[str, Fn]) -> dict[tuple[str, int], str]:
    """(function id, parameter index) -> what every call of the function in the tree passes there, when
    each says what it passes and all agree."""
    seen: dict[tuple[str, int], set[str | None]] = {}
    for fn in functions.values():
        for call in fn.calls:
            target = fn.targets.get(call.callee)
            if target is None or target not in functions:
                continue
            by_index = {a.index: a.valueType for a in call.args if a.index is not None}
            for index in range(len(functions[target].params)):
                seen.setdefault((target, index), set()).add(by_index.get(index))
    return {key: next(iter(types)) for key, types in seen.items() if len(types) == 1 and None not in types}  # type: ignore[misc]


def _handed_types(functions: dict[str, Fn]) -> dict[tuple[str, int, int], str]:
    """(function id, parameter index, argument index) -> the type of what the function passes at that argument
    whenever it calls that parameter (``fn(conn)``, a ``param:<index>`` call), when every such call agrees."""
    seen: dict[tuple[str, int, int], set[str | None]] = {}
    for fid, fn in functions.items():
        for call in fn.calls:
            index = call.callee[len(PARAM) :] if call.callee.startswith(PARAM) else ""
            if not index.isdigit():
                continue
            for arg in call.args:
                if arg.index is not None:
                    seen.setdefault((fid, int(index), arg.index), set()).add(arg.valueType)
    return {key: next(iter(types)) for key, types in seen.items() if len(types) == 1 and None not in types}  # type: ignore[misc]


def _handed_to(
    callee: str, caller: str, resolve: Callable[[str, str], str | None], handed: dict[tuple[str, int, int], str]
) -> str | None:
    """``callback:<function>|<position>|<parameter>.<member...>`` (a call in a callback on one of its parameters) ->
    ``<what the function passes there>.<member...>``; None when the function or what it passes is not known."""
    spec, _, tail = callee[len(CALLBACK) :].rpartition("|")
    parameter, _, rest = tail.partition(".")
    function, _, position = spec.rpartition("|")
    if not rest or not parameter.isdigit() or not position.isdigit():
        return None
    fid = resolve(function, caller)
    given = handed.get((fid, int(position), int(parameter))) if fid is not None else None
    return f"{given}.{rest}" if given is not None else None


def chosen_calls(
    functions: dict[str, Fn],
    alternatives: dict[str, list[str]],
    resolve: Callable[[str, str], str | None],
    rules: RulePack,
) -> None:
    """Python calls on a name bound to a conditional choice (``FileFacts.alternatives``: ``Store = PostgresStore if
    settings.pg else SqliteStore``, then ``Store(dsn).save(...)`` anywhere in the tree): a call on each alternative.
    A function of the tree becomes a target (the first in ``fn.targets``, the others in ``fn.also``); a package's
    call the rules name becomes an action of the calling function, as ``_python_returns`` reads one."""
    py = compile_py_rules(rules)
    roles = compile_roles(rules)
    for fn in functions.values():
        if fn.language != "python":
            continue
        for callee, target in list(fn.targets.items()):
            if target is not None:
                continue
            key, rest = callee, ""
            while key not in alternatives and "." in key:
                key, _, last = key.rpartition(".")
                rest = f".{last}{rest}"
            chosen = alternatives.get(key)
            if chosen is None:
                continue
            found: list[str] = []
            for alternative in chosen:
                name = alternative + rest
                tree = resolve(name, fn.facts.qualname) or (
                    resolve(f"{name}.__init__", fn.facts.qualname) if not rest else None
                )
                if tree is not None:
                    if tree not in found:
                        found.append(tree)
                    continue
                profile = py.profile(name)
                rule = _python_action(name, profile.actions, roles)
                if rule is not None and not _in_tree(name, fn, resolve):
                    for site in _calls_of(fn.calls, callee):
                        _add_action(fn, site, rule, name, None, "sandbox")
            if found:
                fn.targets[callee] = found[0]
                fn.also[callee] = found[1:]


def _python_passed(functions: dict[str, Fn]) -> dict[tuple[str, str], tuple[str, ...]]:
    """(function id, parameter) -> what every call of the Python function in the tree gives that parameter, when
    each call says what it gives (``ArgTaint.valueType``): one type when all agree, else each of the few they
    give (``_execute(op, request)`` handed ``service.events().insert(...)`` by one method and
    ``service.events().list(...)`` by another: ``request.execute()`` runs either); only for functions that call
    a method of a parameter the analyzer could not type (``client.put_object`` in ``def helper(client, key)``),
    and the functions that hand a parameter of theirs on to one (``param:<name>``: typed in turn by their
    callers, for a few hops, when they agree)."""
    wanted: set[str] = set()
    captures: list[tuple[str, str, str]] = []  # (closure id, enclosing function id, the enclosing parameter)
    by_name: dict[tuple[str, str], str] = {}
    for fid, fn in functions.items():
        if fn.language == "python":
            by_name[(fn.path, fn.facts.qualname)] = fid
    for fid, fn in functions.items():
        if fn.language != "python":
            continue
        params = fn.params
        if params and any(not c.resolved and c.callee.partition(".")[0] in params for c in fn.calls):
            wanted.add(fid)
        # ``def make_tools(db): @tool def save(t): db.insert(t)``: a closure calling a method of the enclosing
        # factory's parameter, which is what every call of the factory gives it.
        outer = by_name.get((fn.path, fn.facts.qualname.rpartition(".")[0]))
        outer_params = functions[outer].params if outer is not None else None
        if not outer_params:
            continue
        for call in fn.calls:
            head, dot, _ = call.callee.partition(".")
            if dot and not call.resolved and head in outer_params and head not in params:
                wanted.add(outer)  # type: ignore[arg-type]
                captures.append((fid, outer, head))  # type: ignore[arg-type]
    if not wanted:
        return {}
    edges: list[tuple[str, str, CallFact]] = []  # (caller, callee) of the calls into wanted functions
    for _ in range(_HOPS):
        grown = False
        for fid, fn in functions.items():
            if fn.language != "python" or fid in wanted:
                continue
            if any(fn.targets.get(c.callee) in wanted and _hands_param(c) for c in fn.calls):
                wanted.add(fid)
                grown = True
        if not grown:
            break
    for fid, fn in functions.items():
        if fn.language != "python":
            continue
        for call in fn.calls:
            target = fn.targets.get(call.callee)
            if target is not None and target in wanted:
                edges.append((fid, target, call))
    found: dict[tuple[str, str], str] = {}
    seen: dict[tuple[str, str], set[str | None]] = {}
    for _ in range(_HOPS):
        seen = {}
        for caller, target, call in edges:
            callee = functions[target]
            bound: dict[str | None, str | None] = {}
            for arg in call.args:
                given = arg.valueType
                if given is not None and given.startswith(PARAM):
                    given = found.get((caller, given[len(PARAM) :]))
                bound[param_for(callee, arg)] = given
            for name in callee.params:
                if name not in ("self", "cls"):
                    seen.setdefault((target, name), set()).add(bound.get(name))
        typed = {key: next(iter(types)) for key, types in seen.items() if len(types) == 1 and None not in types}
        if typed == found:
            break
        found = typed  # type: ignore[assignment]
    typed_by: dict[tuple[str, str], tuple[str, ...]] = {key: (held,) for key, held in found.items()}
    for key, types in seen.items():
        if key not in typed_by and 1 < len(types) <= _ALTERNATIVES and None not in types:
            typed_by[key] = tuple(sorted(t for t in types if t is not None))
    for closure, enclosing, name in captures:
        passed = typed_by.get((enclosing, name))
        if passed is not None:
            typed_by.setdefault((closure, name), passed)
    return typed_by


def _hands_param(call: CallFact) -> bool:
    return any(a.valueType is not None and a.valueType.startswith(PARAM) for a in call.args)


def _js_named(name: str, js: JsRules) -> bool:
    """Whether the JavaScript rules say what a call of ``name`` is (model output or an action)."""
    return js.taint_source(name) is not None or js.model(name) is not None or js.action(name) is not None


def _model_calls(fn: Fn, callee: str, rule: Rule, name: str) -> None:
    """The calls of ``callee`` in ``fn``, read as ``name``, are model calls of ``rule``: their results are
    model output, and each is a model use where it is made, with the model id the analyzer read from the
    call's options (``CallFact.modelId``, JS/TS), else none."""
    sites = _calls_of(fn.calls, callee)
    fn.model_calls[callee] = sites[0].location
    provider = rule.match.get("providers", {}).get(name, rule.provider or "unknown")
    for site in sites:
        at = site.location
        fn.models.append(
            ModelSite(
                id=short_id("mdl", at.path, at.line, at.column, rule.id),
                provider=provider,
                api=name,
                via="sdk",
                ruleId=rule.id,
                location=at,
                model=site.modelId,
            )
        )


def _carries(site: CallFact, index: int) -> bool:
    """Whether the call's argument at ``index`` carries a value from elsewhere (a parameter, a call's
    result, model output): it is then no text fixed in the code."""
    return any(arg.index == index and arg.origins for arg in site.args)


def _package_call(name: str, js: JsRules) -> bool:
    """Whether ``name`` is a method of a third-party package nobody said stays in the process."""
    package = name.split(".", 1)[0]
    if name.startswith("@"):
        scope_part, _, rest = name.partition("/")
        package = f"{scope_part}/{rest.split('.', 1)[0]}"
    # (No rule named the call: a package modelled by rules for other methods still talks to its service.)
    return "." in name and "#" not in name and not js.local_packages.matches(package)


def _sql_param(site: CallFact) -> str | None:
    """The caller's parameter a SQL call's text is, unchanged (``exec(sql) { return db.exec(sql) }``), as the
    analyzer reads it for a client it types itself (``ActionSite.sqlParam``): each caller's SQL then says what
    the call does (``sqlflow.py``)."""
    first = next((a for a in site.args if a.index == 0), None)
    if first is None or not first.whole or len(first.origins) != 1:
        return None
    origin = first.origins[0]
    return origin.param if origin.kind == "param" else None


def _add_action(
    fn: Fn,
    site: CallFact,
    rule: Rule,
    name: str,
    sandbox: Rule | None,
    id_kind: str | None,
    sql_param: str | None = None,
) -> None:
    """The action of package call ``site`` (``name``, matched by ``rule``) in ``fn``; inside a sandbox gate of its
    own when ``sandbox`` is set (``id_kind`` enters the gate's id: each front-end keeps its ids stable); with the
    parameter that is its SQL text (``sql_param``) when a caller's SQL decides what it does."""
    gates = list(site.dominatingGates)
    if sandbox is not None:
        location = site.location
        detail = f"runs inside {name.rsplit('.', 1)[0]}"
        gate = GateSite(
            id=short_id("gate", location.path, location.line, location.column, id_kind, detail),
            kind=sandbox.gateKind or "sandbox",
            ruleId=sandbox.id,
            location=location,
            detail=detail,
        )
        fn.gates.append(gate)
        gates.append(gate.id)
    fn.actions.append(
        ActionSite(
            id=short_id("act", site.location.path, site.location.line, site.location.column, rule.id),
            actionClass=rule.actionClass or "network.egress",
            impact=rule.impact or "medium",
            ruleId=rule.id,
            target=name,
            location=site.location,
            dominatingGates=sorted(set(gates)),
            taint=[o for arg in site.args for o in arg.origins]
            # A call whose library has its model write what it runs (Vanna's ``ask``): model output reaches the sink.
            + ([*model_output(site.location)] if rule.match.get("model_written") else []),
            sqlParam=sql_param,
        )
    )


def _calls_of(calls: Iterable[CallFact], callee: str) -> list[CallFact]:
    return [c for c in calls if c.callee == callee]


def _rewrite(
    callee: str,
    caller: str,
    resolve: Callable[[str, str], str | None],
    returns: dict[str, str],
    value_of: Callable[[str], str | None] = lambda _name: None,
    candidates: dict[str, list[str]] | None = None,
    named: Callable[[str], bool] = lambda _name: False,
) -> str | None:
    """``mod#getSandbox.commands.run`` -> ``<what getSandbox returns>.commands.run``, followed through
    functions that return another function's result; ``mod#pg.unsafe`` -> ``<what mod's pg holds>.unsafe``
    (``value_of``; the whole callee too: ``mod#run`` -> ``child_process.exec``); None when no prefix is a
    function whose result is known or a value whose type is. A function whose returns give different
    types (``candidates``) leads to the first of them, in order, for which the rules name the call
    (``named``): ``createDbClient(c).query`` is ``pg.Client.query`` when it may return a pg client."""
    for _ in range(_HOPS):
        parts = callee.split(".")
        for cut in range(len(parts), 0, -1):
            prefix = ".".join(parts[:cut])
            fid = resolve(prefix, caller) if cut < len(parts) else None
            if fid is None:
                typed = value_of(prefix) if "#" in prefix else None
                if typed is None:
                    continue
                callee = ".".join([typed, *parts[cut:]])
                break
            returned = returns.get(fid)
            if returned is None:
                rest = parts[cut:]
                return next(
                    (n for t in (candidates or {}).get(fid, ()) if named(n := ".".join([t, *rest]))),
                    None,
                )
            callee = ".".join([returned, *parts[cut:]])
            break
        else:
            return None
        if "#" not in callee or resolve(callee, caller) is not None:
            return callee
    return None


def _py_result(
    callee: str,
    caller: str,
    resolve: Callable[[str, str], str | None],
    returns: dict[str, str],
    candidates: dict[str, list[str]],
    named: Callable[[str], bool],
    built: Callable[[str], bool],
    hops: int = _HOPS,
) -> str | None:
    """Python: ``mod.get_client.put_object`` -> ``<what get_client returns>.put_object``, the longest prefix of the
    name that is a function of the tree with a known result deciding. A result that is another call's
    (``<callee>()``: ``return pool.get_client(profile)``) is followed to what that call returns, for a few hops (a
    class of the tree built there is that class); a function whose returns differ (``candidates``) leads to the
    first of them, in order, that names a call the rules know or a function of the tree. None when nothing is
    known."""
    parts = callee.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        fid = resolve(".".join(parts[:cut]), caller)
        if fid is None:
            continue
        rest = parts[cut:]
        returned = returns.get(fid)
        if returned is not None:
            return _py_follow(returned, rest, caller, resolve, returns, candidates, named, built, hops)
        for typed in candidates.get(fid, ()):
            name = _py_follow(typed, rest, caller, resolve, returns, candidates, named, built, hops)
            if name is not None and (named(name) or (typed.endswith(CALL_RESULT) and resolve(name, caller))):
                return name
        return None
    return None


def _py_follow(
    typed: str,
    rest: list[str],
    caller: str,
    resolve: Callable[[str, str], str | None],
    returns: dict[str, str],
    candidates: dict[str, list[str]],
    named: Callable[[str], bool],
    built: Callable[[str], bool],
    hops: int,
) -> str | None:
    """``rest`` read on what a function returns (``typed``: a type, or ``<callee>()``, another call's result)."""
    if not typed.endswith(CALL_RESULT):
        return ".".join([typed, *rest])
    inner = typed[: -len(CALL_RESULT)]
    fid = resolve(inner, caller) if hops > 0 else None
    if fid is None:
        # A package's value called (``return self.factory()`` with ``factory = async_sessionmaker(...)``): named
        # after that value, as the analyzer names a call of one (``instances_make`` says what it makes).
        return (
            ".".join([inner, *rest]) if hops > 0 and "." in inner and not _tree_head(inner, caller, resolve) else None
        )
    if built(fid):
        return ".".join([inner, *rest])
    return _py_result(".".join([inner, *rest]), caller, resolve, returns, candidates, named, built, hops - 1)


# Python rule keys that decide on a call's arguments, which the linker does not see.
_ARGUMENT_KEYS = ("write_mode", "read_mode", "nonliteral_arg", "key_names", "without_kwargs", "sql_write")


def _python_returns(
    fn: Fn,
    resolve: Callable[[str, str], str | None],
    returns: dict[str, str],
    candidates: dict[str, list[str]],
    rules: RulePack,
    reexports: dict[str, list[str]],
    given: dict[tuple[str, str], tuple[str, ...]],
    built: Callable[[str], bool],
    value_of: Callable[[str], str | None],
    inherited: Callable[[str], list[str]] = lambda _name: [],
    held_packages: dict[str, str] | None = None,
) -> None:
    py = compile_py_rules(rules)
    roles = compile_roles(rules)

    def named(name: str) -> bool:
        profile = py.profile(name)
        return profile.model is not None or bool(profile.actions)

    done: set[str] = set()
    for call in list(fn.calls):
        callee = call.callee
        if "#" in callee or fn.targets.get(callee) is not None or callee in done:
            continue
        done.add(callee)
        name = (
            _py_result(callee, fn.facts.qualname, resolve, returns, candidates, named, built)
            if returns or candidates
            else None
        )
        if name is None and reexports:
            name = _imported_library(callee, reexports, fn, resolve)
            if name is not None and _valued(name, value_of) is not None:
                name = None  # a top-level value of the tree a package re-exports (``from data import Session``)
        if name is None and given:
            head, _, rest = callee.partition(".")
            # (A local bound to a call on the parameter is named after it: ``paginator = client.get_paginator(...)``
            # makes ``paginator.paginate`` ``client.get_paginator.paginate``, which the analyzer counts resolved.)
            passed = given.get((fn.id, head)) if rest and (not call.resolved or head in fn.params) else None
            if passed is not None and len(passed) > 1:
                # ``request.execute()`` with callers giving ``request`` different requests of one client: a call
                # on each, whose actions (one per rule) are all this call's; else it stays unresolved.
                choices = [f"{p}.{rest}" for p in passed]
                if returns or candidates:
                    choices = [
                        _py_result(n, fn.facts.qualname, resolve, returns, candidates, named, built) or n
                        for n in choices
                    ]
                if _each_action(fn, callee, choices, py, roles, resolve):
                    fn.typed.add(callee)
                continue
            if passed is not None:
                # ``client.put_object`` with every caller giving ``client`` a ``boto3.client:s3`` (or what a function
                # of the tree returns: ``self._get_client()``).
                name = f"{passed[0]}.{rest}"
                if returns or candidates:
                    name = _py_result(name, fn.facts.qualname, resolve, returns, candidates, named, built) or name
                fn.typed.add(callee)
        if name is None and held_packages:
            # ``self.client.chat_postMessage(...)`` with every construction handing ``client`` a package's object.
            found = _held_prefix(callee, held_packages)
            if found is not None:
                name = held_packages[found] + callee[len(found) :]
                fn.typed.add(callee)
        valued = _valued(callee, value_of) if name is None else None
        if valued is not None and _answers_as_model(*valued, py):
            # ``llm.invoke(q)`` (also ``llm.with_structured_output(S).invoke(q)``) with ``llm = ChatOpenAI(...)``
            # bound at the top level of another module of the tree: what a chat model answers is model output,
            # as where the model is bound in the caller's own module.
            fn.model_calls[callee] = _calls_of(fn.calls, callee)[0].location
            fn.typed.add(callee)
            continue
        if valued is not None and not _in_tree(valued[0], fn, resolve):
            # ``SessionLocal().add(row)`` with ``SessionLocal = sessionmaker(...)`` at the top level of another
            # module (``db.SessionLocal.add``): a call on that package's value, matched as where it is bound.
            name = ".".join([valued[0], *valued[1]])
            fn.typed.add(callee)
        if name is None:
            # ``vn.ask(question=q)`` with ``vn = VannaClient(...)`` and ``class VannaClient(ChromaDB_VectorStore,
            # OpenAI_Chat)``: a method the tree's class does not define is its package base's, as the rules name it.
            held = [".".join([valued[0], *valued[1]])] if valued is not None else []
            name = next((n for c in (callee, *held) for n in inherited(c) if named(n)), None)
            if name is not None:
                fn.typed.add(callee)
        if name is None and call.client and roles.client_rule is not None and not _in_tree(callee, fn, resolve):
            # ``create_client(...).send_message``, ``Resolver(base_url=...).get_agent_card`` of a package.
            for site in _calls_of(fn.calls, callee):
                _add_action(fn, site, roles.client_rule, callee, None, "sandbox")
            continue
        if name is None or name == callee:
            continue
        target = resolve(name, fn.facts.qualname)
        if target is not None:
            fn.targets[callee] = target
            continue
        if not named(name):
            # ``data.vanna_ai.VannaClient.ask``: a method the tree's class inherits from a package base.
            name = next((n for n in inherited(name) if named(n)), name)
        profile = py.profile(name)
        if profile.model is not None and not profile.model.match.get("constructors"):
            # ``get_client().chat.completions.create(...)`` with ``get_client`` returning a model client: its
            # result is model output.
            _model_calls(fn, callee, profile.model, name)
            fn.typed.add(callee)
            continue
        rule = _python_action(name, profile.actions, roles)
        sites = _calls_of(fn.calls, callee)
        if rule is None:
            sql = next((r for r in profile.actions if r.match.get("sql_write")), None)
            if sql is not None:
                # Raw SQL on a parameter typed by its callers: classed by its text, as the analyzer classes it.
                for site in sites:
                    by_text = _sql_by_text(site, sql, py.db_read, py.sql_exec)
                    if by_text is not None:
                        _add_action(fn, site, by_text, name, None, "sandbox")
                continue
        if rule is None:
            # ``db.run(sql_query)``: a rule for text not written in the code holds where the text carries a
            # value from elsewhere (it is then no literal).
            rule = next((r for r in profile.actions if set(r.match) & set(_ARGUMENT_KEYS) == {"nonliteral_arg"}), None)
            sites = [s for s in sites if rule is not None and _carries(s, rule.match["nonliteral_arg"])]
        if rule is None:
            continue
        sandbox = py.sandbox_rule if rule.match.get("sandboxed") else None
        # What the call also does besides (boto3's ``upload_file`` reads the local file it sends).
        also = profile.alongside if rule in profile.actions else ()
        for site in sites:
            _add_action(fn, site, rule, name, sandbox, "sandbox")
            for each in also:
                _add_action(fn, site, each, name, None, "sandbox")
        if sites:
            fn.typed.add(callee)  # its type is known now: no ``unresolved_call`` item


def _each_action(
    fn: Fn,
    callee: str,
    names: list[str],
    py: CompiledRules,
    roles: Roles,
    resolve: Callable[[str, str], str | None],
) -> bool:
    """The calls of ``callee`` in ``fn`` read as a call of each of ``names`` (what its receiver may be), when all
    are calls of one package (different requests of one client; an S3 client here and a Redis client there say
    nothing sure): an action of each rule naming one of them whatever its arguments; whether any was."""
    if len({name.split(".", 1)[0] for name in names}) != 1:
        return False
    by_rule: dict[str, tuple[Rule, str]] = {}
    for each in names:
        if resolve(each, fn.facts.qualname) is not None:
            continue
        found = _python_action(each, py.profile(each).actions, roles)
        if found is not None and found.id not in by_rule:
            by_rule[found.id] = (found, each)
    for rule, name in by_rule.values():
        for site in _calls_of(fn.calls, callee):
            _add_action(fn, site, rule, name, None, "sandbox")
    return bool(by_rule)


def _valued(callee: str, value_of: Callable[[str], str | None]) -> tuple[str, list[str]] | None:
    """``callee`` as a member of another module's top-level value whose type is known, the longest such prefix
    deciding: (that type, the rest of the name's parts); None when no prefix is one. A field of a class of the tree
    that value holds, typed where the class declares it (``config.client.get(u)`` with ``config = Config(...)`` and
    ``client: httpx.Client`` a field of ``Config``), is read through: (``httpx.Client``, ``["get"]``)."""
    parts = callee.split(".")
    for end in range(len(parts) - 1, 0, -1):
        typed = value_of(".".join(parts[:end]))
        if typed is not None:
            rest = parts[end:]
            for _ in range(_HOPS):
                held = value_of(f"{typed}.{rest[0]}") if len(rest) > 1 else None
                if held is None:
                    break
                typed, rest = held, rest[1:]
            return typed, rest
    return None


def _answers_as_model(typed: str, rest: list[str], py: CompiledRules) -> bool:
    """Whether ``rest`` called on another module's top-level value of type ``typed`` is a method (or a method of what
    a method made) of a package's model a rule names whose calls answer as a model (``langchain_openai.ChatOpenAI``;
    not a client or agent constructor, whose own methods the rules name), or a call the rules say answers with
    the model's output on that type (an agent's ``run_sync``)."""
    if py.profile(".".join([typed, *rest])).model_answer:
        return True  # ``agent.run_sync(q)`` with ``agent = Agent(...)`` of another module
    kinds = typed.split(".")
    for stop in range(2, len(kinds) + 1):
        model = py.profile(".".join(kinds[:stop])).model
        if model is not None and not model.match.get("constructors"):
            return True
    return False


def _sql_by_text(site: CallFact, write: Rule, read: Rule | None, dynamic: Rule | None) -> Rule | None:
    """The rule of a raw SQL call by its first argument: text fixed in the code that writes or reads (``text``),
    or text carrying a value from elsewhere, run verbatim (``sql.exec``); None when neither is known."""
    first = next((a for a in site.args if a.index == 0), None)
    if first is None:
        return None
    if first.text is not None:
        return write if first.text == "write" else read if first.text == "read" else None
    built = _built_statement(first.origins, write.match.get("statement_builders"))
    if built is not None:
        return write if built == "write" else read
    return dynamic if first.origins else None


def _built_statement(origins: list[TaintOrigin], builders: dict[str, list[str]] | None) -> str | None:
    """``session.execute(select(User).where(...))``: a statement a library builds, no text, read or written by its
    builder (the rule's ``statement_builders``) when every value the argument may hold is one builder's result."""
    if not origins or not builders:
        return None
    kinds = set()
    for origin in origins:
        callee = origin.callee if origin.kind == "call_return" else None
        kind = next(
            (
                k
                for k in ("write", "read")
                if callee and any(callee == h or callee.startswith(h + ".") for h in builders.get(k, ()))
            ),
            None,
        )
        if kind is None:
            return None
        kinds.add(kind)
    return "write" if "write" in kinds else "read"


def _imported_library(
    callee: str, reexports: dict[str, list[str]], fn: Fn, resolve: Callable[[str, str], str | None]
) -> str | None:
    """``toolkits.shell_toolkit.pexpect.spawn`` where ``toolkits/shell_toolkit.py`` imports ``pexpect`` and
    ``pexpect`` is no module of the tree: ``pexpect.spawn``."""
    head = callee
    while "." in head:
        head = head.rsplit(".", 1)[0]
        targets = reexports.get(head)
        if targets and len(targets) == 1 and "." in head:
            target = targets[0]
            if resolve(target, fn.facts.qualname) is not None or _in_tree(target + ".x", fn, resolve):
                return None
            return target + callee[len(head) :]
    return None


def _tree_head(name: str, caller: str, resolve: Callable[[str, str], str | None]) -> bool:
    """Whether a prefix of ``name`` names a function or class of the tree."""
    parts = name.split(".")
    return any(resolve(".".join(parts[:cut]), caller) is not None for cut in range(len(parts) - 1, 0, -1))


def _in_tree(callee: str, fn: Fn, resolve: Callable[[str, str], str | None]) -> bool:
    """Whether a prefix of ``callee`` names a function or class of the tree (a factory of the tree's own)."""
    parts = callee.split(".")
    return any(resolve(".".join(parts[:cut]), fn.facts.qualname) is not None for cut in range(len(parts) - 1, 0, -1))


def _python_action(name: str, actions: Iterable[Rule], roles: Roles) -> Rule | None:
    """The Python action rule naming ``name`` whatever its arguments, else the client-class rule when a
    segment of ``name`` is a package's client class (``tavily.TavilyClient.search``) and no rule names the call
    at all: a rule that decides by the arguments (raw SQL classed by its text, ``asyncpg.Connection.fetch``) is
    the caller's to read, not a client's network egress."""
    named = False
    for rule in actions:
        if not any(key in rule.match for key in _ARGUMENT_KEYS):
            return rule
        named = True
    if roles.client_rule is None or named:
        return None
    for segment in name.split(".")[1:-1]:
        if segment[:1].isupper() and roles.client_classes.matches(segment):
            return roles.client_rule
    return None
