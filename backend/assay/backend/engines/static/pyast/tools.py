"""Tools: decorated functions, tool classes, literal tool definitions and their dispatch, registrations."""

from __future__ import annotations

import ast

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
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
