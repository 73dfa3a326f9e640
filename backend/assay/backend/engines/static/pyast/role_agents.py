"""Agents as reach: an agent built at module level (``agent = Agent(tools=[shell, editor])``) is a function
of its own, named after the variable, that calls its tools; a function of the file that runs it
(``agent(query)``, ``agent.run(...)``, ``Runner.run(agent, ...)``) reaches what those tools reach; and an
agent handed to another as a tool (ADK ``AgentTool(agent=search_agent)``) is a tool named after that
agent's ``name=``, reaching what the agent's tools reach, in this file or in another module of the tree.
"""

from __future__ import annotations

import ast
from functools import cached_property

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import CallFact, FunctionFacts, ToolDef, ToolSource
from assay.backend.engines.static.pyast.literals import kwarg
from assay.backend.engines.static.pyast.role_params import ParamRoles
from assay.backend.engines.static.pyast.role_rules import third_party
from assay.backend.engines.static.pyast.scope import MODULE_PARAMS, Scope


class AgentRoles(ParamRoles):
    """Agents built at module level, the functions that run them, and agents handed over as tools."""

    @cached_property
    def _module_agents(self) -> dict[str, ast.Call]:
        """Module-level ``name = <package call given a tools parameter>``, or a package call given a name and
        a model (``LlmAgent(name="critic", model="gemini-2.5-flash")``, an agent with no tools of its own):
        an agent of this file, by name."""
        params = self.roles.params
        models = self.roles.model_id_kwargs
        found: dict[str, ast.Call] = {}
        for stmt in self.tree.body:
            target = _single_target(stmt)
            value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
            if target is None or not isinstance(value, ast.Call):
                continue
            keys = {kw.arg for kw in value.keywords}
            if keys & params or ("name" in keys and keys.intersection(models)):
                found[target] = value
        return found

    def _agent_named(self, node: ast.Call, scope: Scope) -> None:
        """A module-level agent given no tools (``critic = LlmAgent(name="critic", model=...)``): a function of
        its own all the same, carrying its name for the ``AgentTool`` that hands it over."""
        if scope.params is MODULE_PARAMS and not any(kw.arg in self.roles.params for kw in node.keywords):
            self._agent_built(node, [])

    def _agent_built(self, node: ast.Call, runs: list[str]) -> None:
        """The module-level agent built by ``node``: a function of its own that calls its tools."""
        target = next((name for name, call in self._module_agents.items() if call is node), None)
        if target is None:
            return
        location = self.loc(node)
        qualname = f"{self.module}.{target}"
        self.functions.append(
            FunctionFacts(
                id=short_id("fn", self.path, qualname),
                qualname=qualname,
                name=self.constant_str(kwarg(node, "name")) or target,
                location=location,
                calls=[
                    CallFact(location=location, callee=callee, resolved=True, dominatingGates=[]) for callee in runs
                ],
            )
        )

    def _agent_run(self, node: ast.Call, scope: Scope, active: frozenset[str]) -> None:
        """A function running a module-level agent of this file (``agent(q)``, ``agent.run(q)``,
        ``Runner.run(agent, q)``): it calls the agent, so it reaches what the agent's tools reach."""
        agents = self._module_agents
        if not agents or scope.params is MODULE_PARAMS:
            return
        func = node.func
        receiver = func.value if isinstance(func, ast.Attribute) else func
        given = [receiver, *node.args, *(kw.value for kw in node.keywords)]
        for value in given:
            if isinstance(value, ast.Name) and value.id in agents and value.id not in scope.types:
                scope.calls.append(
                    CallFact(
                        location=self.loc(node),
                        callee=f"{self.module}.{value.id}",
                        resolved=True,
                        dominatingGates=sorted(active),
                    )
                )
                return

    def _agent_tool(self, node: ast.Call, name: str, scope: Scope) -> None:
        """``AgentTool(agent=search_agent)``: the agent is a tool named after its ``name=``; it reaches
        what that agent's tools reach (the agent's module-level function, here or in another module)."""
        roles = self.roles
        rule = roles.decorator_rule
        keys = next((k for suffix, k in roles.agent_tool_classes.items() if name.endswith(suffix)), None)
        if rule is None or keys is None or not third_party(name, True) or name.startswith(self.module_prefix):
            return
        agent = next((value for key in keys if (value := kwarg(node, key)) is not None), None)
        if agent is None and node.args:
            agent = node.args[0]
        if not isinstance(agent, ast.Name | ast.Attribute):
            return
        local = self._module_agents.get(agent.id) if isinstance(agent, ast.Name) else None
        function: str | None
        if local is not None and isinstance(agent, ast.Name):
            function, ok = f"{self.module}.{agent.id}", True  # the agent, not the class it is built from
        else:
            function, ok = self.dotted(agent, scope)
        if not function or not ok:
            return
        tool = (self.constant_str(kwarg(local, "name")) if local is not None else None) or function.rsplit(".", 1)[-1]
        location = self.loc(node)
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, location.column, tool, rule.id),
                name=tool,
                framework=name.split(".", 1)[0],
                ruleId=rule.id,
                location=location,
                function=function,
                source=ToolSource(kind="agent", ref=function) if local is None else None,
            )
        )


def _single_target(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id
    return None
