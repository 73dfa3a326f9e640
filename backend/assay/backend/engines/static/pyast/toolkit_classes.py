"""Toolkits written in the code: a class extending a package's toolkit base (Agno's ``Toolkit``) that names
its own methods as tools, in ``super().__init__(tools=[self.a, self.b])`` or ``self.register(self.a)``. Each
named method is a tool the model sees under the method's name (or the name ``register`` gives), running that
method; the base's keywords keep or drop tools by name (``include_tools=``, ``exclude_tools=``) and put a
person in front of the tools they name (``requires_confirmation_tools=``)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property

from assay.backend.engines.static.facts import ToolDef
from assay.backend.engines.static.pyast.literals import docstring, kwarg, kwarg_str, literal_str
from assay.backend.engines.static.pyast.rules import ToolkitClass
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.pyast.tools import NON_TOOL_PARAMS, ToolLogic


@dataclass
class _Settings:
    """What a toolkit class's ``super().__init__(...)`` said about its tools by name: those kept (None: all),
    those dropped, and the approval gate over each tool a keyword names."""

    include: frozenset[str] | None = None
    exclude: frozenset[str] = frozenset()
    approvals: dict[str, set[str]] = field(default_factory=dict)


class ToolkitClassLogic(ToolLogic):
    @cached_property
    def _toolkit_settings(self) -> dict[str, _Settings]:
        return {}

    def _toolkit_registration(self, node: ast.Call, func: ast.Attribute, scope: Scope) -> None:
        """``super().__init__(tools=[...])`` or ``self.register(self.a)`` in a method of a toolkit class."""
        cls = self._class
        if cls is None or cls not in self.classes:
            return
        spec = self._toolkit_class(cls)
        if spec is None:
            return
        receiver = func.value
        if func.attr == "__init__" and _is_super(receiver):
            settings = self._toolkit_settings.setdefault(cls, _Settings())
            self._toolkit_read_settings(node, spec, settings, scope)
            for element in self._toolkit_elements(kwarg(node, spec.tools_kwarg), scope):
                self._toolkit_tool(cls, spec, element, None, settings)
        elif func.attr in spec.register_methods and _is_self(receiver) and node.args:
            settings = self._toolkit_settings.setdefault(cls, _Settings())
            self._toolkit_tool(cls, spec, node.args[0], kwarg_str(node, "name"), settings)

    def _toolkit_class(self, cls: str) -> ToolkitClass | None:
        ancestors = self._ancestors(cls)
        return next((spec for spec in self.rules.toolkit_classes if ancestors & spec.bases), None)

    def _toolkit_read_settings(self, node: ast.Call, spec: ToolkitClass, settings: _Settings, scope: Scope) -> None:
        approval = self.rules.gate_by_kind.get("human_approval")
        for kw in node.keywords:
            names = _literal_names(kw.value)
            if names is None:
                continue  # a list passed through (``include_tools=include_tools``): it may name any tool
            if kw.arg == spec.include_kwarg:
                settings.include = names
            elif kw.arg == spec.exclude_kwarg:
                settings.exclude = names
            elif kw.arg in spec.approval_kwargs and approval is not None:
                for name in names:
                    gate = self._gate(scope, approval, kw.value, f"{name} waits for a person ({kw.arg})")
                    settings.approvals.setdefault(name, set()).add(gate)

    def _toolkit_elements(self, listed: ast.expr | None, scope: Scope) -> list[ast.expr]:
        """The elements of a literal list, or of the list a variable holds (``tools = [...]`` then
        ``tools.append(self.b)``)."""
        if isinstance(listed, ast.List | ast.Tuple):
            return list(listed.elts)
        if isinstance(listed, ast.Name):
            return list(scope.list_vars.get(listed.id, ()))
        return []

    def _toolkit_tool(
        self, cls: str, spec: ToolkitClass, element: ast.expr, named: str | None, settings: _Settings
    ) -> None:
        """``self.a`` named as a tool of the toolkit class ``cls``: a tool at the method's def, unless the
        settings keep it out."""
        if not (isinstance(element, ast.Attribute) and _is_self(element.value)):
            return
        owner = self._method_owner(cls, element.attr)
        method = self._toolkit_method_def(owner, element.attr) if owner is not None else None
        if method is None:
            return
        name = named or element.attr
        if (settings.include is not None and name not in settings.include) or name in settings.exclude:
            return
        tool = ToolDef.found(
            spec.rule,
            name,
            self.loc(method),
            description=docstring(method),
            function=f"{self.module}.{owner}.{element.attr}",
            parameters=[a.arg for a in method.args.args if a.arg not in NON_TOOL_PARAMS],
        )
        gates = settings.approvals.get(name)
        if gates:
            tool = tool.model_copy(update={"hookGates": tuple(sorted(gates))})
        self.tools.append(tool)

    def _toolkit_method_def(self, owner: str, method: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        cls = next((d for d in self.module_defs if isinstance(d, ast.ClassDef) and d.name == owner), None)
        if cls is None:
            return None
        return next(
            (s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == method), None
        )


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _is_super(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _literal_names(node: ast.expr) -> frozenset[str] | None:
    """The strings of a literal list of strings, or None for anything else."""
    if not isinstance(node, ast.List | ast.Tuple | ast.Set):
        return None
    names = [literal_str(e) for e in node.elts]
    return frozenset(n for n in names if n) if all(names) else None
