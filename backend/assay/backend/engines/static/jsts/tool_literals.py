"""Tools written as object literals: OpenAI function tools, Anthropic tools and MCP tool literals, and
hosted tools listed by type (``{ type: "shell" }``).

A literal says what the model is told, not what runs: its implementation is chosen at run time by name,
a dynamic-dispatch frontier item until the file shows the function that name maps to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import FrontierSite, ToolDef, ToolSource
from assay.backend.engines.static.jsts.schema_uses import only_shapes_data
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, WRAPPERS, unwrap
from assay.backend.scans.bundle import Location

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.analyzer import FileAnalyzer
    from assay.backend.engines.static.jsts.scope import Scope
    from assay.backend.engines.static.rules.pack import Rule


# Where a call's result is kept (``const t = f(...)``, ``[f(...)]``, ``{ k: f(...) }``, ``return f(...)``).
_HELD = frozenset({"variable_declarator", "array", "pair", "return_statement", "arrow_function"})


# The members of a tool record that run it, beside its declaration (``{ definition, execute }``).
_RECORD_HANDLERS = ("execute", "handler", "run")


class LiteralTools:
    """The literal-tool part of ``ToolRecognizer`` (its base class), which holds the state used here."""

    if TYPE_CHECKING:
        a: FileAnalyzer
        # Literal tools (index in the tools list) and their dispatch frontier item.
        literal_tools: list[tuple[int, str | None]]
        literal_nodes: dict[int, Node]
        made: list[ToolDef]

        def schema_keys(self, node: Node | None, depth: int = 0) -> list[str] | None: ...

        def annotations(self, node: Node | None) -> dict[str, bool]: ...

        def unnamed_tool(self, node: Node, name: Node | None, rule: Rule, scope: Scope | None = None) -> None: ...

        def note_listing(self, name: Node | None, scope: Scope, handler: Node | None = None) -> bool: ...

        def factory_of(self, node: Node, scope: Scope) -> str | None: ...

        def param_position(self, function: Node, param: str) -> int | None: ...

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
        ) -> None: ...

    def literal_tool(self, node: Node, scope: Scope) -> None:
        """OpenAI function tools and Anthropic tools written as object literals. Their implementation
        is chosen at run time by name (a dynamic-dispatch frontier item)."""
        fields: dict[str, Node] | None = None
        for rule in self.a.rules.literal_tools:
            if fields is None:
                fields = self.a.code.props(node)
                if "name" not in fields and "function" not in fields:
                    if "metadata" in fields:
                        self.metadata_tool(node, fields, scope)
                    elif not self.declared_record(node, fields, scope):
                        self.hosted_tool(node, fields)
                    return
            kind = rule.match["object_literal"]
            name = description = None
            schema: Node | None = None
            annotations: dict[str, bool] = {}
            if kind == "mcp_tool" and "inputSchema" in fields:
                if self.definition_options(node) or self.tool_call_options(node, scope):
                    continue
                name = self.a.constant(fields["name"], scope)
                if "execute" in fields:
                    # A tool definition with its handler (toolkits' data: { method, name, inputSchema,
                    # execute }): the model knows it by ``method`` when it has one (``name`` is a title).
                    name = self.a.constant(fields.get("method"), scope) or name
                    description = self.a.constant(fields.get("description"), scope)
                    self.register(
                        rule, node, name, description, fields["execute"], fields, fields["inputSchema"], outer=scope
                    )
                    return
                description = self.a.constant(fields.get("description"), scope)
                schema = fields["inputSchema"]
                annotations = self.annotations(fields.get("annotations"))
                handler = self.definition_handler(fields)
                if name and handler is not None:
                    # ``{ name: "exec", description, inputSchema, handler }`` (a registry's definition): the
                    # definition says what implements it, wherever it is registered; a tool only where used.
                    made = len(self.a.tools)
                    self.register(rule, node, name, description, handler, fields, schema, outer=scope)
                    if len(self.a.tools) > made:
                        unread = self.unread_binding(node, scope)
                        self.a.tools[-1] = self.a.tools[-1].model_copy(update={"source": unread})
                    return
                if not name and self.note_listing(fields["name"], scope):
                    return  # ``{ name: this.name, description, inputSchema }`` in a tool class's method
                if not name:
                    if unwrap(fields["name"]) is not None and unwrap(fields["name"]).type in (  # type: ignore[union-attr]
                        "identifier",
                        "member_expression",
                        "shorthand_property_identifier",
                    ):  # (not a schema: ``name: z.string()``)
                        self.definition_factory(node, fields, rule, scope)
                        self.unnamed_tool(node, fields["name"], rule, scope)
                    return
            if kind == "openai_function" and self.a.code.string_value(unwrap(fields.get("type"))) == "function":
                inner = unwrap(fields.get("function"))
                source = self.a.code.props(inner) if inner is not None and inner.type == "object" else fields
                name, description = (
                    self.a.code.string_value(unwrap(source.get("name"))),
                    self.a.code.string_value(unwrap(source.get("description"))),
                )
                schema = source.get("parameters")
                if not name and self.note_listing(source.get("name"), scope):
                    return  # ``{ type: "function", function: { name: this.name, ... } }``: a tool class's
            elif kind == "gemini_declaration" and node.id in self.a.gemini_declarations.literals:
                # An element of a ``functionDeclarations`` list handed to a model (``jsts/declarations.py``).
                name = self.a.constant(fields.get("name"), scope)
                description = self.a.code.string_value(unwrap(fields.get("description")))
                schema = fields.get("parameters") or fields.get("parametersJsonSchema")
                paired = self.a.gemini_declarations.paired_function(node, scope)
                if name and paired is not None:
                    # ``{ function: ({ date }) => ..., declaration: { name: "getEvents", ... } }``: the record
                    # pairing the declaration with its function says what runs the tool.
                    self.a.tools.append(
                        ToolDef.found(
                            rule,
                            name,
                            self.a.loc(node),
                            description=description,
                            function=paired,
                            parameters=self.schema_keys(schema),
                        )
                    )
                    return
            elif kind == "anthropic_tool" and "input_schema" in fields:
                name, description = (
                    self.a.code.string_value(unwrap(fields.get("name"))),
                    self.a.code.string_value(unwrap(fields.get("description"))),
                )
                schema = fields.get("input_schema")
                if not name and self.note_listing(fields.get("name"), scope):
                    return
            if not name:
                continue
            location = self.a.loc(node)
            # ``const definition = { name: "run", description, inputSchema }`` at the top level: a registration
            # under its name elsewhere (``server.registerTool(definition.name, config, handler)``) is this tool,
            # run by that registration's handler (``link/tool_uses.py``).
            bound = self.top_binding(node, scope) if kind == "mcp_tool" else None
            self.a.tools.append(
                ToolDef.found(
                    rule,
                    name,
                    location,
                    description=description,
                    parameters=self.schema_keys(schema),
                    annotations=annotations,
                    source=self.unread_binding(node, scope),
                ).model_copy(
                    update={
                        "heldBy": self.held_by(node, scope),
                        "binding": f"{self.a.module}#{self.a.code.text(bound)}" if bound is not None else None,
                    }
                )
            )
            self.literal_tools.append((len(self.a.tools) - 1, self.literal_frontier(name, location)))
            self.literal_nodes[len(self.a.tools) - 1] = node
            return

    def definition_handler(self, fields: dict[str, Node]) -> Node | None:
        """The handler a tool definition object names (``handler``, ``run``... of the definition rule), when
        it is a function written there or named (``handler`` for a function of the file)."""
        rule = self.a.rules.definition_rule
        keys = rule.match["definition_objects"] if rule is not None else ()
        value = next((fields[k] for k in keys if k != "execute" and k in fields), None)
        inner = unwrap(value)
        if inner is None or (
            inner.type not in FUNCTIONS and inner.type not in ("identifier", "shorthand_property_identifier")
        ):
            return None
        return value

    def tool_call_options(self, node: Node, scope: Scope) -> bool:
        """``new DynamicTool({ name, description, inputSchema, handler })``: the literal is the options of a
        call a tool-call rule recognises, which makes the tool from it; the literal is not a second one."""
        arguments = _unwrapped_parent(node)
        call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
        if call is None or call.type not in ("call_expression", "new_expression"):
            return False
        first = next(iter(arguments.named_children), None) if arguments is not None else None
        if first is None or (unwrap(first) or first) != node:
            return False
        func = call.child_by_field_id(
            self.a.fields.constructor if call.type == "new_expression" else self.a.fields.function
        )
        name = self.a.dotted(func, scope)[0] if func is not None else None
        return name is not None and self.a.rules.object_tool(name) is not None

    def definition_options(self, node: Node) -> bool:
        """``ai.defineFlow({ name, inputSchema }, async (input) => ...)``: the literal is the options of a
        call that defines something with the function given beside it (a flow, a prompt, a retriever, an
        action). That is a tool only when the call says so (``defineTool``, ``registerTool``), which the
        tool-call rules recognise by its name; any other definition is not handed to a model."""
        arguments = _unwrapped_parent(node)
        if arguments is None or arguments.type != "arguments":
            return False
        if not any((unwrap(a) or a).type in FUNCTIONS for a in arguments.named_children if a is not node):
            return False
        call = arguments.parent
        if call is None:
            return False
        func = call.child_by_field_id(
            self.a.fields.constructor if call.type == "new_expression" else self.a.fields.function
        )
        callee = self.a.code.raw(func).decode(errors="replace") if func is not None else ""
        return "tool" not in callee.rpartition(".")[2].lower()

    def declared_record(self, node: Node, fields: dict[str, Node], scope: Scope) -> bool:
        """``{ definition: { name, description, parameters }, execute(args) {...} }`` (a registry's tool record): a
        function declaration paired with the function that runs it, the tool the declaration names (a record bound to
        a top-level name its file never reads is a tool only where another file uses it). False when the literal pairs
        no declaration with a handler."""
        rule = next((r for r in self.a.rules.literal_tools if r.match["object_literal"] == "openai_function"), None)
        handler = next((fields[k] for k in _RECORD_HANDLERS if k in fields), None)
        if rule is None or handler is None:
            return False
        for value in fields.values():
            inner = unwrap(value)
            if inner is None or inner.type != "object":
                continue
            declared = self.a.code.props(inner)
            schema = declared.get("parameters")
            if schema is None or "description" not in declared:
                continue
            name = self.a.code.string_value(unwrap(declared.get("name")))
            if not name:
                continue
            made = len(self.a.tools)
            self.register(
                rule,
                node,
                name,
                self.a.code.string_value(unwrap(declared["description"])),
                handler,
                fields,
                schema,
                outer=scope,
            )
            if len(self.a.tools) > made:
                self.a.tools[-1] = self.a.tools[-1].model_copy(update={"source": self.unread_binding(node, scope)})
            return True
        return False

    def metadata_tool(self, node: Node, fields: dict[str, Node], scope: Scope) -> None:
        """``tools: [{ metadata: { name, description, parameters } }]`` (LlamaIndex.TS ``BaseTool``): a
        tool written as a literal in a tools list, its implementation chosen at run time by name."""
        rule = next((r for r in self.a.rules.literal_tools if r.match["object_literal"] == "metadata_tool"), None)
        inner = unwrap(fields.get("metadata"))
        array = node.parent
        pair = array.parent if array is not None and array.type == "array" else None
        if (
            rule is None
            or inner is None
            or inner.type != "object"
            or pair is None
            or pair.type != "pair"
            or self.a.code.raw(pair.child_by_field_id(self.a.fields.key)) != b"tools"
        ):
            return
        meta = self.a.code.props(inner)
        name = self.a.constant(meta.get("name"), scope)
        if not name:
            return
        location = self.a.loc(node)
        self.a.tools.append(
            ToolDef.found(
                rule,
                name,
                location,
                description=self.a.constant(meta.get("description"), scope),
                parameters=self.schema_keys(meta.get("parameters")),
            )
        )
        self.literal_tools.append((len(self.a.tools) - 1, self.literal_frontier(name, location)))

    def definition_factory(self, node: Node, fields: dict[str, Node], rule: Rule, scope: Scope) -> None:
        """``function defineTool(name, description, schema) { return { name, description, inputSchema } }``:
        a function returning a tool definition named by its parameter is a definition factory; each call
        of it given a string at that position (in any file) is the tool of that name (``ToolSource``
        ``factory``, settled by the linker against the calls' ``made`` candidates)."""
        held = unwrap(fields["name"])
        factory = self.factory_of(node, scope)
        if held is None or factory is None or held.type not in ("identifier", "shorthand_property_identifier"):
            return
        function = node.parent
        while function is not None and function.type not in FUNCTIONS:
            function = function.parent
        position = self.param_position(function, self.a.code.text(held)) if function is not None else None
        if position is None:
            return
        location = self.a.loc(node)
        self.made.append(
            ToolDef(
                id=short_id("tool", self.a.path, location.line, location.column, factory, "factory"),
                name=f"{factory}({position})",
                framework=rule.framework or "unknown",
                ruleId=rule.id,
                location=location,
                parameters=self.schema_keys(fields.get("inputSchema")) or [],
                source=ToolSource(kind="factory", ref=factory, key=str(position)),
            )
        )

    def made_tools(self, node: Node, callee: str, args: list[Node], scope: Scope) -> None:
        """``export const listTool = defineTool('list_things', 'List things.', schema)``: a call of a function
        of the tree whose result is kept, given strings: each string is the tool of that name if the callee
        turns out to be a definition factory naming its tool by that argument (``ToolSource`` ``made``; the
        linker keeps only those)."""
        parent = node.parent
        while parent is not None and parent.type in WRAPPERS:
            parent = parent.parent
        if parent is None or parent.type not in _HELD:
            return
        bound = self.a.code.enclosing_binding(node) if scope.is_module else None
        for position, arg in enumerate(args):
            inner = unwrap(arg)
            if inner is None or inner.type != "string":
                continue
            name = self.a.code.string_value(inner)
            if not name:
                continue
            location = self.a.loc(inner)
            self.made.append(
                ToolDef(
                    id=short_id("tool", self.a.path, location.line, location.column, name, callee, "made"),
                    name=name,
                    framework="unknown",
                    ruleId="",
                    location=location,
                    source=ToolSource(kind="made", ref=callee, key=str(position)),
                    binding=f"{self.a.module}#{bound}" if bound else None,
                )
            )

    def unread_binding(self, node: Node, scope: Scope) -> ToolSource | None:
        """A tool literal bound to a top-level name its file never reads (``export const X = {...} as
        const`` and nothing else names ``X``): only a file that imports it can list it to a model."""
        binding = self.top_binding(node, scope)
        if binding is None:
            return None
        name = self.a.code.raw(binding)
        if self.a.code.occurrences(name) != 1:
            return None
        return ToolSource(kind="imported", ref=f"{self.a.module}#{name.decode()}")

    def held_by(self, node: Node, scope: Scope) -> str | None:
        """The top-level name a tool literal is bound to, as other files name it (``mod#definition``)."""
        binding = self.top_binding(node, scope)
        return f"{self.a.module}#{self.a.code.text(binding)}" if binding is not None else None

    def top_binding(self, node: Node, scope: Scope) -> Node | None:
        """The name of the top-level ``const``/``let`` (exported or not) whose value is the literal."""
        if not scope.is_module:
            return None
        parent = node.parent
        while parent is not None and parent.type in (
            "as_expression",
            "satisfies_expression",
            "parenthesized_expression",
        ):
            parent = parent.parent
        if parent is None or parent.type != "variable_declarator":
            return None
        declaration = parent.parent
        top = declaration.parent if declaration is not None else None
        if top is not None and top.type == "export_statement":
            top = top.parent
        binding = parent.child_by_field_id(self.a.fields.name)
        if top is None or top.type != "program" or binding is None or binding.type != "identifier":
            return None
        return binding

    def hosted_tool(self, node: Node, fields: dict[str, Node]) -> None:
        """``tools: [{ type: "shell", environment: {...} }]``: a hosted tool, named by its type, listed
        for a model (an element of a ``tools`` array)."""
        kind = self.a.code.string_value(unwrap(fields.get("type"))) if "type" in fields else None
        rule = self.a.rules.hosted_tool
        if kind is None or rule is None or kind not in rule.match["hosted_types"]:
            return
        array = node.parent
        pair = array.parent if array is not None and array.type == "array" else None
        if (
            pair is None
            or pair.type != "pair"
            or self.a.code.raw(pair.child_by_field_id(self.a.fields.key)) != b"tools"
        ):
            return
        location = self.a.loc(node)
        self.a.tools.append(ToolDef.found(rule, kind, location))

    def model_output_sinks(self) -> str | None:
        """The function of this file that acts on model output the most (an action whose data comes
        from a model call: the dispatch of a hand-written tool loop), or None."""
        best: tuple[int, int, str] | None = None
        for fn in self.a.functions:
            count = sum(1 for act in fn.actions if any(o.kind == "model_output" for o in act.taint))
            if count and (best is None or (count, -fn.location.line) > best[:2]):
                best = (count, -fn.location.line, fn.qualname)
        return best[2] if best is not None else None

    def literal_frontier(self, name: str, location: Location) -> str | None:
        rule = self.a.rules.dispatch_rule
        if rule is None:
            return None
        site = FrontierSite(
            id=short_id("fr", "dynamic_dispatch", self.a.path, location.line, name),
            kind="dynamic_dispatch",
            detail=f"tool {name} is defined as a literal; its implementation is chosen at run time",
            location=location,
            ruleId=rule.id,
        )
        self.a.frontier.append(site)
        return site.id

    def data_schemas(self) -> set[int]:
        """Literal tools whose every use in the file only shapes or checks data (``schema_uses``): no tools."""
        keys, calls = self.a.rules.schema_only_keys, self.a.rules.schema_only_calls
        if not (keys or calls):
            return set()
        return {
            index
            for index, node in self.literal_nodes.items()
            if only_shapes_data(node, self.a.root, self.a.code.text, keys, calls)
        }

    def resolve_literal_tools(self) -> None:
        """After the walk: a literal tool whose name maps to a function of the tree in this file
        (``{ get_weather: getWeather }``, ``case "get_weather": return getWeather(args)``) is implemented
        by that function, and is no longer a dispatch frontier item. A literal naming a tool the file
        defines with its implementation (``tool({...})`` under the key ``get_weather``, and a tool-search
        result listing ``{ type: "function", name: "get_weather" }``) declares that same tool: one tool."""
        resolved: set[str] = set()
        literal = {index for index, _ in self.literal_tools}
        implemented = {t.name for i, t in enumerate(self.a.tools) if t.function is not None and i not in literal}
        dropped = self.data_schemas()
        loop = self.model_output_sinks()
        for index, frontier_id in self.literal_tools:
            if index in dropped:
                if frontier_id is not None:
                    resolved.add(frontier_id)
                continue
            tool = self.a.tools[index]
            function = self.a.named_impls.get(tool.name)
            if function is None and tool.name not in implemented:
                if loop is None or tool.function is not None:
                    continue
                # A plain SDK loop: the schema goes to the model and the code that acts on what the model
                # returned (``execSync(toolUse.input.cmd)``) is where this tool's calls are carried out.
                function = loop
            if tool.name in implemented:
                dropped.add(index)
            else:
                self.a.tools[index] = tool.model_copy(update={"function": function})
            if frontier_id is not None:
                resolved.add(frontier_id)
        if dropped:
            self.a.tools = [t for i, t in enumerate(self.a.tools) if i not in dropped]
        if resolved:
            self.a.frontier = [f for f in self.a.frontier if f.id not in resolved]


def _unwrapped_parent(node: Node) -> Node | None:
    """What holds ``node`` once the wrappers that leave its value alone (``as``, ``satisfies``,
    parentheses) are climbed out of."""
    parent = node.parent
    while parent is not None and parent.type in ("as_expression", "satisfies_expression", "parenthesized_expression"):
        parent = parent.parent
    return parent
