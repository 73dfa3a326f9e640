"""Tools: decorated functions, tool classes, literal tool definitions and their dispatch, registrations."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    FunctionFacts,
    TaintOrigin,
    ToolDef,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.literals import (
    class_attr_str,
    docstring,
    kwarg,
    kwarg_str,
    literal_str,
    tool_annotations,
)
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.rules import display_name
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.pyast.sites import SiteLogic
from assay.backend.engines.static.rulepack import Rule

NON_TOOL_PARAMS = frozenset({"self", "cls", "ctx", "context", "run_context", "wrapper", "config", "callbacks"})


class ToolLogic(SiteLogic):
    """What makes a function, class or literal a tool a model is given, and which function runs it."""

    def _decorators(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, scope: Scope) -> frozenset[str]:
        entry: set[str] = set()
        for dec in fn.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            name, _ = self.dotted(target, None)
            if not name:
                continue
            if name.rsplit(".", 1)[-1] in self.rules.handler_attrs:
                self._handlers.append(qualname)
            rule, gate_rules = self.rules.decorator(name)
            if rule is not None:
                self._add_tool(rule, fn, qualname, dec if isinstance(dec, ast.Call) else None, entry, scope)
            for gate_rule in gate_rules:
                entry.add(self._gate(scope, gate_rule, dec, name))
        return frozenset(entry)

    def _add_tool(
        self,
        rule: Rule,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        qualname: str,
        call: ast.Call | None,
        entry: set[str],
        scope: Scope,
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
            )
        )

    def _approval_flags(self, call: ast.Call, entry: set[str], scope: Scope) -> None:
        """``needs_approval=True`` (or a callable deciding it), ``requires_approval=...``: a human approves
        every run of the tool, so the gate holds over its whole body. ``False``, ``None`` and ``"never"`` do not."""
        for rule, keys in self.rules.approval_kwargs:
            for kw in call.keywords:
                if kw.arg in keys and not _declines(kw.value):
                    entry.add(self._gate(scope, rule, kw.value, f"{kw.arg}="))

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
                ToolDef(
                    id=short_id("tool", self.path, cls.lineno, name, rule.id),
                    name=name,
                    description=docstring(cls),
                    framework=rule.framework or "unknown",
                    ruleId=rule.id,
                    location=self.loc(cls),
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

    def _library_tools(
        self, node: ast.Call, rule: Rule, specs: Sequence[tuple[str, str | None, str | None]], scope: Scope
    ) -> None:
        """Tools a library defines, given to the model by instance (``tools=[SerperDevTool()]``) or by a
        toolkit (``SQLDatabaseToolkit(db=db, llm=llm)``): each named as the library names it, each a
        function of its own at the constructor holding the action the library's tool performs."""
        location = self.loc(node)
        for name, action_class, impact in specs:
            qualname = f"{self.module}#library:{location.line}:{location.column}:{name}"
            actions = []
            if action_class is not None:
                actions.append(
                    ActionSite(
                        id=short_id("act", self.path, location.line, location.column, rule.id, name),
                        actionClass=action_class,
                        impact=impact or "medium",
                        ruleId=rule.id,
                        target=f"{display_name(self.dotted(node.func, scope)[0] or name)}:{name}",
                        location=location,
                        dominatingGates=[],
                        # What the model gives the tool is what the library runs (``sql_db_query``'s SQL).
                        taint=[TaintOrigin(kind="param", param="input", index=0)],
                    )
                )
            self.functions.append(
                FunctionFacts(
                    id=short_id("fn", self.path, qualname),
                    qualname=qualname,
                    name=name,
                    location=location,
                    params=["input"],
                    actions=actions,
                )
            )
            self.tools.append(
                ToolDef(
                    id=short_id("tool", self.path, location.line, name, rule.id),
                    name=name,
                    framework=rule.framework or "unknown",
                    ruleId=rule.id,
                    location=location,
                    function=qualname,
                    parameters=["input"],
                )
            )

    def _listed_library_tools(self, node: ast.List | ast.Tuple, scope: Scope) -> None:
        """Library tool instances listed in ``node``: constructed there, or held by a variable."""
        for element in node.elts:
            if isinstance(element, ast.Call):
                name = self.dotted(element.func, scope)[0]
                found = self.rules.library_tools.get(name) if name else None
                if found is not None:
                    self._library_tools(element, found[0], [found[1:]], scope)
            elif isinstance(element, ast.Name) and element.id in scope.library_vars:
                call, name = scope.library_vars[element.id]
                found = self.rules.library_tools.get(name)
                if found is not None:
                    self._library_tools(call, found[0], [found[1:]], scope)

    def _toolkit_use(self, node: ast.Call, scope: Scope) -> None:
        """A toolkit gives its tools where they are taken (``toolkit.get_tools()``) or where the toolkit is
        handed to an agent (``create_sql_agent(llm, toolkit=toolkit)``); one built for another purpose
        (its credentials, its API resource) gives the model nothing."""
        given: list[ast.expr] = []
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "get_tools":
            given.append(func.value)
        given.extend(k.value for k in node.keywords if k.arg == "toolkit")
        for value in given:
            call: ast.Call | None = None
            name: str | None = None
            if isinstance(value, ast.Name) and value.id in scope.library_vars:
                call, name = scope.library_vars[value.id]
            elif isinstance(value, ast.Call):
                call, name = value, self.dotted(value.func, scope)[0]
            found = self.rules.toolkits.get(name) if name else None
            if call is not None and found is not None:
                self._library_tools(call, found[0], found[1], scope)

    def _class_tool(self, cls: ast.ClassDef, qualname: str) -> None:
        if self.rules.callable_classes and self._callable_class_tool(cls, qualname):
            return
        bases = {self.dotted(b, None)[0] for b in cls.bases}
        if cls.name in self.class_bases:
            bases |= self._ancestors(cls.name)
        for rule, wanted in self.rules.tool_classes:
            if bases & wanted:
                method = rule.match.get("method", "_run")
                name = class_attr_str(cls, "name") or cls.name
                description = class_attr_str(cls, "description") or docstring(cls)
                impl = next(
                    (s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == method),
                    None,
                )
                function = f"{qualname}.{method}" if impl is not None else None
                owner = self._method_owner(cls.name, method) if impl is None and cls.name in self.classes else None
                if owner is not None:
                    # The implementation is inherited from a base class of this file.
                    function = f"{self.module}.{owner}.{method}"
                elif impl is None and cls.name in self.extended:
                    return  # an abstract intermediate base: its subclasses are the tools
                params = []
                if impl is not None:
                    params = [a.arg for a in impl.args.args if a.arg not in NON_TOOL_PARAMS]
                self.tools.append(
                    ToolDef(
                        id=short_id("tool", self.path, cls.lineno, name, rule.id),
                        name=name,
                        description=description,
                        framework=rule.framework or "unknown",
                        ruleId=rule.id,
                        location=self.loc(cls),
                        function=function,
                        parameters=params,
                    )
                )
                return

    def _call_tool(self, node: ast.Call, rule: Rule, scope: Scope) -> None:
        func_node: ast.expr | None = None
        for wanted in rule.match.get("function_args", []):
            if isinstance(wanted, int) and len(node.args) > wanted:
                func_node = node.args[wanted]
            elif isinstance(wanted, str):
                func_node = kwarg(node, wanted)
            if func_node is not None:
                break
        function = self.dotted(func_node, scope)[0] if func_node is not None else None
        tool_name = kwarg_str(node, "name") or (function.rsplit(".", 1)[-1] if function else None)
        if not tool_name:
            return
        location = self.loc(node)
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, tool_name, rule.id),
                name=tool_name,
                description=kwarg_str(node, "description"),
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                function=function,
            )
        )

    def _tool_list(self, node: ast.Call, name: str, scope: Scope) -> None:
        """``ToolNode([search, run_shell])``, ``Agent(tools=[f])``: plain functions given as tools."""
        for rule, patterns, where in self.rules.tool_lists:
            if not patterns.matches(name):
                continue
            for spot in where:
                value = (node.args[spot] if isinstance(spot, int) and len(node.args) > spot else None) or (
                    kwarg(node, spot) if isinstance(spot, str) else None
                )
                if not isinstance(value, ast.List | ast.Tuple):
                    continue
                for element in value.elts:
                    if not isinstance(element, ast.Name | ast.Attribute):
                        continue
                    function, resolved = self.dotted(element, scope)
                    if not function or not resolved or not is_user_callee(function, resolved, self):
                        continue
                    location = self.loc(element)
                    tool_name = function.rsplit(".", 1)[-1]
                    self._listed_tools.append(
                        ToolDef(
                            id=short_id("tool", self.path, location.line, tool_name, rule.id),
                            name=tool_name,
                            framework=rule.framework or "unknown",
                            ruleId=rule.id,
                            location=location,
                            function=function,
                        )
                    )
                return


def _declines(value: ast.expr) -> bool:
    """An approval flag's value that asks for no approval."""
    return isinstance(value, ast.Constant) and value.value in (False, None, "never", "")
