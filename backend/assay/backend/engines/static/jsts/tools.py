"""Tools given to models: what each framework's definition looks like, its name, description,
parameters, annotations, and the function that implements it.

An inline handler (``execute: async ({ cmd }) => ...``) is analysed as its own function
``<module>#tool:<name>``; a referenced one (``execute: runShell``) resolves to that function's qualname.
Approval flags (``needsApproval``) and MCP annotations become gates that hold on the handler's entry.
Tools written as object literals are in ``tool_literals``; tools placed under keys and definition objects
in ``tool_placements``.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    ArgTaint,
    CallFact,
    FrontierSite,
    GateSite,
    ServedElements,
    TaintOrigin,
    ToolDef,
    ToolSource,
)
from assay.backend.engines.static.jsts.base import origin_key
from assay.backend.engines.static.jsts.scope import param_taint
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, WRAPPERS, unwrap
from assay.backend.engines.static.jsts.tool_classes import ClassTools
from assay.backend.engines.static.jsts.tool_literals import LiteralTools
from assay.backend.engines.static.jsts.tool_placements import ToolPlacements
from assay.backend.engines.static.jsts.tool_sets import ToolSets
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.rules.match import Patterns
from assay.backend.engines.static.rules.pack import Rule
from assay.backend.scans.bundle import Location
from assay.backend.snippets import snippet

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.analyzer import FileAnalyzer
    from assay.backend.engines.static.jsts.scope import Scope

_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _snake(name: str) -> str:
    """``webSearch`` -> ``web_search``: a provider tool's id from its factory's name."""
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


class ToolRecognizer(LiteralTools, ToolPlacements, ToolSets, ClassTools):
    """Recognises tool definitions for one file's analyzer (which owns the facts lists)."""

    def __init__(self, analyzer: FileAnalyzer) -> None:
        # A weak reference: the analyzer owns this recognizer, and a strong reference back would make
        # a cycle that keeps each file's whole analysis alive until the cyclic collector runs.
        self.a: FileAnalyzer = weakref.proxy(analyzer)
        # Vercel tools bound to a variable before they are put under a key: variable -> tool index.
        self.tool_vars: dict[str, int] = {}
        # Literal tools (index in the tools list) and their dispatch frontier item.
        self.literal_tools: list[tuple[int, str | None]] = []
        self.literal_nodes: dict[int, Node] = {}  # each literal tool's object, by its index in the tools list
        # Tools bound to a variable (``const queryTool = tool(...)``): variable -> tool name, so that
        # another definition can take its name (``name: queryTool.name``).
        self.bound_names: dict[str, str] = {}
        # Tool calls with an inline handler: call node id -> the handler's qualname (the variable the
        # tool is bound to is typed by it, so ``queryTool.invoke(input)`` calls the handler).
        self.handler_of: dict[int, str] = {}
        self.handlers: set[str] = set()
        # Agents of this file bound to a variable, with the handlers of the tools they are given
        # (``const weatherAgent = new Agent({ tools: [getWeather] })``): what running the agent reaches.
        self.agent_tools: dict[str, list[str]] = {}
        # Tools bound to a variable: variable -> index in the tools list.
        self.bound_tools: dict[str, int] = {}
        # In-process MCP servers built in the file (``const server = createSdkMcpServer({ tools: [shell] })``): the
        # binding -> the indexes of the tools it lists by name, for the hooks of the options mounting it.
        self.server_tools: dict[str, list[int]] = {}
        # Tools whose name option is the name the model sees wherever they are kept (``agent.asTool({
        # toolName })``: the SDK takes tools in a list, so a key of an object holding one names nothing).
        self.final_names: set[int] = set()
        # Tool factories of this file (``function registerTool(server, name, ...) { server.tool(name, ...) }``):
        # function qualname -> (position of the parameter naming the tool, the registration's rule), and the
        # calls of this file's functions, kept until their callee is known to be one.
        self.factories: dict[str, tuple[int, Rule]] = {}
        self.factory_calls: dict[str, list[tuple[Node, list[Node], Scope]]] = {}
        # Definition factories of this file and the strings calls of the tree's functions are given
        # (``ToolSource`` ``factory`` / ``made``): settled by the linker, kept apart from the file's tools
        # (which the recognisers count as they go).
        self.made: list[ToolDef] = []
        # Tool classes (``tool_classes``): the classes of the tree whose instances this file gathers, the
        # methods it calls on a value found by a tool's name (-> inside a CallTool handler), and the classes
        # listing ``this.name`` to a model (-> the method their registration runs).
        self.gathered: set[str] = set()
        self.dispatched: dict[str, bool] = {}
        self.listing: dict[str, str] = {}
        self.served: list[ServedElements] = []
        self.implementing: dict[str, list[str]] = {}

    def decorated_method(self, decorators: list[Node], cls: str, method: str, scope: Scope) -> None:
        """``@Tool({ name: "count-characters", description, parameters }) countCharacters(args) {...}`` (NestJS
        ``@rekog/mcp-nest``, any decorator whose name says it makes a tool): the method is a tool, named by the
        options' name field (else after the method), run by the method."""
        for decorator in decorators:
            call = unwrap(decorator.named_children[0]) if decorator.named_children else None
            if call is None or call.type != "call_expression":
                continue
            name, _ = self.a.dotted(call.child_by_field_id(self.a.fields.function), scope)
            rule = self.a.rules.object_tool(name) if name else None
            if rule is None:
                continue
            args = call.child_by_field_id(self.a.fields.arguments)
            options = next((unwrap(a) for a in args.named_children if a.type != "comment"), None) if args else None
            fields = self.a.code.props(options) if options is not None and options.type == "object" else {}
            spec = rule.match
            named = next((fields[k] for k in spec.get("name_fields", ()) if k in fields), None)
            tool_name = self.a.constant(named, scope) if named is not None else method
            if not tool_name:
                self.unnamed_tool(call, named, rule, scope)
                return
            schema = next((fields[k] for k in spec.get("schemas", ()) if k in fields), None)
            self.a.tools.append(
                ToolDef.found(
                    rule,
                    tool_name,
                    self.a.loc(named if named is not None else decorator),
                    description=self.a.code.string_value(unwrap(fields.get("description"))),
                    function=f"{cls}.{method}",
                    parameters=self.schema_keys(schema),
                )
            )
            return

    def schema_keys(self, node: Node | None, depth: int = 0) -> list[str] | None:
        """Parameter names of a schema: ``z.object({...})`` (also chained, ``.describe()``), a zod raw shape
        ``{ a: z.string() }``, or a JSON Schema ``{ type: "object", properties: {...} }``."""
        node = unwrap(node)
        if node is None or depth > 4:
            return None
        if node.type == "call_expression":
            func = node.child_by_field_id(self.a.fields.function)
            args = node.child_by_field_id(self.a.fields.arguments)
            first = args.named_children[0] if args is not None and args.named_children else None
            if func is not None and func.type == "member_expression":
                method = self.a.code.text(func.child_by_field_id(self.a.fields.property))
                if method in ("object", "strictObject", "looseObject") and first is not None:
                    return self.schema_keys(first, depth + 1)
                return self.schema_keys(func.child_by_field_id(self.a.fields.object), depth + 1)
            if self.a.code.text(func) in ("jsonSchema", "zodSchema", "Type.Object") and first is not None:
                return self.schema_keys(first, depth + 1)
            return None
        if node.type != "object":
            return None
        fields = self.a.code.props(node)
        inner = unwrap(fields.get("properties"))
        if inner is not None and inner.type == "object":
            return list(self.a.code.props(inner))
        if "type" in fields and self.a.code.string_value(unwrap(fields["type"])) is not None:
            return []
        return list(fields)

    def tool_call(self, node: Node, name: str, args: list[Node], scope: Scope) -> None:
        rules = self.a.rules
        first = unwrap(args[0]) if args else None
        rule = rules.object_tool(name)
        if rule is not None and first is not None and first.type == "identifier":
            # ``defs.map((d) => zodFunction(d))`` over ``const defs = [{ name: "weather", parameters }]``:
            # each record of the list is the options of one tool, named by its own name option.
            records = self.mapped_records(first)
            for element in records:
                fields = self.a.code.props(element)
                if self.field_name(fields, rule, scope) or self.a.code.string_value(unwrap(fields.get("name"))):
                    self.tool_call(element, name, [element, *args[1:]], scope)
            if records:
                return
        if (
            rule is not None
            and first is not None
            and first.type in ("identifier", "member_expression")
            and name.rpartition(".")[2] in rule.match.get("object_registrations", ())
        ):
            self.registered_object(args[0], scope, name)
            return
        if rule is not None and (
            (first is not None and first.type == "object") or (first is None and rule.match.get("options_optional"))
        ):
            fields = self.a.code.props(first) if first is not None else {}
            generic = bool(rule.match.get("name_fields"))
            tool_name = (
                self.field_name(fields, rule, scope)
                if generic
                else self.a.code.string_value(unwrap(fields.get("name")))
            )
            binding = None
            if rule.match.get("name_from") == "property_key":
                binding = self.a.code.enclosing_binding(node)
                tool_name = self.a.code.enclosing_key(node) or tool_name or binding
            elif generic:
                # A tool built by a call that says so (``createTool({ id, execute })``): named by its name
                # option, renamed by the key a tool set places it under (``tools: { weather: weatherTool }``).
                binding = self.a.code.enclosing_binding(node)
                tool_name = tool_name or self.a.code.enclosing_key(node) or binding
            held = self.a.nested_qualname(scope, binding) if binding and scope.is_module else None
            factory = self.factory_of(node, scope)
            if not tool_name and factory is None and rule.match.get("name_from_method"):
                # ``tools: [openai.tools.webSearch()]``: no key, the provider's own id (``web_search``).
                tool_name = _snake(name.rpartition(".")[2])
            if not tool_name:
                if factory is None:
                    self.unnamed_tool(node, None, rule)
                    return
                # ``export const createSandbox = ({ writer }) => tool({...})``: named where its result is
                # placed (``{ createSandbox: createSandbox({ writer }) }``), by the factory until then.
                tool_name, held = factory.rsplit("#", 1)[1].rsplit(".", 1)[-1], f"{factory}()"
            elif generic and factory is not None:
                held = f"{factory}()"  # ``return createTool({ id: "view", ... })``: the factory's result
            schema = (
                fields.get(rule.match.get("schema", "inputSchema")) or fields.get("parameters") or fields.get("schema")
            )
            handler = fields.get(rule.match.get("handler", "execute"))
            if generic:
                handler = next((fields[h] for h in rule.match.get("handlers", ()) if h in fields), None)
                if handler is None:  # ``ai.defineTool({ name, ... }, async (input) => ...)``
                    handler = next((a for a in args[1:] if (unwrap(a) or a).type in FUNCTIONS), None)
                schema = next((fields[k] for k in rule.match.get("schemas", ()) if k in fields), None)
            self.register(
                rule,
                node,
                tool_name,
                self.a.code.string_value(unwrap(fields.get("description"))),
                handler,
                fields,
                schema,
                outer=scope,
                held=held,
            )
            if binding is not None and (tool_name == binding or generic) and self.a.tools:
                self.tool_vars[binding] = len(self.a.tools) - 1
            if rule.match.get("name_option_final") and generic and self.field_name(fields, rule, scope):
                self.final_names.add(len(self.a.tools) - 1)
            if rule.match.get("reaches_receiver_tools") and self.a.tools:
                self.agent_as_tool(node, len(self.a.tools) - 1)
            return
        rule = rules.builtin_tool(name)
        if rule is not None:
            self.builtin(rule, node, name, first, scope)
            return
        rule = rules.code_tool(name)
        if rule is not None:
            self.code_tool(rule, node, name, first, scope)
            return
        rule = rules.library_tool(name)
        if rule is not None:
            self.library_tool(rule, node, name, first, scope)
            return
        rule = rules.agent_class_tool(name)
        if rule is not None and first is not None:
            self.agent_class_tool(rule, node, name, first, args, scope)
            return
        rule = rules.agent_option_tool(name)
        if rule is not None and first is not None and first.type == "object":
            self.agent_option_tool(rule, node, name, first, scope)
            return
        rule = rules.fn_tool(name)
        if rule is not None and rule.match.get("function_first"):
            # By role: only ``tool(fn, { name })`` itself (``server.tool("name", ...)`` is MCP's form).
            second = unwrap(args[1]) if len(args) > 1 else None
            if first is None or first.type not in FUNCTIONS or second is None or second.type != "object":
                rule = None
        if rule is not None and args:
            fields = self.a.code.object_props(args[1]) if len(args) > 1 else {}
            self.register(
                rule,
                node,
                self.tool_name(fields.get("name"), scope),
                self.a.code.string_value(unwrap(fields.get("description"))),
                args[0],
                fields,
                fields.get("schema"),
                outer=scope,
            )
            return
        owner, _, method = name.rpartition(".")
        if method in ("tool", "registerTool", "registerToolTask") and args:
            rule = rules.mcp_server(owner)
            if rule is not None:
                self.mcp_tool(rule, node, method, args, scope)
                return
        self.positional_tool(node, name, args, scope)

    def registered_object(self, arg: Node, scope: Scope, call: str) -> None:
        """``server.addTool(getCampaignTool)`` (FastMCP): the tool object a registration is given, defined in
        this file or another (``export const getCampaignTool = { name, parameters, execute }``); the linker
        joins it to that definition, or it is a frontier item naming the call."""
        target = unwrap(arg)
        name = self.a.code.text(target) if target is not None and target.type == "identifier" else None
        if name is not None and name in self.a.imports.objects and (scope.is_module or name not in scope.taint):
            # An object bound at the file's top level: the definition the linker joins to this registration.
            self.listed_use(arg, f"{self.a.module}#{name}", call)
            return
        self.listed_tool(arg, arg, scope, frozenset(), call, [])

    def mapped_records(self, ident: Node) -> list[Node]:
        """The object literals of the list whose elements a callback parameter is (``ident`` the parameter
        of ``(d) => ...`` in ``list.map((d) => ...)``): the list written there or bound once by a ``const``
        of the function around the call or of the module. Empty when any of that is not so."""
        name = self.a.code.text(ident)
        function = ident.parent
        while function is not None and function.type not in FUNCTIONS:
            function = function.parent
        params = function.child_by_field_id(self.a.fields.parameters) if function is not None else None
        param = function.child_by_field_id(self.a.fields.parameter) if function is not None and params is None else None
        listed = [p for p in params.named_children if p.type != "comment"] if params is not None else [param]
        if not listed or listed[0] is None or self.a.code.text(listed[0]) != name or len(listed) > 2:
            return []
        args = function.parent if function is not None else None
        call = args.parent if args is not None and args.type == "arguments" else None
        func = call.child_by_field_id(self.a.fields.function) if call is not None else None
        if func is None or func.type != "member_expression":
            return []
        if self.a.code.text(func.child_by_field_id(self.a.fields.property)) not in ("map", "forEach", "flatMap"):
            return []
        source = unwrap(func.child_by_field_id(self.a.fields.object))
        if source is not None and source.type == "identifier":
            source = unwrap(self._local_value(source) or self._module_value(source))
        if source is None or source.type != "array":
            return []
        return [e for e in (unwrap(c) for c in source.named_children) if e is not None and e.type == "object"]

    def _module_value(self, ident: Node) -> Node | None:
        """The value a top-level ``const`` of the file binds ``ident``'s name to."""
        name = self.a.code.text(ident)
        root = ident
        while root.parent is not None:
            root = root.parent
        for stmt in root.named_children:
            decl = stmt.named_children[0] if stmt.type == "export_statement" and stmt.named_children else stmt
            if decl.type != "lexical_declaration":
                continue
            for declarator in decl.named_children:
                target = declarator.child_by_field_id(self.a.fields.name)
                if declarator.type == "variable_declarator" and target is not None and self.a.code.text(target) == name:
                    return declarator.child_by_field_id(self.a.fields.value)
        return None

    def agent_option_tool(self, rule: Rule, node: Node, call: str, options: Node, scope: Scope) -> None:
        """``new AgentTool({ agent: summaryAgent })`` (ADK and look-alikes): a tool that runs the agent its
        options name, called by its own name option or else by the agent's (``name: "summary_agent"`` where
        the agent is built in this file), reaching what the agent's tools reach."""
        fields = self.a.code.props(options)
        suffix = next((k for k in rule.match["agent_tool_classes"] if call.endswith(k)), "")
        agent = next((fields[k] for k in rule.match["agent_tool_classes"].get(suffix, ()) if k in fields), None)
        agent = unwrap(agent)
        variable = self.a.code.text(agent) if agent is not None and agent.type == "identifier" else None
        tool_name = self.field_name(fields, rule, scope) or (self.agent_name(variable) if variable else None)
        if not tool_name:
            self.unnamed_tool(node, agent, rule)
            return
        self.register(
            rule, node, tool_name, self.a.code.string_value(unwrap(fields.get("description"))), None, fields, None
        )
        if variable is not None and self.a.tools:
            self.agent_as_tool(node, len(self.a.tools) - 1, variable)

    def agent_name(self, variable: str) -> str | None:
        """The ``name`` option an agent bound at the top level is built with (``const summaryAgent = new
        LlmAgent({ name: "summary_agent", ... })``)."""
        for stmt in self.a.root.named_children:
            node = stmt.child_by_field_id(self.a.fields.declaration) if stmt.type == "export_statement" else stmt
            if node is None or node.type not in ("lexical_declaration", "variable_declaration"):
                continue
            for declarator in node.named_children:
                bound = (
                    declarator.child_by_field_id(self.a.fields.name)
                    if declarator.type == "variable_declarator"
                    else None
                )
                if bound is None or self.a.code.text(bound) != variable:
                    continue
                value = unwrap(declarator.child_by_field_id(self.a.fields.value))
                if value is None or value.type not in ("new_expression", "call_expression"):
                    return None
                args = value.child_by_field_id(self.a.fields.arguments)
                first = unwrap(args.named_children[0]) if args is not None and args.named_children else None
                if first is None or first.type != "object":
                    return None
                return self.a.code.string_value(unwrap(self.a.code.props(first).get("name")))
        return None

    def agent_as_tool(self, node: Node, index: int, agent: str | None = None) -> None:
        """``weatherAgent.asTool({ toolName })``: the tool runs the agent, and reaches what the agent's
        tools reach (when the agent and its tools are in this file). ``agent``: the agent's variable when
        it is not the receiver (``new AgentTool({ agent: weatherAgent })``)."""
        if agent is None:
            func = unwrap(node.child_by_field_id(self.a.fields.function))
            receiver = unwrap(func.child_by_field_id(self.a.fields.object)) if func is not None else None
            if receiver is None or receiver.type != "identifier":
                return
            agent = self.a.code.text(receiver)
        handlers = self.agent_tools.get(agent)
        tool = self.a.tools[index]
        if not handlers or tool.function is not None:
            return
        location = self.a.loc(node)
        function = f"{self.a.module}#tool:{tool.name}@{location.line}"
        # input: what the outer model asks the inner agent
        self.a.add_tool_function(
            function,
            tool.name,
            location,
            calls=[
                trusted(
                    CallFact,
                    location=location,
                    callee=h,
                    resolved=True,
                    dominatingGates=[],
                    args=[ArgTaint(index=0, origins=sorted(param_taint("input", 0), key=origin_key))],
                )
                for h in handlers
            ],
        )
        self.a.tools[index] = tool.model_copy(update={"function": function})

    def code_tool(self, rule: Rule, node: Node, call: str, options: Node | None, scope: Scope) -> None:
        """``const codemode = createCodeTool({ tools, executor })``: a tool that runs the code its model
        writes (code.exec reached from the tool, with what the model sends), inside the sandbox its
        executor option names when it has one; named by its name option, else where it is bound or placed.
        The code can call every tool of its ``tools`` option: the tool reaches what they reach."""
        fields = self.a.code.props(options) if options is not None and options.type == "object" else {}
        tool_name = self.field_name(fields, rule, scope) or self.a.code.enclosing_key(node)
        tool_name = tool_name or self.a.code.enclosing_binding(node)
        if not tool_name:
            self.unnamed_tool(node, None, rule)
            return
        action_rule = self.a.rules.by_id.get(rule.match.get("action_rule", ""))
        location = self.a.loc(node)
        function = f"{self.a.module}#tool:{tool_name}@{location.line}"
        gates: list[GateSite] = []
        sandbox = self.a.rules.sandbox_target(call)
        executor = next((fields[k] for k in rule.match.get("sandbox_options", ()) if k in fields), None)
        if sandbox is not None and executor is not None:
            gates.append(self.a.make_gate(sandbox, executor, f"runs inside {snippet(self.a.code.text(executor), 60)}"))
        actions = []
        if action_rule is not None:
            actions.append(
                trusted(
                    ActionSite,
                    id=short_id("act", self.a.path, location.line, location.column, action_rule.id),
                    actionClass=action_rule.actionClass or "code.exec",
                    impact=action_rule.impact or "critical",
                    ruleId=action_rule.id,
                    target=call,
                    location=location,
                    dominatingGates=[g.id for g in gates],
                    taint=sorted(param_taint("input", 0), key=origin_key),
                    sqlParam=None,
                )
            )
        # input: the code the model writes
        self.a.add_tool_function(
            function,
            tool_name,
            location,
            calls=[
                trusted(CallFact, location=location, callee=t, resolved=True, dominatingGates=[], args=[])
                for t in self.wrapped_tools(fields.get("tools"), scope)[0]
            ],
            actions=actions,
            gates=gates,
        )
        binding = self.a.code.enclosing_binding(node)
        self.register(rule, node, tool_name, None, None, fields, None, function=function)
        if binding is not None and self.a.tools:
            self.tool_vars[binding] = len(self.a.tools) - 1

    def library_tool(self, rule: Rule, node: Node, call: str, options: Node | None, scope: Scope) -> None:
        """``tools: [wiki()]`` (``@llamaindex/tools``), ``index.queryTool()``: a tool a library's factory
        makes, named as the library names it (or by a ``name`` option), with the effects its implementation
        has inside the library (``wikipedia.search``: network.egress), recorded at the call."""
        spec = next(
            (
                v
                for k, v in self.a.rules.library_tools.items()
                if k in rule.match["library_tools"] and Patterns([k]).matches(call)
            ),
            None,
        )
        if spec is None:
            return
        default, effects = spec
        fields = self.a.code.props(options) if options is not None and options.type == "object" else {}
        metadata = self.a.code.object_props(fields.get("metadata"))
        tool_name = self.a.constant(fields.get("name") or metadata.get("name"), scope) or default
        location = self.a.loc(node)
        function = f"{self.a.module}#tool:{tool_name}@{location.line}:{location.column}"
        actions = [
            trusted(
                ActionSite,
                id=short_id("act", self.a.path, location.line, location.column, rule.id, action_class),
                actionClass=action_class,
                impact=impact,
                ruleId=rule.id,
                target=call,
                location=location,
                dominatingGates=[],
                taint=[],
                sqlParam=None,
            )
            for action_class, impact in effects
        ]
        self.a.add_tool_function(function, tool_name, location, actions=actions)
        self.register(rule, node, tool_name, None, None, fields, None, function=function)
        binding = self.a.code.enclosing_binding(node)
        if binding is not None and self.a.tools:
            self.tool_vars[binding] = len(self.a.tools) - 1

    def agent_class_tool(self, rule: Rule, node: Node, name: str, first: Node, args: list[Node], scope: Scope) -> None:
        """``delegate: agentTool(ClaudeCodeAgent, { description, inputSchema })``: an agent class of the tree
        run as a tool; it reaches what the agent's turn handler reaches (``ClaudeCodeAgent.onChatMessage``)."""
        method = rule.match["agent_class_tools"].get(name.rpartition(".")[2]) or rule.match.get("agent_method")
        cls, _ = self.a.dotted(first, scope)
        options = unwrap(args[1]) if len(args) > 1 else None
        fields = self.a.code.props(options) if options is not None and options.type == "object" else {}
        tool_name = self.field_name(fields, rule, scope) or self.a.code.enclosing_key(node)
        tool_name = tool_name or self.a.code.enclosing_binding(node)
        function = self.a.inherited(f"{cls}.{method}") if cls and "#" in cls and method else None
        self.register(
            rule,
            node,
            tool_name,
            self.a.code.string_value(unwrap(fields.get("description"))),
            None,
            fields,
            fields.get("inputSchema") or fields.get("parameters"),
            function=function,
        )

    def positional_tool(self, node: Node, name: str, args: list[Node], scope: Scope) -> None:
        """By role: ``tool("search_inbox", "description", schema, handler)`` (Claude Agent SDK), an MCP
        server of a type analysis cannot see (``server.tool(name, ..., handler)``): a call named for a tool
        whose first argument is its name and whose last is its implementation. Inside an in-process MCP
        server given to an agent (``createSdkMcpServer({ name, tools: [...] })``) the model sees the
        server-qualified name (``mcp__<server>__<tool>``)."""
        rule = self.a.rules.generic_tool
        if rule is None or len(args) < 2:
            return
        method = name.rpartition(".")[2] or name
        handler = unwrap(args[-1])
        if method not in rule.match.get("positional_names", ()) or handler is None or handler.type not in FUNCTIONS:
            return
        tool_name = self.a.constant(args[0], scope)
        if not tool_name:
            first = unwrap(args[0])
            if self.note_elements(node, args[0], handler, rule, scope):
                return  # ``server.tool(tool.name, ..., (p) => tool.handler(p))`` over ``tools: Tool[]``
            if first is not None and first.type in ("identifier", "member_expression"):
                self.unnamed_tool(node, args[0], rule, scope)
            return
        tool_name = self.server_qualified(node, tool_name, rule, scope)
        middle = [unwrap(a) for a in args[1:-1]]
        strings = [m for m in middle if m is not None and m.type in ("string", "template_string")]
        objects = [m for m in middle if m is not None and m.type in ("object", "call_expression")]
        description = self.a.code.string_value(strings[0]) if strings else None
        self.register(rule, node, tool_name, description, args[-1], {}, objects[0] if objects else None, outer=scope)

    def server_qualified(self, node: Node, tool: str, rule: Rule, scope: Scope) -> str:
        """``createSdkMcpServer({ name: "email", tools: [tool("search_inbox", ...)] })``: the name the
        model sees, by the pattern of the server call (``mcp__{server}__{tool}``)."""
        patterns: dict[str, str] = rule.match.get("server_names", {})
        array = node.parent
        pair = array.parent if array is not None and array.type == "array" else None
        if (
            pair is None
            or pair.type != "pair"
            or self.a.code.raw(pair.child_by_field_id(self.a.fields.key)) != b"tools"
        ):
            return tool
        options = pair.parent
        arguments = options.parent if options is not None else None
        call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        if call is None or call.type != "call_expression":
            return tool
        callee, _ = self.a.dotted(call.child_by_field_id(self.a.fields.function), scope)
        last = (callee or "").rpartition(".")[2]
        template = patterns.get(last)
        server = self.a.constant(self.a.code.props(options).get("name"), scope) if options is not None else None
        return template.format(server=server, tool=tool) if template and server else tool

    def builtin(self, rule: Rule, node: Node, call: str, options: Node | None, scope: Scope) -> None:
        """Agents SDK built-in tools (``shellTool({ shell })``): named by type or ``name``; a local
        executor's methods (``LocalShell.run``) are what the tool reaches, through a function of its own."""
        fields = self.a.code.props(options) if options is not None and options.type == "object" else {}
        name = self.a.constant(fields.get("name"), scope) or rule.match["builtin_tools"][call]
        targets: list[str] = []
        for option, methods in rule.match.get("executors", {}).items():
            value = unwrap(fields.get(option))
            if value is None:
                continue
            if value.type == "shorthand_property_identifier":  # { shell }
                cls, _ = self.a.resolve_name(self.a.code.text(value), scope)
            else:
                cls, _ = self.a.dotted(value, scope)
            if cls and "#" in cls:
                targets.extend(f"{cls}.{m}" for m in methods)
        function: str | None = None
        if targets:
            approval: str = rule.match.get("approval_property", "")
            gate_rule = self.a.rules.tool_property_gate
            flag = fields.get(approval) if approval else None
            gates = (
                [self.a.make_gate(gate_rule, flag, approval)]
                if flag is not None and gate_rule is not None and flag.type != "false"
                else []
            )
            location = self.a.loc(node)
            function = f"{self.a.module}#tool:{name}@{location.line}"
            # input: what the model sends the tool, passed to each executor method
            self.a.add_tool_function(
                function,
                name,
                location,
                calls=[
                    trusted(
                        CallFact,
                        location=location,
                        callee=t,
                        resolved=True,
                        dominatingGates=[g.id for g in gates],
                        args=[ArgTaint(index=0, origins=sorted(param_taint("input", 0), key=origin_key))],
                    )
                    for t in targets
                ],
                gates=gates,
            )
        self.register(rule, node, name, None, None, fields, None, function=function)

    def mcp_tool(self, rule: Rule, node: Node, method: str, args: list[Node], scope: Scope) -> None:
        """``server.tool(name, [description], [schema], [annotations], handler)`` and
        ``server.registerTool(name, { title, description, inputSchema, annotations }, handler)``; the
        name may be a constant and the configuration an object bound at the top level."""
        tool_name = self.a.constant(args[0], scope)
        ref: str | None = None
        if not tool_name and self.note_listing(args[0], scope, args[-1] if len(args) > 1 else None):
            return  # ``server.tool(this.name, ..., this.execute.bind(this))``: each instance's own tool
        if not tool_name and self.note_elements(node, args[0], args[-1] if len(args) > 1 else None, rule, scope):
            return  # ``server.tool(tool.name, ..., (p) => tool.handler(p))`` over ``tools: Tool[]``
        if not tool_name:
            # ``server.registerTool(getDataTool.name, ...)``: the name of a definition held elsewhere.
            first = unwrap(args[0])
            if (
                first is not None
                and first.type == "member_expression"
                and self.a.code.raw(first.child_by_field_id(self.a.fields.property)) == b"name"
            ):
                held, _ = self.a.dotted(first.child_by_field_id(self.a.fields.object), scope)
                if held is not None and "#" in held:
                    tool_name, ref = self.a.code.text(first), held
            if not tool_name:
                self.unnamed_tool(node, args[0], rule, scope)
                return
        config: dict[str, Node] = {}
        description: str | None = None
        schema: Node | None = None
        middle = [self.top_object(a) for a in args[1:-1]]
        if method in ("registerTool", "registerToolTask"):
            config = self.a.code.object_props(middle[0]) if middle else {}
            description = self.a.code.string_value(unwrap(config.get("description")))
            schema = config.get("inputSchema")
        else:
            objects = [m for m in middle if m is not None and m.type == "object"]
            strings = [m for m in middle if m is not None and m.type in ("string", "template_string")]
            description = self.a.code.string_value(strings[0]) if strings else None
            for obj in objects:
                fields = self.a.code.props(obj)
                if fields and all(k in _HINTS or k == "title" for k in fields):
                    config = {"annotations": obj}
                elif schema is None:
                    schema = obj
        self.register(rule, node, tool_name, description, args[-1], config, schema, outer=scope, ref=ref)

    def field_name(self, fields: dict[str, Node], rule: Rule, scope: Scope) -> str | None:
        """The name a tool definition gives itself: ``name`` (or, for the rules that list them, the first
        of ``name_fields`` it has: ``id`` for Mastra, ``toolName``), a string or a constant."""
        for key in rule.match.get("name_fields", ("name",)):
            found = self.tool_name(fields.get(key), scope) if key in fields else None
            if found:
                return found
        return None

    def tool_name(self, node: Node | None, scope: Scope) -> str | None:
        """A tool's ``name``: a string or constant, or another tool's (``name: queryTool.name``, a tool
        that wraps another under its name)."""
        inner = unwrap(node)
        if inner is not None and inner.type == "member_expression":
            holder = unwrap(inner.child_by_field_id(self.a.fields.object))
            prop = self.a.code.raw(inner.child_by_field_id(self.a.fields.property))
            if prop == b"name" and holder is not None and holder.type == "identifier":
                found = self.bound_names.get(self.a.code.text(holder))
                if found is not None:
                    return found
        return self.a.constant(inner, scope)

    def top_object(self, node: Node | None) -> Node | None:
        """An argument as written, or the top-level object literal a name is bound to."""
        inner = unwrap(node)
        if inner is not None and inner.type == "identifier":
            return self.a.imports.objects.get(self.a.code.text(inner), inner)
        return inner

    def register(
        self,
        rule: Rule,
        node: Node,
        name: str | None,
        description: str | None,
        handler: Node | None,
        fields: dict[str, Node],
        schema: Node | None,
        function: str | None = None,
        outer: Scope | None = None,
        *,
        held: str | None = None,
        ref: str | None = None,
    ) -> None:
        """Records a tool. ``held``: what holds the definition (``mod#weatherTool``, a factory's result
        ``mod#createSandbox()``); ``ref``: the definition whose ``name`` names this registration."""
        if not name:
            return
        location = self.a.loc(node)
        binding = self.a.code.enclosing_binding(node)
        if binding is not None:
            self.bound_names[binding] = name
            self.bound_tools[binding] = len(self.a.tools)  # the index this tool is appended at
        annotations: dict[str, bool] = {}
        annotations = self.annotations(fields.get("annotations"))
        entry: list[GateSite] = []
        gate_rule = self.a.rules.tool_property_gate
        approvals = [rule.match["approval_property"]] if rule.match.get("approval_property") else []
        for approval in [*approvals, *rule.match.get("approval_properties", ())]:
            flag = fields.get(approval)
            if gate_rule is not None and flag is not None and flag.type != "false":
                entry.append(self.a.make_gate(gate_rule, flag, approval))
                break
        params = self.schema_keys(schema)
        handler_node = unwrap(handler)
        if handler_node is not None and handler_node.type in FUNCTIONS:
            function = f"{self.a.module}#tool:{name}"
            if function in self.handlers:  # a second tool of that name (one wraps the other)
                function = f"{function}@{location.line}"
            handler_params, _ = self.a.params(handler_node)
            params = params if params else handler_params
            # (an arrow function keeps the ``this`` of the method it is written in: ``async (args) =>
            # this.handler.handle(args)`` in a class's ``registerTools()`` calls that class's fields)
            cls = outer.cls if outer is not None and handler_node.type == "arrow_function" else None
            self.a.defer(handler_node, function, f"tool:{name}", cls=cls, gates=entry, outer=outer)
            self.handler_of[node.id] = function
            self.handlers.add(function)
        elif handler_node is not None and handler_node.type == "shorthand_property_identifier":  # { handler }
            function = self.a.resolve_name(self.a.code.text(handler_node), None)[0]
            function = function if function is not None and "#" in function else None
        elif handler_node is not None:
            function = self.a.dotted(handler_node, None)[0]
            if function is not None and function.endswith("#"):
                function += "default"
        if entry and function is not None and function not in self.handlers:
            function = self._approved_entry(name, function, location, entry)
        self.a.tools.append(
            ToolDef.found(
                rule,
                name,
                location,
                description=description,
                function=function,
                parameters=params,
                annotations=annotations,
                binding=held,
                ref=ref,
                ref_name=ref is not None,
                # registered under another file's definition (``server.registerTool(def.name, ...)``): the
                # function registering it serves it, not the definition's file (``link/served.py``)
                served_by=outer.qualname if ref is not None and outer is not None and not outer.is_module else None,
            )
        )

    def _approved_entry(self, name: str, function: str, location: Location, entry: list[GateSite]) -> str:
        """``tool({ name, execute, needsApproval })`` whose handler is a function given by name: the tool runs
        through an entry of its own, asked for before it hands the model's input to that function, as the
        approval of an inline handler is asked for before its body."""
        wrapper = f"{self.a.module}#tool:{name}@{location.line}"
        given = [TaintOrigin(kind="param", param="input", index=0)]
        call = CallFact(
            location=location,
            callee=function,
            resolved=True,
            dominatingGates=[g.id for g in entry],
            args=[ArgTaint(index=0, origins=given)],
        )
        self.a.add_tool_function(wrapper, name, location, calls=[call], gates=entry)
        return wrapper

    def annotations(self, node: Node | None) -> dict[str, bool]:
        """MCP annotations (``readOnlyHint: true``...): what the tool says of itself, a disclosure
        checked against what it reaches, never a gate."""
        return {
            key: value.type == "true"
            for key, value in self.a.code.object_props(self.top_object(node)).items()
            if value.type in ("true", "false")
        }

    def rename(self, variable: str, key: str) -> None:
        """``tools: { weather: weatherTool }``: the model sees the tool under the key."""
        index = self.tool_vars.pop(variable, None)
        if index is None or not key or index in self.final_names:
            return
        tool = self.a.tools[index]
        if tool.name == key:
            return
        new_id = short_id("tool", self.a.path, tool.location.line, key, tool.ruleId)
        self.a.tools[index] = tool.model_copy(update={"name": key, "id": new_id})

    def unnamed_tool(self, node: Node, name: Node | None, rule: Rule, scope: Scope | None = None) -> None:
        """A tool definition whose name analysis cannot read (a parameter, a constant of another file, a
        list of definitions mapped to tools): a frontier item, never a silent miss. Named by a field of
        a record of a list of the tree (``tools(ctx).forEach((tool) => server.tool(tool.method, ...))``):
        a tool per record, made by the linker (``ToolSource`` ``records``)."""
        record = self.record_field(name, scope)
        if record is not None:
            location = self.a.loc(node)
            source, key = record
            self.a.tools.append(
                ToolDef(
                    id=short_id("tool", self.a.path, location.line, location.column, source, key),
                    name=f"{source}[{key}]",
                    framework=rule.framework or "unknown",
                    ruleId=rule.id,
                    location=location,
                    source=ToolSource(kind="records", ref=source, key=key),
                )
            )
            return
        if scope is not None and self.factory_named(node, name, rule, scope):
            return
        dispatch = self.a.rules.dispatch_rule
        if dispatch is None:
            return
        location = self.a.loc(node)
        named = f" ({snippet(self.a.code.text(name), 60)})" if name is not None else ""
        self.a.frontier.append(
            FrontierSite(
                id=short_id("fr", "dynamic_dispatch", self.a.path, location.line, location.column, "unnamed"),
                kind="dynamic_dispatch",
                detail=f"a tool is defined here whose name{named} is known only at run time; what it reaches is "
                "not attributed to it",
                location=location,
                ruleId=dispatch.id,
            )
        )

    def factory_named(self, node: Node, name: Node | None, rule: Rule, scope: Scope) -> bool:
        """A registration named by a parameter of the function it is in (``function registerTool(server,
        name, description, schema, handler) { server.tool(name, ...) }``): the function is a tool factory,
        and each call of it in this file given a literal at that position is the tool of that name, run by
        the function the call is given. True when every call of it names its tool so (then no frontier
        item: nothing is left unknown); a factory never called, or called with a name chosen at run time,
        stays a frontier item."""
        inner = unwrap(name)
        if inner is None or inner.type != "identifier" or scope.is_module or scope.inner_params is not None:
            return False
        function = node.parent
        while function is not None and function.type not in FUNCTIONS:
            function = function.parent
        if function is None:
            return False
        position = self.param_position(function, self.a.code.text(inner))
        if position is None:
            return False
        self.factories[scope.qualname] = (position, rule)
        calls = self.factory_calls.pop(scope.qualname, [])
        named = [self.factory_call(call, scope.qualname, args, outer) for call, args, outer in calls]
        # An exported factory may be called from files this one cannot see: its frontier item stays.
        return bool(named) and all(named) and not self.exported(function)

    @staticmethod
    def exported(function: Node) -> bool:
        """``export function f(...)``, ``export const f = (...) => ...``."""
        holder = function.parent
        if holder is not None and holder.type == "variable_declarator":
            holder = holder.parent.parent if holder.parent is not None else None
        return holder is not None and holder.type == "export_statement"

    def param_position(self, function: Node, param: str) -> int | None:
        """The position of the plain parameter ``param`` among ``function``'s formal parameters."""
        params = function.child_by_field_id(self.a.fields.parameters)
        if params is None:
            return None
        for index, child in enumerate(c for c in params.named_children if c.type != "comment"):
            target = child.child_by_field_id(self.a.fields.pattern) if child.type != "identifier" else child
            if target is not None and target.type == "identifier" and self.a.code.text(target) == param:
                return index
        return None

    def note_factory_call(self, node: Node, callee: str, args: list[Node], scope: Scope) -> None:
        """A call of a function of this file: a tool when the callee is (or turns out to be, once its body
        is analysed) a tool factory."""
        if callee in self.factories:
            self.factory_call(node, callee, args, scope)
        else:
            self.factory_calls.setdefault(callee, []).append((node, args, scope))

    def factory_call(self, node: Node, factory: str, args: list[Node], scope: Scope) -> bool:
        """``registerTool(server, 'read_note', 'Read one note.', schema, async ({ path }) => ...)``: the tool
        named by the literal at the factory's name position, run by the one function the call is given."""
        position, rule = self.factories[factory]
        if position >= len(args):
            return False
        tool_name = self.a.constant(args[position], scope)
        if not tool_name:
            return False
        handlers = [a for a in args if (unwrap(a) or a).type in FUNCTIONS]
        self.register(rule, node, tool_name, None, handlers[0] if len(handlers) == 1 else None, {}, None, outer=scope)
        return True

    def record_field(self, name: Node | None, scope: Scope | None) -> tuple[str, str] | None:
        """``("src/tools#tools", "method")`` for ``tool.method``, ``tool`` an element of that list."""
        inner = unwrap(name)
        if scope is None or inner is None or inner.type != "member_expression":
            return None
        holder = unwrap(inner.child_by_field_id(self.a.fields.object))
        if holder is None or holder.type != "identifier":
            return None
        source = scope.elements.get(self.a.code.text(holder))
        if source is None:
            return None
        return source, self.a.code.text(inner.child_by_field_id(self.a.fields.property))

    def factory_of(self, node: Node, scope: Scope) -> str | None:
        """The function whose result a tool definition is (``return tool({...})``, an arrow function's
        body): a tool factory, whose uses name the tool."""
        if scope.is_module or scope.inner_params is not None:
            return None
        parent = node.parent
        while parent is not None and parent.type in WRAPPERS:
            parent = parent.parent
        if parent is not None and (parent.type == "return_statement" or parent.type == "arrow_function"):
            return scope.qualname
        return None

    @staticmethod
    def role_class_handler(rule: Rule, base: str, fields: dict[str, Node], methods: set[str]) -> str | None:
        """The method a class of a package's tool base runs its tool in, when the class has a tool's shape:
        a base named as a tool (``extends Tool``), or a description and an input schema of its own
        (``inputSchema()``, ``schema = z.object(...)``), and a method such frameworks call (``_run``,
        ``_call``, ``execute``...). ``class AppError extends Error { name = "AppError" }`` has neither."""
        spec = rule.match["class_tools"]
        shaped = base.rpartition(".")[2].endswith(tuple(spec["base_suffixes"])) or (
            "description" in fields and any(k in fields or k in methods for k in spec["schemas"])
        )
        if not shaped:
            return None
        return next((m for m in spec["methods"] if m in methods), None)

    def class_tool(self, node: Node, cls: str, body: Node) -> None:
        """LangChain JS ``class X extends StructuredTool { name = "..."; description = "..."; _call() }``."""
        heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
        if heritage is None:
            return
        bases = [c for c in heritage.named_children if c.type in ("extends_clause", "identifier", "member_expression")]
        base_nodes: list[Node] = []
        for base in bases:
            if base.type == "extends_clause":
                value = base.child_by_field_id(self.a.fields.value)
                base_nodes.extend([value] if value is not None else base.named_children[:1])
            else:
                base_nodes.append(base)
        for base in base_nodes:
            base_name, _ = self.a.dotted(base, None)
            rule = self.a.rules.class_tool(base_name) if base_name else None
            role = self.a.rules.role_class_tool
            if rule is None and (role is None or not base_name or "#" in base_name):
                continue
            fields: dict[str, Node] = {}
            methods: set[str] = set()
            for member in body.named_children:
                if member.type == "public_field_definition":
                    value = member.child_by_field_id(self.a.fields.value)
                    key = self.a.code.text(
                        member.child_by_field_id(self.a.fields.name) or member.child_by_field_id(self.a.fields.property)
                    )
                    if value is not None:
                        fields[key] = value
                elif member.type == "method_definition":
                    methods.add(self.a.code.text(member.child_by_field_id(self.a.fields.name)))
            name = self.a.code.string_value(unwrap(fields.get("name")))
            if not name:
                return
            if rule is not None:
                handler = rule.match.get("handler", "_call")
            elif role is not None and base_name:
                rule, handler = role, self.role_class_handler(role, base_name, fields, methods) or ""
                if not handler:
                    continue
            else:
                continue
            location = self.a.loc(node)
            self.a.tools.append(
                ToolDef.found(
                    rule,
                    name,
                    location,
                    description=self.a.code.string_value(unwrap(fields.get("description"))),
                    function=f"{cls}.{handler}",
                    parameters=self.schema_keys(fields.get("schema")),
                )
            )
            return
