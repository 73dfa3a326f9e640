"""Statements walked in order, with structured gate dominance (``StatementLogic``)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any

from assay.backend.engines.static.checked import branch_dispatches, without
from assay.backend.engines.static.facts import (
    CALL_RESULT,
    GateSite,
    TaintOrigin,
)
from assay.backend.engines.static.pyast.base import is_user_callee, made
from assay.backend.engines.static.pyast.conditions import Condition, Outcome, meet
from assay.backend.engines.static.pyast.gates import refuses
from assay.backend.engines.static.pyast.graph_state import state_field, state_param, state_update
from assay.backend.engines.static.pyast.literals import (
    annotation_type,
    constructed_type,
    is_literal,
    module_bindings,
    opens_for_writing,
    setting_default,
)
from assay.backend.engines.static.pyast.names import BUILTINS
from assay.backend.engines.static.pyast.scope import (
    DEFINITION_KINDS,
    MODULE_PARAMS,
    NO_CALLEE,
    NO_TAINT,
    Scope,
    definitions,
    param_taint,
)
from assay.backend.engines.static.pyast.syntax import (
    child_nodes,
    node_fields,
    own_statements,
    statements_breadth_first,
    walk,
)
from assay.backend.engines.static.pyast.taint import ExpressionLogic, note_literal_path


class StatementLogic(ExpressionLogic):
    """Blocks and statements: which gates dominate each point, and what a branch proves."""

    def _walk_block(self, body: Sequence[ast.stmt], scope: Scope, active: frozenset[str]) -> Outcome:
        """Walk statements in order; return the gates that dominate the point after the block, or
        ``None`` when control never falls out of it. Code after a ``return`` is still read (its
        calls and models exist) with the gates known before it."""
        outcome: Outcome = active
        for stmt in body:
            kind = type(stmt)
            if kind in DEFINITION_KINDS:
                scope.defines = True
                if scope.params is not MODULE_PARAMS:
                    # A nested definition is called by its local name: resolve it to its qualname.
                    name = stmt.name  # type: ignore[attr-defined]
                    scope.types[name] = f"{scope.qualname}.{name}"
                    self._last_callee = NO_CALLEE
                    scope.taint.setdefault(name, NO_TAINT)
                continue
            after = _STATEMENTS.get(kind, StatementLogic._plain)(self, stmt, scope, active)
            if after is None:
                outcome = None
            else:
                active = after
                if outcome is not None:
                    outcome = after
        return outcome

    def _expression_statement(self, stmt: ast.Expr, scope: Scope, active: frozenset[str]) -> Outcome:
        value = stmt.value
        self._expr(value, scope, active)
        if type(value) is ast.Yield and value.value is not None:
            # ``yield db`` in ``get_db()`` (a FastAPI dependency, a ``@contextmanager``): what the generator gives
            # ``Depends`` or ``with`` is what a caller holds, as a return would be.
            scope.return_types.add(self._constructed(value.value, scope))
        if scope.list_vars:
            self._list_grows(stmt, scope.list_vars)
        gate = self._gate_of_expr(value, scope)
        # An unconditional approval/limit call: everything after it in the block is behind it.
        if gate is not None:
            active = active | {gate}
        return self._held(value, scope, active)

    def _held(self, value: ast.expr, scope: Scope, active: frozenset[str]) -> frozenset[str]:
        """``active`` and what holds once ``value``'s statement is done: gates met inside it
        (``interrupt(...)["ok"]``) and the gates a same-file function called there raises unless
        they pass (``validate_path(p)``: its path check holds after it returns)."""
        if scope.pending:
            active = active | scope.pending
            scope.pending = set()
        call = value.value if isinstance(value, ast.Await) else value
        if isinstance(call, ast.Call):
            name, resolved = self._callee(call, scope)
            if name and resolved and name.startswith(self.module_prefix):
                held = self._exit_gates(name)
                short = name.rsplit(".", 1)[-1]
                for site in held:
                    if site.id not in scope.gate_ids:
                        scope.gate_ids.add(site.id)
                        scope.gates.append(site)
                    # Also where the caller is held by it: the call is this path's check.
                    detail = f"{short}(...) raises unless: {site.detail}"
                    ids = frozenset({site.id, self._resited(site, call, scope, detail)})
                    self._note_checked(call, ids, scope)
                    active = active | ids
        return active

    def _exit_gates(self, qualname: str) -> tuple[GateSite, ...]:
        """The gates that hold wherever a function of this file returns normally (its end, and every
        ``return`` of a value; a bare ``return``, ``return None`` or a constant is the helper's way of
        saying there is nothing to check, as in ``if allowed is None: return``): a helper that raises
        unless a check passes. Read once per
        function, with a walk whose other facts are dropped; sandboxes are not carried (they gate what
        runs inside them, not the caller)."""
        return self._summarised(self._summaries, qualname, self._exit_gates_of)

    def _exit_gates_of(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, cls: str | None
    ) -> tuple[GateSite, ...]:
        if not any(type(node) is ast.Raise for node in statements_breadth_first(fn)):
            return ()
        scope, outcome = self._summary_walk(fn, qualname, cls)
        return tuple(g for g in scope.gates if outcome and g.id in outcome and g.kind != "sandbox")

    def _verdict_sites(self, qualname: str) -> tuple[GateSite, ...]:
        """The gates met in a function of this file that answers yes or no: it returns ``False`` (or a tuple
        starting with it) on some path and ``True`` or a value to test on another, and meets a gate on the
        way (``GateLogic._verdict``). Read once per function; sandboxes are not carried."""
        return self._summarised(self._verdicts, qualname, self._verdict_sites_of)

    def _verdict_sites_of(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, cls: str | None
    ) -> tuple[GateSite, ...]:
        answers = _answers(fn)
        if None in answers or not answers & {False, _TEST} or answers == {False}:
            return ()  # not only yes or no, or never more than one of them
        scope, _ = self._summary_walk(fn, qualname, cls)
        return tuple(g for g in scope.gates if g.kind != "sandbox")

    def _error_sites(self, qualname: str) -> tuple[GateSite, ...]:
        """The gates met in a function of this file that hands back a message when a check fails and nothing when it
        passes (``return f"Error: {name} not allowed"`` on some path, ``return None`` or its end on another: an
        error-or-nothing validator; ``GateLogic._error_verdict``). Read once per function; sandboxes are not
        carried."""
        return self._summarised(self._errors, qualname, self._error_sites_of)

    def _error_sites_of(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, cls: str | None
    ) -> tuple[GateSite, ...]:
        if not _errors_or_nothing(fn):
            return ()
        scope, _ = self._summary_walk(fn, qualname, cls)
        return tuple(g for g in scope.gates if g.kind != "sandbox")

    def _refusing_sites(self, qualname: str) -> tuple[tuple[GateSite, ...], frozenset[object]]:
        """``def resolve_path(p): ...; if root not in path.parents: return None; return path``: a function of
        this file that refuses with ``None`` or ``False`` on some path and hands back a value on the others
        (``_refusals``): the gates that hold at each of its returns of a value (a refusal, falling off the
        end included, holds none), and the constants it refuses with. Read once per function; sandboxes are
        not carried."""
        found = self._refusing.get(qualname)
        if found is not None:
            return found
        self._refusing[qualname] = found = ((), frozenset())  # a recursive call sees no summary
        entry = self._function_defs().get(qualname)
        refused = _refusals(entry[0]) if entry is not None else None
        if entry is None or not refused:
            return found
        scope, _ = self._summary_walk(entry[0], qualname, entry[1])
        handed = [active for active, message in scope.exits or () if not message]
        held = meet(*handed) if handed else None
        if held:
            sites = tuple(g for g in scope.gates if g.id in held and g.kind != "sandbox")
            self._refusing[qualname] = found = (sites, refused) if sites else found
        return found

    def _summarised(
        self,
        summaries: dict[str, tuple[GateSite, ...]],
        qualname: str,
        summarise: Callable[[ast.FunctionDef | ast.AsyncFunctionDef, str, str | None], tuple[GateSite, ...]],
    ) -> tuple[GateSite, ...]:
        """A summary of a function of this file, read once and kept in ``summaries``; none for a name the
        file does not define."""
        found = summaries.get(qualname)
        if found is not None:
            return found
        summaries[qualname] = ()  # a recursive call sees no summary
        entry = self._function_defs().get(qualname)
        if entry is None:
            return ()
        fn, cls = entry
        summaries[qualname] = held = summarise(fn, qualname, cls)
        return held

    def _summary_walk(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, cls: str | None
    ) -> tuple[Scope, Outcome]:
        """A walk of a helper to summarise it: its scope (gates met, what held at each ``return`` of a
        value) and what held at its end; the tools, models and other facts the walk finds are dropped
        (the file's own walk records them)."""
        kept = (
            len(self.tools),
            len(self.models),
            len(self.frontier),
            len(self._literal_tools),
            len(self._listed_tools),
            len(self.functions),
        )
        enclosing, self._class = self._class, cls
        scope = self._function_scope(fn, qualname, frozenset())
        scope.exits = []
        try:
            outcome = meet(self._walk_block(fn.body, scope, frozenset()), *(active for active, _ in scope.exits))
        finally:
            self._class = enclosing
            self._last_callee = NO_CALLEE
            del self.tools[kept[0] :], self.models[kept[1] :], self.frontier[kept[2] :]
            del self._literal_tools[kept[3] :], self._listed_tools[kept[4] :], self.functions[kept[5] :]
        return scope, outcome

    def _function_defs(self) -> dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]]:
        """Module-level functions and methods of module-level classes, by qualname, and the functions
        defined inside them (``outer.inner``: a path check a tool defines for itself)."""
        if self._defs is None:
            self._defs = {}
            for stmt in self.module_defs:
                if isinstance(stmt, ast.ClassDef):
                    for method in definitions(stmt.body):
                        if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                            self._add_defs(f"{self.module}.{stmt.name}.{method.name}", method, stmt.name)
                elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    self._add_defs(f"{self.module}.{stmt.name}", stmt, None)
        return self._defs

    def _add_defs(self, qualname: str, fn: ast.FunctionDef | ast.AsyncFunctionDef, cls: str | None) -> None:
        assert self._defs is not None
        self._defs[qualname] = (fn, cls)
        for inner in definitions(fn.body):
            if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                self._add_defs(f"{qualname}.{inner.name}", inner, cls)

    def _function_scope(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, outer: frozenset[str]
    ) -> Scope:
        """A function's scope on entry: its parameters (each its own taint) typed by their annotations."""
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        if fn.args.vararg:
            params.append(fn.args.vararg.arg)
        if fn.args.kwarg:
            params.append(fn.args.kwarg.arg)
        scope = Scope(qualname=qualname, params=params, outer=outer, function=fn)
        for index, name in enumerate(params):
            scope.taint[name] = param_taint(name, index)
        for arg in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs):
            # ``def tool(db: Session)``: the annotation types the parameter like an assignment would.
            annotation = annotation_type(arg.annotation)
            if annotation is not None:
                typed, ok = self.dotted(annotation, None)
                if ok and typed:
                    scope.types[arg.arg] = typed
                    if self.reads_lifespan and typed in self.rules.lifespan_contexts:
                        # ``ctx: Context`` of an MCP server: its lifespan context is what the lifespan yields.
                        held = self._lifespan_type()
                        if held is not None:
                            scope.types[f"{arg.arg}.{self.rules.lifespan_contexts[typed]}"] = held
            elif isinstance(arg.annotation, ast.Subscript):
                self._context_param(arg.arg, arg.annotation, scope)
        if self.rules.dependency_markers and (fn.args.defaults or fn.args.kw_defaults):
            self._dependency_params(fn, scope)
        if (
            self._class is not None
            and params
            and params[0] not in scope.types
            and any(type(d) is ast.Name and d.id == "classmethod" for d in fn.decorator_list)
        ):
            # ``@classmethod def from_env(cls): return cls(WebClient(token=t))``: ``cls`` is the class, so ``cls(...)``
            # builds one (a construction the linker reads like ``Notifier(...)``).
            scope.types[params[0]] = f"{self.module}.{self._class}"
        hooked = self._callback_params.get(qualname)
        if hooked is not None and params and params[0] not in scope.types:
            # ``create_pool(init=init)``: ``init(conn)`` is called with a connection.
            scope.types[params[0]] = hooked
        if scope.types:
            scope.state = state_param(params, scope.types)
        return scope

    def _dependency_params(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        """``def route(db=Depends(get_db))``: an untyped parameter a dependency marker fills holds what the dependency
        gives (its result, or what it yields): typed as a call of it, followed by the linker when it is another
        module's (``get_db`` yielding ``SessionLocal()``, a session)."""
        positional = [*fn.args.posonlyargs, *fn.args.args]
        pairs = [*zip(positional[len(positional) - len(fn.args.defaults) :], fn.args.defaults, strict=True)]
        pairs += [(a, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True) if d is not None]
        for arg, default in pairs:
            if arg.arg in scope.types or type(default) is not ast.Call or not default.args:
                continue
            marker, ok = self.dotted(default.func, None)
            if not (ok and marker in self.rules.dependency_markers):
                continue
            given = default.args[0]
            dependency, known = (
                self.dotted(given, None) if type(given) is ast.Name or type(given) is ast.Attribute else (None, False)
            )
            if known and dependency:
                scope.types[arg.arg] = self._return_types().get(dependency, dependency)

    def _declared_local(self, name: str, annotation: ast.expr, scope: Scope) -> None:
        """``creds: Credentials | None = None`` in a function: ``creds`` holds a ``Credentials`` wherever a later
        binding says nothing more of it (``taint._assign``)."""
        if scope.params is MODULE_PARAMS:
            return
        named = annotation_type(annotation)
        typed, known = self.dotted(named, None) if named is not None else (None, False)
        if known and typed and made(typed):
            scope.declared[name] = typed
            scope.types[name] = typed
        else:
            scope.declared.pop(name, None)

    def _loop_item_type(self, target: ast.expr, iterable: ast.expr, scope: Scope) -> None:
        """``for tool in self.tools:`` with ``tools: list[BaseTool]`` (a field of the class or a parameter), ``for r
        in self.pool.values()`` / ``for k, r in self.pool.items()`` with ``pool: Dict[str, Runner]``: the loop's name
        holds an item of that type."""
        method = ""
        if type(target) is ast.Tuple and len(target.elts) == 2 and type(iterable) is ast.Call and not iterable.args:
            target, method = target.elts[1], "items"
        elif type(iterable) is ast.Call and not iterable.args:
            method = "values"
        if type(target) is not ast.Name:
            return
        if method:
            func = iterable.func  # type: ignore[attr-defined]
            if type(func) is not ast.Attribute or func.attr != method:
                held = self._listed_paths(iterable, scope)  # ``for p in d.iterdir():``
            else:
                held = self._held_items(func.value, scope, False)
        else:
            held = self._held_items(iterable, scope, True) or self._listed_paths(iterable, scope)
        if held is not None:
            scope.types[target.id] = held

    def _listed_paths(self, node: ast.expr, scope: Scope) -> str | None:
        """``d.rglob("*.md")``, ``d.glob(p)``, ``d.iterdir()``, also inside ``list(...)`` or ``sorted(...)``: with ``d`` a
        ``pathlib.Path`` its items are paths, typed by the listing's chain (``pathlib.Path.rglob``), so that a method on
        an item reads as the ``pathlib.Path`` method it is (``note.read_text()``); on any other object the chain names
        nothing a rule knows."""
        if (
            type(node) is ast.Call
            and type(node.func) is ast.Name
            and node.func.id in _ITEM_COPIES
            and len(node.args) == 1
        ):
            node = node.args[0]
        if (
            type(node) is not ast.Call
            or type(func := node.func) is not ast.Attribute
            or func.attr not in _PATH_LISTINGS
        ):
            return None
        typed = self._type_of(node, scope)
        # A chain through the tree's own classes (``ctx.deps.vault.rglob`` with ``vault: Path`` a field declared in
        # another file) is kept as it is: linking reads the field's type and the item's methods with it.
        return typed if typed is not None and typed.endswith(f".{func.attr}") else None

    def _held_items(self, container: ast.expr, scope: Scope, iterated: bool) -> str | None:
        """The type of the items of ``self.<field>`` or a parameter annotated as a container of one class; when
        ``iterated``, only of a sequence (iterating a mapping gives its keys)."""
        if type(container) is ast.Attribute and type(container.value) is ast.Name and container.value.id == "self":
            if self._class is None:
                return None
            held = self.class_item_types.get(self._class, {}).get(container.attr)
            sequence = container.attr in self.class_sequences.get(self._class, ())
            return held if held is not None and sequence == iterated else None
        if type(container) is ast.Name:
            return scope.types.get(f"{container.id}[]" if iterated else f"{container.id}{{}}")
        return None

    @staticmethod
    def _typed_root(value: ast.expr, scope: Scope) -> bool:
        """Whether an attribute chain starts at a name the function typed (a parameter's annotation, a local bound to
        a known object), or at an attribute of it the function typed (``ctx.deps`` of ``ctx: RunContext[Deps]``)."""
        node = value
        first = ""
        while isinstance(node, ast.Attribute):
            first = node.attr
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        root = node.id
        return root != "self" and (root in scope.types or f"{root}.{first}" in scope.types)

    def _context_param(self, name: str, annotation: ast.Subscript, scope: Scope) -> None:
        """``ctx: RunContext[Deps]``: ``ctx.deps`` is a ``Deps`` (typed under the key ``ctx.deps``, which
        ``dotted`` reads before the attribute chain goes on). Any other parameterised class of a package
        (``agent: Agent[Deps, str]``) is an instance of that class, as ``agent: Agent`` is; the containers
        and special forms of ``typing``, ``collections`` and the builtins (``list[Session]``) are not."""
        items = self.held_type(annotation)
        if items is not None:
            # ``tools: list[BaseTool]``: what iterating it gives (``tools: Dict[str, Runner]``: its values).
            scope.types[f"{name}[]" if items[1] else f"{name}{{}}"] = items[0]
            return
        generic, ok = self.dotted(annotation.value, None)
        if not (ok and generic):
            return
        attr = self.rules.context_generics.get(generic)
        if attr is None:
            if "." in generic and generic.split(".", 1)[0] not in _GENERIC_CONTAINERS:
                scope.types[name] = generic
            path = self.rules.lifespan_contexts.get(generic) if self.reads_lifespan else None
            if path is not None and type(annotation.slice) is ast.Tuple and len(annotation.slice.elts) > 1:
                # ``ctx: Context[ServerSession, AppContext]``: the lifespan context is an ``AppContext``.
                named = annotation_type(annotation.slice.elts[1])
                held, known = self.dotted(named, None) if named is not None else (None, False)
                if known and held:
                    scope.types[f"{name}.{path}"] = held
            return
        inner = annotation_type(annotation.slice)
        typed, resolved = self.dotted(inner, None) if inner is not None else (None, False)
        if resolved and typed:
            scope.types[f"{name}.{attr}"] = typed

    def _return(self, stmt: ast.Return, scope: Scope, active: frozenset[str]) -> Outcome:
        if stmt.value is not None:
            if scope.state is not None and type(stmt.value) is ast.Dict:
                # ``return {"query": result.query}``: a node's update of its graph's state.
                scope.returns |= self._state_update(stmt.value, scope.state[1], scope, active)
            else:
                scope.returns |= self._expr(stmt.value, scope, active)
            scope.return_types.add(self._constructed(stmt.value, scope))
            if type(stmt.value) is ast.Tuple:
                # ``return chain, db``: a caller unpacking it calls methods of each item's class.
                items = (self._constructed(item, scope) for item in stmt.value.elts)
                scope.return_items.update(t for t in items if t)
            if type(stmt.value) is ast.Name and scope.defines:
                self._returned_closure(stmt, stmt.value.id, scope, active)
            if scope.list_vars or type(stmt.value) is ast.List:
                self._returned_list(stmt.value, scope)
            if scope.exits is not None and not is_literal(stmt.value):
                scope.exits.append((active, type(stmt.value) is ast.JoinedStr))
                self._answer_checks(stmt.value, scope)
        return None

    def _state_update(
        self, value: ast.Dict, state_type: str, scope: Scope, active: frozenset[str]
    ) -> frozenset[TaintOrigin]:
        """A dict literal returned by a node (``_expr`` of it, every call recorded once): each string key of
        the update is written from what its value carries."""
        self._dict_tool(value, scope)
        self._name_table(value)
        written = {id(item): key for key, item in state_update(value)}
        taint = NO_TAINT
        for key_node, item in zip(value.keys, value.values, strict=True):
            if key_node is not None and type(key_node) is not ast.Constant:
                taint = taint | self._expr(key_node, scope, active)
            found = self._expr(item, scope, active)
            key = written.get(id(item))
            if found and key is not None:
                field_key = state_field(state_type, key)
                scope.field_writes[field_key] = scope.field_writes.get(field_key, NO_TAINT) | found
            taint = taint | found
        return taint

    def _item_type(self, value: ast.Subscript, scope: Scope) -> str | None:
        """What ``x[key]`` holds, when known: an item of a class's cache of built objects (``self._clients[k]``),
        what a ``__getitem__`` of this file says it gives (``paths[stream]``, ``-> Path``), or, for a package's
        object something built (``db = mongo_client["app"]``), that package's object still; else None."""
        typed, ok = self.dotted(value, scope)
        if not (ok and typed):
            return None
        container, _ = self.dotted(value.value, scope)
        if typed != container:
            return typed
        return typed if made(typed) and self._package_type(typed) else None

    def _constructed(self, value: ast.expr, scope: Scope) -> str | None:
        """The package class ``value`` constructs (``return TavilyClient(api_key=key)``), also through a
        local it was bound to (``executor = LocalCommandLineCodeExecutor(...); return executor``) or a field or
        cache it is held in (``return self._clients[key]``, ``return self.client``); else, for a call of a function
        that may be the tree's, what that call returns (``<callee>()``, followed by the linker: ``return
        pool.get_client(profile)``); else None."""
        if isinstance(value, ast.Await):
            value = value.value
        name: str | None
        if isinstance(value, ast.Name):
            name = scope.types.get(value.id)
            resolved = name is not None
        elif isinstance(value, ast.Call):
            name, resolved = self.dotted(value.func, scope)
            if resolved and name:
                typed = constructed_type(value, name)
                if typed != name:
                    return typed  # ``boto3.client("s3")``: the service's client
        elif isinstance(value, ast.Subscript) and (item := self._member_type(value, scope)) is not None:
            return item  # ``return client[db_name]``: a member of a package's object, returned as it is
        elif isinstance(value, ast.Subscript | ast.Attribute):
            name, resolved = self.dotted(value, scope)
        else:
            return None
        if not name or not resolved or "." not in name:
            return None
        rules = self.rules
        if name.startswith(self.module_prefix) or not (
            made(name) or name in rules.instances_make or name in rules.rule_receivers
        ):
            if (
                isinstance(value, ast.Call)
                and is_user_callee(name, resolved, self)
                and name.split(".", 1)[0] not in BUILTINS
            ):
                return name + CALL_RESULT
            if (
                isinstance(value, ast.Name)
                and name.startswith(self.module_prefix)
                and name[len(self.module_prefix) :] in self._module_functions()
            ):
                # ``_pool = await init_db()`` then ``return _pool``: what that function of the file returns.
                return name + CALL_RESULT
            return None
        return name if name.split(".", 1)[0] not in self.local_defs else None

    def _raise(self, stmt: ast.Raise, scope: Scope, active: frozenset[str]) -> Outcome:
        for part in (stmt.exc, stmt.cause):
            if part is not None:
                self._expr(part, scope, active)
        return None

    def _jump(self, stmt: ast.Continue | ast.Break, scope: Scope, active: frozenset[str]) -> Outcome:
        return None

    def _loop(self, stmt: ast.For | ast.AsyncFor | ast.While, scope: Scope, active: frozenset[str]) -> Outcome:
        head = stmt.iter if isinstance(stmt, ast.For | ast.AsyncFor) else stmt.test
        taint = self._expr(head, scope, active)
        if isinstance(stmt, ast.For | ast.AsyncFor):
            self._assign(stmt.target, taint, None, scope)
            if self.class_item_types or scope.types or type(stmt.iter) is ast.Call:
                self._loop_item_type(stmt.target, stmt.iter, scope)
            if type(stmt.target) is ast.Name:
                scope.iterables[stmt.target.id] = stmt.iter
            elif type(stmt.target) is ast.Tuple:
                for element in stmt.target.elts:
                    if type(element) is ast.Name:
                        scope.loop_items[element.id] = stmt.iter
        # The body may run no times: nothing in it dominates what follows the loop, except the checks
        # each element of a ``for`` passes (below).
        after_body = self._walk_block(stmt.body, scope, active)
        self._walk_block(stmt.orelse, scope, active)
        if after_body and type(stmt) is not ast.While and after_body - active and not _skips_iterations(stmt.body):
            # ``for f in files: ... f.relative_to(root) ...; raise`` unless it holds: when the loop is done
            # (no ``break`` or ``continue`` skipped the check), every element passed it. Only checks of
            # values (path containment, allowlists) are carried out of the loop.
            kinds = {g.id: g.kind for g in scope.gates}
            checked = {g for g in after_body - active if kinds.get(g) in _ELEMENT_CHECKS}
            if checked:
                return active | checked
        return active

    def _with(self, stmt: ast.With | ast.AsyncWith, scope: Scope, active: frozenset[str]) -> Outcome:
        inside = active
        entered = "__aenter__" if type(stmt) is ast.AsyncWith else "__enter__"
        for item in stmt.items:
            taint = self._expr(item.context_expr, scope, active)
            gate = self._gate_of_expr(item.context_expr, scope) or self._context_gate(item.context_expr, scope)
            if gate is not None:
                # ``with Sandbox() as sbx:`` or ``with limiter:``: the body runs behind it.
                inside = inside | {gate}
            typed = self._type_of(item.context_expr, scope)
            if typed and any(
                str(call).endswith(entered)
                for rule in self.rules.profile(f"{typed}.{entered}").actions
                for call in rule.match.get("calls", ())
            ):
                # ``async with client:`` on a FastMCP client: entering its context connects (a rule names the entry
                # itself; a pattern for every method of a client, ``httpx.AsyncClient.*``, says nothing of it).
                self._expr(_entering(item.context_expr, entered), scope, active)
            if item.optional_vars is not None:
                self._assign(item.optional_vars, taint, typed, scope)
                self._written_file(item.context_expr, item.optional_vars, scope)
        after = self._walk_block(stmt.body, scope, inside)
        return None if after is None else active | (after - inside) | (after & inside & active)

    def _written_file(self, opened: ast.expr, handle: ast.expr, scope: Scope) -> None:
        """``with open(path, "w") as f:``: what ``f.write`` is given is carried by the names ``path`` is made
        of (``f"{process_id}.py"``), so a command that later names the same file (``python3 {process_id}.py``)
        runs what was written."""
        if not (isinstance(opened, ast.Call) and isinstance(handle, ast.Name)):
            return
        name = self.dotted(opened.func, scope)[0] or ""
        if name in self.rules.temp_files:
            # ``tmp = tempfile.NamedTemporaryFile("w", suffix=".py")``: the handle is the file, its ``tmp.name``
            # the path a command later runs.
            scope.written_files[handle.id] = (handle.id,)
            return
        if not (name == "open" or name.endswith(".open")) or not opens_for_writing(opened):
            return
        if name.endswith("Path.open") and isinstance(opened.func, ast.Attribute):
            target: ast.expr = opened.func.value  # ``Path(p).open("w")``
        elif opened.args:
            target = opened.args[0]
        else:
            return
        names = tuple(sorted({n.id for n in walk(target) if isinstance(n, ast.Name)})) + tuple(
            note_literal_path(target, scope)
        )
        if names:
            scope.written_files[handle.id] = names

    def _assert(self, stmt: ast.Assert, scope: Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.test, scope, active)
        condition = self._condition(stmt.test, scope)
        if not condition.clean_true:
            self._note_checked(stmt.test, condition.when_true, scope)
        self._clean(condition.clean_true, scope)
        return active | condition.when_true

    def _plain(self, stmt: ast.stmt, scope: Scope, active: frozenset[str]) -> Outcome:
        """Any other statement: the expressions it holds are read; it changes no gates."""
        for attr in node_fields(type(stmt)):
            value = getattr(stmt, attr)
            for child in value if type(value) is list else (value,):
                if isinstance(child, ast.expr):
                    self._expr(child, scope, active)
        return active

    def _assignment(
        self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign, scope: Scope, active: frozenset[str]
    ) -> Outcome:
        value = stmt.value
        if type(stmt) is ast.AnnAssign and type(stmt.target) is ast.Name:
            self._declared_local(stmt.target.id, stmt.annotation, scope)
        if value is None:
            return active
        taint = self._expr(value, scope, active)
        kind = type(value)
        if kind is ast.Call or kind is ast.BinOp:
            name = self._type_of(value, scope)
        elif kind is ast.Await and type(value.value) is ast.Call:  # type: ignore[attr-defined]
            name = self._type_of(value.value, scope)  # type: ignore[attr-defined]  # ``x = await X.create()``
        elif (
            self.reads_lifespan
            and kind is ast.Attribute
            and type(inner := value.value) is ast.Attribute  # type: ignore[attr-defined]
            and type(inner.value) is ast.Name
        ):
            # ``app = ctx.request_context.lifespan_context``: what the server's lifespan yields.
            name = scope.types.get(f"{inner.value.id}.{inner.attr}.{value.attr}")  # type: ignore[attr-defined]
        elif isinstance(value, ast.Attribute) and type(value.value) is ast.Attribute and self._typed_root(value, scope):
            # ``graphiti = ctx.deps.graphiti_client`` with ``ctx: RunContext[Deps]``: the field's type, as a call
            # on the chain itself (``ctx.deps.graphiti_client.search(q)``) would read it.
            typed, ok = self.dotted(value, scope)
            name = typed if ok and typed and self._package_type(typed) else None
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name | ast.Call):
            # ``audio = clip.audio`` (``VideoFileClip(p).audio``) with ``clip`` a package's object: ``audio`` is
            # that object's attribute, so a method on it is the package's (``moviepy.VideoFileClip.audio.write_audiofile``).
            held = value.value
            owner = scope.types.get(held.id) if isinstance(held, ast.Name) else self._type_of(held, scope)
            name = f"{owner}.{value.attr}" if owner and self._package_type(owner) else None
        elif kind is ast.Subscript:
            name = self._item_type(value, scope)  # type: ignore[arg-type]
        else:
            name = None
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if kind is ast.Call and len(targets) == 1 and type(named := targets[0]) is ast.Name:
            # ``notes = list(vault.rglob("*.md"))``: a loop over ``notes`` gives paths.
            listed = self._listed_paths(value, scope)
            if listed is not None:
                scope.types[f"{named.id}[]"] = listed
            elif scope.types:
                scope.types.pop(f"{named.id}[]", None)
        gate = self._gate_of_expr(value, scope, compared=True)
        # ``answer = input(...)`` counts only where ``answer`` is compared with a literal.
        polarity = "positive" if gate is None or self._gate_of_expr(value, scope) is not None else "compared"
        if gate is None and kind is ast.Call:
            # ``answer = input().strip().lower()``: the answer, normalised, is still the human's, and counts
            # only where it is compared.
            gate = self._answer_in_chain(value, scope)
            polarity = "compared" if gate is not None else polarity
        # Before any name is bound again: the callee resolved by the walk is still the one to reuse.
        after = self._held(value, scope, active)
        library = self._library_instance(value, scope) if kind is ast.Call else None
        if kind is ast.Call and len(targets) == 1 and self.rules.temp_files and name in self.rules.temp_files:
            self._written_file(value, targets[0], scope)
        if (
            self._graph_nodes
            and scope.params is MODULE_PARAMS
            and kind is ast.Call
            and len(targets) == 1
            and type(targets[0]) is ast.Name
            and type(func := value.func) is ast.Attribute  # type: ignore[attr-defined]
            and func.attr == self.rules.graph_compile
        ):
            self._compiled_graph(targets[0].id, value, scope)  # type: ignore[arg-type]
        for target in targets:
            if isinstance(stmt, ast.AugAssign) and isinstance(target, ast.Name):
                taint = taint | scope.taint.get(target.id, NO_TAINT)
            self._assign(target, taint, name, scope)
            if isinstance(target, ast.Name):
                if isinstance(stmt, ast.AugAssign):
                    if target.id in scope.list_vars:
                        self._list_grows(stmt, scope.list_vars)
                elif kind in _LISTISH or scope.list_vars or kind is ast.Name:
                    self._list_assigned(target.id, value, scope)
                if library is not None:
                    scope.library_vars[target.id] = library
                else:
                    scope.library_vars.pop(target.id, None)
            if gate is not None and isinstance(target, ast.Name):
                scope.gate_vars[target.id] = (gate, polarity)
            elif gate is None and kind in _CALLISH:
                self._answer_held(target, value, scope)
            elif type(target) is ast.Attribute and target.attr in self.roles.renamed_attrs:
                self._renamed_tool(target, value, scope)
            elif type(target) is ast.Attribute and target.attr in self.roles.params:
                # ``agent.functions = [f, g]`` (``+=`` too): tools handed over after the agent is built.
                self._tools_attached(target.value, target.attr, value, target, scope)
        if gate is not None and gate in scope.unconditional:
            # ``sbx = Sandbox()`` (code after it runs against the sandbox) and ``answer = interrupt(...)``
            # (the run pauses there until a human resumes it).
            after = after | {gate}
        lookup = self._lookup_gate(value, scope) if kind is ast.Subscript else None
        return after | {lookup} if lookup is not None else after

    def _answer_held(self, target: ast.expr, value: ast.expr, scope: Scope) -> None:
        """``allowed = is_host_allowed(host)``, ``is_safe, reason = is_command_safe(cmd)``: the name (or the
        first of the names) holds a check's yes/no answer, tested later (``if not is_safe: return``)."""
        if isinstance(target, ast.Tuple | ast.List) and target.elts:
            target = target.elts[0]
        if isinstance(target, ast.Name):
            # Both ``_verdict`` and ``_worded_refusal`` read only a call of this file's function: anything else
            # is told by one resolution of the callee.
            call = value.value if isinstance(value, ast.Await) else value
            if not isinstance(call, ast.Call):
                return
            name, resolved = self._callee(call, scope)
            if not (name and resolved and name.startswith(self.module_prefix)):
                return
            verdict = self._verdict(value, scope) or self._worded_refusal(value, scope)
            if not verdict:
                errors = self._error_verdict(value, scope)
                if errors:
                    scope.errors[target.id] = errors
            if verdict:
                scope.verdict_vars[target.id] = verdict
                call = value.value if isinstance(value, ast.Await) else value
                name = self._callee(call, scope)[0] if isinstance(call, ast.Call) else None
                scope.refusals[target.id] = self._refusing_sites(name)[1] if name else frozenset()

    def _denying_verdict(self, stmt: ast.If, condition: Condition, scope: Scope) -> Condition:
        """``if is_blocked(cmd): return "blocked"``: a helper of this file that answers yes or no, its yes
        refused (the branch raises, or answers with a message or an error record): its checks were passed where
        it answered no, so its gates hold on the branch that goes on."""
        test = stmt.test.value if isinstance(stmt.test, ast.Await) else stmt.test
        if type(test) is not ast.Call or not stmt.body or not refuses(stmt.body[-1]):
            return condition
        if condition.when_true != self._verdict(test, scope):
            return condition
        return Condition(when_false=condition.when_true)

    def _worded_refusal(self, value: ast.expr, scope: Scope) -> frozenset[str]:
        """``path = resolve_path(p)`` of a helper of this file that refuses with a message (``return "Error:
        outside"``) and hands back the checked value otherwise: the gates it held, kept for a test of the
        message's words (``GateLogic._refusal_words``)."""
        call = value.value if isinstance(value, ast.Await) else value
        if not isinstance(call, ast.Call):
            return frozenset()
        name, resolved = self._callee(call, scope)
        if not (name and resolved and name.startswith(self.module_prefix)):
            return frozenset()
        return self._handed_back(name, scope, words=True)

    def _library_instance(self, value: ast.expr, scope: Scope) -> tuple[ast.Call, str] | None:
        """``search = SerperDevTool()``: a library tool instance a tools list may name later."""
        if not isinstance(value, ast.Call):
            return None
        name = self._callee(value, scope)[0]
        known = name is not None and (
            name in self.rules.library_tools or name in self.rules.toolkits or self.library_toolkit(name)[0] is not None
        )
        return (value, name) if known and name is not None else None

    def _lookup_gate(self, value: ast.expr, scope: Scope) -> str | None:
        """``command = COMMANDS[name]`` in a module-level literal dict: a lookup that fails closed
        (``KeyError``) unless the key is one of the dict's."""
        if not isinstance(value, ast.Subscript) or is_literal(value.slice):
            return None
        table = value.value
        rule = self._collection_gate(table, scope)
        if rule is None or not isinstance(table, ast.Name) or not self._literal_collections().get(table.id, False):
            return None
        return self._gate(scope, rule, value, f"{table.id}[...]")

    def _if(self, stmt: ast.If, scope: Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.test, scope, active)
        if scope.pending:
            active = self._held(stmt.test, scope, active)
        names = self._branch_names(stmt.test) if type(stmt.test) is ast.Compare else None
        start = (len(scope.calls), len(scope.actions))
        condition = self._condition(stmt.test, scope)
        proved = any(condition)  # ``not Condition.empty``, without a call per test
        if proved and condition.when_true and not condition.when_false and not stmt.orelse:
            condition = self._denying_verdict(stmt, condition, scope)
        if not proved:
            if _ends(stmt.body) or _ends(stmt.orelse):
                for check in (
                    self._denial,
                    self._pattern_denial,
                    self._spelled_denial,
                    self._quantified_check,
                    self._statement_check,
                    self._kind_check,
                    self._token_check,
                    self._switch_check,
                    self._inline_membership,
                    self._literal_equality,
                    self._paused_branch,
                ):
                    condition = check(stmt, scope)
                    if any(condition):
                        proved = True
                        break
            else:
                # Where neither branch ends the path, only a statement check can prove anything (each other
                # check needs a branch that returns or raises).
                condition = self._statement_check(stmt, scope)
                proved = any(condition)
        before = dict(scope.taint)
        if proved and not (condition.clean_true or condition.clean_false):
            # (A check that allow-lists the names it tests stops their taint: where they go is not followed.)
            self._note_checked(stmt.test, condition.when_true | condition.when_false, scope)
        if not proved:
            # Most tests prove nothing: both branches start from what held before.
            after_body = self._walk_block(stmt.body, scope, active)
            if names:
                self._branch(names, stmt, scope, start)
            if not stmt.orelse:
                # No ``else``: after the ``if``, a name holds what it held before or what the body left.
                _merge_into(before, scope)
                if after_body is not None and after_body - active:
                    gained = after_body - active
                    switched = (
                        self._switched_on(stmt.test, gained, scope) if len(scope.actions) == start[1] else frozenset()
                    )
                    return (after_body & active) | self._asked_when_risky(stmt.test, gained, scope) | switched
                return meet(after_body, active)
            body_taint = self._branch_start(before, scope)
            after_else = self._walk_block(stmt.orelse, scope, active)
            self._branch_join(body_taint, scope)
            return meet(after_body, after_else)
        saved = self._clean(condition.clean_true, scope)
        after_body = self._walk_block(stmt.body, scope, active | condition.when_true)
        if names:
            self._branch(names, stmt, scope, start)
        self._restore(saved, scope)
        body_taint = self._branch_start(before, scope)
        saved = self._clean(condition.clean_false, scope)
        middle = (len(scope.calls), len(scope.actions))
        after_else = self._walk_block(stmt.orelse, scope, active | condition.when_false)
        self._restore(saved, scope)
        self._branch_join(body_taint, scope)
        if stmt.orelse and after_body is not None and after_else is not None and scope.checked:
            dropped = self._dispatched(condition.when_true | condition.when_false, scope, start, middle)
            after_body, after_else = after_body - dropped, after_else - dropped
        # A branch that never falls through leaves what the other branch proved for the code after.
        if after_body is None and after_else is not None:
            self._clean(condition.clean_false, scope)
        elif after_else is None and after_body is not None:
            self._clean(condition.clean_true, scope)
        joined = meet(after_body, after_else)
        if (
            not stmt.orelse
            and after_body is not None
            and joined is not None
            and (asked := after_body - active - condition.when_true)
        ):
            joined |= self._asked_when_risky(stmt.test, asked, scope)
        return joined

    def _switched_on(self, test: ast.expr, gained: frozenset[str], scope: Scope) -> frozenset[str]:
        """``if READ_ONLY: if "drop " in sql.lower() or ...: return "Error"``: checks made only while a module setting is
        on, one that is on unless configured otherwise and that the model's call does not set, in a body that does
        nothing else, hold after the ``if`` as the default configuration has them (a gate active under it)."""
        if not isinstance(test, ast.Name) or test.id in scope.params or scope.taint.get(test.id):
            return frozenset()  # ``def tool(strict: bool)``: a switch the model's call sets
        bound = module_bindings(self.tree, test.id)
        # On unless configured otherwise: ``READ_ONLY = os.environ.get("READ_ONLY", "true").lower() == "true"``
        # (``VERBOSE = os.getenv("VERBOSE") == "1"`` is off unless configured: what it guards is not in force).
        return gained if len(bound) == 1 and setting_default(bound[0]) == (True, True) else frozenset()

    def _asked_when_risky(self, test: ast.expr, asked: frozenset[str], scope: Scope) -> frozenset[str]:
        """``if any(k in cmd for k in DANGEROUS): if not confirm(...): return``: a person's approval asked, and the
        path stopped on a refusal, only when the model's input is one a written list or a helper of the file says is
        risky. The input the test lets through is the one the code holds safe; for the other, the action happens
        only once a person has approved it: the approvals the body leaves holding gate what follows. Any other
        test (a setting, a flag) proves nothing about the input, and the approval holds on one branch only, unless
        the test is a setting that turns the approval off (``if not settings.auto_confirm:``): unset, as by default,
        the approval is asked, and the path goes on unasked only where the configuration says so."""
        approvals = frozenset(g.id for g in scope.gates if g.id in asked and g.kind == "human_approval")
        if not approvals:
            return approvals
        return approvals if self._risky_input(test, scope) or _switched_off(test, scope) else frozenset()

    @staticmethod
    def _dispatched(
        ids: frozenset[str], scope: Scope, start: tuple[int, int], middle: tuple[int, int]
    ) -> frozenset[str]:
        """The checks of ``ids`` after which both branches of an ``if`` (their calls and actions from ``start``
        to ``middle``, and on) hand the tested value to the same call (``checked.branch_dispatches``), taken
        out of what dominates the branches' calls and actions."""
        if not ids & scope.checked.keys():
            return frozenset()
        calls, actions = scope.calls, scope.actions

        def sites(c0: int, c1: int, a0: int, a1: int) -> list[tuple[str, frozenset[TaintOrigin]]]:
            made = [(c.callee, NO_TAINT.union(*(frozenset(a.origins) for a in c.args))) for c in calls[c0:c1]]
            return made + [(a.target, frozenset(a.taint)) for a in actions[a0:a1]]

        first = sites(start[0], middle[0], start[1], middle[1])
        second = sites(middle[0], len(calls), middle[1], len(actions))
        dropped = branch_dispatches(ids, first, second, scope.checked, scope.given)
        if dropped:
            calls[start[0] :] = without(calls[start[0] :], dropped)
            actions[start[1] :] = without(actions[start[1] :], dropped)
        return dropped

    @staticmethod
    def _branch_start(before: dict[str, frozenset[TaintOrigin]], scope: Scope) -> dict[str, frozenset[TaintOrigin]]:
        """The other branch of an ``if`` starts from what the names held before the test as well as what the
        first branch left (a loop may come round to it): ``if not sql: sql = "..." else: run(sql)`` runs the
        model's ``sql``. Returns what the first branch left."""
        body = dict(scope.taint)
        _merge_into(before, scope)
        return body

    @staticmethod
    def _branch_join(body: dict[str, frozenset[TaintOrigin]], scope: Scope) -> None:
        """After the ``if``, a name holds what either branch left in it (a branch that does not fall through
        may still carry its values round a loop or out of it)."""
        _merge_into(body, scope)

    def _try(self, stmt: ast.Try | ast.TryStar, scope: Scope, active: frozenset[str]) -> Outcome:
        after_body = self._walk_block(stmt.body, scope, active)
        # A handler may start anywhere in the body: only what held before the ``try`` holds in it.
        handlers = [self._walk_block(h.body, scope, active) for h in stmt.handlers]
        after_else = self._walk_block(stmt.orelse, scope, after_body if after_body is not None else active)
        joined = meet(after_else if after_body is not None else None, *handlers)
        if not stmt.finalbody:
            return joined
        after_final = self._walk_block(stmt.finalbody, scope, joined if joined is not None else active)
        return None if joined is None or after_final is None else after_final

    def _match(self, stmt: ast.Match, scope: Scope, active: frozenset[str]) -> Outcome:
        self._expr(stmt.subject, scope, active)
        outcomes: list[Outcome] = []
        exhaustive = False
        for case in stmt.cases:
            if case.guard is not None:
                self._expr(case.guard, scope, active)
            elif isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None:
                exhaustive = True
            start = (len(scope.calls), len(scope.actions))
            outcomes.append(self._walk_block(case.body, scope, active))
            names = self._case_names(case.pattern)
            if names:
                self._branch(names, case, scope, start)
        return meet(*outcomes) if exhaustive else meet(active, *outcomes)

    def _clean(self, names: frozenset[str], scope: Scope) -> dict[str, frozenset[TaintOrigin]]:
        """After ``if x not in ALLOWED: raise``, ``x`` holds an allow-listed value, not free model text."""
        saved = {}
        for name in names:
            saved[name] = scope.taint.get(name, NO_TAINT)
            scope.taint[name] = NO_TAINT
        return saved

    def _restore(self, saved: dict[str, frozenset[TaintOrigin]], scope: Scope) -> None:
        scope.taint.update(saved)


