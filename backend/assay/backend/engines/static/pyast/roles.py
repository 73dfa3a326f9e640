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

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import ActionSite, TaintOrigin
from assay.backend.engines.static.pyast.role_decorators import declines
from assay.backend.engines.static.pyast.role_params import ParamRoles
from assay.backend.engines.static.pyast.role_rules import STDLIB, third_party
from assay.backend.engines.static.pyast.scope import Scope
from assay.backend.engines.static.rules.pack import Rule


class RoleLogic(ParamRoles):
    """Tools, gates, reach and code execution recognised by the role a name plays, not by its spelling
    (decorators and hooks in ``role_decorators``, tools parameters and builders in ``role_params``)."""

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
        if head in STDLIB or head in roles.client_excluded or head == self.module.split(".", 1)[0]:
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
        if rule is None or not third_party(name, True):
            return
        for kw in node.keywords:
            if kw.arg not in roles.executor_kwargs or declines(kw.value):
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
