"""Tools by role: what makes a function or a name a tool whatever the framework, from the rule pack's
role rules (``rules/python-roles.json``), for code no framework rule names.

- A function decorated by a third-party decorator whose name denotes a tool (``@tool``,
  ``@function_tool``, ``@kernel_function``, ``@tools.registry.action(...)``) is a tool, named as such
  frameworks name it: the decorator's ``name=`` (or, for the decorators that take it so, its first
  positional string), else the function's name; a Semantic Kernel function is ``<Plugin>-<function>``.
  Approval switches on the decorator (``requires_confirmation=True``), a confirming ``pre_hook`` and a
  ``domains=[...]`` filter are gates over the whole tool.
- What a call into a third-party framework is given under a tools parameter (``tools=``,
  ``functions=``, ``plugins=``, ``skills=``, ``allowed_tools=``...) is given to a model: the tree's
  functions listed there are tools named after them; names spelled as strings are tools of the SDK, with
  the effect the pack gives SDK built-ins (Claude Code's ``Bash`` runs the model's commands); a library
  object or a run-time list the analysis cannot enumerate is a frontier item naming the call.
- A code executor configured on an agent (``code_executor=...``) runs the code its model writes.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from typing import Any

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    CallFact,
    FrontierSite,
    FunctionFacts,
    GateSite,
    TaintOrigin,
    ToolDef,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.literals import docstring, kwarg_str, literal_str
from assay.backend.engines.static.pyast.scope import MODULE_PARAMS, Scope
from assay.backend.engines.static.pyast.sources import SourceLogic
from assay.backend.engines.static.rules.match import Patterns
from assay.backend.engines.static.rules.pack import Rule, RulePack

_NON_TOOL_PARAMS = frozenset({"self", "cls", "ctx", "context", "run_context", "tool_context", "config", "callbacks"})
# Calls that confirm with a person: a pre-hook making one is an approval over the tool.
_CONFIRM_CALLS = frozenset({"input", "ask", "confirm", "prompt", "Confirm", "interrupt"})


@dataclass(frozen=True)
class Roles:
    """The role rules of a rule pack, compiled once per pack digest."""

    decorator_rule: Rule | None = None
    decorators: frozenset[str] = frozenset()
    decorator_attrs: frozenset[str] = frozenset()
    positional_name: frozenset[str] = frozenset()
    name_kwargs: tuple[str, ...] = ()
    plugin_qualified: dict[str, str] = field(default_factory=dict)
    pre_hooks: frozenset[str] = frozenset()
    allow_kwargs: frozenset[str] = frozenset()
    params_rule: Rule | None = None
    params: frozenset[str] = frozenset()
    string_params: frozenset[str] = frozenset()
    skip_prefixes: tuple[str, ...] = ()
    builtins: dict[str, dict[str, tuple[str | None, str | None]]] = field(default_factory=dict)
    model_written: frozenset[str] = frozenset()
    frontier_rule: Rule | None = None
    executor_rule: Rule | None = None
    executor_kwargs: frozenset[str] = frozenset()
    sandbox_executors: Patterns = field(default_factory=lambda: Patterns(()))
    tool_class_suffixes: tuple[str, ...] = ()
    tool_class_methods: tuple[str, ...] = ()
    agent_tool_methods: dict[str, tuple[str, ...]] = field(default_factory=dict)
    hosted_types: frozenset[str] = frozenset()
    tool_callbacks: dict[str, str | None] = field(default_factory=dict)
    agent_runners: dict[str, frozenset[str]] = field(default_factory=dict)
    client_rule: Rule | None = None
    client_classes: Patterns = field(default_factory=lambda: Patterns(()))
    client_excluded: frozenset[str] = frozenset()
    library_functions: dict[str, tuple[str | None, str | None, bool]] = field(default_factory=dict)
    library_toolkits: dict[str, tuple[tuple[str, str | None, str | None], ...]] = field(default_factory=dict)
    confirm_tools_kwargs: frozenset[str] = frozenset()
    builder_methods: frozenset[str] = frozenset()
    tool_constructor_suffixes: tuple[str, ...] = ()
    function_kwargs: tuple[str, ...] = ()


_ROLES: dict[str, Roles] = {}
# The standard library's top-level modules: what is not one of them (nor a builtin) comes from a package.
_STDLIB = frozenset(sys.stdlib_module_names) | {"builtins"}


def compile_roles(pack: RulePack) -> Roles:
    """The role rules of ``pack`` (none when the pack has none: every role then stays off)."""
    found = _ROLES.get(pack.digest)
    if found is not None:
        return found
    by_key: dict[str, Rule] = {}
    for rule in pack.rules:
        if rule.language != "python":
            continue
        for key in (
            "role_decorators",
            "role_tool_params",
            "unenumerated_tools",
            "code_executor_kwargs",
            "client_classes",
        ):
            if key in rule.match and key not in by_key:
                by_key[key] = rule
    deco = by_key.get("role_decorators")
    params = by_key.get("role_tool_params")
    executor = by_key.get("code_executor_kwargs")
    dm: dict[str, Any] = deco.match if deco else {}
    pm: dict[str, Any] = params.match if params else {}
    em: dict[str, Any] = executor.match if executor else {}
    client = by_key.get("client_classes")
    cm: dict[str, Any] = client.match if client else {}
    builtins = {
        package: {name: (spec[0], spec[1]) for name, spec in names.items()}
        for package, names in pm.get("builtin_tools", {}).items()
    }
    roles = Roles(
        decorator_rule=deco,
        decorators=frozenset(dm.get("role_decorators", ())),
        decorator_attrs=frozenset(dm.get("role_decorator_attrs", ())),
        positional_name=frozenset(dm.get("positional_name", ())),
        name_kwargs=tuple(dm.get("name_kwargs", ())),
        plugin_qualified=dict(dm.get("plugin_qualified", {})),
        pre_hooks=frozenset(dm.get("pre_hook_kwargs", ())),
        allow_kwargs=frozenset(dm.get("allow_kwargs", ())),
        tool_class_suffixes=tuple(dm.get("tool_classes", {}).get("suffixes", ())),
        tool_class_methods=tuple(dm.get("tool_classes", {}).get("methods", ())),
        agent_tool_methods={k: tuple(v) for k, v in dm.get("agent_tool_methods", {}).items()},
        hosted_types=frozenset(dm.get("hosted_tool_types", ())),
        tool_callbacks=dict(dm.get("tool_callbacks", {})),
        params_rule=params,
        params=frozenset(pm.get("role_tool_params", ())),
        string_params=frozenset(pm.get("string_params", ())),
        skip_prefixes=tuple(pm.get("skip_string_prefixes", ())),
        builtins=builtins,
        model_written=frozenset(pm.get("model_written", ())),
        frontier_rule=by_key.get("unenumerated_tools"),
        executor_rule=executor,
        executor_kwargs=frozenset(em.get("code_executor_kwargs", ())),
        sandbox_executors=Patterns(em.get("sandbox_executors", ())),
        agent_runners={k: frozenset(v) for k, v in pm.get("agent_runner_tools", {}).items()},
        library_toolkits={
            name: tuple((t[0], t[1], t[2]) for t in tools) for name, tools in pm.get("library_toolkits", {}).items()
        },
        confirm_tools_kwargs=frozenset(pm.get("confirm_tools_kwargs", ())),
        builder_methods=frozenset(pm.get("builder_methods", ())),
        tool_constructor_suffixes=tuple(pm.get("tool_constructor_suffixes", ())),
        function_kwargs=tuple(pm.get("function_kwargs", ())),
        client_rule=client,
        client_classes=Patterns(cm.get("client_classes", ())),
        client_excluded=frozenset(cm.get("exclude_heads", ())),
        library_functions={
            name: (spec[0], spec[1], bool(spec[2]) if len(spec) > 2 else False)
            for name, spec in pm.get("library_functions", {}).items()
        },
    )
    _ROLES[pack.digest] = roles
    return roles


def _third_party(name: str | None, resolved: bool) -> bool:
    """A name imported from a package outside the standard library (the tree's own modules included:
    a decorator of the tree named ``tool`` registers a tool as surely as a framework's)."""
    return name is not None and resolved and name.split(".", 1)[0] not in _STDLIB


class RoleLogic(SourceLogic):
    """Tools, gates and code execution recognised by the role a name plays, not by its spelling."""

    def __init__(self, path: str, tree: ast.Module, rules: RulePack) -> None:
        super().__init__(path, tree, rules)
        self.roles = compile_roles(rules)

    # --- decorators -------------------------------------------------------------------------------

    def _role_decorator(
        self,
        dec: ast.expr,
        name: str,
        resolved: bool,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        entry: set[str],
        scope: Scope,
    ) -> bool:
        """``@tool``, ``@tools.registry.action('...')``, ``@kernel_function(...)`` from a package: a tool."""
        roles = self.roles
        rule = roles.decorator_rule
        target = dec.func if isinstance(dec, ast.Call) else dec
        if not resolved and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            # ``registry = tools.registry`` then ``@registry.action(...)``.
            bound = self._module_value(target.value.id)
            if isinstance(bound, ast.Attribute | ast.Call):
                base, resolved = self.dotted(bound, None)
                name = f"{base}.{target.attr}" if base else name
        if rule is None or not _third_party(name, resolved):
            return False
        last = name.rsplit(".", 1)[-1]
        if isinstance(target, ast.Attribute):
            receiver = name.rsplit(".", 1)[0]
            # ``@mcp.tool()`` on a server object, ``@tools.action()`` on a registry: an attribute of an
            # object built from a package; ``@module.tool`` (a decorator function of a module) too.
            if last not in roles.decorator_attrs and last not in roles.decorators:
                return False
            if receiver.startswith(self.module_prefix):
                return False
        elif last not in roles.decorators:
            return False
        call = dec if isinstance(dec, ast.Call) else None
        tool_name = fn.name
        description = docstring(fn)
        if call is not None:
            named = next((kwarg_str(call, k) for k in roles.name_kwargs if kwarg_str(call, k)), None)
            positional = literal_str(call.args[0]) if call.args else None
            if named:
                tool_name = named
            elif positional and last in roles.positional_name:
                tool_name = positional
            description = kwarg_str(call, "description") or (positional if last not in roles.positional_name else None)
            description = description or docstring(fn)
        separator = roles.plugin_qualified.get(last)
        if separator is not None and self._class is not None and tool_name == fn.name:
            tool_name = f"{self._class}{separator}{fn.name}"
        if call is not None:
            self._role_tool_gates(call, entry, scope)
        params = [a.arg for a in (*fn.args.args, *fn.args.kwonlyargs) if a.arg not in _NON_TOOL_PARAMS]
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, fn.lineno, tool_name, rule.id),
                name=tool_name,
                description=description,
                framework=name.split(".", 1)[0],
                ruleId=rule.id,
                location=self.loc(fn),
                function=qualname,
                parameters=params,
            )
        )
        return True

    def _module_value(self, name: str) -> ast.expr | None:
        """The value a module-level ``name = value`` binds (the last one)."""
        found: ast.expr | None = None
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                found = stmt.value
        return found

    def _role_class_tool(self, cls: ast.ClassDef, qualname: str) -> bool:
        """``class FileReadTool(Tool)`` naming its tool (``name = "file_read"`` or
        ``super().__init__(name="file_read", ...)``) and running it in a method such frameworks call
        (``execute``, ``run``, ``__call__``...): a tool, whatever the base class's package."""
        roles = self.roles
        rule = roles.decorator_rule
        if rule is None or not roles.tool_class_suffixes:
            return False
        bases = [self.dotted(b, None)[0] or "" for b in cls.bases]
        if not any(b.rsplit(".", 1)[-1].endswith(roles.tool_class_suffixes) for b in bases):
            return False
        name = _class_literal(cls, "name") or _init_literal(cls, "name")
        if not name:
            return False
        defined = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
        method = next((m for m in roles.tool_class_methods if m in defined), None)
        impl = defined.get(method) if method else None
        params = [a.arg for a in impl.args.args if a.arg not in _NON_TOOL_PARAMS] if impl is not None else []
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, cls.lineno, name, rule.id),
                name=name,
                description=_class_literal(cls, "description") or _init_literal(cls, "description") or docstring(cls),
                framework=(bases[0].split(".", 1)[0] if bases and bases[0] else "role"),
                ruleId=rule.id,
                location=self._name_location(cls, name),
                function=f"{qualname}.{method}" if impl is not None else None,
                parameters=params,
            )
        )
        return True

    def _name_location(self, cls: ast.ClassDef, name: str) -> Any:
        """Where a class writes its tool's name (the literal), else the class."""
        for node in ast.walk(cls):
            if isinstance(node, ast.Constant) and node.value == name:
                return self.loc(node)
        return self.loc(cls)

    def _agent_as_tool(self, node: ast.Call, name: str) -> None:
        """``agent.as_tool(tool_name="risk_analysis", ...)``: an agent given to another as a tool."""
        rule = self.roles.decorator_rule
        func = node.func
        if rule is None or not isinstance(func, ast.Attribute):
            return
        keys = self.roles.agent_tool_methods.get(func.attr)
        if keys is None:
            return
        named = next((kw.value for kw in node.keywords if kw.arg in keys), None)
        tool = literal_str(named) if named is not None else None
        if not tool or named is None:
            return
        location = self.loc(named)
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, location.column, tool, rule.id),
                name=tool,
                description=kwarg_str(node, "tool_description"),
                framework=name.split(".", 1)[0] or "role",
                ruleId=rule.id,
                location=location,
            )
        )

    def _tool_callbacks(self, node: ast.Call, scope: Scope) -> None:
        """``Agent(before_tool_callback=check, before_model_callback=rate_limit)``: a check the framework
        runs before each tool (or model) call, a gate of the kind its function's name says, else of the
        kind the pack gives the hook."""
        hooks = self.roles.tool_callbacks
        for kw in node.keywords:
            if kw.arg not in hooks or not isinstance(kw.value, ast.Name | ast.Attribute):
                continue
            function = kw.value.id if isinstance(kw.value, ast.Name) else kw.value.attr
            rule = self.rules.gates.first(function)
            kind = hooks[kw.arg]
            if rule is None and kind is not None:
                rule = self.rules.gate_by_kind.get(kind)
            if rule is not None:
                self._gate(scope, rule, kw.value, f"{kw.arg}={function}")

    def _role_tool_gates(self, call: ast.Call, entry: set[str], scope: Scope) -> None:
        """Gates a tool decorator's keywords put over the whole tool: approval switches
        (``requires_confirmation=True``, ``approval_mode="always_require"``), a pre-hook that asks a person,
        and a ``domains=[...]`` filter that offers the tool only on some hosts."""
        for rule, keys in self.rules.approval_kwargs:
            for kw in call.keywords:
                if kw.arg in keys and not _declines(kw.value):
                    entry.add(self._gate(scope, rule, kw.value, f"{kw.arg}="))
                elif kw.arg == "approval_mode" and literal_str(kw.value) in ("always_require", "always"):
                    entry.add(self._gate(scope, rule, kw.value, "approval_mode="))
        for kw in call.keywords:
            if kw.arg in self.roles.pre_hooks and self._confirms(kw.value):
                approval = self.rules.gate_by_kind.get("human_approval")
                if approval is not None:
                    entry.add(self._gate(scope, approval, kw.value, f"{kw.arg}= asks a person"))
            elif kw.arg in self.roles.allow_kwargs and _restrictive(kw.value):
                allow = self.rules.gate_by_kind.get("allowlist")
                if allow is not None:
                    entry.add(self._gate(scope, allow, kw.value, f"{kw.arg}= limits where the tool is offered"))

    def _confirms(self, value: ast.expr) -> bool:
        """A hook function of this file that asks a person (``input``, ``Prompt.ask``, ``Confirm.ask``)."""
        hooks = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
        for hook in hooks:
            if not isinstance(hook, ast.Name):
                continue
            fn = next(
                (
                    d
                    for d in self.module_defs
                    if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == hook.id
                ),
                None,
            )
            if fn is None:
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    func = node.func
                    called = (
                        func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                    )
                    if called in _CONFIRM_CALLS:
                        return True
        return False

    # --- tools parameters -------------------------------------------------------------------------

    def _role_tool_params(self, node: ast.Call, name: str, resolved: bool, scope: Scope) -> None:
        """``Agent(tools=[f, g])``, ``ClaudeAgentOptions(allowed_tools=["Bash"])``, ``Kernel(plugins=[...])``
        for a framework no rule names: the tools the model is given there."""
        roles = self.roles
        rule = roles.params_rule
        if rule is None or not _third_party(name, resolved) or name.startswith(self.module_prefix):
            return
        package = name.split(".", 1)[0]
        if roles.tool_callbacks:
            self._tool_callbacks(node, scope)
        made = len(self.functions), len(self._listed_tools)
        for kw in node.keywords:
            if kw.arg not in roles.params:
                continue
            value = kw.value
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
                            unseen.append(ast.unparse(element)[:60])
                    continue
                if isinstance(element, ast.Constant):
                    if isinstance(element.value, str) and kw.arg in roles.string_params:
                        self._string_tool(element, element.value, package, name, scope)
                    continue
                if isinstance(element, ast.Dict):
                    self._hosted_tool(element, package)
                    continue
                if isinstance(element, ast.Name | ast.Attribute | ast.Call) and self._library_function(
                    element, scope, name
                ):
                    continue
                if isinstance(element, ast.Name | ast.Attribute) and not self._is_variable(element, scope):
                    function, ok = self.dotted(element, scope)
                    if function and ok and is_user_callee(function, ok, self) and self._defined_function(function):
                        self._listed_tools.append(
                            ToolDef.found(rule, function.rsplit(".", 1)[-1], self.loc(element), function=function)
                        )
                        continue
                if not self._known_tool_value(element, scope):
                    unseen.append(ast.unparse(element)[:60])
            if unseen:
                self._unenumerated(node, name, kw.arg or "tools", unseen)
        if scope.params is not MODULE_PARAMS:
            # An agent built and run inside a function (a tool prompting an inner ``Agent(tools=[...])``):
            # the function reaches what the inner agent's tools reach.
            runs = [f.qualname for f in self.functions[made[0] :] if "#builtin:" in f.qualname]
            runs += [t.function for t in self._listed_tools[made[1] :] if t.function]
            location = self.loc(node)
            for callee in runs:
                scope.calls.append(CallFact(location=location, callee=callee, resolved=True, dominatingGates=[]))

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

    def _role_builder(self, node: ast.Call, name: str, resolved: bool, scope: Scope) -> None:
        """``agent.add_tool(search)``, ``registry.register_tool(f)``, ``FunctionTool(func=f)`` on a package's
        object or class: the tree's function handed over there is a tool named after it (or ``name=``)."""
        roles = self.roles
        rule = roles.params_rule
        func = node.func
        if rule is None or not _third_party(name, resolved) or name.startswith(self.module_prefix):
            return
        last = name.rsplit(".", 1)[-1]
        builder = isinstance(func, ast.Attribute) and func.attr in roles.builder_methods
        constructor = last[:1].isupper() and last.endswith(roles.tool_constructor_suffixes)
        if not (builder or constructor):
            return
        given = [*node.args[:1], *(kw.value for kw in node.keywords if kw.arg in roles.function_kwargs)]
        for value in given:
            if not isinstance(value, ast.Name | ast.Attribute) or self._is_variable(value, scope):
                continue
            function, ok = self.dotted(value, scope)
            if not (function and ok and is_user_callee(function, ok, self) and self._defined_function(function)):
                continue
            named = kwarg_str(node, "name") or kwarg_str(node, "tool_name")
            tool = ToolDef.found(rule, named or function.rsplit(".", 1)[-1], self.loc(value), function=function)
            if named:
                self.tools.append(tool.model_copy(update={"location": self.loc(node)}))
            else:
                self._listed_tools.append(tool)
            return

    def _defined_function(self, function: str) -> bool:
        """A function (not a class, not an object) of this file or of another module of the tree."""
        if function.startswith(self.module_prefix):
            local = function[len(self.module_prefix) :]
            if local in self.classes:
                return False
            return "." not in local or local.split(".", 1)[0] in self.classes
        return not function.rsplit(".", 1)[-1][:1].isupper()

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
        last = callee.rsplit(".", 1)[-1]
        constructor = last[:1].isupper() and last.endswith(self.roles.tool_constructor_suffixes)
        if (
            constructor
            and isinstance(node, ast.Call)
            and (node.args[:1] or any(kw.arg in self.roles.function_kwargs for kw in node.keywords))
        ):
            return True  # ``FunctionTool(func=f)``: a tool where it is constructed (``_role_builder``)
        return is_user_callee(callee, ok, self) and callee.split(".", 1)[0] in self.local_defs

    def _library_function(self, element: ast.expr, scope: Scope, callee: str) -> bool:
        """A library's ready-made tool listed by name or built by a call (``tools=[shell, file_write]``
        from ``strands_tools``, ``ShellTools()``): its effect, as the pack describes it, at the list."""
        target = element.func if isinstance(element, ast.Call) else element
        name, ok = self.dotted(target, scope)
        if not (name and ok):
            return False
        toolkit = self.roles.library_toolkits.get(name)
        if toolkit is not None:
            # ``WebSearchTools(requires_confirmation_tools=["web_search"])``: the toolkit's functions, each
            # behind a person's confirmation when the constructor names it.
            confirmed: set[str] = set()
            if isinstance(element, ast.Call):
                for kw in element.keywords:
                    if kw.arg in self.roles.confirm_tools_kwargs and isinstance(kw.value, ast.List | ast.Tuple):
                        confirmed |= {t for e in kw.value.elts if (t := literal_str(e))}
            for tool, action_class, impact in toolkit:
                self._builtin_tool(
                    element, tool, name.split(".", 1)[0], (action_class, impact), False, callee, tool in confirmed
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
                    detail=f"{tool} waits for a person's confirmation (requires_confirmation_tools)",
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

    def _unenumerated(self, node: ast.Call, callee: str, param: str, unseen: list[str]) -> None:
        rule = self.roles.frontier_rule
        if rule is None:
            return
        location = self.loc(node)
        shown = ", ".join(unseen[:3]) + (" ..." if len(unseen) > 3 else "")
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "runtime_registered_tools", self.path, location.line, location.column, param),
                kind="runtime_registered_tools",
                detail=f"{callee.rsplit('.', 1)[-1]}({param}=...) gives the model tools the analysis cannot "
                f"enumerate ({shown}); their names and reach are not visible",
                location=location,
                ruleId=rule.id,
            )
        )

    def _unenumerated_tool(self, node: ast.expr, tool: str, callee: str) -> None:
        rule = self.roles.frontier_rule
        if rule is None:
            return
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "runtime_registered_tools", self.path, location.line, location.column, tool),
                kind="runtime_registered_tools",
                detail=f"tool {tool!r} given to {callee.rsplit('.', 1)[-1]} is the SDK's own: its reach is not visible",
                location=location,
                ruleId=rule.id,
            )
        )

    # --- clients of network services -----------------------------------------------------------

    def _client_call(self, name: str, resolved: bool) -> Rule | None:
        """``client.list_models(...)`` with ``client = bigquery.Client()``: a method of an object built
        from a package's client class, which no other rule names, talks to that package's service."""
        roles = self.roles
        rule = roles.client_rule
        if rule is None or not resolved or "." not in name:
            return None
        parts = name.split(".")
        head = parts[0]
        if head in _STDLIB or head in roles.client_excluded or head == self.module.split(".", 1)[0]:
            return None
        if name.startswith(self.module_prefix) or head in self.local_defs:
            return None
        # A client class followed by at least one method: ``pkg.Client.method`` or ``pkg.Client.sub.method``.
        for index in range(1, len(parts) - 1):
            segment = parts[index]
            if segment[:1].isupper() and roles.client_classes.matches(segment):
                return rule
        return None

    # --- code executors ---------------------------------------------------------------------------

    def _role_code_executor(self, node: ast.Call, name: str, scope: Scope, active: frozenset[str]) -> None:
        """``Agent(code_executor=VertexAiCodeExecutor())``: the agent runs the code its model writes."""
        roles = self.roles
        rule = roles.executor_rule
        if rule is None or not _third_party(name, True):
            return
        for kw in node.keywords:
            if kw.arg not in roles.executor_kwargs or _declines(kw.value):
                continue
            value = kw.value
            location = self.loc(value)
            executor = self.dotted(value.func if isinstance(value, ast.Call) else value, scope)[0] or ""
            gates = set(active)
            if roles.sandbox_executors.matches(executor) and self.rules.sandbox_rule is not None:
                gates.add(self._gate(scope, self.rules.sandbox_rule, value, f"{executor} runs code in a sandbox"))
            scope.actions.append(
                ActionSite(
                    id=short_id("act", self.path, location.line, location.column, rule.id),
                    actionClass=rule.actionClass or "code.exec",
                    impact=rule.impact or "critical",
                    ruleId=rule.id,
                    target=f"{name.rsplit('.', 1)[-1]}(code_executor={executor.rsplit('.', 1)[-1] or '...'})",
                    location=location,
                    dominatingGates=sorted(gates),
                    taint=[TaintOrigin(kind="model_output", location=location)],
                )
            )


def _class_literal(cls: ast.ClassDef, attr: str) -> str | None:
    """``name = "file_read"`` (or annotated) in a class body."""
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                return literal_str(stmt.value)
    return None


def _init_literal(cls: ast.ClassDef, key: str) -> str | None:
    """``super().__init__(name="file_read", ...)`` in the class's ``__init__``."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return None
    for node in ast.walk(init):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "__init__"
            and isinstance(node.func.value, ast.Call)
        ):
            return kwarg_str(node, key)
    return None


def _declines(value: ast.expr) -> bool:
    """A value that switches the role off (``False``, ``None``, ``"never"``, ``"never_require"``)."""
    return isinstance(value, ast.Constant) and value.value in (False, None, "never", "", "never_require")


def _restrictive(value: ast.expr) -> bool:
    """A literal host list that does not allow every host (``["google.com"]``, not ``["*"]``)."""
    if not isinstance(value, ast.List | ast.Tuple):
        return False
    hosts = [literal_str(e) for e in value.elts]
    return bool(hosts) and all(h is not None for h in hosts) and "*" not in hosts