def _switched_off(test: ast.expr, scope: Scope) -> bool:
    """``not settings.auto_confirm``, ``not self.yolo``, ``not AUTO_APPROVE``: the negation of a flag read from a name
    or an attribute chain that holds nothing the model chose (a setting, an injected dependency's field), true when the
    flag is unset."""
    if type(test) is not ast.UnaryOp or type(test.op) is not ast.Not:
        return False
    flag = test.operand
    first = ""
    while type(flag) is ast.Attribute:
        first = flag.attr
        flag = flag.value
    if type(flag) is not ast.Name:
        return False
    # ``ctx.deps.auto_confirm`` with ``ctx: RunContext[Deps]``: a field of what the application injects, typed under
    # ``ctx.deps``, not an argument the model wrote.
    return not scope.taint.get(flag.id) or (bool(first) and f"{flag.id}.{first}" in scope.types)


def _merge_into(values: dict[str, frozenset[TaintOrigin]], scope: Scope) -> None:
    """Each name of ``scope`` holds what it holds and what ``values`` gives it (names a branch left as they
    were, most of them, are the same set: nothing to add)."""
    taints = scope.taint
    for name, taint in values.items():
        held = taints.get(name)
        if held is not taint:
            taints[name] = taint if held is None else held | taint


def _entering(value: ast.expr, method: str) -> ast.Call:
    """``value.__aenter__()`` at ``value``: the call a ``with`` statement makes entering ``value``'s context."""
    call = ast.Call(func=ast.Attribute(value=value, attr=method, ctx=ast.Load()), args=[], keywords=[])
    ast.copy_location(call.func, value)
    ast.copy_location(call, value)
    return call


