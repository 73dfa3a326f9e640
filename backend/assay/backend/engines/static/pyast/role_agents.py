"""Agents as reach: an agent built at module level (``agent = Agent(tools=[shell, editor])``) is a function
of its own, named after the variable, that calls its tools; a function of the file that runs it
(``agent(query)``, ``agent.run(...)``, ``Runner.run(agent, ...)``) reaches what those tools reach; and an
agent handed to another as a tool (ADK ``AgentTool(agent=search_agent)``, ``search_agent.as_tool()``) is a
tool named after that agent's ``name=`` (as its framework spells a tool name), reaching what the agent's tools
reach, in this file or in another module of the tree.
"""

from __future__ import annotations

import ast
import re
from functools import cached_property

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import CallFact, FunctionFacts, ToolDef, ToolSource
from assay.backend.engines.static.pyast.literals import kwarg, kwarg_str, literal_str
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

    def _agent_as_tool(self, node: ast.Call, name: str, scope: Scope) -> None:
        """``agent.as_tool(tool_name="risk_analysis")``: an agent given to another as a tool, named by the
        keyword; without one (``weather_agent.as_tool()``), named from the ``name=`` of the agent this file
        builds at module level, as the agent's package names it (the pack's ``agent_tool_default_names``).
        A module-level agent's tool reaches what that agent's tools reach."""
        rule = self.roles.decorator_rule
        func = node.func
        keys = self.roles.agent_tool_methods.get(func.attr) if isinstance(func, ast.Attribute) else None
        if rule is None or keys is None or not isinstance(func, ast.Attribute):
            return
        receiver = func.value
        shadowed = isinstance(receiver, ast.Name) and scope.params is not MODULE_PARAMS and receiver.id in scope.types
        agent = receiver.id if isinstance(receiver, ast.Name) and not shadowed else None
        local = self._module_agents.get(agent) if agent is not None else None
        named = next((kw.value for kw in node.keywords if kw.arg in keys), None)
        package = name.split(".", 1)[0]
        if named is not None:
            tool, where = literal_str(named), named
        else:
            style = self.roles.agent_tool_default_names.get(package)
            agent_name = self.constant_str(kwarg(local, "name")) if local is not None else None
            tool, where = (_default_tool_name(agent_name, style) if agent_name and style else None), node
        if not tool:
            return
        location = self.loc(where)
        self.tools.append(
            ToolDef(
                id=short_id("tool", self.path, location.line, location.column, tool, rule.id),
                name=tool,
                description=kwarg_str(node, "tool_description"),
                framework=package or "role",
                ruleId=rule.id,
                location=location,
                function=f"{self.module}.{agent}" if local is not None else None,
            )
        )

    def _agent_tool_class(self, name: str) -> tuple[str, ...] | None:
        """The keywords naming the agent a package's agent-tool class is given (``AgentTool(agent=...)``), read
        once per file and name; None for any other callee."""
        keys = next((k for suffix, k in self.roles.agent_tool_classes.items() if name.endswith(suffix)), None)
        if keys is None or not third_party(name, True) or name.startswith(self.module_prefix):
            return None
        return keys

    def _agent_tool(self, node: ast.Call, name: str, scope: Scope) -> None:
        """``AgentTool(agent=search_agent)``: the agent is a tool named after its ``name=``; it reaches
        what that agent's tools reach (the agent's module-level function, here or in another module)."""
        rule = self.roles.decorator_rule
        known = self._agent_tool_keys
        keys = known[name] if name in known else known.setdefault(name, self._agent_tool_class(name))
        if rule is None or keys is None:
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


def _default_tool_name(agent_name: str, style: str) -> str | None:
    """The tool name a package gives an agent handed over without one: Agent Framework keeps an identifier
    (``"Weather Agent"`` -> ``Weather_Agent``), the Agents SDK a lowercased one (-> ``weather_agent``)."""
    if style == "identifier":
        return re.sub(r"_+", "_", re.sub(r"[^a-zA-Z0-9_]", "_", agent_name)).strip("_") or "agent"
    if style == "function_style":
        return re.sub(r"[^a-zA-Z0-9_]", "_", re.sub(r"\s", "_", agent_name)).lower()
    return None


def _single_target(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id
    return None
