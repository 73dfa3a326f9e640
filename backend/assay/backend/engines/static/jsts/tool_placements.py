"""Tools defined in one place and given to a model in another, joined by the linker.

``{ weather: weatherTool }`` places a tool held by a top-level name (possibly of another file) under a
key; ``tools: {...}`` of a generation call or agent is a model's tool set, every key of it a tool; and a
``{ name, description, handler }`` object held by a top-level name is a tool only where something
registers or places it (a candidate the linker drops otherwise).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import ActionSite, CallFact, FrontierSite, ToolDef
from assay.backend.engines.static.jsts.base import origin_key
from assay.backend.engines.static.jsts.scope import param_taint
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, unwrap
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.snippets import snippet

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.analyzer import FileAnalyzer
    from assay.backend.engines.static.jsts.scope import Scope


class ToolPlacements:
    """The placement part of ``ToolRecognizer`` (its base class)."""

    if TYPE_CHECKING:
        a: FileAnalyzer
        handlers: set[str]

        def schema_keys(self, node: Node | None, depth: int = 0) -> list[str] | None: ...

    def in_tool_set(self, node: Node, scope: Scope) -> bool:
        """Whether an object literal is the ``tools`` option of a generation call or an agent
        (``new ToolLoopAgent({ tools: {...} })``): every key of it is a tool the model is given."""
        pair = node.parent
        if (
            pair is None
            or pair.type != "pair"
            or self.a.code.raw(pair.child_by_field_id(self.a.fields.key)) != b"tools"
        ):
            return False
        options = pair.parent
        arguments = options.parent if options is not None else None
        call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        # The tools option of any call: a tool set, whatever framework made the call.
        return call is not None and call.type in ("call_expression", "new_expression")

    def options_call(self, options: Node, scope: Scope) -> str | None:
        """The call whose options object ``options`` is (``new Agent({ ... })``, ``generateText({ ... })``),
        by name, or None."""
        arguments = options.parent
        call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        if call is None or call.type not in ("call_expression", "new_expression"):
            return None
        field = self.a.fields.function if call.type == "call_expression" else self.a.fields.constructor
        name, _ = self.a.dotted(call.child_by_field_id(field), scope)
        return name or self.a.code.text(call.child_by_field_id(field))[:60]

    def tool_list(self, pair: Node, value: Node, scope: Scope, active: frozenset[str], call: str) -> None:
        """``new Agent({ tools: [search, shell, makeThing()] })``: every element of a tool list given to a
        call is a tool the model is given. An element a definition of this file or another accounts for
        is that tool; anything else (a value analysis cannot follow, a call nobody wrote a rule for, a
        spread of tools fetched at run time) is a frontier item naming the call, never a silent zero."""
        inner = unwrap(value)
        if inner is None:
            return
        elements = list(inner.named_children) if inner.type == "array" else [inner]
        reached: list[str] = []  # the handlers of this agent's tools, for an agent run as a tool
        for element in elements:
            self.listed_tool(pair, element, scope, active, call, reached)
        options = pair.parent
        arguments = options.parent if options is not None else None
        made_by = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        binding = self.a.code.enclosing_binding(made_by) if made_by is not None else None
        if binding is not None and reached:
            self.agent_tools[binding] = reached  # type: ignore[attr-defined]

    def listed_tool(
        self, pair: Node, element: Node, scope: Scope, active: frozenset[str], call: str, reached: list[str]
    ) -> None:
        """One element of a tool list given to ``call`` (or the tool object a registration is given,
        ``server.addTool(getCampaignTool)``): a definition of this file or another, a library's ready-made
        tool, or a frontier item naming the call; the handlers it runs are added to ``reached``."""
        made, frontier = len(self.a.tools), len(self.a.frontier)
        self.a.expr(element, scope, active)
        reached.extend(t.function for t in self.a.tools[made:] if t.function)
        if len(self.a.tools) > made or len(self.a.frontier) > frontier:
            return  # a tool definition, or something already reported
        item = unwrap(element)
        if item is None or item.type in ("comment", "null", "undefined", "true", "false"):
            return
        spread = item.type == "spread_element"
        target = unwrap(item.named_children[0]) if spread and item.named_children else item
        if target is None:
            return
        if not spread and target.type in ("identifier", "member_expression"):
            exported, _ = self.a.dotted(target, scope)
            builtin = self.a.rules.builtin_objects.get(exported or "")
            if builtin is not None:
                # ``tools: [GOOGLE_SEARCH]``: a library's ready-made tool object, by the name it has.
                self.a.tools.append(ToolDef.found(builtin[0], builtin[1], self.a.loc(element)))
                return
        if target.type == "identifier" and not spread:
            name = self.a.code.text(target)
            index = self.tool_vars.get(name, self.bound_tools.get(name))  # type: ignore[attr-defined]
            if index is not None and index < len(self.a.tools) and self.a.tools[index].function:
                reached.append(self.a.tools[index].function)
            if index is not None and index < len(self.a.tools):
                self.served_tool(pair, index, call, scope)
            if name in self.tool_vars or name in self.bound_names:  # type: ignore[attr-defined]
                return
            held, _ = self.a.resolve_name(name, scope)
            if held is not None and "#" in held:
                if held.startswith(f"{self.a.module}#") and held.rsplit("#", 1)[1] in self.a.imports.objects:
                    return  # a literal of this file (``const tools = [...]``): its tools are read there
                self.listed_use(element, held, call)
                return
        if self.a.rules.code_tool(call) is not None:
            # A code tool's set (``createCodeTool({ tools: allTools })``): what analysis cannot follow in it.
            _, unknown = self.wrapped_tools(target, scope)  # type: ignore[attr-defined]
            if not unknown:
                return
            target = unknown[0]
        what = snippet(self.a.code.text(target), 60)
        self.unseen_tools(
            element, f"tools given to {call} through {what} cannot be enumerated; what they reach is not visible"
        )

    def served_tool(self, pair: Node, index: int, call: str, scope: Scope) -> None:
        """``createSdkMcpServer({ name: "ops", tools: [shell] })`` with ``shell = tool("shell", ...)`` defined before:
        the model sees it by the server's pattern (``mcp__ops__shell``), and the options mounting the server run
        their hooks before it (``hooked_tools``)."""
        rule = self.a.rules.generic_tool
        template = rule.match.get("server_names", {}).get(call.rpartition(".")[2]) if rule is not None else None
        options = pair.parent
        if not template or options is None or options.type != "object":
            return
        server = self.a.constant(self.a.code.props(options).get("name"), scope)
        tool = self.a.tools[index]
        if not server or tool.name.startswith(template.split("{tool}", 1)[0].format(server=server)):
            return
        name = template.format(server=server, tool=tool.name)
        at = tool.location
        self.a.tools[index] = tool.model_copy(
            update={"name": name, "id": short_id("tool", at.path, at.line, name, tool.ruleId)}
        )
        arguments = options.parent
        made_by = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        binding = self.a.code.enclosing_binding(made_by) if made_by is not None else None
        if binding is not None:
            self.server_tools.setdefault(binding, []).append(index)  # type: ignore[attr-defined]

    def subagent_tool(self, pair: Node, key: bytes, value: Node, options: Node, scope: Scope) -> None:
        """``new Agent({ subAgents: [writer, editor] })`` (VoltAgent): the framework gives the agent's model
        one tool that delegates to them, under the name it fixes (``delegate_task``)."""
        found = self.a.rules.subagent_tools.get(key)
        if found is None or not value.named_children:
            return
        rule, tool_name = found
        call = self.options_call(options, scope)
        if call is None or not rule.match.get("subagent_calls") or not self.a.rules.subagent_calls.matches(call):
            return
        location = self.a.loc(pair)
        self.a.tools.append(ToolDef.found(rule, tool_name, location))

    def builtin_list(self, key: bytes, value: Node, scope: Scope) -> None:
        """``allowedTools: ["Bash", "Read", "Write"]`` in a file that uses the Claude Agent SDK: each name is a
        built-in tool of the agent's model (Claude Code's), with the built-in's effect at the name."""
        run: list[str] = []
        for rule, keys, packages, effects in self.a.rules.builtin_lists:
            if key not in keys or not (self.a.imports.packages & packages):
                continue
            for element in value.named_children:
                name = self.a.code.string_value(element) if element.type == "string" else None
                if name is None or name not in effects:
                    continue
                location = self.a.loc(element)
                function = f"{self.a.module}#tool:{name}@{location.line}:{location.column}"
                effect = effects[name]
                actions = []
                if effect:
                    action_class, impact = effect
                    actions.append(
                        trusted(
                            ActionSite,
                            id=short_id("act", self.a.path, location.line, location.column, rule.id, name),
                            actionClass=action_class,
                            impact=impact,
                            ruleId=rule.id,
                            target=f"claude-code.{name}",
                            location=location,
                            dominatingGates=[],
                            sqlParam=None,
                            taint=sorted(param_taint("input", 0), key=origin_key)
                            if action_class in ("shell.exec", "code.exec")
                            else [],
                        )
                    )
                self.a.add_tool_function(function, name, location, actions=actions)
                self.a.tools.append(
                    ToolDef(
                        id=short_id("tool", self.a.path, location.line, location.column, name, rule.id),
                        name=name,
                        framework=rule.framework or "unknown",
                        ruleId=rule.id,
                        location=location,
                        function=function,
                    )
                )
                run.append(function)
        if run and not scope.is_module:
            # The agent runs in this function (``for await (const m of query({ prompt, options }))`` in a method a
            # tool calls): whatever reaches the function reaches what the agent's built-ins do (agent-as-tool).
            at = self.a.loc(value)
            scope.calls.extend(
                trusted(CallFact, location=at, callee=function, resolved=True, dominatingGates=[], args=[])
                for function in run
            )

    def hooked_tools(self) -> None:
        """Hooks listed for an event before each tool call (``hooks: { PreToolUse: [{ matcher: "Write|Edit",
        hooks: [f] }] }``) that can refuse the call gate the tools their matcher names (a tool name or a
        regular expression; none or ``*``: every tool) among the tools the same options give the model
        (``allowedTools``): those gates hold on every path from those tools (``ToolDef.hookGates``)."""
        for matcher, gates, node in self.a.tool_hooks:
            options = node.parent
            mounted: set[int] = set()
            while options is not None:
                if options.type == "object":
                    # ``mcpServers: { ops: server }``: the tools of an in-process server built in the file.
                    mounted = self.mounted_tools(options)
                if options.type == "object" and (
                    mounted or any(self.within(t.location.line, options) for t in self.a.tools)
                ):
                    break
                options = options.parent
            if options is None:
                continue
            try:
                pattern = re.compile(matcher) if matcher and matcher != "*" else None
            except re.error:
                continue
            for index, tool in enumerate(self.a.tools):
                if not self.within(tool.location.line, options) and index not in mounted:
                    continue
                if pattern is None or pattern.fullmatch(tool.name):
                    held = tuple(sorted({*tool.hookGates, *gates}))
                    self.a.tools[index] = tool.model_copy(update={"hookGates": held})
                    self.hooked_builtin(tool.function, held)

    def hooked_builtin(self, function: str | None, gates: tuple[str, ...]) -> None:
        """A built-in's hooks refuse its effect however the agent was started (a tool of the tree calling the
        function that runs ``query``): the gates stand before the built-in's own actions, not only at its entry."""
        for index, facts in enumerate(self.a.functions):
            if facts.qualname == function and facts.name.startswith("tool:"):
                actions = [
                    a.model_copy(update={"dominatingGates": sorted({*a.dominatingGates, *gates})})
                    for a in facts.actions
                ]
                self.a.functions[index] = facts.model_copy(update={"actions": actions})
                return

    def mounted_tools(self, options: Node) -> set[int]:
        """The indexes of the tools of the in-process servers an options object mounts by name
        (``mcpServers: { ops: server }``, ``server`` built by ``createSdkMcpServer`` in the file)."""
        servers: dict[str, list[int]] = self.server_tools  # type: ignore[attr-defined]
        if not servers:
            return set()
        mounts = unwrap(self.a.code.props(options).get("mcpServers"))
        if mounts is None or mounts.type != "object":
            return set()
        found: set[int] = set()
        for value in self.a.code.props(mounts).values():
            inner = unwrap(value)
            if inner is not None and inner.type in ("identifier", "shorthand_property_identifier"):
                found.update(servers.get(self.a.code.text(inner), ()))
        return found

    @staticmethod
    def within(line: int, node: Node) -> bool:
        return node.start_point[0] + 1 <= line <= node.end_point[0] + 1

    def listed_use(self, node: Node, held: str, call: str) -> None:
        rule = self.a.rules.placement_rule
        if rule is None:
            return
        location = self.a.loc(node)
        self.a.tools.append(
            ToolDef(
                id=short_id("tool", self.a.path, location.line, location.column, held, "listed"),
                name=held.rsplit("#", 1)[1],
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                ref=held,
                listed=True,
            )
        )

    def unseen_tools(self, node: Node, detail: str) -> None:
        rule = self.a.rules.dispatch_rule
        location = self.a.loc(node)
        self.a.frontier.append(
            FrontierSite(
                id=short_id("fr", "runtime_registered_tools", self.a.path, location.line, location.column),
                kind="runtime_registered_tools",
                detail=detail,
                location=location,
                ruleId=rule.id if rule is not None else None,
            )
        )

    def placement(self, pair: Node, key: str, value: Node, scope: Scope, toolset: bool) -> None:
        """``{ weather: weatherTool }`` / ``{ createSandbox: createSandbox({ writer }) }`` where the value
        is held by another file or made by a function of the tree: the tool defined there, under this
        key (the linker joins them; a use that names no definition is dropped, unless it is in a model's
        tool set: then a tool whose definition analysis cannot see)."""
        rule = self.a.rules.placement_rule
        inner = unwrap(value)
        if rule is None or inner is None or not key:
            return
        ref: str | None = None
        if inner.type == "call_expression":
            callee, _ = self.a.dotted(inner.child_by_field_id(self.a.fields.function), scope)
            if callee is not None and "#" in callee:
                ref = f"{callee}()"
        elif inner.type in ("identifier", "member_expression", "shorthand_property_identifier"):
            held, _ = (
                self.a.resolve_name(self.a.code.text(inner), scope)
                if inner.type != "member_expression"
                else self.a.dotted(inner, scope)
            )
            if held is not None and "#" in held and not held.startswith(f"{self.a.module}#"):
                ref = held
            elif toolset:
                ref = held or self.a.code.text(inner)
        if ref is None and toolset:
            ref = self.a.code.text(inner)[:80]
        if ref is None:
            return
        location = self.a.loc(pair)
        self.a.tools.append(
            ToolDef(
                id=short_id("tool", self.a.path, location.line, key, rule.id, "use"),
                name=key,
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                ref=ref,
                toolset=toolset,
            )
        )

    def paired_definition(self, node: Node, scope: Scope) -> tuple[Node, Node, str] | None:
        """``{ def: listThingsToolDef, handle: (args) => handleListThings(client, args) }``: a record pairing a
        value another file holds with the one function beside it (its only other non-literal value). A use
        of the held value under its own name (``refName``) run by that function is recorded: the tool that
        value defines, implemented by the function, once the linker finds a tool definition held there
        (``candidate``: nothing otherwise, as a record pairing anything else with a callback is no tool).
        Returns the held value's node, the function's node and the function's qualname: the object's walk
        analyses the function where it is (as before) and then as a function of its own (``pair_function``),
        and makes no placement of the held value under the record's key."""
        rule = self.a.rules.placement_rule
        if rule is None or scope.is_module:
            return None
        held_node: Node | None = None
        function_node: Node | None = None
        held: str | None = None
        for child in node.named_children:
            if child.type == "method_definition":
                if function_node is not None:
                    return None
                function_node = child
                continue
            if child.type != "pair":
                if child.type == "comment":
                    continue
                return None
            value = unwrap(child.child_by_field_id(self.a.fields.value))
            if value is None:
                return None
            if value.type in FUNCTIONS:
                if function_node is not None:
                    return None
                function_node = value
            elif value.type == "identifier":
                if held_node is not None:
                    return None
                found, _ = self.a.resolve_name(self.a.code.text(value), scope)
                if found is None or "#" not in found or found.startswith(f"{self.a.module}#"):
                    return None
                held_node, held = value, found
            elif value.type not in ("string", "number", "true", "false", "null", "undefined"):
                return None
        if held_node is None or function_node is None or held is None:
            return None
        local = self.a.code.text(held_node)
        function = f"{self.a.module}#tool:{local}"
        if function in self.handlers:
            function = f"{function}@{self.a.loc(function_node).line}"
        self.handlers.add(function)
        location = self.a.loc(node)
        self.a.tools.append(
            ToolDef(
                id=short_id("tool", self.a.path, location.line, location.column, held, "paired"),
                name=local,
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                function=function,
                ref=held,
                refName=True,
                candidate=True,
                servedBy=scope.qualname,
            )
        )
        return held_node, function_node, function

    def definition_object(self, node: Node, owner: str, sep: str) -> None:
        """``export const getDataTool = { name: "get_data", description, handler: getData }``: a tool
        definition held by a top-level name, a tool where something registers or places it."""
        rule = self.a.rules.definition_rule
        if rule is None:
            return
        fields = self.a.code.props(node)
        name_node = unwrap(fields.get("name"))
        name = self.a.code.string_value(name_node) if name_node is not None else None
        key = next((k for k in rule.match["definition_objects"] if k in fields), None)
        if not name or key is None or name_node is None:
            return
        handler = unwrap(fields[key])
        if handler is None:
            return
        if handler.type in FUNCTIONS:
            function: str | None = f"{owner}{sep}{key}"
        elif handler.type == "identifier":
            function, _ = self.a.resolve_name(self.a.code.text(handler), None)
        else:
            return
        location = self.a.loc(name_node)
        self.a.tools.append(
            ToolDef.found(
                rule,
                name,
                location,
                description=self.a.code.string_value(unwrap(fields.get("description"))),
                function=function if function is not None and "#" in function else None,
                parameters=self.schema_keys(
                    fields.get("inputSchema") or fields.get("parametersSchema") or fields.get("parameters")
                ),
                binding=owner,
                candidate=True,
            )
        )
