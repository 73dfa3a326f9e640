"""Tools: decorated functions, tool classes, literal tool definitions and their dispatch, registrations."""

from __future__ import annotations

import ast
import re

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ArgTaint,
    CallFact,
    FrontierSite,
    FunctionFacts,
    RouteServing,
    TaintOrigin,
    ToolDef,
    ToolSource,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.fixed_text import bound_values
from assay.backend.engines.static.pyast.literal_loops import Binding, enclosing_loop, unrolled
from assay.backend.engines.static.pyast.literals import (
    base_init_calls,
    class_attr_str,
    declines,
    docstring,
    kwarg,
    kwarg_str,
    literal_str,
    module_bindings,
    tool_annotations,
)
from assay.backend.engines.static.pyast.message_tools import MessageTools
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.rules.pack import Rule
from assay.backend.scans.bundle import Location

NON_TOOL_PARAMS = frozenset({"self", "cls", "ctx", "context", "run_context", "wrapper", "config", "callbacks"})


class ToolLogic(MessageTools):
    """What makes a function, class or literal a tool a model is given, and which function runs it."""

    def _decorators(
        self,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        scope: Scope,
        outer_types: dict[str, str] | None = None,
    ) -> frozenset[str]:
        entry: set[str] = set()
        # A decorator is evaluated where the function is defined: a nested function's decorator sees the
        # enclosing function's names (``tools = Tools()`` then ``@tools.action(...)`` inside ``main``).
        enclosing = Scope(qualname=qualname, params=[], types=dict(outer_types)) if outer_types else None
        for dec in fn.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            name, resolved = self.dotted(target, enclosing)
            if not name:
                continue
            if name.rsplit(".", 1)[-1] in self.rules.handler_attrs:
                self._handlers.append(qualname)
            route = self.rules.route_decorators.get(name)
            if route is not None and isinstance(dec, ast.Call):
                self._route_tool(route[0], route[1], dec, target, fn, qualname, scope)
                continue
            rule, gate_rules = self.rules.decorator(name)
            tools_before = len(self.tools)
            if rule is not None:
                self._add_tool(rule, fn, qualname, dec if isinstance(dec, ast.Call) else None, entry, scope)
            elif (
                (
                    isinstance(target, ast.Attribute)
                    and target.attr in self.rules.receiver_attrs
                    and (
                        self._receiver_tool(target, fn, qualname, dec, entry, scope)
                        or self._param_receiver_tool(target, fn, qualname, dec, entry, scope)
                    )
                )
                or gate_rules
                or name.rsplit(".", 1)[-1] in self.rules.handler_attrs
            ):
                pass
            elif not self._role_decorator(dec, name, resolved, fn, qualname, entry, scope):
                self._wrapped_by(dec, name, scope)
            if len(self.tools) > tools_before:
                self._server_gates(target, entry, scope)
                if isinstance(dec, ast.Call) and dec.keywords:
                    entry |= self._tool_auth_gates(dec, scope)  # ``@mcp.tool(auth=require_scopes("write"))``
            elif (
                isinstance(dec, ast.Call)
                and (dec.args or dec.keywords)
                and resolved
                and rule is None
                and not gate_rules
            ):
                self._decorator_call_roles(dec, name, scope)
            for gate_rule in gate_rules:
                entry.add(self._gate(scope, gate_rule, dec, name))
        return frozenset(entry)

    def _decorator_call_roles(self, dec: ast.Call, name: str, scope: Scope) -> None:
        """``@llm.call("openai/gpt-5-mini", tools=[sqrt_tool])``, ``@prompt("...", functions=[f])``: a package's
        decorator call is a call like another, naming the model it runs the function with and handing the model
        the tools it lists (the role rules read it as they read ``Agent(model=..., tools=[...])``)."""
        roles = self.roles
        if name.startswith(self.module_prefix) or roles.model_rule is None:
            return
        first = dec.args[0] if dec.args else None
        keys = {kw.arg for kw in dec.keywords}
        if (isinstance(first, ast.Constant) and isinstance(first.value, str)) or not keys.isdisjoint(
            roles.model_id_kwargs
        ):
            self._role_model(dec, name, decorator=True)
        if not keys.isdisjoint(roles.params):
            self._role_tool_params(dec, name, True, scope)

    def _receiver_tool(
        self,
        target: ast.Attribute,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        dec: ast.expr,
        entry: set[str],
        scope: Scope,
    ) -> bool:
        """``@server.tool()`` with ``server`` imported from another module of the tree: a tool of each
        rule whose decorator that is on some class, for the linker to keep the one ``server`` is."""
        receiver, resolved = self.dotted(target.value, None)
        if not (resolved and receiver) or receiver.startswith(self.module_prefix):
            return False
        if not is_user_callee(receiver, resolved, self):
            return False
        base = target.value
        if isinstance(base, ast.Name) and base.id in self.module_types and base.id not in self.aliases:
            return False  # ``server = Server(...)`` here: the role rules name its decorators
        for rule, types in self.rules.receiver_attrs[target.attr]:
            source = ToolSource(kind="receiver", ref=receiver, types=list(types))
            self._add_tool(rule, fn, qualname, dec if isinstance(dec, ast.Call) else None, entry, scope, source)
        # ``@llm.tool`` with ``from mirascope import llm``: the file alone cannot tell a module of the tree from a
        # package's; the role reading stands too, kept by the linker when the receiver is no name of the tree.
        name, named = self.dotted(target, None)
        if name:
            self._role_decorator(dec, name, named, fn, qualname, entry, scope, ToolSource(kind="package", ref=receiver))
        return True

    def _add_tool(
        self,
        rule: Rule,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        call: ast.Call | None,
        entry: set[str],
        scope: Scope,
        source: ToolSource | None = None,
    ) -> None:
        name = fn.name
        description = docstring(fn)
        annotations: dict[str, bool] = {}
        if call is not None:
            literal = literal_str(call.args[0]) if call.args else None
            name = kwarg_str(call, "name") or kwarg_str(call, "name_override") or literal or name
            description = kwarg_str(call, "description") or description
            annotations = tool_annotations(call)
            self._approval_flags(call, entry, scope)
        params = [p for p in scope.params if p not in NON_TOOL_PARAMS]
        self.tools.append(
            trusted(
                ToolDef,
                id=short_id("tool", self.path, fn.lineno, name, rule.id),
                name=name,
                description=description,
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=self.loc(fn),
                function=qualname,
                parameters=params,
                annotations=annotations,
                source=source,
            )
        )

    def _route_tool(
        self,
        rule: Rule,
        method: str,
        dec: ast.Call,
        target: ast.expr,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        scope: Scope,
    ) -> None:
        """``@router.post("/api/item/add", operation_id="add_item", tags=["Item"])``: a web route, a tool named by its
        operation id when the tree serves its app to a model (``ToolSource`` ``route``, settled by the linker);
        without an ``operation_id`` the one FastAPI generates (``{function}{path}_{method}``)."""
        path = literal_str(dec.args[0]) if dec.args else kwarg_str(dec, "path")
        operation = kwarg(dec, "operation_id")
        name = literal_str(operation) if operation is not None else None
        tags = _literal_strings(kwarg(dec, "tags"))
        prefix = ""
        holder = target.value if isinstance(target, ast.Attribute) else None
        if isinstance(holder, ast.Name):
            for bound in module_bindings(self.tree, holder.id):
                if isinstance(bound, ast.Call):
                    tags += _literal_strings(kwarg(bound, "tags"))
                    prefix = kwarg_str(bound, "prefix") or prefix
        if name is None:
            if operation is not None or path is None:
                return  # an id computed at run time: not one analysis can name
            # FastAPI's own id: the function, the router's path (a prefix given where the router is included
            # elsewhere is not seen), the method.
            verb = method if method != "api_route" else "get"
            name = re.sub(r"\W", "_", f"{fn.name}{prefix}{path}") + f"_{verb}"
        self.tools.append(
            trusted(
                ToolDef,
                id=short_id("tool", self.path, fn.lineno, name, rule.id),
                name=name,
                description=kwarg_str(dec, "description") or kwarg_str(dec, "summary") or docstring(fn),
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                # The decorated route, from its decorator to its def: where its operation id is written and
                # where the function that runs it starts.
                location=self.loc(dec).model_copy(update={"endLine": fn.lineno}),
                function=qualname,
                parameters=[p for p in scope.params if p not in NON_TOOL_PARAMS],
                annotations={},
                source=ToolSource(kind="route", ref=qualname, key=name, types=sorted(set(tags))),
            )
        )

    def _route_serving(self, node: ast.Call) -> None:
        """``FastApiMCP(app, exclude_tags=["Disabled"])``: the tree's routes are offered to a model, as its filters say."""
        self.route_servings.append(
            RouteServing(
                includeOperations=_string_list(kwarg(node, "include_operations")),
                excludeOperations=_string_list(kwarg(node, "exclude_operations")),
                includeTags=_string_list(kwarg(node, "include_tags")),
                excludeTags=_string_list(kwarg(node, "exclude_tags")),
            )
        )

    def _approval_flags(self, call: ast.Call, entry: set[str], scope: Scope) -> None:
        """``needs_approval=True`` (or a callable deciding it), ``requires_approval=...``: a human approves
        every run of the tool, so the gate holds over its whole body. ``False``, ``None`` and ``"never"`` do not."""
        for rule, keys in self.rules.approval_kwargs:
            for kw in call.keywords:
                if kw.arg in keys and not declines(kw.value):
                    entry.add(self._gate(scope, rule, kw.value, f"{kw.arg}="))
        self._switch_flags(call, entry, scope)

    def _switch_flags(self, call: ast.Call, entry: set[str], scope: Scope) -> None:
        """``enabled=allow_writes``: a tool offered only when a setting says so (a read-only mode that
        withholds it) is a permission check over the tool; a literal (``enabled=True``) decides nothing."""
        for rule, keys in self.rules.switch_kwargs:
            for kw in call.keywords:
                if kw.arg in keys and not isinstance(kw.value, ast.Constant):
                    entry.add(self._gate(scope, rule, kw.value, f"{kw.arg}= set by the server's configuration"))

    def _callable_class_tool(self, cls: ast.ClassDef, qualname: str) -> bool:
        """A class that names its tool in a class attribute and runs it in ``__call__`` (Anthropic-defined
        tools), in a file whose classes describe tools to a model (``to_params``, ``api_type``)."""
        for rule, attr, method, markers in self.rules.callable_classes:
            name = class_attr_str(cls, attr)
            impl = next(
                (s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == method),
                None,
            )
            if name is None or impl is None or not self._file_has_marker(markers):
                continue
            params = [a.arg for a in (*impl.args.args, *impl.args.kwonlyargs) if a.arg not in NON_TOOL_PARAMS]
            self.tools.append(
                ToolDef.found(
                    rule,
                    name,
                    self.loc(cls),
                    description=docstring(cls),
                    function=f"{qualname}.{method}",
                    parameters=params,
                )
            )
            return True
        return False

    def _file_has_marker(self, markers: frozenset[str]) -> bool:
        for stmt in self.module_defs:
            if isinstance(stmt, ast.ClassDef):
                for item in stmt.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in markers:
                        return True
                    if isinstance(item, ast.AnnAssign | ast.Assign):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        if any(isinstance(x, ast.Name) and x.id in markers for x in targets):
                            return True
        return False

    def _class_tool(self, cls: ast.ClassDef, qualname: str) -> None:
        if self.rules.message_classes is not None:
            self._message_handlers(cls, qualname)
            if self._message_class(cls, qualname):
                return
        if self.rules.callable_classes and self._callable_class_tool(cls, qualname):
            return
        before = len(self.tools)
        self._framework_class_tool(cls, qualname)
        if len(self.tools) == before and not self._role_class_tool(cls, qualname):
            self._named_implementation(cls, qualname)
            self._described_class(cls, qualname)

    def _framework_class_tool(self, cls: ast.ClassDef, qualname: str) -> None:
        bases = {self.dotted(b, None)[0] for b in cls.bases}
        if cls.name in self.class_bases:
            bases |= self._ancestors(cls.name)
        if self.rules.spec_classes and self._spec_class(cls, qualname, bases):
            return
        for rule, wanted in self.rules.tool_classes:
            if bases & wanted:
                wanted_methods = rule.match.get("method", "_run")
                methods = [wanted_methods] if isinstance(wanted_methods, str) else list(wanted_methods)
                declared = class_attr_str(cls, "name")
                if declared is None and _named_by_wrapped(cls):
                    return  # a wrapper taking the name of the tool it wraps: that tool, not another
                name = declared or cls.name
                description = class_attr_str(cls, "description") or docstring(cls)
                # ``name: str = ""``: each instance is named where it is constructed (a template).
                template = declared == "" or _declared_unset(cls, "name")
                defined = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
                method = next((m for m in methods if m in defined), methods[0])
                impl = defined.get(method)
                function = f"{qualname}.{method}" if impl is not None else None
                owner = self._method_owner(cls.name, method) if impl is None and cls.name in self.classes else None
                if owner is not None:
                    # The implementation is inherited from a base class of this file.
                    function = f"{self.module}.{owner}.{method}"
                elif impl is None and (cls.name in self.extended or _declared_abstract(cls, bases)):
                    # An abstract intermediate base (extended here, or ``ABC``: extended elsewhere, never
                    # instantiated): its subclasses are the tools.
                    return
                params = []
                if impl is not None:
                    params = [a.arg for a in impl.args.args if a.arg not in NON_TOOL_PARAMS]
                self.tools.append(
                    ToolDef.found(
                        rule,
                        name,
                        self.loc(cls),
                        description=description,
                        function=function,
                        parameters=params,
                        source=ToolSource(kind="template", ref=qualname) if template else None,
                    )
                )
                return

    def _schema_class(self, function: str) -> ast.ClassDef | None:
        """A class of this file listed as a tool: a schema the model fills (``bind_tools([Question])``)."""
        if not function.startswith(self.module_prefix) or function.count(".") != self.module.count(".") + 1:
            return None
        name = function[len(self.module_prefix) :]
        if name not in self.classes:
            return None
        return next((d for d in self.module_defs if isinstance(d, ast.ClassDef) and d.name == name), None)

    def _schema_tool(self, rule: Rule, cls: ast.ClassDef) -> None:
        """A schema class given as a tool runs what the code does when the model calls it by name: the
        branch of a graph node that tests the tool call's name (``if call["name"] == "Question":``), as
        for a literal tool; none, and it is a ``dynamic_dispatch`` frontier item."""
        fields = sorted(
            s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        )
        self._literal_tool(rule, cls, cls.name, docstring(cls), fields)  # type: ignore[attr-defined]

    def _spec_class(self, cls: ast.ClassDef, qualname: str, bases: set[str | None]) -> bool:
        """A tool spec written in the code (LlamaIndex ``BaseToolSpec``): each method its
        ``spec_functions`` names is a tool, at its def."""
        for rule, wanted, attr in self.rules.spec_classes:
            if not bases & wanted:
                continue
            listed = _class_value(cls, attr)
            names = {literal_str(e) for e in listed.elts} if isinstance(listed, ast.List | ast.Tuple) else set()
            for method in cls.body:
                if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) and method.name in names:
                    self.tools.append(
                        ToolDef.found(
                            rule,
                            method.name,
                            self.loc(method),
                            description=docstring(method),
                            function=f"{qualname}.{method.name}",
                            parameters=[a.arg for a in method.args.args if a.arg not in NON_TOOL_PARAMS],
                        )
                    )
            return True
        return False

    def _decorator_applied(self, node: ast.Call, scope: Scope) -> None:
        """A tool decorator applied by a call rather than with ``@``: ``agent.tool_plain(name="x")(f)`` makes
        ``f`` a tool of the agent, named ``x`` there (at the call) or, without a name or under its own name,
        ``f``'s tool (at its def, the same tool as ``f`` decorated elsewhere)."""
        inner = node.func
        if not isinstance(inner, ast.Call) or len(node.args) != 1 or node.keywords:
            return
        arg = node.args[0]
        if not isinstance(arg, ast.Name | ast.Attribute):
            return
        name = self.dotted(inner.func, scope)[0]
        rule = self.rules.decorator(name)[0] if name else None
        if rule is None:
            return
        named = kwarg(inner, "name")
        if named is None and inner.args and isinstance(inner.args[0], ast.Name | ast.Constant):
            named = inner.args[0]  # ``mcp.tool("query")(f)``: the decorator's positional name
        if isinstance(arg, ast.Name) and (arg.id in scope.iterables or arg.id in scope.loop_items):
            # ``for name, f in {"query": q}.items(): mcp.tool(name)(f)``: each function of the literal the
            # loop walks, under the name it gives; a loop over anything else registers what analysis cannot see.
            iterations = self._literal_iterations(node)
            if iterations is None:
                self._registered_unseen(node, arg.id)
            for binding in iterations or ():
                given = binding.get(arg.id)
                if isinstance(given, ast.Name | ast.Attribute):
                    label = binding.get(named.id, named) if isinstance(named, ast.Name) else named
                    # The model sees the name where the literal spells it: the tool is there.
                    at = self.loc(label) if label is not named and label is not None else self.loc(node)
                    self._decorator_applied_to(node, inner, given, label, rule, scope, at)
            return
        self._decorator_applied_to(node, inner, arg, named, rule, scope, self.loc(node))

    def _registered_unseen(self, node: ast.Call, variable: str) -> None:
        """``for f in handlers: mcp.tool()(f)`` over what is not a literal: tools registered at run time."""
        self._runtime_tools(
            node,
            variable,
            f"tools registered in a loop over {variable!r} the analysis cannot enumerate; their names "
            "and reach are not visible",
        )

    def _literal_iterations(self, node: ast.Call) -> list[Binding] | None:
        """The iterations of the ``for`` over a literal holding ``node``, in the innermost function (or the
        module) around it, the literal bound where it is written, in the function, its class or the module."""
        function = None
        for candidate in self.tree_functions:
            if candidate.lineno <= node.lineno <= (candidate.end_lineno or candidate.lineno) and (
                function is None or candidate.lineno >= function.lineno
            ):
                function = candidate
        owner = next(
            (
                c
                for c in self.tree.body
                if isinstance(c, ast.ClassDef) and c.lineno <= node.lineno <= (c.end_lineno or c.lineno)
            ),
            None,
        )
        bodies = [b for b in (function.body if function else None, owner.body if owner else None) if b]
        bodies.append(self.tree.body)
        loop = enclosing_loop(bodies[0], node)
        return unrolled(loop, bodies) if loop is not None else None

    def _decorator_applied_to(
        self,
        node: ast.Call,
        inner: ast.Call,
        arg: ast.Name | ast.Attribute,
        named: ast.expr | None,
        rule: Rule,
        scope: Scope,
        location: Location,
    ) -> None:
        function = self.dotted(arg, scope)[0]
        if not function:
            return
        own = function.rsplit(".", 1)[-1]
        tool_name = self.constant_str(named) if named is not None else own
        if not tool_name:
            return
        self._call_site_tool(inner, tool_name, rule, location, function)
        update: dict[str, object] = {}
        if tool_name == own:
            update["byFunction"] = True
        # ``agent.tool_plain(requires_approval=True)(f)``: the approval the decorator's arguments ask for
        # holds before every call of the tool this registration makes, wherever ``f`` is defined.
        approval: set[str] = set()
        self._approval_flags(inner, approval, scope)
        if approval:
            update["hookGates"] = tuple(sorted(approval))
        if update:
            self.tools[-1] = self.tools[-1].model_copy(update=update)

    def _decorator_called(self, node: ast.Call, name: str) -> None:
        """A tool decorator called on a function, ``agent.tool_plain(f)``, registers ``f`` as ``@agent.tool_plain``
        does: ``f``'s tool, at its def; ``f`` of this file or imported from another module of the tree (the
        linker places the tool at that def)."""
        arg = node.args[0]
        rule = self.rules.decorator(name)[0]
        if rule is None or not isinstance(arg, ast.Name):
            return
        function = self.local_defs.get(arg.id) or self.aliases.get(arg.id)
        if function is None or (arg.id not in self.local_defs and not is_user_callee(function, True, self)):
            return
        self._call_site_tool(node, function.rsplit(".", 1)[-1], rule, self.loc(node), function)
        self.tools[-1] = self.tools[-1].model_copy(update={"byFunction": True})

    def _call_site_tool(self, node: ast.Call, name: str, rule: Rule, location: Location, function: str | None) -> None:
        """A tool made by the call ``node`` (its ``description=`` read there), reported at ``location``."""
        self.tools.append(
            ToolDef.found(rule, name, location, description=kwarg_str(node, "description"), function=function)
        )

    def _call_tool(self, node: ast.Call, rule: Rule, scope: Scope) -> None:
        if "executor_tools" in rule.match:
            self._executor_tool(node, rule, scope)
            return
        func_node: ast.expr | None = None
        for wanted in rule.match.get("function_args", []):
            if isinstance(wanted, int) and len(node.args) > wanted:
                func_node = node.args[wanted]
            elif isinstance(wanted, str):
                func_node = kwarg(node, wanted)
            if func_node is not None:
                break
        if (
            type(func_node) is ast.Call
            and func_node.args
            and self.dotted(func_node.func, scope)[0] == "functools.partial"
        ):
            # ``StructuredTool.from_function(func=partial(post, base_url))``: the tool runs the function the partial
            # wraps, with some of its arguments fixed.
            func_node = func_node.args[0]
        function = self.dotted(func_node, scope)[0] if func_node is not None else None
        if function and isinstance(func_node, ast.Call | ast.Name) and self.rules.profile(function).tool_call:
            # ``mcp.add_tool(Tool.from_function(f, name="x"))``, or the same object through a variable: what
            # is registered is a tool a known tool constructor builds, the tool that constructor's call is.
            return
        metadata = kwarg(node, "metadata")  # LlamaIndex ``FunctionTool(fn=f, metadata=ToolMetadata(name=...))``
        named = next((k.value for k in node.keywords if k.arg in ("name", "tool_name")), None)
        if named is not None and self.constant_str(named) is None:
            self._runtime_named(node, named, scope)
            return
        tool_name = (
            self.constant_str(named)
            or (kwarg_str(metadata, "name") if isinstance(metadata, ast.Call) else None)
            or (function.rsplit(".", 1)[-1] if function else None)
        )
        if not tool_name:
            return
        location = self.loc(node)
        if function is None and "object_args" in rule.match:
            function = self._object_runner(node, rule, tool_name, location, scope)
        self._call_site_tool(node, tool_name, rule, location, function)
        update: dict[str, object] = {}
        if named is None and metadata is None and function and kwarg(node, "description") is None:
            # ``FunctionTool.from_defaults(fn=f)``: f's tool, named and described by f (placed at its def).
            update["byFunction"] = True
        checks = self._tool_auth_gates(node, scope) if node.keywords else set()
        if node.keywords and self.rules.executor_modes is not None:
            checks |= self._asking_executor(node, scope)
        if checks:
            # ``Tool.from_function(f, auth=require_roles("admin"))``: the check runs before every call of the tool.
            update["hookGates"] = tuple(sorted(checks))
        if update:
            self.tools[-1] = self.tools[-1].model_copy(update=update)

    def _object_runner(self, node: ast.Call, rule: Rule, name: str, location: Location, scope: Scope) -> str | None:
        """``QueryEngineTool(query_engine=qe, ...)``: the tool runs the object it is given; an object a function of
        the tree builds (``qe = build_engine()`` at the top level, or ``build_engine()`` itself) does there what it
        does for each call (a ``PandasQueryEngine``'s code execution is recorded at its constructor), so the tool
        reaches that function, through an entry of its own given what the model sends."""
        value: ast.expr | None = None
        for wanted in rule.match["object_args"]:
            value = (node.args[wanted] if len(node.args) > wanted else None) if isinstance(wanted, int) else None
            value = value if value is not None else (kwarg(node, wanted) if isinstance(wanted, str) else None)
            if value is not None:
                break
        if isinstance(value, ast.Name) and scope.function is None:
            bound = [
                stmt.value
                for stmt in self.tree.body
                if isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == value.id for t in stmt.targets)
            ]
            value = bound[0] if len(bound) == 1 else None
        if not isinstance(value, ast.Call):
            return None
        builder, resolved = self.dotted(value.func, scope)
        if not (builder and resolved and is_user_callee(builder, resolved, self)):
            return None
        qualname = f"{self.module}#object_tool:{location.line}:{location.column}:{name}"
        self.functions.append(
            FunctionFacts(
                id=short_id("fn", self.path, qualname),
                qualname=qualname,
                name=name,
                location=location,
                params=["input"],
                calls=[CallFact(location=location, callee=builder, resolved=True, dominatingGates=[])],
            )
        )
        return qualname

    def _executor_tool(self, node: ast.Call, rule: Rule, scope: Scope) -> None:
        """A tool the SDK defines and the code runs: ``ShellTool(executor=f)`` runs ``f`` (a function or a
        bound method); ``ApplyPatchTool(editor=E(...))`` and ``ComputerTool(computer=C())`` run the
        object's interface methods. A function of its own at the constructor calls them with what the
        model sends, behind the tool's approval flag (``needs_approval=True``). Named as the SDK names
        it unless ``name=`` says otherwise."""
        spec = rule.match["executor_tools"].get(self.dotted(node.func, scope)[0] or "")
        if spec is None:
            return
        default, keyword, methods = spec
        value = kwarg(node, keyword)
        if value is None and node.args:
            value = node.args[0]
        if value is None:
            return
        name = kwarg_str(node, "name") or default
        location = self.loc(node)
        if methods is None:
            runs = self.dotted(value, scope)[0] if isinstance(value, ast.Name | ast.Attribute) else None
            callees = [runs] if runs else []
        else:
            owner = self._type_of(value, scope)
            local = owner[len(self.module_prefix) :] if owner and owner.startswith(self.module_prefix) else None
            callees = [
                f"{owner}.{method}"
                for method in methods
                if owner and (local is None or self._method_owner(local, method) is not None)
            ]
        if not callees:
            # ``ShellTool(executor=make_executor())``: a tool whose code analysis cannot name stays visible.
            rule_unresolved = self.rules.unresolved_rule
            self.frontier.append(
                FrontierSite(
                    id=short_id("fr", "unresolved_call", self.path, location.line, location.column, name),
                    kind="unresolved_call",
                    detail=f"tool {name} runs a {keyword} whose code analysis cannot name; what it runs is not visible",
                    location=location,
                    ruleId=rule_unresolved.id if rule_unresolved is not None else rule.id,
                )
            )
            self._call_site_tool(node, name, rule, location, None)
            return
        qualname = f"{self.module}#executor:{location.line}:{location.column}:{name}"
        approval: set[str] = set()
        own = Scope(qualname=qualname, params=["input"])
        self._approval_flags(node, approval, own)
        given = [TaintOrigin(kind="param", param="input", index=0)]
        self.functions.append(
            FunctionFacts(
                id=short_id("fn", self.path, qualname),
                qualname=qualname,
                name=name,
                location=location,
                params=["input"],
                calls=[
                    CallFact(
                        location=location,
                        callee=callee,
                        resolved=True,
                        dominatingGates=sorted(approval),
                        args=[ArgTaint(index=0, origins=given)],
                    )
                    for callee in callees
                ],
                gates=own.gates,
            )
        )
        self._call_site_tool(node, name, rule, location, qualname)

    def _call_result(self, element: ast.expr, scope: Scope) -> bool:
        """A name the code bound to what a function (not a class) returned: ``t = make_tool(...)``."""
        if not isinstance(element, ast.Name) or element.id in self.aliases or element.id in self.local_defs:
            return False
        typed = scope.types.get(element.id) or self.module_types.get(element.id)
        if typed is None or not typed.rsplit(".", 1)[-1][:1].islower():
            return False
        if scope.function is not None:
            values = bound_values(scope.function, element.id)
        else:
            values = tuple(
                stmt.value
                for stmt in self.tree.body
                if isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == element.id for t in stmt.targets)
            )
        calls = [v.value if isinstance(v, ast.Await) else v for v in values or ()]
        return bool(calls) and all(isinstance(v, ast.Call) for v in calls)

    def _tool_list(self, node: ast.Call, name: str, scope: Scope) -> None:
        """``ToolNode([search, run_shell])``, ``Agent(tools=[f])``, ``bind_tools(tools)`` with ``tools`` built
        by appends or imported: plain functions given as tools."""
        for rule, patterns, where in self.rules.tool_lists:
            if not patterns.matches(name):
                continue
            for spot in where:
                value = (node.args[spot] if isinstance(spot, int) and len(node.args) > spot else None) or (
                    kwarg(node, spot) if isinstance(spot, str) else None
                )
                if value is None:
                    continue
                listed = isinstance(value, ast.List | ast.Tuple)
                forced = self._forced_choice(node) if node.keywords else None
                for element in self._tool_elements(value, scope):
                    if element is value and not listed:
                        self._list_reference(element, rule, scope)
                        continue
                    if not isinstance(element, ast.Name | ast.Attribute) or self._is_variable(element, scope):
                        continue
                    if isinstance(element, ast.Name) and self._package_instance(element, scope):
                        continue  # ``tool = FunctionTool(shell)`` listed: the tool its constructor made, not a function
                    if self._call_result(element, scope):
                        # ``handoff = create_handoff_tool(agent_name="hotel")`` listed: what the function
                        # returns, not the function; a list the linker expands or a frontier item.
                        self._list_reference(element, rule, scope)
                        continue
                    function, resolved = self.dotted(element, scope)
                    if not function or not resolved or not is_user_callee(function, resolved, self):
                        continue
                    location = self.loc(element)
                    tool_name = function.rsplit(".", 1)[-1]
                    if tool_name == forced:
                        continue  # ``bind_tools([Route], tool_choice="Route")``: a schema to parse
                    schema = self._schema_class(function)
                    if schema is not None:
                        self._schema_tool(rule, schema)
                        continue
                    self._listed_tools.append(ToolDef.found(rule, tool_name, location, function=function))
                return