def _ends(block: Sequence[ast.stmt]) -> bool:
    """Whether a block's last statement returns, raises or leaves the loop's pass (``continue``, ``break``)."""
    return bool(block) and type(block[-1]) in _ENDINGS


_ENDINGS = frozenset({ast.Return, ast.Raise, ast.Continue, ast.Break})

# Values an assignment may hold a check's answer from (``_answer_held``).
_CALLISH = frozenset({ast.Call, ast.Await})

# Values an assignment may make a tools list of (``_list_assigned``).
# Modules whose parameterised classes are containers or special forms, not the class of the value.
_GENERIC_CONTAINERS = frozenset({"typing", "typing_extensions", "collections", "builtins", "types", "abc"})
_LISTISH = frozenset({ast.List, ast.Tuple, ast.BinOp, ast.Call, ast.ListComp})

# Gates that check a value, carried out of a ``for`` loop that checks every element (``_loop``).
_ELEMENT_CHECKS = frozenset({"path_containment", "allowlist"})
# ``pathlib.Path`` methods that list paths, and the builtins that copy what they list into a list.
_PATH_LISTINGS = frozenset({"glob", "rglob", "iterdir"})
_ITEM_COPIES = frozenset({"list", "sorted", "tuple"})


def _answers(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[bool | str | None]:
    """What a function's own ``return`` statements answer (nested functions' are theirs): ``True`` or
    ``False`` for a literal boolean, alone or first in a tuple (``return False, "blocked"``), ``_TEST`` for
    a test (``return any(...)``, ``return rp == cwd``), ``None`` for any other value; a bare ``return``
    answers nothing."""
    found: set[bool | str | None] = set()
    for stmt in _own_returns(fn):
        value = stmt.value
        if value is None:
            continue
        first = value.elts[0] if isinstance(value, ast.Tuple) and value.elts else value
        if isinstance(first, ast.Constant) and isinstance(first.value, bool):
            found.add(first.value)
        else:
            found.add(_TEST if _is_test(first) else None)
    return found


def _errors_or_nothing(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function hands back a message on some path (a string literal or an f-string) and nothing on
    another (a bare ``return``, ``return None``, falling off its end), and nothing else."""
    messages = nothing = False
    for stmt in _own_returns(fn):
        value = stmt.value
        if value is None or (type(value) is ast.Constant and value.value is None):
            nothing = True
        elif (type(value) is ast.Constant and type(value.value) is str) or type(value) is ast.JoinedStr:
            messages = True
        else:
            return False
    if not fn.body or type(fn.body[-1]) not in (ast.Return, ast.Raise):
        nothing = True
    return messages and nothing


def _own_returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The ``return`` statements of ``fn`` itself, not of the functions and classes defined in it."""
    return [node for node in own_statements(fn.body) if type(node) is ast.Return]


_TEST = "test"

# Values a function hands back that are not the value it checked: a literal, a test, a container made in place.
_NOT_HANDED_BACK = (
    ast.Constant, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Dict, ast.List, ast.Tuple, ast.Set, ast.JoinedStr,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda,
)  # fmt: skip


def _opening_words(value: ast.expr) -> str:
    """The literal text a string or f-string opens with (``f"Error: {p}"``: ``"Error: "``); empty if none."""
    if type(value) is ast.JoinedStr:
        value = value.values[0] if value.values else value
    return value.value if type(value) is ast.Constant and type(value.value) is str else ""


def _refusals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[object]:
    """What a function that hands back a value or refuses refuses with: ``None`` (a bare ``return``, ``return
    None``, falling off the end), ``False``, and messages (``return "Error: outside"``, recorded as the literal
    words they open with), when its other returns all hand back a value (a name, a call, an attribute:
    ``return path``, ``return str(full)``), at least one of them; empty for any other function (one answering
    yes or no, returning data it builds, a message opening with no literal words or another constant)."""
    refused: set[object] = set()
    values = False
    for stmt in _own_returns(fn):
        value = stmt.value
        if value is None or (type(value) is ast.Constant and (value.value is None or value.value is False)):
            refused.add(None if value is None else value.value)
        elif (type(value) is ast.Constant and type(value.value) is str) or type(value) is ast.JoinedStr:
            # ``return f"Error: {name} is outside"``: a message, known by the literal words it opens with.
            words = _opening_words(value)
            if not words:
                return frozenset()
            refused.add(words)
        elif isinstance(value, _NOT_HANDED_BACK) or (
            type(value) is ast.Call and isinstance(value.func, ast.Name) and value.func.id in ("any", "all", "bool")
        ):
            return frozenset()
        else:
            values = True
    if not fn.body or type(fn.body[-1]) not in (ast.Return, ast.Raise):
        refused.add(None)
    return frozenset(refused) if values and refused else frozenset()


def _is_test(node: ast.expr) -> bool:
    """An expression whose value is a yes or no: a comparison, ``not``, ``and`` / ``or`` of tests,
    ``any`` / ``all`` / ``isinstance`` / ``bool``, or a text's ``startswith`` / ``endswith``."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("startswith", "endswith")
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not)
    if isinstance(node, ast.BoolOp):
        return all(_is_test(v) for v in node.values)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("any", "all", "isinstance", "bool")
    )


def _skips_iterations(body: Sequence[ast.stmt]) -> bool:
    """Whether a ``break`` or ``continue`` of this loop (not of a nested loop or function) is in ``body``."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Break or kind is ast.Continue:
            return True
        if kind in (ast.For, ast.AsyncFor, ast.While):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        if kind in DEFINITION_KINDS or kind is ast.Lambda:
            continue
        if not isinstance(node, ast.expr):  # statements, ``except`` handlers, ``case`` blocks
            stack.extend(child_nodes(node))
    return False


# Statement class -> its walker (``StatementLogic._walk_block``); others are ``StatementLogic._plain``.
_STATEMENTS: dict[type[ast.stmt], Callable[[StatementLogic, Any, Scope, frozenset[str]], Outcome]] = {
    ast.If: StatementLogic._if,
    ast.Expr: StatementLogic._expression_statement,
    ast.Assign: StatementLogic._assignment,
    ast.AnnAssign: StatementLogic._assignment,
    ast.AugAssign: StatementLogic._assignment,
    ast.Return: StatementLogic._return,
    ast.Raise: StatementLogic._raise,
    ast.Continue: StatementLogic._jump,
    ast.Break: StatementLogic._jump,
    ast.For: StatementLogic._loop,
    ast.AsyncFor: StatementLogic._loop,
    ast.While: StatementLogic._loop,
    ast.Try: StatementLogic._try,
    ast.TryStar: StatementLogic._try,
    ast.With: StatementLogic._with,
    ast.AsyncWith: StatementLogic._with,
    ast.Match: StatementLogic._match,
    ast.Assert: StatementLogic._assert,
}
