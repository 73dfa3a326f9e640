"""Tools by role, from decorators and classes: a function decorated by a package's decorator whose name
denotes a tool (``@tool``, ``@function_tool``, ``@kernel_function``, ``@tools.registry.action(...)``), a
``Tool`` subclass naming its tool, ``agent.as_tool(tool_name=...)``; and the gates such decorators and
agent hooks put over a tool (approval switches, a confirming ``pre_hook``, ``domains=[...]``,
``before_tool_callback=``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import PARAM_ARG, PARAM_KW, ToolDef, ToolSource
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.described import abstract_method
from assay.backend.engines.static.pyast.literals import (
    base_init_calls,
    declines,
    docstring,
    kwarg,
    kwarg_str,
    literal_str,
    name_text,
)
from assay.backend.engines.static.pyast.role_rules import compile_roles, third_party
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.pyast.sources import SourceLogic
from assay.backend.engines.static.pyast.syntax import walk
from assay.backend.engines.static.rules.match import Patterns
from assay.backend.engines.static.rules.pack import RulePack

_NON_TOOL_PARAMS = frozenset({"self", "cls", "ctx", "context", "run_context", "tool_context", "config", "callbacks"})
# Calls that confirm with a person: a pre-hook making one is an approval over the tool.
_CONFIRM_CALLS = frozenset({"input", "ask", "confirm", "prompt", "Confirm", "interrupt"})


class DecoratorRoles(SourceLogic):
    """Tools and gates recognised by the role a decorator, a class or an agent hook plays."""

    def __init__(self, path: str, tree: ast.Module, rules: RulePack, text: str) -> None:
        super().__init__(path, tree, rules, text)
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
        source: ToolSource | None = None,
    ) -> bool:
        """``@tool``, ``@tools.registry.action('...')``, ``@kernel_function(...)`` from a package: a tool
        (``source``: the linker's to keep, when the decorator may be an object of the tree's)."""
        roles = self.roles
        rule = roles.decorator_rule
        target = dec.func if isinstance(dec, ast.Call) else dec
        if not resolved and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            # ``registry = tools.registry`` then ``@registry.action(...)``.
            bound = self._module_value(target.value.id)
            if isinstance(bound, ast.Attribute | ast.Call):
                base, resolved = self.dotted(bound, None)
                name = f"{base}.{target.attr}" if base else name
        if rule is None or not third_party(name, resolved):
            return False
        last = name.rsplit(".", 1)[-1]
        call = dec if isinstance(dec, ast.Call) else None
        if isinstance(target, ast.Attribute):
            receiver = name.rsplit(".", 1)[0]
            # ``@mcp.tool()`` on a server object, ``@tools.action()`` on a registry: an attribute of an
            # object built from a package; ``@module.tool`` (a decorator function of a module) too.
            if last not in roles.decorator_attrs and last not in roles.decorators and not self._describes(call):
                return False
            if receiver.startswith(self.module_prefix):
                return False
        elif last not in roles.decorators and not self._describes(call):
            return False
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
            description = description or _config_description(call) or docstring(fn)
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
                source=source,
            )
        )
        return True

    def _describes(self, call: ast.Call | None) -> bool:
        """A decorator call handing over what a model is shown of a function, its description and its input
        schema (``@activity(config={"description": ..., "schema": Schema(...)})``, ``@x(description=...,
        parameters={...})``): the function is a tool, whatever the decorator is called. Either alone is not
        (a route's ``description=``, a validator's schema)."""
        if call is None or not (call.args or call.keywords):
            return False
        keys: set[str] = set()
        for kw in call.keywords:
            if kw.arg is not None:
                keys.add(kw.arg)
            if isinstance(kw.value, ast.Dict):
                keys.update(k.value for k in kw.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
        for arg in call.args:
            if isinstance(arg, ast.Dict):
                keys.update(k.value for k in arg.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
        return "description" in keys and not keys.isdisjoint(self.roles.schema_keys)

    def _module_value(self, name: str) -> ast.expr | None:
        """The value a module-level ``name = value`` binds (the last one)."""
        found: ast.expr | None = None
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                found = stmt.value
        return found

    def _role_class_tool(self, cls: ast.ClassDef, qualname: str) -> bool:
        """``class FileReadTool(Tool)`` naming its tool (``name = "file_read"``,
        ``super().__init__(name="file_read", ...)`` or a getter its base reads, ``def get_name(self): return
        "file_read"``) and running it in a method such frameworks call
        (``execute``, ``run``, ``__call__``...): a tool, whatever the base class's package."""
        roles = self.roles
        rule = roles.decorator_rule
        if rule is None or not roles.tool_class_suffixes:
            return False
        bases = [self.dotted(b, None)[0] or "" for b in cls.bases]
        if not any(b.rsplit(".", 1)[-1].endswith(roles.tool_class_suffixes) for b in bases):
            return False
        name = (
            _class_literal(cls, "name")
            or _init_literal(cls, "name")
            or next(filter(None, (_method_literal(cls, m) for m in roles.tool_class_name_getters)), None)
        )
        defined = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
        method = next((m for m in roles.tool_class_methods if m in defined), None)
        if not name:
            if (
                method is None
                or abstract_method(defined[method])
                or _names_itself(cls)
                or any(self.of_tree(base) or base.split(".", 1)[0] in self.classes for base in bases)
                # A library's tool whose name the subclass inherits (``class ReadOnly(QuerySQLDataBaseTool)``).
                or any(base in self.rules.library_tools for base in bases)
            ):
                # Named otherwise (a ``name`` property, a name given at run time, a base of the tree that may carry
                # one): a tool when it reaches a model (``_described_class``).
                return False
            # No name of its own: the package names the tool after the class (Agency Swarm's ``BaseTool``, whose
            # schema is the class's fields under its class name), when the class runs it.
            name = cls.name
        impl = defined.get(method) if method else None
        params = [a.arg for a in impl.args.args if a.arg not in _NON_TOOL_PARAMS] if impl is not None else []
        if impl is not None and not params:
            # ``def run(self)`` reading ``self.command``: the model's arguments are the class's declared fields (a
            # pydantic tool, Agency Swarm's ``BaseTool``), which the linker reads as the tool's input.
            params = _declared_fields(cls)
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

    def _described_class(self, cls: ast.ClassDef, qualname: str) -> None:
        """A class naming its tool (``name = "web_search"``, a ``name`` property, ``self.name = "x"``) and running it
        in a method such frameworks call (``execute``, ``run``...), whatever its base is called: a tool when its
        instances reach a model, which the linker decides from the tree (``ToolSource`` ``described``,
        ``pyast/described.py``). A declaration its subclasses implement (an abstract method) runs nothing."""
        roles = self.roles
        rule = roles.decorator_rule
        if rule is None or not roles.tool_class_methods:
            return
        defined = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
        method = next((m for m in roles.tool_class_methods if m in defined), None)
        if method is None or abstract_method(defined[method]):
            return
        name = _named(cls, roles.tool_class_name_getters)
        if not name:
            return
        members = set(defined)
        for stmt in cls.body:
            targets = (
                stmt.targets
                if isinstance(stmt, ast.Assign)
                else [stmt.target]
                if isinstance(stmt, ast.AnnAssign)
                else []
            )
            members.update(t.id for t in targets if isinstance(t, ast.Name))
        impl = defined[method]
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, cls.lineno, name, rule.id),
                name=name,
                description=_class_literal(cls, "description") or _init_literal(cls, "description") or docstring(cls),
                framework="role",
                ruleId=rule.id,
                location=self._name_location(cls, name),
                function=f"{qualname}.{method}",
                parameters=[a.arg for a in impl.args.args if a.arg not in _NON_TOOL_PARAMS],
                source=ToolSource(kind="described", ref=qualname, types=sorted(members)),
            )
        )

    def _named_implementation(self, cls: ast.ClassDef, qualname: str) -> None:
        """A class that gives itself a tool's name (``name = "Bash"``, ``def name(self): return "Bash"``,
        a ``name`` property) and runs it in a method such frameworks call (``execute``, ``run``,
        ``__call__``...) implements the tool of that name wherever its schema is written: a name ->
        function entry like a dispatch table's (``{tool.name(): tool for tool in tools}``), which the
        linker gives a schema tool whose dispatch it cannot see."""
        name = _class_literal(cls, "name") or _method_literal(cls, "name")
        if not name:
            return
        defined = {s.name for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
        method = next((m for m in self.roles.tool_class_methods if m in defined), None)
        if method is not None:
            self.tables.setdefault(name, f"{qualname}.{method}")

    def _name_location(self, cls: ast.ClassDef, name: str) -> Any:
        """Where a class writes its tool's name (the literal), else the class."""
        for node in walk(cls):
            if isinstance(node, ast.Constant) and node.value == name:
                return self.loc(node)
        return self.loc(cls)

    def _plugin_registration(self, node: ast.Call, name: str, scope: Scope) -> None:
        """``kernel.add_plugin(BookingsPlugin(client), plugin_name="Bookings")`` on a package's object: the
        plugin's functions are offered as ``Bookings-<function>`` (the linker renames the plugin-qualified
        tools of the object's class, wherever the class is written)."""
        func = node.func
        rule = self.roles.decorator_rule
        spec = self.roles.plugin_registrations.get(func.attr) if isinstance(func, ast.Attribute) else None
        if spec is None or rule is None or not third_party(name, True) or name.startswith(self.module_prefix):
            return
        obj = _argument(node, spec.get("object", []))
        plugin = _argument(node, spec.get("name", []))
        plugin_name = literal_str(plugin) if plugin is not None else None
        if obj is None or not plugin_name:
            return
        if isinstance(obj, ast.Call):
            cls = self.dotted(obj.func, scope)[0]
        elif isinstance(obj, ast.Name):
            cls = scope.types.get(obj.id) or self.module_types.get(obj.id)
        else:
            cls = None
        if not cls:
            return
        location = self.loc(node)
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, location.column, "plugin", plugin_name),
                name=plugin_name,
                framework=name.split(".", 1)[0],
                ruleId=rule.id,
                location=location,
                source=ToolSource(kind="plugin", ref=cls, key=plugin_name),
            )
        )

    def _tool_callbacks(self, node: ast.Call, scope: Scope) -> list[tuple[str, str | None]]:
        """``Agent(before_tool_callback=check, before_model_callback=rate_limit)``: a check the framework
        runs before each tool (or model) call, a gate of the kind its function's name says, else of the
        kind the pack gives the hook. The gates of hooks run before every tool call (``tool_hooks``) whose
        function can refuse it (a function of the file returning a value or raising; one imported from
        elsewhere is taken at its role) are returned: they hold on every path from the agent's tools.
        So are hooks listed for an event before each tool call (``hooks={"PreToolUse": [HookMatcher(
        matcher="Bash", hooks=[check])]}``), over the tools their matcher names, and a budget keyword
        (``max_budget_usd=0.10``), over every tool of the call. Each gate comes with the matcher of the
        tools it holds over (None: all)."""
        hooks = self.roles.tool_callbacks
        over_tools: list[tuple[str, str | None]] = []
        for kw in node.keywords:
            if kw.arg is None:
                continue
            if kw.arg in self.roles.event_hooks and isinstance(kw.value, ast.Dict):
                over_tools += self._event_hooks(kw.arg, kw.value, scope)
                continue
            if kw.arg in self.roles.hook_provider_kwargs and isinstance(kw.value, ast.List | ast.Tuple):
                over_tools += self._hook_providers(kw.value, scope)
                continue
            if kw.arg in self.roles.middleware_kwargs and isinstance(kw.value, ast.List | ast.Tuple):
                over_tools += self._tool_middleware(kw.value, scope)
                continue
            if kw.arg in self.roles.approval_maps and isinstance(kw.value, ast.Dict):
                over_tools += self._approval_map(kw.value, scope)
                continue
            nodes = self.roles.interrupt_nodes.get(kw.arg)
            if nodes is not None:
                # ``interrupt_before=["tools"]``: the run pauses before the node that runs every tool call, for
                # a person to resume it.
                rule = self.rules.gate_by_kind.get("human_approval")
                elements = kw.value.elts if isinstance(kw.value, ast.List | ast.Tuple) else []
                if rule is not None and any(literal_str(e) in nodes for e in elements):
                    over_tools.append((self._gate(scope, rule, kw.value, f"{kw.arg}={ast.unparse(kw.value)}"), None))
                continue
            limit = next((kind for patterns, kind in self.roles.limit_kwargs if patterns.matches(kw.arg)), None)
            if limit is not None and not declines(kw.value):
                rule = self.rules.gate_by_kind.get(limit)
                if rule is not None:
                    over_tools.append((self._gate(scope, rule, kw.value, f"{kw.arg}="), None))
                continue
            if kw.arg not in hooks or not isinstance(kw.value, ast.Name | ast.Attribute):
                continue
            function = kw.value.id if isinstance(kw.value, ast.Name) else kw.value.attr
            rule = self.rules.gates.first(function)
            kind = hooks[kw.arg]
            if rule is None and kind is not None:
                rule = self.rules.gate_by_kind.get(kind)
            if rule is None:
                continue
            if kw.arg not in self.roles.tool_hooks:
                self._gate(scope, rule, kw.value, f"{kw.arg}={function}")
            elif self._can_refuse(kw.value, kw.arg):
                over_tools.append((self._gate(scope, rule, kw.value, f"{kw.arg}={function}"), None))
        return over_tools

    def _hook_providers(self, listed: ast.List | ast.Tuple, scope: Scope) -> list[tuple[str, str | None]]:
        """``Agent(tools=[...], hooks=[Approval()])`` with ``Approval`` a class of this file registering a
        callback for the event before each tool call (``registry.add_callback(BeforeToolCallEvent,
        self.check)``): a callback that can cancel the call (``event.cancel_tool = "denied"``) is a
        ``permission_check`` over every tool of the agent, one that pauses for a person
        (``event.interrupt(...)``) a ``human_approval``. A callback that only logs gates nothing."""
        roles = self.roles
        found: list[tuple[str, str | None]] = []
        for element in listed.elts:
            if not (isinstance(element, ast.Call) and isinstance(element.func, ast.Name)):
                continue
            cls = next((d for d in self.module_defs if isinstance(d, ast.ClassDef) and d.name == element.func.id), None)
            if cls is None:
                continue
            methods = {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)}
            for call in (n for m in methods.values() for n in walk(m) if isinstance(n, ast.Call)):
                event = (name_text(call.args[0]) or "").rsplit(".", 1)[-1] if len(call.args) == 2 else ""
                callback = call.args[1] if event in roles.hook_events else None
                fn = methods.get(callback.attr) if isinstance(callback, ast.Attribute) else None
                kind = _hook_decides(fn, roles.hook_cancels, roles.hook_pauses) if fn is not None else None
                rule = self.rules.gate_by_kind.get(kind) if kind is not None else None
                if fn is not None and rule is not None:
                    detail = f"{cls.name}.{fn.name} before each tool call"
                    found.append((self._gate(scope, rule, element, detail), None))
        return found

    def _tool_middleware(self, listed: ast.List | ast.Tuple, scope: Scope) -> list[tuple[str, str | None]]:
        """``Agent(middleware=[check])`` with ``check`` a function of this file made a middleware around each
        tool call (decorated ``@function_middleware``, or taking a ``FunctionInvocationContext``) that can
        stop the call (raises, or returns a value): a gate over every tool of the agent."""
        markers = self.roles.middleware_markers
        rule = self.rules.gate_by_kind.get("permission_check")
        found: list[tuple[str, str | None]] = []
        for element in listed.elts:
            if isinstance(element, ast.Call):
                found += self._middleware_call(element, scope)
                continue
            if rule is None or not isinstance(element, ast.Name):
                continue
            fn = next(
                (
                    d
                    for d in self.module_defs
                    if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == element.id
                ),
                None,
            )
            if fn is None:
                continue
            names = {
                (name_text(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1]
                for d in fn.decorator_list
            }
            first = fn.args.args[0].annotation if fn.args.args else None
            if first is not None:
                names.add((name_text(first) or "").rsplit(".", 1)[-1])
            if names & markers and self._can_refuse(element):
                found.append((self._gate(scope, rule, element, f"middleware {element.id} can stop a tool call"), None))
        return found

    def _middleware_call(self, call: ast.Call, scope: Scope) -> list[tuple[str, str | None]]:
        """A middleware object built in an agent's middleware list, a gate by what its arguments make it:
        a map of tool names to the decisions a person may take (``HumanInTheLoopMiddleware(interrupt_on=
        {"send_email": True})``) pauses those tools for a human; a call limit (``run_limit=5``,
        ``thread_limit=20``) ends the run or the tool's calls past it, over the tool it names
        (``tool_name="search"``) or every tool."""
        roles = self.roles
        found: list[tuple[str, str | None]] = []
        limit: str | None = None
        matcher: str | None = None
        for kw in call.keywords:
            if kw.arg is None:
                continue
            if kw.arg in roles.approval_maps and isinstance(kw.value, ast.Dict):
                found += self._approval_map(kw.value, scope)
            elif kw.arg in roles.middleware_tool_kwargs and (named := literal_str(kw.value)):
                matcher = re.escape(named)
            elif not declines(kw.value):
                limit = limit or next(
                    (kind for patterns, kind in roles.middleware_limits if patterns.matches(kw.arg)), None
                )
        rule = self.rules.gate_by_kind.get(limit) if limit is not None else None
        if rule is not None:
            callee = name_text(call.func) or "middleware"
            found.append((self._gate(scope, rule, call, f"{callee.rsplit('.', 1)[-1]} limits calls"), matcher))
        return found

    def _approval_map(self, mapping: ast.Dict, scope: Scope) -> list[tuple[str, str | None]]:
        """``interrupt_on={"send_email": True, "read_email": False}``: each tool named with a value that
        does not switch it off waits for a person's decision before it runs, a ``human_approval`` gate
        over that tool, recorded at its name."""
        rule = self.rules.gate_by_kind.get("human_approval")
        found: list[tuple[str, str | None]] = []
        if rule is None:
            return found
        for key, value in zip(mapping.keys, mapping.values, strict=True):
            named = literal_str(key) if key is not None else None
            if key is not None and named and not declines(value):
                gate = self._gate(scope, rule, key, f"interrupt_on {named}")
                self._named_gates.append((gate, named))
                found.append((gate, re.escape(named)))
        return found

    def _event_hooks(self, keyword: str, hooks: ast.Dict, scope: Scope) -> list[tuple[str, str | None]]:
        """``{"PreToolUse": [HookMatcher(matcher="Bash", hooks=[check])]}`` (or ``{"matcher": ..., "hooks":
        [...]}`` dicts): each hook of an event run before tool calls that can refuse one is a gate of the
        kind its name says (else ``permission_check``) over the tools the matcher names."""
        events = self.roles.event_hooks[keyword]
        found: list[tuple[str, str | None]] = []
        fallback = self.rules.gate_by_kind.get("permission_check")
        for key, value in zip(hooks.keys, hooks.values, strict=True):
            if literal_str(key) not in events or not isinstance(value, ast.List | ast.Tuple):
                continue
            for entry in value.elts:
                if isinstance(entry, ast.Call):
                    matcher_node, listed = kwarg(entry, "matcher"), kwarg(entry, "hooks")
                elif isinstance(entry, ast.Dict):
                    fields = {literal_str(k): v for k, v in zip(entry.keys, entry.values, strict=True)}
                    matcher_node, listed = fields.get("matcher"), fields.get("hooks")
                else:
                    continue
                matcher = self.constant_str(matcher_node) if matcher_node is not None else None
                if not isinstance(listed, ast.List | ast.Tuple):
                    continue
                for hook in listed.elts:
                    event = literal_str(key) or ""
                    if not isinstance(hook, ast.Name | ast.Attribute) or not self._can_refuse(hook, event):
                        continue
                    function = hook.id if isinstance(hook, ast.Name) else hook.attr
                    rule = self.rules.gates.first(function) or fallback
                    if rule is not None:
                        gate = self._gate(scope, rule, hook, f"{literal_str(key)} {matcher or '*'}: {function}")
                        found.append((gate, matcher))
        return found

    def _can_refuse(self, hook: ast.expr, role: str = "") -> bool:
        """A hook that can stop a tool call: a function of this file with a ``raise`` or a ``return`` of a
        value (ADK skips the tool when its before-tool callback returns a result). A hook whose result says
        whether the call goes ahead (``role`` in the pack's ``refusing_results``: ``can_use_tool``,
        ``PreToolUse``) refuses only with a refusal it or a function of this file it calls builds
        (``PermissionResultDeny(...)``, ``{"permissionDecision": "deny"}``): one returning ``{}`` or
        ``PermissionResultAllow()`` on every path only looks. A hook defined elsewhere is taken at the role
        its keyword gives it."""
        if not isinstance(hook, ast.Name):
            return True
        fn = self._module_function(hook.id)
        if fn is None:
            return True
        if role in self.roles.refusal_hooks:
            called = [n.func.id for n in walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
            bodies = [fn] + [f for f in map(self._module_function, called) if f is not None and f is not fn]
            return any(isinstance(n, ast.Raise) or self._refusal(n) for body in bodies for n in walk(body))
        return any(
            isinstance(n, ast.Raise) or (isinstance(n, ast.Return) and n.value is not None and not _is_none(n.value))
            for n in walk(fn)
        )

    def _module_function(self, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        return next(
            (d for d in self.module_defs if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name == name),
            None,
        )

    def _refusal(self, node: ast.AST) -> bool:
        """A value refusing a tool call in the pack's words: a refusal class built (``PermissionResultDeny(
        message=...)``) or a dict entry whose key and literal value say no (``"behavior": "deny"``)."""
        roles = self.roles
        if isinstance(node, ast.Call):
            return (name_text(node.func) or "").rsplit(".", 1)[-1] in roles.refusal_classes
        if not isinstance(node, ast.Dict):
            return False
        for key, value in zip(node.keys, node.values, strict=True):
            said = roles.refusal_values.get(literal_str(key) or "") if key is not None else None
            if (
                said
                and isinstance(value, ast.Constant)
                and value.value in said
                and type(value.value) in map(type, said)
            ):
                return True
        return False

    def _tool_auth_gates(self, call: ast.Call, scope: Scope) -> set[str]:
        """``@mcp.tool(auth=require_scopes("write"))``, ``Tool.from_function(f, auth=require_roles("admin"))``: a check
        handed to one tool, run by the server before that tool only (the gate sits at the keyword; ``None`` decides
        nothing). A permission check when the check's name speaks of roles, scopes, permissions, claims or groups,
        else authentication."""
        found: set[str] = set()
        for rule, keys, words in self.rules.tool_auth_kwargs:
            for kw in call.keywords:
                if kw.arg not in keys or declines(kw.value):
                    continue
                named = (name_text(kw.value.func) if isinstance(kw.value, ast.Call) else name_text(kw.value)) or ""
                lowered = named.lower()
                permission = self.rules.gate_by_kind.get("permission_check")
                if permission is not None and any(word in lowered for word in words):
                    found.add(self._gate(scope, permission, kw.value, f"{kw.arg}={named} on the tool"))
                else:
                    found.add(self._gate(scope, rule, kw.value, f"{kw.arg}= on the tool"))
        return found

    def _role_tool_gates(self, call: ast.Call, entry: set[str], scope: Scope) -> None:
        """Gates a tool decorator's keywords put over the whole tool: approval switches
        (``requires_confirmation=True``, ``approval_mode="always_require"``), a pre-hook that asks a person,
        a check handed to the tool (``auth=``, ``_tool_auth_gates``), and a ``domains=[...]`` filter that
        offers the tool only on some hosts."""
        entry |= self._tool_auth_gates(call, scope)
        for rule, keys in self.rules.approval_kwargs:
            for kw in call.keywords:
                if kw.arg in keys and not declines(kw.value):
                    entry.add(self._gate(scope, rule, kw.value, f"{kw.arg}="))
                elif kw.arg == "approval_mode" and literal_str(kw.value) in ("always_require", "always"):
                    entry.add(self._gate(scope, rule, kw.value, "approval_mode="))
        for rule, keys in self.rules.switch_kwargs:
            for kw in call.keywords:
                if kw.arg in keys and not isinstance(kw.value, ast.Constant):
                    entry.add(self._gate(scope, rule, kw.value, f"{kw.arg}= set by the server's configuration"))
        for kw in call.keywords:
            if kw.arg in self.roles.pre_hooks and self._confirms(kw.value):
                approval = self.rules.gate_by_kind.get("human_approval")
                if approval is not None:
                    entry.add(self._gate(scope, approval, kw.value, f"{kw.arg}= asks a person"))
            elif kw.arg in self.roles.allow_kwargs and restrictive(kw.value):
                allow = self.rules.gate_by_kind.get("allowlist")
                if allow is not None:
                    entry.add(self._gate(scope, allow, kw.value, f"{kw.arg}= limits where the tool is offered"))

    def _server_gates(self, target: ast.expr, entry: set[str], scope: Scope) -> None:
        """``mcp = FastMCP("x", auth=JWTVerifier(...))`` then ``@mcp.tool()``: a server built here with an
        authentication provider checks every request for its tools; each tool registered on it is behind
        that check (the gate sits at the keyword)."""
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            entry |= self._server_gate_ids(target.value.id, scope)

    def _server_gate_ids(self, server_name: str, scope: Scope) -> set[str]:
        """The gates a module-level server ``server_name`` of this file holds over every tool registered on
        it: its authentication keywords (unless served over stdio only), the middleware its constructor
        lists (``FastMCP("x", middleware=[BearerAuthMiddleware()])``) and the middleware added to it."""
        return self._built_server_gates(server_name, self._module_value(server_name), scope)

    def _built_server_gates(self, server_name: str, server: ast.expr | None, scope: Scope) -> set[str]:
        """``_server_gate_ids`` of the server ``server_name`` is bound to (``server``, the call that built it)."""
        if not isinstance(server, ast.Call):
            return set()
        entry: set[str] = set()
        stdio = self._served_over_stdio_only(server_name)
        for rule, keys in self.rules.server_kwargs:
            for kw in server.keywords:
                if kw.arg in keys and not declines(kw.value) and not stdio:
                    entry.add(self._gate(scope, rule, kw.value, f"{kw.arg}= on the server"))
        found = self.rules.server_middleware
        if found is not None:
            for kw in server.keywords:
                if kw.arg in found[4] and isinstance(kw.value, ast.List | ast.Tuple):
                    for element in kw.value.elts:
                        self._middleware_gate(element, element, entry, scope)
        self._server_middleware(server_name, entry, scope)
        return entry

    def _given_servers(self, node: ast.Call, callee: str, scope: Scope) -> None:
        """``register_tools(mcp)`` with ``mcp = FastMCP(...)``: a function of the tree is given a tool registry
        and registers tools on its parameter (``@mcp.tool()`` in its body). Recorded as ``<callee>#arg<i>`` (or
        ``#kw:<name>``) -> the registry's class, for the linker to keep those tools, with the gates a
        module-level server of this file holds over every tool registered on it."""
        types = self.rules.receiver_types
        for index, value in enumerate(node.args):
            if type(value) is ast.Name and self._registry_type(value, scope) in types:
                self._given_server(f"{callee}{PARAM_ARG}{index}", value, scope)
        for keyword in node.keywords:
            value = keyword.value
            if type(value) is ast.Name and keyword.arg is not None and self._registry_type(value, scope) in types:
                self._given_server(f"{callee}{PARAM_KW}{keyword.arg}", value, scope)

    def _registry_type(self, value: ast.Name, scope: Scope) -> str | None:
        """The type of a name a call is given: the function's local, else the module's."""
        local = scope.types.get(value.id) if scope.function is not None else None
        return local or self.module_types.get(value.id)

    def _given_server(self, key: str, value: ast.Name, scope: Scope) -> None:
        typed = self._registry_type(value, scope)
        if typed is None:
            return
        self.param_bindings[key] = typed
        if scope.function is None or value.id not in scope.types:
            gates = self._server_gate_ids(value.id, scope)
        else:
            # ``def create_mcp(): mcp = FastMCP("x", auth=provider); register_tools(mcp)``: a server the function
            # builds (bound once there) holds the same gates over what the function it is given registers.
            gates = self._built_server_gates(value.id, self.bound_once(value.id, value), scope)
        if gates:
            self.server_gates[key] = sorted(gates)

    def _param_receiver_tool(
        self,
        target: ast.Attribute,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        dec: ast.expr,
        entry: set[str],
        scope: Scope,
    ) -> bool:
        """``def register_tools(mcp): @mcp.tool() def f(...)``: a tool registered on a parameter of a
        module-level function, a candidate of each rule whose decorator that is on some class, for the linker
        to keep when a call of that function gives it one of those classes (``_given_servers``)."""
        enclosing = self._enclosing_fn
        if enclosing is None or not isinstance(target.value, ast.Name):
            return False
        outer, outer_name = enclosing
        if outer_name.rpartition(".")[0] != self.module:
            return False
        param = target.value.id
        positional = [a.arg for a in (*outer.args.posonlyargs, *outer.args.args)]
        keyed = f"{outer_name}{PARAM_KW}{param}"
        if param in positional:
            ref = f"{outer_name}{PARAM_ARG}{positional.index(param)}"
        elif any(a.arg == param for a in outer.args.kwonlyargs):
            ref = keyed
        else:
            return False
        for rule, types in self.rules.receiver_attrs[target.attr]:
            source = ToolSource(kind="receiver", ref=ref, key=keyed, types=list(types))
            self._add_tool(rule, fn, qualname, dec if isinstance(dec, ast.Call) else None, entry, scope, source)  # type: ignore[attr-defined]
        return True

    def _served_over_stdio_only(self, server: str) -> bool:
        """``mcp.run()`` / ``mcp.run(transport="stdio")`` and no other way the file serves ``server`` (no HTTP
        transport, no HTTP app made of it): the client starts the server as its own process and no request
        carries a token, so an authentication provider given to the server checks nothing (MCP authorization
        is for HTTP transports). A transport the file does not write as a literal, or a server the file never
        runs, says nothing."""
        found = self.rules.stdio_runs
        if found is None:
            return False
        runs, local, local_runs, apps = found
        local_only = False
        for node in self.tree_calls:
            if not (
                isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == server
            ):
                continue
            method = node.func.attr
            if method in local_runs:
                local_only = True
            elif method in runs:
                transport = kwarg(node, "transport") or (node.args[0] if node.args else None)
                if transport is not None and literal_str(transport) not in local:
                    return False
                local_only = True
            elif method in apps:
                return False
        return local_only

    def _server_middleware(self, server: str, entry: set[str], scope: Scope) -> None:
        """``mcp.add_middleware(AuthMiddleware())``, or ``app = mcp.streamable_http_app()`` then
        ``app.add_middleware(BearerAuthMiddleware)``: an authentication middleware in front of the server's
        tools (named for it, or a class of this file answering 401 itself; 403: a permission check), at the
        call that adds it."""
        found = self.rules.server_middleware
        if found is None:
            return
        attach, apps = found[1], found[2]
        fronts = {server}
        for stmt in self.tree.body:
            value = stmt.value if isinstance(stmt, ast.Assign | ast.Expr) else None
            if value is None:
                continue
            if isinstance(stmt, ast.Assign) and _app_of(value, server, apps):
                fronts |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
                self._app_middleware(value, entry, scope)
            elif (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr in attach
                and isinstance(value.func.value, ast.Name)
                and value.func.value.id in fronts
                and value.args
            ):
                self._middleware_gate(value.args[0], value, entry, scope)

    def _app_middleware(self, app: ast.expr, entry: set[str], scope: Scope) -> None:
        """``app = mcp.http_app(middleware=[Middleware(ApiKeyMiddleware)])`` (the list also a module-level name):
        each middleware the HTTP app is made with stands in front of the server's tools, as one added later
        does; Starlette's ``Middleware(cls, ...)`` wrapper names the class."""
        found = self.rules.server_middleware
        if found is None or not isinstance(app, ast.Call):
            return
        for kw in app.keywords:
            if kw.arg not in found[4]:
                continue
            listed = self._module_value(kw.value.id) if isinstance(kw.value, ast.Name) else kw.value
            if not isinstance(listed, ast.List | ast.Tuple):
                continue
            for element in listed.elts:
                wrapped = (
                    element.args[0]
                    if isinstance(element, ast.Call)
                    and element.args
                    and (name_text(element.func) or "").rsplit(".", 1)[-1] == "Middleware"
                    else element
                )
                self._middleware_gate(wrapped, element, entry, scope)

    def _returned_server_gates(self, scope: Scope) -> None:
        """``mcp_server = set_up_tools_server()`` (a function of the tree that builds a server and returns it), then
        ``app = mcp_server.sse_app(); app.add_middleware(APIKeyMiddleware)``: the middleware stands in front of the
        tools that function registers. Recorded as ``<function>()`` -> the gates (``FileFacts.serverGates``), for
        the linker to put on the tools registered in that function (``link/sources.py``)."""
        found = self.rules.server_middleware
        text = self.ascii_text
        if found is None or (text is not None and not any(word in text for word in (*found[1], *found[2]))):
            return
        receivers: set[str] = set()
        for stmt in self.tree.body:
            value = stmt.value if isinstance(stmt, ast.Assign | ast.Expr) else None
            value = value.value if isinstance(value, ast.Await) else value
            if not isinstance(value, ast.Call):
                continue
            func = value.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in found[2]:
                receivers.add(func.value.id)
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            callee, resolved = self.dotted(func, None)
            if not callee or not resolved or not is_user_callee(callee, resolved, self):
                continue
            entry: set[str] = set()
            self._server_middleware(stmt.targets[0].id, entry, scope)
            if entry:
                self.server_gates[f"{callee}()"] = sorted(entry)
        # ``from server import mcp`` then ``app = mcp.http_app(); app.add_middleware(AuthMiddleware)``: a server of
        # another module of the tree whose HTTP app this file makes. Recorded under the server's qualified name for
        # the linker to hold the gates over the tools registered on it (``link/sources.py``).
        for name in sorted(receivers):
            qualified = self.aliases.get(name)
            if qualified is None or "." not in qualified or self._module_value(name) is not None:
                continue
            entry = set()
            self._server_middleware(name, entry, scope)
            if entry:
                self.server_gates[qualified] = sorted(entry)

    def _middleware_gate(self, middleware: ast.expr, at: ast.expr, entry: set[str], scope: Scope) -> None:
        """The gate a middleware in front of a server is, if it is one, at ``at``."""
        found = self.rules.server_middleware
        if found is None:
            return
        kind = "allowlist" if isinstance(at, ast.Call) and self._host_allowlist(at) else None
        kind = kind or self._middleware_kind(middleware, found[3])
        gate_rule = found[0] if kind == "authentication" else self.rules.gate_by_kind.get(kind or "")
        if gate_rule is not None:
            entry.add(self._gate(scope, gate_rule, at, f"{ast.unparse(middleware)} in front of the server"))

    def _host_allowlist(self, call: ast.Call) -> bool:
        """``Middleware(TrustedHostMiddleware, allowed_hosts=hosts)``, ``app.add_middleware(TrustedHostMiddleware,
        allowed_hosts=[...])``: a middleware that refuses requests whose Host header is not listed, given a list
        (a literal one holding ``"*"`` admits every host)."""
        found = self.rules.host_middleware
        if found is None or not call.args:
            return False
        names, keyword = found
        if not names.matches((name_text(call.args[0]) or "").rsplit(".", 1)[-1]):
            return False
        hosts = kwarg(call, keyword)
        if hosts is None or declines(hosts):
            return False
        return not (isinstance(hosts, ast.List | ast.Tuple) and any(literal_str(e) == "*" for e in hosts.elts))

    def _listed_host_allowlist(self, call: ast.Call, scope: Scope) -> None:
        """A host allow-list middleware listed or added anywhere (``_host_allowlist``) is a gate where it stands,
        also when the server it goes in front of is not seen here (``await mcp.run_http_async(middleware=m)`` of
        a server another function built): tied to the tools only where it is seen in front of their server."""
        rule = self.rules.gate_by_kind.get("allowlist")
        if rule is not None and self._host_allowlist(call):
            self._gate(scope, rule, call, f"{ast.unparse(call.args[0])} in front of the server")

    def _middleware_kind(self, node: ast.expr, names: Patterns) -> str | None:
        """The gate a middleware is: a class of this file answering 401 (``authentication``) or 403
        (``permission_check``) itself, else ``authentication`` when its name says so, else none."""
        if isinstance(node, ast.Call):
            node = node.func
        name = (name_text(node) or "").rsplit(".", 1)[-1]
        cls = next((d for d in self.module_defs if isinstance(d, ast.ClassDef) and d.name == name), None)
        if cls is not None:
            codes = {n.value for n in walk(cls) if isinstance(n, ast.Constant) and n.value in (401, 403)}
            if codes:
                return "authentication" if 401 in codes else "permission_check"
        return "authentication" if name and names.matches(name) else None

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
            for node in walk(fn):
                if isinstance(node, ast.Call):
                    func = node.func
                    called = (
                        func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                    )
                    if called in _CONFIRM_CALLS:
                        return True
        return False


def _class_literal(cls: ast.ClassDef, attr: str) -> str | None:
    """``name = "file_read"`` (or annotated) in a class body."""
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                return literal_str(stmt.value)
    return None


def _named(cls: ast.ClassDef, getters: Iterable[str]) -> str | None:
    """The tool name a class gives itself: a class attribute, ``super().__init__(name=...)`` or ``self.name =
    "x"`` in its ``__init__``, a ``name`` property or method returning a literal, or a getter its base reads."""
    return (
        _class_literal(cls, "name")
        or _init_literal(cls, "name")
        or _self_literal(cls, "name")
        or _method_literal(cls, "name")
        or next(filter(None, (_method_literal(cls, m) for m in getters)), None)
    )


def _self_literal(cls: ast.ClassDef, attr: str) -> str | None:
    """``self.name = "file_read"`` in the class's own ``__init__``."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return None
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if (
                isinstance(target, ast.Attribute)
                and target.attr == attr
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                return literal_str(stmt.value)
    return None


def _method_literal(cls: ast.ClassDef, attr: str) -> str | None:
    """``def name(self) -> str: return "Bash"`` (a method or property whose only statement, beside a
    docstring, returns a string literal)."""
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == attr:
            body = [s for s in stmt.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
                return literal_str(body[0].value)
    return None


def _init_literal(cls: ast.ClassDef, key: str) -> str | None:
    """``super().__init__(name="file_read", ...)`` in the class's ``__init__``."""
    call = next(base_init_calls(cls), None)
    return None if call is None else kwarg_str(call, key)


def _app_of(value: ast.expr, server: str, apps: frozenset[str]) -> bool:
    """``mcp.streamable_http_app()``: the HTTP app a server makes."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in apps
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == server
    )


def _hook_decides(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, cancels: frozenset[str], pauses: frozenset[str]
) -> str | None:
    """The gate kind a before-tool callback is: ``human_approval`` when it pauses for a person
    (``event.interrupt(...)``), ``permission_check`` when it can cancel the call (``event.cancel_tool =
    ...``), None when it does neither."""
    kind: str | None = None
    for node in walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in pauses:
            return "human_approval"
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr in cancels for t in node.targets
        ):
            kind = "permission_check"
    return kind


def restrictive(value: ast.expr) -> bool:
    """A literal host list that does not allow every host (``["google.com"]``, not ``["*"]``)."""
    if not isinstance(value, ast.List | ast.Tuple):
        return False
    hosts = [literal_str(e) for e in value.elts]
    return bool(hosts) and all(h is not None for h in hosts) and "*" not in hosts


def hook_matches(matcher: str | None, tool: str) -> bool:
    """Whether a hook's tool matcher (a tool name or a regular expression; None, ``""`` or ``*``: every
    tool) names ``tool``."""
    if matcher is None or matcher in ("", "*"):
        return True
    try:
        return re.fullmatch(matcher, tool) is not None
    except re.error:
        return matcher == tool


def _is_none(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value is None


def _argument(node: ast.Call, keys: list[str | int]) -> ast.expr | None:
    """The argument given under the first of ``keys`` (a keyword name or a position)."""
    for key in keys:
        value = kwarg(node, key) if isinstance(key, str) else (node.args[key] if key < len(node.args) else None)
        if value is not None:
            return value
    return None


def _config_description(call: ast.Call) -> str | None:
    """The ``"description"`` literal of a dict a decorator call is handed (``config={"description": ...}``)."""
    for value in (*call.args, *(kw.value for kw in call.keywords)):
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "description":
                    return literal_str(item)
    return None


def _names_itself(cls: ast.ClassDef) -> bool:
    """Whether the class gives its tool a name however it does (``name = ...``, ``name: str``, a ``name`` method or
    property, ``self.name = ...`` or ``super().__init__(name=...)`` in a method): then not the class's own name."""
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == "name":
            return True
        targets = (
            stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        )
        if any(isinstance(target, ast.Name) and target.id == "name" for target in targets):
            return True
    for node in walk(cls):
        if isinstance(node, ast.Call) and any(kw.arg == "name" for kw in node.keywords):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "__init__":
                return True
        if isinstance(node, ast.Attribute) and node.attr == "name" and isinstance(node.ctx, ast.Store):
            return True
    return False


def _declared_fields(cls: ast.ClassDef) -> list[str]:
    """The fields a class declares with a type (``command: str = Field(...)``), but its own name, description and
    private or class-level settings (``_x``, ``ClassVar``)."""
    fields: list[str] = []
    for stmt in cls.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        field = stmt.target.id
        if field.startswith("_") or field in ("name", "description") or "ClassVar" in ast.unparse(stmt.annotation):
            continue
        fields.append(field)
    return fields