def _named_by_wrapped(cls: ast.ClassDef) -> bool:
    """``super().__init__(name=tool.name, ...)`` in ``__init__`` (no ``name`` of the class's own): each
    instance is named after what it is given, another tool it wraps."""
    for call in base_init_calls(cls):
        base = call.func.value  # type: ignore[attr-defined]
        if isinstance(base.func, ast.Name) and base.func.id == "super":
            return isinstance(kwarg(call, "name"), ast.Attribute)
    return False


def _declared_unset(cls: ast.ClassDef, attr: str) -> bool:
    """``name: str`` in a class body, with no value (a pydantic field each instance sets)."""
    return any(
        isinstance(s, ast.AnnAssign) and s.value is None and isinstance(s.target, ast.Name) and s.target.id == attr
        for s in cls.body
    )


def _class_value(cls: ast.ClassDef, attr: str) -> ast.expr | None:
    """The value a class body assigns to ``attr``."""
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                return stmt.value
    return None


def _declared_abstract(cls: ast.ClassDef, bases: set[str | None]) -> bool:
    """``class Base(BaseTool, ABC)`` / ``metaclass=ABCMeta``: declared abstract, a base for tools, not one."""
    if "abc.ABC" in bases:
        return True
    for kw in cls.keywords:
        if kw.arg == "metaclass":
            meta = kw.value.attr if isinstance(kw.value, ast.Attribute) else getattr(kw.value, "id", None)
            if meta == "ABCMeta":
                return True
    return False


def _literal_strings(node: ast.expr | None) -> list[str]:
    """The strings of a literal list or tuple (``tags=["Item"]``), none otherwise."""
    if not isinstance(node, ast.List | ast.Tuple):
        return []
    return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _string_list(node: ast.expr | None) -> list[str] | None:
    """A filter written as a literal list of strings; None when absent or written otherwise."""
    if not isinstance(node, ast.List | ast.Tuple) or not all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return None
    return _literal_strings(node)
