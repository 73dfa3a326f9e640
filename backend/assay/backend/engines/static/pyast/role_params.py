"""Tools by role, from what a model-facing call is given: the tree's functions under a tools parameter
(``tools=``, ``functions=``, ``plugins=``, ``skills=``, ``allowed_tools=``...) or handed to a builder
(``add_tool(f)``, ``FunctionTool(func=f)``), SDK built-ins named by strings (Claude Code's ``Bash``),
library tools and toolkits with the effect the pack gives them, the tools of an inner agent a function
runs, and a frontier item for what cannot be enumerated."""

from __future__ import annotations

import ast

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    CallFact,
    FrontierSite,
    FunctionFacts,
    GateSite,
    TaintOrigin,
    ToolDef,
    ToolSource,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.literals import kwarg, kwarg_str, literal_str, module_bindings
from assay.backend.engines.static.pyast.role_decorators import DecoratorRoles, hook_matches
from assay.backend.engines.static.pyast.role_rules import third_party
from assay.backend.engines.static.pyast.scope import MODULE_PARAMS, Definition, Scope, definitions
from assay.backend.engines.static.rules.pack import Rule
from assay.backend.snippets import snippet


class ParamRoles(DecoratorRoles):
    """Tools a model-facing call is given, whatever the framework."""

    def _role_tool_params(self, node: ast.Call, name: str, resolved: bool, scope: Scope) -> None:
        """``Agent(tools=[f, g])``, ``ClaudeAgentOptions(allowed_tools=["Bash"])``, ``Kernel(plugins=[...])``
        for a framework no rule names: the tools the model is given there."""
        roles = self.roles
        rule = roles.params_rule
        if rule is None or not third_party(name, resolved) or name.startswith(self.module_prefix):
            return
        hooked = roles.tool_callbacks or roles.event_hooks or roles.limit_kwargs
        hook_gates = self._tool_callbacks(node, scope) if hooked else []
        made = len(self.functions), len(self._listed_tools), len(self.tools)
        for kw in node.keywords:
            if kw.arg in roles.params:
                self._given_tools(node, name, kw.arg, kw.value, scope)
        if hook_gates:
            # ``Agent(tools=[...], before_tool_callback=check)``: the check runs before each of these tools.
            self._hook_listed(hook_gates, made[1], made[2])
            # ``ClaudeAgentOptions(mcp_servers={"ops": server}, can_use_tool=check)``: the check runs before the tools
            # of the in-process servers mounted there too, made where those servers were built (``_mounted_server_names``).
            if self.roles.mounted_servers and any(
                kw.arg == under for kw in node.keywords for under, _ in self.roles.mounted_servers.values()
            ):
                self._mount_hooks[id(node)] = hook_gates
        runs = [f.qualname for f in self.functions[made[0] :] if "#builtin:" in f.qualname]
        runs += [t.function for t in self._listed_tools[made[1] :] if t.function]
        runs += [t.function for t in self.tools[made[2] :] if t.function]
        if scope.params is not MODULE_PARAMS:
            # An agent built and run inside a function (a tool prompting an inner ``Agent(tools=[...])``):
            # the function reaches what the inner agent's tools reach.
            location = self.loc(node)
            for callee in runs:
                scope.calls.append(CallFact(location=location, callee=callee, resolved=True, dominatingGates=[]))
        else:
            self._agent_built(node, runs)

    def _given_tools(self, node: ast.expr, name: str, param: str, value: ast.expr, scope: Scope) -> None:
        """What ``value`` hands a model-facing object of ``name`` under the tools parameter ``param``: the
        tree's functions are tools named after them, strings the SDK's tools, library tools with their
        effect; what cannot be enumerated is a frontier item naming the call."""
        roles = self.roles
        rule = roles.params_rule
        if rule is None:
            return
        package = name.split(".", 1)[0]
        package = roles.renamed_packages.get(package, package)
        listed = isinstance(value, ast.List | ast.Tuple | ast.Set)
        unseen: list[str] = []
        for element in self._tool_elements(value, scope):
            if element is value and not listed:
                if self._registry_object(element, scope):
                    continue  # ``Agent(tools=tools)`` with ``tools = Tools()``: its tools are decorated
                if isinstance(element, ast.Name | ast.Attribute | ast.Call | ast.Await):
                    before = len(self._listed_tools)
                    self._list_reference(element, rule, scope)
                    if len(self._listed_tools) == before and not self._known_tool_value(element, scope):
                        unseen.append(snippet(ast.unparse(element), 60))
                continue
            if isinstance(element, ast.Constant):
                if isinstance(element.value, str) and param in roles.string_params:
                    self._string_tool(element, element.value, package, name, scope)
                continue
            if isinstance(element, ast.Dict):
                self._hosted_tool(element, package)
                continue
            if isinstance(element, ast.Name | ast.Attribute | ast.Call) and self._library_function(
                element, scope, name
            ):
                continue
            if (
                isinstance(element, ast.Name)
                and param in roles.agent_plugin_params
                and self._agent_plugin(element, roles.agent_plugin_params[param], rule)
            ):
                continue
            if isinstance(element, ast.Name | ast.Attribute) and not self._is_variable(element, scope):
                function, ok = self.dotted(element, scope)
                if (
                    function
                    and ok
                    and is_user_callee(function, ok, self)
                    and self._defined_function(function)
                    and not _method_result(element, function, scope)
                ):
                    self._listed_tools.append(
                        ToolDef.found(rule, function.rsplit(".", 1)[-1], self.loc(element), function=function)
                    )
                    continue
            if not self._known_tool_value(element, scope):
                unseen.append(snippet(ast.unparse(element), 60))
        if unseen:
            self._unenumerated(node, name, param, unseen)

    def _agent_plugin(self, element: ast.Name, sep: str, rule: Rule) -> bool:
        """``plugins=[billing_agent]`` with ``billing_agent = ChatCompletionAgent(name="BillingAgent", ...)`` at
        module level: the framework makes the agent a plugin of one function, both named after the agent
        (``BillingAgent-BillingAgent``), a tool at the agent's constructor that reaches what the agent's
        own tools reach."""
        built = next((v for v in module_bindings(self.tree, element.id) if isinstance(v, ast.Call)), None)
        name = self.constant_str(kwarg(built, "name")) if built is not None else None
        if built is None or not name:
            return False
        agents: dict[str, ast.Call] = self._module_agents  # type: ignore[attr-defined]
        function = f"{self.module}.{element.id}" if element.id in agents else None
        self.tools.append(ToolDef.found(rule, f"{name}{sep}{name}", self.loc(built), function=function))
        return True

    def _tools_attached(self, receiver: ast.expr, param: str, value: ast.expr, at: ast.expr, scope: Scope) -> None:
        """``agent.functions = [f, g]``, ``agent.tools += [f]``, ``agent.functions.append(f)``: tools handed to
        an object of a package after it is built, under a tools parameter's name, are given to its model as
        if the constructor had been given them (OpenAI Swarm's transfer functions, agents wired after
        they are made). The receiver must be an instance of a third-party class."""
        if self.roles.params_rule is None or not isinstance(receiver, ast.Name):
            return
        cls = scope.types.get(receiver.id) or self.module_types.get(receiver.id)
        if not cls or cls.startswith(self.module_prefix) or not third_party(cls, True):
            return
        if not cls.rsplit(".", 1)[-1][:1].isupper():
            return
        self._given_tools(at, cls, param, value, scope)

    def _hook_listed(self, hook_gates: list[tuple[str, str | None]], listed: int, made: int | None = None) -> None:
        """The gates an agent's hooks and middleware hold over the tools given to it since ``listed``
        (``self._listed_tools``) and ``made`` (``self.tools``), each over the tools its matcher names."""
        if not hook_gates:
            return
        spans = [(self._listed_tools, listed)] + ([(self.tools, made)] if made is not None else [])
        for tools, start in spans:
            tools[start:] = [
                t.model_copy(
                    update={
                        "hookGates": tuple(
                            sorted(set(t.hookGates) | {g for g, matcher in hook_gates if hook_matches(matcher, t.name)})
                        )
                    }
                )
                for t in tools[start:]
            ]

    def _agent_built(self, node: ast.Call, runs: list[str]) -> None:
        """An agent built at module level, given tools that run ``runs`` (``role_agents``)."""

    def _registry_object(self, element: ast.expr, scope: Scope) -> bool:
        """A variable holding an object built from a package's class (a tool registry, a toolkit), which
        the file's decorators or the pack's toolkit rules account for."""
        if not isinstance(element, ast.Name):
            return False
        typed = scope.types.get(element.id) or self.module_types.get(element.id)
        if not typed:
            return False
        return typed.rsplit(".", 1)[-1][:1].isupper() and not typed.startswith(self.module_prefix)

    def _hosted_tool(self, node: ast.Dict, package: str) -> None:
        """``{"type": "web_search_preview"}`` in a model call's tools: a tool the provider runs, named by
        its type (a dict naming its own function is a literal tool of the pack's dict rules)."""
        rule = self.roles.params_rule
        keys = {literal_str(k): v for k, v in zip(node.keys, node.values, strict=True) if k is not None}
        if rule is None or "name" in keys or "function" in keys:
            return
        kind = literal_str(keys["type"]) if "type" in keys else None
        if not kind or (kind not in self.roles.hosted_types and not kind.endswith("_preview")):
            return
        location = self.loc(keys["type"])
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, location.column, kind, rule.id),
                name=kind,
                framework=package,
                ruleId=rule.id,
                location=location,
            )
        )

    def _tool_constructor(self, name: str) -> bool | None:
        """For a resolved callee of a package (None for any other): whether it is a tool class built with the
        function it runs (``FunctionTool(...)``)."""
        if not third_party(name, True) or name.startswith(self.module_prefix):
            return None
        last = name.rsplit(".", 1)[-1]
        return last[:1].isupper() and last.endswith(self.roles.tool_constructor_suffixes)

    def _role_builder(self, node: ast.Call, name: str, resolved: bool, scope: Scope) -> None:
        """``agent.add_tool(search)``, ``registry.register_tool(f)``, ``FunctionTool(func=f)`` on a package's
        object or class: the tree's function handed over there is a tool named after it (or ``name=``)."""
        roles = self.roles
        rule = roles.params_rule
        func = node.func
        if rule is None or not resolved:
            return
        # Whether ``name`` is a package's tool constructor (None: not a package's callee), once per file and name.
        known = self._tool_constructors
        constructor = known[name] if name in known else known.setdefault(name, self._tool_constructor(name))
        if constructor is None:
            return
        builder = isinstance(func, ast.Attribute) and (
            func.attr in roles.builder_methods or func.attr.endswith(roles.builder_suffixes or ("\0",))
        )
        if not (builder or constructor):
            return
        if constructor and roles.instance_kwargs and self._instance_tool(node, rule, scope):
            return
        given = [*node.args[:1], *(kw.value for kw in node.keywords if kw.arg in roles.function_kwargs)]
        looped = False
        if builder:
            # ``for func, schema in pairs: client.tools.upsert_from_function(func=func, ...)``: each function
            # of the list the loop walks is handed over.
            expanded = [e for value in given for e in self._loop_functions(value, scope)]
            looped, given = expanded != given, expanded
        for value in given:
            if (
                not isinstance(value, ast.Name | ast.Attribute)
                or self._is_variable(value, scope)
                or self._holds_value(value, scope)
            ):
                continue
            function, ok = self.dotted(value, scope)
            if not (function and ok and is_user_callee(function, ok, self) and self._defined_function(function)):
                continue
            named = kwarg_str(node, "name") or kwarg_str(node, "tool_name")
            if named:
                # ``Tool(name="ask_weather_agent", function=f)``: the tool is where its name is written, not
                # at ``f`` (a tool defined, not a function listed: the decorator rule's role).
                self.tools.append(ToolDef.found(roles.decorator_rule or rule, named, self.loc(node), function=function))
            else:
                listed = ToolDef.found(rule, function.rsplit(".", 1)[-1], self.loc(value), function=function)
                asking = self._asking_executor(node, scope) if builder and node.keywords else set()
                if asking:
                    # ``register_function(f, caller=a, executor=proxy)``: the executor asks a person first.
                    listed = listed.model_copy(update={"hookGates": tuple(sorted(asking))})
                self._listed_tools.append(listed)
            if not looped:
                return

    def _asking_executor(self, node: ast.Call, scope: Scope) -> set[str]:
        """``register_function(f, caller=a, executor=proxy)``: ``proxy`` runs the call, and when it asks a person
        before each reply (``human_input_mode="ALWAYS"``, a ``UserProxyAgent``'s default) the call runs only when
        they let it: a human approval at the executor's constructor, held over the tool."""
        modes = self.rules.executor_modes
        executor = kwarg(node, modes[1]["executor_kwarg"]) if modes is not None else None
        if modes is None or not isinstance(executor, ast.Name):
            return set()
        rule, spec = modes
        built = [
            stmt.value
            for stmt in self.tree.body
            if isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Call)
            and any(isinstance(t, ast.Name) and t.id == executor.id for t in stmt.targets)
        ]
        if len(built) != 1:
            return set()
        constructor = built[0]
        cls = self.dotted(constructor.func, scope)[0] or ""
        mode_node = kwarg(constructor, spec["mode_kwarg"])
        mode = self.constant_str(mode_node) if mode_node is not None else spec["defaults"].get(cls)
        if mode not in spec["asking"]:
            return set()
        return {self._gate(scope, rule, constructor, f"{executor.id} asks a person before each reply ({mode})")}

    def _holds_value(self, value: ast.Name | ast.Attribute, scope: Scope) -> bool:
        """A name or ``self`` field bound to what a call gives (``conn = pyodbc.connect(dsn)``,
        ``self.db = Connector().connect()``): an object, typed by the call, not the function called, so never
        a function handed over as a tool (a nested ``def`` is a function: its name is its own type)."""
        if isinstance(value, ast.Name):
            typed = scope.types.get(value.id)
            if typed is not None:
                return typed != f"{scope.qualname}.{value.id}"
            return value.id in self.module_types
        held = value.value
        return (
            isinstance(held, ast.Name)
            and held.id == "self"
            and self._class is not None
            and value.attr in self.class_attr_types.get(self._class, {})
        )

    def _instance_tool(self, node: ast.Call, rule: Rule, scope: Scope) -> bool:
        """``ComponentTool(component=Fetcher(), name="get_fact")``: a tool constructor given an object (not a
        function) under a keyword whose method the framework runs (Haystack calls ``component.run``): a tool
        where it is constructed, named ``name=`` or, without it, as the framework names it after the class."""
        for keyword in node.keywords:
            spec = self.roles.instance_kwargs.get(keyword.arg or "")
            if spec is None:
                continue
            value = keyword.value
            if isinstance(value, ast.Call):
                cls, ok = self.dotted(value.func, scope)
            elif isinstance(value, ast.Name):
                cls, ok = scope.types.get(value.id) or self.module_types.get(value.id), True
            else:
                continue
            short = cls.rsplit(".", 1)[-1] if cls else ""
            if not (cls and ok and short[:1].isupper()):
                continue
            method, naming = spec
            named = kwarg_str(node, "name") or (snake_class(short) if naming == "snake_class" else short)
            tool_rule = self.roles.decorator_rule or rule
            self.tools.append(ToolDef.found(tool_rule, named, self.loc(node), function=f"{cls}.{method}"))
            return True
        return False

    def _renamed_tool(self, target: ast.Attribute, value: ast.expr, scope: Scope) -> None:
        """``google = TavilySearchTool(); google.name = "google_search"``: an instance of a class renamed by
        assignment is, when the class is a tool class of the tree (the linker decides: ``renamed``), a tool
        of that name, where it is named, run as the class's tool is (the model sees each instance by its name)."""
        rule = self.roles.decorator_rule
        name = literal_str(value)
        receiver = target.value
        if rule is None or not name or not isinstance(receiver, ast.Name):
            return
        cls = scope.types.get(receiver.id) or self.module_types.get(receiver.id)
        if not cls or not cls.rsplit(".", 1)[-1][:1].isupper():
            return
        location = self.loc(target)
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, location.column, name, "renamed"),
                name=name,
                framework=cls.split(".", 1)[0],
                ruleId=rule.id,
                location=location,
                source=ToolSource(kind="renamed", ref=cls),
            )
        )

    def _loop_functions(self, value: ast.expr, scope: Scope) -> list[ast.expr]:
        """``value`` itself, or, for a name a ``for`` binds from a list (``for func in all_tools``, ``all_tools =
        [f, g]``) or from the tuples of one (``pairs = [(f, F), ...]``), the names the list holds."""
        iterable = None
        if isinstance(value, ast.Name):
            iterable = scope.loop_items.get(value.id) or scope.iterables.get(value.id)
        if iterable is None:
            return [value]
        elements = scope.list_vars.get(iterable.id, []) if isinstance(iterable, ast.Name) else []
        if isinstance(iterable, ast.List | ast.Tuple):
            elements = list(iterable.elts)
        names: list[ast.expr] = []
        for element in elements:
            parts = element.elts if isinstance(element, ast.Tuple) else [element]
            names.extend(p for p in parts if isinstance(p, ast.Name | ast.Attribute))
        return names

    def _defined_function(self, function: str) -> bool:
        """A function (not a class, not an object) of this file or of another module of the tree: one of the
        module, a method, or one defined inside a function of the module (``def make(db): def _compare(...)``,
        a factory's closure handed to ``StructuredTool(func=_compare)``)."""
        if function.startswith(self.module_prefix):
            local = function[len(self.module_prefix) :]
            if local in self.classes:
                return False
            head, _, rest = local.partition(".")
            return not rest or head in self.classes or self._nested_function(local)
        return not function.rsplit(".", 1)[-1][:1].isupper()

    def _nested_function(self, local: str) -> bool:
        """Whether ``outer.inner`` (``outer.mid.inner``...) names a function defined inside a module function."""
        names = local.split(".")
        body: list[ast.stmt] = list(self.module_defs)
        found: Definition | None = None
        for name in names:
            found = next((d for d in definitions(body) if d.name == name), None)
            if found is None or isinstance(found, ast.ClassDef):
                return False
            body = found.body
        return found is not None

    def _known_tool_value(self, element: ast.expr, scope: Scope) -> bool:
        """Something another rule accounts for: a tool object, toolkit or library tool the pack describes,
        an instance of a class of the tree (its methods are recognised where they are defined), a schema."""
        node = element.value if isinstance(element, ast.Await) else element
        if isinstance(node, ast.Call):
            callee, ok = self.dotted(node.func, scope)
        elif isinstance(node, ast.Name | ast.Attribute):
            callee, ok = self.dotted(node, scope)
            callee = scope.types.get(node.id, callee) if isinstance(node, ast.Name) else callee
        else:
            return False
        if not callee:
            return False
        if callee.startswith(self.module_prefix) or not ok:
            return True
        profile = self.rules.profile(callee)
        if profile.tool_call or profile.tool_object or profile.frontier or profile.tool_list or profile.model:
            return True
        if callee in self.rules.library_tools or callee in self.rules.toolkits:
            return True
        if self.rules.tool_containers.matches(callee):
            return True  # ``types.Tool(function_declarations=[...])``: its declarations are the tools
        last = callee.rsplit(".", 1)[-1]
        if any(last.endswith(suffix) for suffix in self.roles.agent_tool_classes):
            return True  # ``AgentTool(agent=a)``: a tool where it is constructed (``role_agents``)
        constructor = last[:1].isupper() and last.endswith(self.roles.tool_constructor_suffixes)
        if (
            constructor
            and isinstance(node, ast.Call)
            and (
                node.args[:1]
                or any(
                    kw.arg in self.roles.function_kwargs or kw.arg in self.roles.instance_kwargs for kw in node.keywords
                )
            )
        ):
            return True  # ``FunctionTool(func=f)``: a tool where it is constructed (``_role_builder``)
        return is_user_callee(callee, ok, self) and callee.split(".", 1)[0] in self.local_defs

    def library_toolkit(self, name: str | None) -> tuple[str | None, tuple[str, ...]]:
        """The library toolkit ``name`` is (``WebSearchTools``) or, for a class of this file, the one it
        extends (``class CustomZoomTool(ZoomTool)``), with the qualnames of the methods the subclass defines
        along the way (the library's tool methods call them back); ``(None, ())`` for anything else."""
        if not name:
            return None, ()
        if name in self.roles.library_toolkits:
            return name, ()
        local = name.removeprefix(self.module + ".")
        if local == name or local not in self.classes:
            return None, ()
        library = next((b for b in sorted(self._ancestors(local)) if b in self.roles.library_toolkits), None)
        if library is None:
            return None, ()
        owners = [local, *(b.removeprefix(self.module + ".") for b in self._ancestors(local))]
        methods = sorted(
            f"{self.module}.{owner}.{method}"
            for owner in owners
            if owner in self.classes
            for method in self.classes[owner][0]
            if not method.startswith("__")
        )
        return library, tuple(methods)

    def _library_function(self, element: ast.expr, scope: Scope, callee: str) -> bool:
        """A library's ready-made tool listed by name or built by a call (``tools=[shell, file_write]``
        from ``strands_tools``, ``ShellTools()``): its effect, as the pack describes it, at the list."""
        target = element.func if isinstance(element, ast.Call) else element
        held = scope.library_vars.get(element.id) if isinstance(element, ast.Name) else None
        name: str | None
        if held is not None:
            # ``zoom = CustomZoomTool(...)`` then ``tools=[zoom]``: the toolkit where it is constructed.
            element, name, ok = held[0], held[1], True
        else:
            name, ok = self.dotted(target, scope)
        if not (name and ok):
            return False
        library, overrides = self.library_toolkit(name)
        toolkit = self.roles.library_toolkits.get(library) if library else None
        if toolkit is not None:
            # ``WebSearchTools(requires_confirmation_tools=["web_search"])``: the toolkit's functions, each
            # behind a person's confirmation when the constructor names it.
            confirmed: set[str] = set()
            if isinstance(element, ast.Call):
                for kw in element.keywords:
                    if kw.arg in self.roles.confirm_tools_kwargs and isinstance(kw.value, ast.List | ast.Tuple):
                        confirmed |= {t for e in kw.value.elts if (t := literal_str(e))}
            package = (library or name).split(".", 1)[0]
            for tool, action_class, impact in toolkit:
                self._builtin_tool(
                    element, tool, package, (action_class, impact), False, callee, tool in confirmed, overrides
                )
            return True
        spec = self.roles.library_functions.get(name)
        if spec is None:
            return False
        tool = name.rsplit(".", 1)[-1]
        self._builtin_tool(element, tool, name.split(".", 1)[0], (spec[0], spec[1]), spec[2], callee)
        return True

    def _string_tool(self, node: ast.Constant, tool: str, package: str, callee: str, scope: Scope) -> None:
        """A tool named by a string (``tools=["Bash", "Write"]``): a tool of the SDK, its reach the effect
        the pack gives that built-in, run by a function of its own at the string."""
        roles = self.roles
        if not tool or any(tool.startswith(p) for p in roles.skip_prefixes):
            return
        effect = roles.builtins.get(package, {}).get(tool)
        self._builtin_tool(node, tool, package, effect, tool in roles.model_written, callee)

    def _builtin_tool(
        self,
        node: ast.expr,
        tool: str,
        package: str,
        effect: tuple[str | None, str | None] | None,
        model_written: bool,
        callee: str,
        confirmed: bool = False,
        overrides: tuple[str, ...] = (),
    ) -> None:
        rule = self.roles.params_rule
        if rule is None:
            return
        location = self.loc(node)
        gates: list[GateSite] = []
        approval = self.rules.gate_by_kind.get("human_approval")
        if confirmed and approval is not None:
            gates.append(
                GateSite(
                    id=short_id("gate", self.path, location.line, location.column, "human_approval", tool),
                    kind="human_approval",
                    ruleId=approval.id,
                    location=location,
                    detail=f"{tool} waits for a person (named in the toolkit's confirmation or external-execution list)",
                )
            )
        qualname = f"{self.module}#builtin:{location.line}:{location.column}:{tool}"
        actions: list[ActionSite] = []
        if effect is not None and effect[0] is not None:
            taint = [TaintOrigin(kind="param", param="input", index=0)]
            if model_written:
                taint.append(TaintOrigin(kind="model_output", location=location))
            actions.append(
                ActionSite(
                    id=short_id("act", self.path, location.line, location.column, rule.id, tool),
                    actionClass=effect[0],
                    impact=effect[1] or "medium",
                    ruleId=rule.id,
                    target=f"{package}:{tool}",
                    location=location,
                    dominatingGates=[g.id for g in gates],
                    taint=taint,
                )
            )
        elif effect is None:
            self._unenumerated_tool(node, tool, callee)
        calls: list[CallFact] = []
        if tool in self.roles.agent_runners.get(package, frozenset()):
            # ``Task`` starts the SDK's subagents: it reaches what their tools reach.
            prefix = f"{self.module}#builtin:"
            calls = [
                CallFact(location=location, callee=f.qualname, resolved=True, dominatingGates=[])
                for f in self.functions
                if f.qualname.startswith(prefix) and f.name not in self.roles.agent_runners.get(package, frozenset())
            ]
        # A subclass's methods are what the library's tool methods call back (``self.get_access_token()``).
        calls += [CallFact(location=location, callee=m, resolved=True, dominatingGates=[]) for m in overrides]
        self.functions.append(
            FunctionFacts(
                id=short_id("fn", self.path, qualname),
                qualname=qualname,
                name=tool,
                location=location,
                params=["input"],
                actions=actions,
                calls=calls,
                gates=gates,
            )
        )
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, location.column, tool, rule.id),
                name=tool,
                framework=package,
                ruleId=rule.id,
                location=location,
                function=qualname,
                parameters=["input"],
            )
        )
        return

    def _unenumerated(self, node: ast.expr, callee: str, param: str, unseen: list[str]) -> None:
        shown = ", ".join(unseen[:3]) + (" ..." if len(unseen) > 3 else "")
        self._runtime_tools(
            node,
            param,
            f"{callee.rsplit('.', 1)[-1]}({param}=...) gives the model tools the analysis cannot "
            f"enumerate ({shown}); their names and reach are not visible",
        )

    def _unenumerated_tool(self, node: ast.expr, tool: str, callee: str) -> None:
        self._runtime_tools(
            node, tool, f"tool {tool!r} given to {callee.rsplit('.', 1)[-1]} is the SDK's own: its reach is not visible"
        )

    def _runtime_tools(self, node: ast.expr, key: str, detail: str) -> None:
        """A ``runtime_registered_tools`` frontier item at ``node``: tools a model is given that the
        analysis cannot enumerate (``key`` tells apart items at one place)."""
        rule = self.roles.frontier_rule
        if rule is None:
            return
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "runtime_registered_tools", self.path, location.line, location.column, key),
                kind="runtime_registered_tools",
                detail=detail,
                location=location,
                ruleId=rule.id,
            )
        )


def _method_result(element: ast.expr, typed: str, scope: Scope) -> bool:
    """``schema_copy = data["schema"].copy()`` listed as ``tools=[schema_copy]``: a name holding what a method
    of a local value of unknown type returned (its type only the guess ``data.copy``) is a value, never the
    function to list as a tool."""
    if not isinstance(element, ast.Name) or scope.types.get(element.id) != typed:
        return False
    head = typed.split(".", 1)[0]
    return "." in typed and head in scope.taint and head not in scope.types


def snake_class(name: str) -> str:
    """A class name in snake case as Haystack names a component's tool: an upper-case letter after a lower-case
    one starts a word (``SerperDevWebSearch`` -> ``serper_dev_web_search``, ``SQLTool`` -> ``sqltool``)."""
    return "".join(
        "_" + c.lower() if c.isupper() and i > 0 and not name[i - 1].isupper() else c.lower()
        for i, c in enumerate(name)
    ).lstrip("_")
