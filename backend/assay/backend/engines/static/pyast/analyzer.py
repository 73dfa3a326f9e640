"""The walk over one file: its classes and functions, each body walked once (``FileAnalyzer``)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    FieldWrite,
    FunctionFacts,
    TaintOrigin,
    ToolDef,
)
from assay.backend.engines.static.held_gates import held_on_every_listing
from assay.backend.engines.static.pyast.base import nested_classes
from assay.backend.engines.static.pyast.literals import annotation_type, kwarg, literal_str
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.names import BUILTINS
from assay.backend.engines.static.pyast.role_decorators import hook_matches
from assay.backend.engines.static.pyast.scope import (
    DEFINITION_KINDS,
    MODULE_PARAMS,
    Definition,
    Scope,
    definitions,
    origin_key,
)
from assay.backend.engines.static.pyast.statements import StatementLogic
from assay.backend.engines.static.pyast.syntax import (
    imports_breadth_first,
    statements_breadth_first,
    walk,
)
from assay.backend.scans.bundle import Location


class FileAnalyzer(StatementLogic):
    """Every function of the file, its tools, models and frontier, gathered by ``run``."""

    def _chosen(self, name: str, value: ast.IfExp) -> None:
        """``Store = PostgresStore if settings.pg else SqliteStore`` (or ``A() if x else B()``) at module level: the
        name is its own type, ``<module>.<name>``, and what each branch names or builds its alternatives, which
        the linker calls in its place (``FileFacts.alternatives``). Branches giving nothing known (``None``) are
        left out; one known branch is simply that type."""
        chosen: list[str] = []
        for branch in _branches(value):
            if isinstance(branch, ast.Name | ast.Attribute | ast.Call):
                typed, resolved = self.dotted(branch, None)
                if typed and resolved and typed not in chosen:
                    chosen.append(typed)
        if len(chosen) == 1:
            self.module_types[name] = chosen[0]
        elif chosen:
            own = f"{self.module}.{name}"
            self.module_types[name] = own
            self.alternatives[own] = sorted(chosen)

    def _annotated_global(self, name: str, annotation: ast.expr) -> None:
        """``pool: Optional[asyncpg.Pool] = None``: a module name declared to hold a package's object, bound later."""
        named = annotation_type(annotation)
        if named is None:
            return
        typed, resolved = self.dotted(named, None)
        if typed and resolved and "." in typed and self._package_type(typed):
            self.module_types[name] = typed

    def _held_generic(self, name: str, annotation: ast.Subscript) -> None:
        """``db_var: ContextVar[AsyncSession] = ContextVar("db")``: what the holder's getter gives (``db_var.get()``, an
        ``AsyncSession``), named for importers (``FileFacts.bindings``: ``<module>.db_var.get``)."""
        holder, ok = self.dotted(annotation.value, None)
        getters = self.rules.generic_getters.get(holder or "") if ok else None
        held, known = self.dotted(annotation.slice, None) if getters else (None, False)
        if getters and known and held and "." in held:
            for getter in getters:
                self.held_generics[f"{self.module}.{name}.{getter}"] = held

    def _globals_bound(self) -> None:
        """``global pool`` then ``pool = await asyncpg.create_pool(url)`` in a function of the module: the module
        name holds what such functions bind it to, when the module itself gives it nothing known (``pool = None``)
        and every binding that says agrees. Bindings are read in order, so ``client = MongoClient(url)`` then
        ``db = client[name]`` types both."""
        found: dict[str, set[str]] = {}
        preset = frozenset(self.module_types)
        for fn in self.module_defs:
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            declared = {n for stmt in fn.body if isinstance(stmt, ast.Global) for n in stmt.names}
            declared -= preset
            if not declared:
                continue
            # Assignments are statements: reading the statements alone finds them all, in ``ast.walk`` order.
            for node in statements_breadth_first(fn):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                    if isinstance(target, ast.Name) and target.id in declared and not _unset(value):
                        typed = self._bound_type(value)
                        found.setdefault(target.id, set()).add(typed or "")
                        if typed and target.id not in self.module_types:
                            self.module_types[target.id] = typed
        for name, types in found.items():
            if len(types) > 1 and name in self.module_types:
                del self.module_types[name]

    def _bound_type(self, value: ast.expr) -> str | None:
        """The package object a module-level binding's value is (a call, awaited or not, or a member of one)."""
        if isinstance(value, ast.Await):
            value = value.value
        if isinstance(value, ast.Subscript):
            return self._member_type(value, None)
        if not isinstance(value, ast.Call):
            return None
        typed, resolved = self.dotted(value, None)
        return typed if typed and resolved and self._package_type(typed) else None

    def _builtin_aliases(self) -> None:
        """``builtin_input = input`` at module level (bound once there): the name is that builtin, so
        ``builtin_input()`` asks a person as ``input()`` does."""
        bound: dict[str, str | None] = {}
        for stmt in self.tree.body:
            if type(stmt) is not ast.Assign or len(stmt.targets) != 1 or type(stmt.targets[0]) is not ast.Name:
                continue
            name, value = stmt.targets[0].id, stmt.value
            builtin = value.id if type(value) is ast.Name and value.id in BUILTINS else None
            bound[name] = builtin if name not in bound else None
        for name, builtin in bound.items():
            if builtin is not None and name not in self.aliases and name not in BUILTINS:
                self.aliases[name] = builtin

    def run(self) -> None:
        # Imports are statements: reading the statements alone finds them all, in ``ast.walk`` order.
        self._collect_imports(imports_breadth_first(self.tree))
        self._builtin_aliases()
        self._collect_classes()
        module_scope = Scope(qualname=f"{self.module}.<module>", params=MODULE_PARAMS)
        # Module-level variable types first, so functions see ``client = OpenAI()`` defined anywhere.
        for stmt in _module_assignments(self.tree.body):
            if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                if isinstance(target, ast.Name) and isinstance(stmt.value, ast.Call | ast.BinOp):
                    name, _ = self.dotted(stmt.value, None)
                    if name:
                        self.module_types[target.id] = name
                elif isinstance(target, ast.Name) and isinstance(stmt.value, ast.Attribute):
                    # ``run = subprocess.run``: another name for a package's callable the rules know, called as it.
                    name, resolved = self.dotted(stmt.value, None)
                    if name and resolved and target.id not in self.aliases and self.rules.profile(name).actions:
                        self.aliases[target.id] = name
                elif isinstance(target, ast.Name) and isinstance(stmt.value, ast.IfExp):
                    self._chosen(target.id, stmt.value)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if _unset(stmt.value):
                    self._annotated_global(stmt.target.id, stmt.annotation)
                elif self.rules.generic_getters and isinstance(stmt.annotation, ast.Subscript):
                    self._held_generic(stmt.target.id, stmt.annotation)
        self._globals_bound()
        self._collect_bindings()
        # Instance attributes and fields of the module's classes, so any function sees ``deps.client``.
        for stmt in self.module_defs:
            if isinstance(stmt, ast.ClassDef):
                enclosing, self._class = self._class, stmt.name
                self._collect_class_attrs(stmt)
                for inner in nested_classes(stmt):
                    self._collect_class_attrs(inner, f"{stmt.name}.{inner.name}")
                self._class = enclosing
        self._walk_block(self.tree.body, module_scope, frozenset())
        self._returned_server_gates(module_scope)
        self.module_bound = frozenset(module_scope.taint)
        if self.roles.module_tool_specs:
            self._module_tool_spec()
        self._finish(module_scope, ast.Module(body=[], type_ignores=[]), "<module>")
        self._visit_defs(self.module_defs, self.module)
        self._drop_data_schemas()
        self._link_literal_tools()
        if self.roles.mounted_servers and self.tools:
            self._mounted_server_names()
        if self._param_models:
            self._resolve_param_models()
        if self._named_gates:
            self._gate_named_tools()
        if self.class_bases and self.roles.tool_class_methods and self.tools:
            self._gate_template_tools()
        defined = {t.function for t in self.tools}
        # A function listed by several agents keeps the hook gates all of them run (``link._tools``).
        # ``llm.bind_tools(tools)`` only gives the model the schemas: the agent running them says which gates
        # hold, and its listing is the one kept.
        binds_only = self.rules.binds_only
        listed = sorted(self._listed_tools, key=lambda t: t.ruleId in binds_only)
        listings: dict[str | None, list[frozenset[str]]] = {}
        bound: dict[str | None, frozenset[str]] = {}
        for tool in listed:
            gates = frozenset(tool.hookGates)
            if tool.ruleId in binds_only:
                bound.setdefault(tool.function, gates)
                continue
            listings.setdefault(tool.function, []).append(gates)
        shared = any(len(held) > 1 and all(held) for held in listings.values())
        kinds = {g.id: g.kind for fn in self.functions for g in fn.gates} if shared else {}
        hooked = {fn: held_on_every_listing(held, kinds.get) for fn, held in listings.items()}
        for fn, gates in bound.items():
            hooked.setdefault(fn, gates)
        decorated = {t.function for t in self.tools if t.function}
        for tool in listed:
            if tool.function not in defined or (tool.function in decorated and any(hooked.values())):
                # A listing of a tool defined here too is kept for the linker, which joins the two, only
                # when a hook may gate it: the linker needs every listing to know whether all run the hook.
                defined.add(tool.function)
                if set(tool.hookGates) != hooked[tool.function]:
                    tool = tool.model_copy(update={"hookGates": tuple(sorted(hooked[tool.function]))})
                self.tools.append(tool)

    def _gate_template_tools(self) -> None:
        """``class Guarded(BaseTool): def run(self, cmd): if not approve(cmd): return "denied"; return self._run(cmd)``
        and ``class Shell(Guarded): def _run(self, cmd): ...``: the framework calls the public entry a base class of
        this file defines (a template method), which checks before it hands the call to the subclass's
        implementation; the gates that hold at every ``self._run(...)`` of that entry hold over every call of the
        subclass's tool. A base whose entry checks nothing, or one that never hands over, gates nothing."""
        entries = self.roles.tool_class_methods
        for index, tool in enumerate(self.tools):
            if not tool.function:
                continue
            owner, _, method = tool.function.rpartition(".")
            cls = owner[len(self.module_prefix) :] if owner.startswith(self.module_prefix) else ""
            if cls not in self.class_bases:
                continue
            held = self._held_at_handoff(cls, method, entries)
            if held:
                self.tools[index] = tool.model_copy(update={"hookGates": tuple(sorted({*tool.hookGates, *held}))})

    def _held_at_handoff(self, cls: str, method: str, entries: tuple[str, ...]) -> frozenset[str]:
        """The gates that hold at each ``self.<method>(...)`` of the first framework entry (``run``, ``__call__``...)
        a base class of this file defines above ``cls`` and that hands the call to ``method``."""
        for entry in entries:
            owner = self._method_owner(cls, entry) if entry != method else None
            if owner is None or owner == cls:
                continue
            qualname = f"{self.module}.{owner}.{entry}"
            found = self._function_defs().get(qualname)
            if found is None:
                continue
            lines = {
                node.lineno
                for node in walk(found[0])
                if type(node) is ast.Call
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == method
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "self"
            }
            if not lines:
                continue
            # Walked as ``cls``'s: ``self`` is the subclass, and ``self.<method>`` its implementation.
            scope, _ = self._summary_walk(found[0], qualname, cls)
            held = [
                frozenset(call.dominatingGates)
                for call in scope.calls
                if call.location.line in lines and call.callee.endswith(f".{method}")
            ]
            kinds = {g.id: g.kind for g in scope.gates}
            common = frozenset.intersection(*held) if held else frozenset()
            return frozenset(g for g in common if kinds.get(g) != "sandbox")
        return frozenset()

    def _gate_named_tools(self) -> None:
        """A gate an agent's configuration holds over the tools it names (``HumanInTheLoopMiddleware(
        interrupt_on={"sql_db_query": True})``) holds from the entry of the tools of that name this file
        gives a model, however they were given (a toolkit's ``get_tools()``, a list built elsewhere)."""
        by_name: dict[str, set[str]] = {}
        for gate, tool_name in self._named_gates:
            by_name.setdefault(tool_name, set()).add(gate)
        for tools in (self.tools, self._listed_tools):
            tools[:] = [
                t.model_copy(update={"hookGates": tuple(sorted(set(t.hookGates) | by_name[t.name]))})
                if t.name in by_name
                else t
                for t in tools
            ]

    def _visit_defs(
        self,
        defs: Sequence[Definition],
        prefix: str,
        outer: frozenset[str] = frozenset(),
        outer_types: dict[str, str] | None = None,
        outer_taint: dict[str, frozenset[TaintOrigin]] | None = None,
    ) -> None:
        for stmt in defs:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self._function(stmt, f"{prefix}.{stmt.name}", outer, outer_types, outer_taint)
            elif isinstance(stmt, ast.ClassDef):
                enclosing = self._class
                self._class = stmt.name
                self._collect_class_attrs(stmt)
                self._class_tool(stmt, f"{prefix}.{stmt.name}")
                self._class_body(stmt, f"{prefix}.{stmt.name}")
                # Methods do not see the class body's names, but do see the enclosing function's.
                self._visit_defs(definitions(stmt.body), f"{prefix}.{stmt.name}", outer, outer_types, outer_taint)
                self._class = enclosing

    def _mcp_servers(self) -> dict[str, tuple[str, list[str], str | None]]:
        """The file's ``calc = create_sdk_mcp_server(name=..., tools=[add])`` assignments, by variable: the
        server's name pattern, the functions it lists and its own ``name=``. Assignments are statements, so
        reading the statements alone finds them all, in ``ast.walk`` order (the last one of a variable wins)."""
        servers: dict[str, tuple[str, list[str], str | None]] = {}
        for node in self.tree_statements:
            if type(node) is not ast.Assign or len(node.targets) != 1:
                continue
            target, call = node.targets[0], node.value
            if type(call) is not ast.Call or not call.keywords:
                continue
            listed = kwarg(call, "tools")
            if not isinstance(target, ast.Name) or not isinstance(listed, ast.List | ast.Tuple):
                continue
            callee = (self.dotted(call.func, None)[0] or "").rsplit(".", 1)[-1]
            spec = self.roles.mounted_servers.get(callee)
            if spec is None:
                continue
            functions = [
                self.local_defs[e.id] for e in listed.elts if isinstance(e, ast.Name) and e.id in self.local_defs
            ]
            servers[target.id] = (spec[1], functions, self.constant_str(kwarg(call, "name")))
        return servers

    def _mounted_server_names(self) -> None:
        """``calc = create_sdk_mcp_server(name="calculator", tools=[add])`` then ``ClaudeAgentOptions(
        mcp_servers={"calc": calc})``: the model sees ``add`` as ``mcp__calc__add``, the name the server's
        pattern gives it under the key it is mounted at (the server's own ``name=`` when it is mounted
        nowhere in the file)."""
        servers = self._mcp_servers()
        if not servers:
            return
        keys = {under for under, _ in self.roles.mounted_servers.values()}
        mounts = [node for node in self.tree_calls if any(kw.arg in keys for kw in node.keywords)]
        named: dict[str, str] = {}
        hooked: dict[str, list[tuple[str, str | None]]] = {}
        mounted: set[str] = set()
        for call in mounts:
            for kw in call.keywords:
                if kw.arg not in keys or not isinstance(kw.value, ast.Dict):
                    continue
                for key, value in zip(kw.value.keys, kw.value.values, strict=True):
                    server_key = literal_str(key) if key is not None else None
                    if server_key and isinstance(value, ast.Name) and value.id in servers:
                        pattern, functions, _ = servers[value.id]
                        mounted.add(value.id)
                        for function in functions:
                            named.setdefault(function, pattern.replace("{server}", server_key))
                            hooked.setdefault(function, []).extend(self._mount_hooks.get(id(call), ()))
        for variable, (pattern, functions, own) in servers.items():
            if variable not in mounted and own:
                for function in functions:
                    named.setdefault(function, pattern.replace("{server}", own))
        for index, tool in enumerate(self.tools):
            template = named.get(tool.function or "")
            if template is None or tool.name.startswith(template.split("{tool}", 1)[0]):
                continue
            name = template.replace("{tool}", tool.name)
            at = tool.location
            hooks = hooked.get(tool.function or "", ())
            gates = sorted(set(tool.hookGates) | {g for g, matcher in hooks if hook_matches(matcher, name)})
            self.tools[index] = tool.model_copy(
                update={
                    "name": name,
                    "id": short_id("tool", at.path, at.line, name, tool.ruleId),
                    "hookGates": tuple(gates),
                }
            )

    def _module_tool_spec(self) -> None:
        """``TOOL_SPEC = {"name": "update_appointment", "inputSchema": ...}`` beside ``def update_appointment``
        (a Strands module tool): the schema the model is given, named by its ``name``, run by that function."""
        rule = self.roles.decorator_rule
        if rule is None:
            return
        for stmt in self.tree.body:
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.value, ast.Dict):
                continue
            target = stmt.targets[0]
            if not isinstance(target, ast.Name) or target.id not in self.roles.module_tool_specs:
                continue
            for key, value in zip(stmt.value.keys, stmt.value.values, strict=True):
                if literal_str(key) == "name" and (name := literal_str(value)) and name in self.local_defs:
                    function = self.local_defs[name]
                    self.tools.append(ToolDef.found(rule, name, self.loc(value), function=function))
                    break

    def _class_body(self, cls: ast.ClassDef, qualname: str) -> None:
        """The statements a class body runs when it is defined (``llm = ChatOpenAI(model=...)``): their
        model uses and tool definitions count; the body is no function a tool can reach."""
        if all(type(s) in DEFINITION_KINDS or type(s) is ast.Expr or type(s) is ast.Pass for s in cls.body):
            return
        self._walk_block(cls.body, Scope(qualname=f"{qualname}.<class>", params=MODULE_PARAMS), frozenset())

    def _function(
        self,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        outer: frozenset[str] = frozenset(),
        outer_types: dict[str, str] | None = None,
        outer_taint: dict[str, frozenset[TaintOrigin]] | None = None,
    ) -> None:
        scope = self._function_scope(fn, qualname, outer)
        if outer_types:
            # A closure sees the enclosing function's names with their types (``interpreter.run_code``
            # inside a nested tool, ``interpreter: CodeInterpreter`` a parameter of the factory),
            # unless a parameter of its own shadows them.
            for name, typed in outer_types.items():
                if name not in scope.taint:
                    scope.types[name] = typed
        if outer_taint:
            # And with what they carry (``def _run(): cur.execute(query)`` inside ``execute(self, query)``, handed to
            # ``loop.run_in_executor``): the enclosing function's parameters are its, read by the linker in the
            # enclosing function's context where it calls the closure (``link/taint.py``).
            own = scope.taint.keys()
            for name in sorted(outer_taint.keys() - own):
                scope.taint[name] = outer_taint[name]
        entry = self._decorators(fn, qualname, scope, outer_types)
        self._walk_block(fn.body, scope, entry)
        self._finish(scope, fn, fn.name)
        if scope.defines:
            enclosing = self._enclosing_fn
            self._enclosing_fn = (fn, qualname)
            self._visit_defs(definitions(fn.body), qualname, outer | scope.taint.keys(), scope.types, scope.taint)
            self._enclosing_fn = enclosing

    def _finish(self, scope: Scope, node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> None:
        if isinstance(node, ast.Module) and not (scope.calls or scope.actions or scope.gates):
            return
        location = self.loc(node) if not isinstance(node, ast.Module) else Location(path=self.path, line=1, column=1)
        if scope.step_checks:
            _subsume_step_checks(scope)
        facts = trusted(
            FunctionFacts,
            id=short_id("fn", self.path, scope.qualname),
            qualname=scope.qualname,
            name=name,
            location=location,
            params=list(scope.params),
            calls=scope.calls,
            actions=scope.actions,
            gates=sorted(scope.gates, key=lambda g: (g.location.line, g.location.column, g.id)),
            returns=sorted(scope.returns, key=origin_key),
            fieldWrites=[
                FieldWrite(field=key, origins=sorted(origins, key=origin_key))
                for key, origins in sorted(scope.field_writes.items())
            ],
            returnShape=None,
            returnType=_one_type(scope.return_types),
            returnCandidates=_candidates(scope.return_types, scope.return_items),
        )
        self.functions.append(facts)
        self._keep_branches(scope, facts)


def _subsume_step_checks(scope: Scope) -> None:
    """A test for ``..`` in a path holds as path containment over what no other containment check of the
    function holds over too: beside a resolved path tested against its root it decides nothing more."""
    containment = {g.id for g in scope.gates if g.kind == "path_containment"} - scope.step_checks

    def kept(gates: list[str]) -> list[str]:
        held = set(gates)
        if held & scope.step_checks and held & containment:
            return [g for g in gates if g not in scope.step_checks]
        return gates

    scope.actions = [
        a.model_copy(update={"dominatingGates": kept(a.dominatingGates)}) if a.dominatingGates else a
        for a in scope.actions
    ]
    scope.calls = [
        c.model_copy(update={"dominatingGates": kept(c.dominatingGates)}) if c.dominatingGates else c
        for c in scope.calls
    ]


def _one_type(types: set[str | None]) -> str | None:
    """The package class every ``return`` of a value constructs, when they agree (a factory)."""
    return next(iter(types)) if len(types) == 1 else None


def _candidates(types: set[str | None], items: set[str]) -> list[str] | None:
    """The package classes the returns may give when no one type is what every return gives: those of
    different branches (``return MySQLClient()`` / ``return PgClient()``) and the items of returned tuples."""
    if _one_type(types) is not None:
        return None
    return sorted({t for t in types if t} | items) or None


def _branches(node: ast.expr) -> list[ast.expr]:
    """The values a conditional expression may give, nested conditionals read through."""
    out: list[ast.expr] = []
    pending = [node]
    while pending:
        value = pending.pop()
        if isinstance(value, ast.IfExp):
            pending.extend((value.orelse, value.body))
        else:
            out.append(value)
    return out


def _module_assignments(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's statements, with those of its ``try:``, ``if``, loop and ``with`` blocks (``try: settings =
    Settings()`` binds a module name too, as does a model chosen in ``while choice not in (0, 1):``; the
    ``except`` handlers, which run only on failure, are left out)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.Try | ast.If | ast.While | ast.For | ast.AsyncFor):
            out.extend(_module_assignments([*stmt.body, *stmt.orelse]))
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            out.extend(_module_assignments(stmt.body))
        else:
            out.append(stmt)
    return out


def _unset(value: ast.expr | None) -> bool:
    """A module name's declared value that says nothing of what it will hold: none, or ``None``."""
    return value is None or (isinstance(value, ast.Constant) and value.value is None)
