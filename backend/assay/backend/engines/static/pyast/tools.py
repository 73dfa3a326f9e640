"""Tools: decorated functions, tool classes, literal tool definitions and their dispatch, registrations."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    FrontierSite,
    ToolDef,
)
from assay.backend.engines.static.pyast.base import is_user_callee
from assay.backend.engines.static.pyast.literals import (
    class_attr_str,
    docstring,
    kwarg,
    kwarg_str,
    literal_dict,
    literal_str,
    schema_params,
    tool_annotations,
)
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.pyast.sites import SiteLogic
from assay.backend.engines.static.python_syntax import (
    breadth_first,
)
from assay.backend.engines.static.rulepack import Rule

NON_TOOL_PARAMS = frozenset({"self", "cls", "ctx", "context", "run_context", "wrapper", "config", "callbacks"})
# A dict literal defines a tool (``_dict_tool``) only with one of these keys.
_TOOL_DICT_KEYS = frozenset({"type", "input_schema"})


class ToolLogic(SiteLogic):
    """What makes a function, class or literal a tool a model is given, and which function runs it."""

    def _decorators(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, scope: Scope) -> frozenset[str]:
        entry: set[str] = set()
        for dec in fn.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            name, _ = self.dotted(target, None)
            if not name:
                continue
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
            for gate_rule, wanted in self.rules.gate_kwargs:
                for key, value in wanted.items():
                    kw = kwarg(call, key)
                    if isinstance(kw, ast.Constant) and kw.value == value:
                        entry.add(self._gate(scope, gate_rule, call, f"{key}={value}"))
            if annotations and self.rules.annotation_gate is not None:
                hints = [k for k in ("readOnlyHint", "destructiveHint") if k in annotations]
                if hints:
                    detail = ", ".join(f"{k}={annotations[k]}" for k in hints)
                    entry.add(self._gate(scope, self.rules.annotation_gate, call, detail))
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

    def _class_tool(self, cls: ast.ClassDef, qualname: str) -> None:
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

    @property
    def dispatch(self) -> dict[str, str]:
        """``{"tool_name": function}`` tables link literal tool definitions to their implementations.

        Names in the tables resolve through imports and module-level definitions only (not through
        module variable types or the enclosing class), whenever the table is first needed."""
        if self._dispatch is None:
            module_types, self.module_types = self.module_types, {}
            current_class, self._class = self._class, None
            try:
                self._dispatch = {}
                self._collect_dispatch_tables(breadth_first(self.tree, (ast.Dict,)))
            finally:
                self.module_types, self._class = module_types, current_class
        return self._dispatch

    def _collect_dispatch_tables(self, nodes: Iterable[ast.AST]) -> None:
        assert self._dispatch is not None
        for node in nodes:
            if isinstance(node, ast.Dict) and node.keys and all(isinstance(k, ast.Constant) for k in node.keys):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        target, ok = self.dotted(value, None)
                        if ok and target and isinstance(value, ast.Name | ast.Attribute):
                            self._dispatch.setdefault(key.value, target)

    def _dict_tool(self, node: ast.Dict, scope: Scope) -> None:
        if not any(type(key) is ast.Constant and key.value in _TOOL_DICT_KEYS for key in node.keys):
            return  # most dicts are data, not tool definitions: no need to read them
        data = literal_dict(node)
        if data is None:
            return
        for rule in self.rules.tool_dicts:
            kind = rule.match["dict_literal"]
            name: str | None = None
            description: str | None = None
            if kind == "openai_function" and data.get("type") == "function":
                inner = data.get("function")
                if isinstance(inner, dict):
                    name, description = inner.get("name"), inner.get("description")
                else:
                    name, description = data.get("name"), data.get("description")
            elif kind == "anthropic_tool" and "input_schema" in data and "name" in data:
                name, description = data.get("name"), data.get("description")
            if not isinstance(name, str):
                continue
            location = self.loc(node)
            self._literal_tools.append(
                ToolDef(
                    id=short_id("tool", self.path, location.line, name, rule.id),
                    name=name,
                    description=description if isinstance(description, str) else None,
                    framework=rule.framework or "unknown",
                    ruleId=rule.id,
                    location=location,
                    function=self.dispatch.get(name),
                    parameters=sorted(schema_params(data)),
                )
            )
            return

    def _link_literal_tools(self) -> None:
        """Literal tools not in a dispatch table take the function a name comparison dispatches them
        to; the rest are ``dynamic_dispatch`` frontier items."""
        for tool in self._literal_tools:
            if tool.function is None and tool.name in self.branch_dispatch:
                tool = tool.model_copy(update={"function": self.branch_dispatch[tool.name]})
            self.tools.append(tool)
            if tool.function is None and self.rules.dispatch_rule is not None:
                self.frontier.append(
                    FrontierSite(
                        id=short_id("fr", "dynamic_dispatch", self.path, tool.location.line, tool.name),
                        kind="dynamic_dispatch",
                        detail=f"tool {tool.name} is defined as a literal; its implementation is chosen at run time",
                        location=tool.location,
                        ruleId=self.rules.dispatch_rule.id,
                    )
                )

    def _if_dispatch(self, stmt: ast.If, scope: Scope) -> None:
        """``if name == "get_weather": return get_weather(**args)`` names the tool's implementation."""
        test = stmt.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return
        literal = literal_str(test.comparators[0]) or literal_str(test.left)
        if literal is not None:
            self._dispatched(literal, stmt.body, scope)

    def _case_dispatch(self, subject: ast.expr, case: ast.match_case, scope: Scope) -> None:
        del subject  # any subject: ``match call.name:`` and ``match name:`` alike
        pattern = case.pattern
        if isinstance(pattern, ast.MatchValue):
            literal = literal_str(pattern.value)
            if literal is not None:
                self._dispatched(literal, case.body, scope)

    def _dispatched(self, literal: str, body: Sequence[ast.stmt], scope: Scope) -> None:
        if literal in self.branch_dispatch:
            return
        for stmt in body:
            value = stmt.value if isinstance(stmt, ast.Expr | ast.Return | ast.Assign) else None
            if isinstance(value, ast.Await):
                value = value.value
            if isinstance(value, ast.Call):
                name, resolved = self.dotted(value.func, scope)
                if name and resolved and is_user_callee(name, resolved, self):
                    self.branch_dispatch[literal] = name
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
