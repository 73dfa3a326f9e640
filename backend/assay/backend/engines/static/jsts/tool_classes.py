"""Tool classes: classes of the tree whose instances a server or an agent lists to a model.

    class SetTool extends RedisTool { name = "set"; inputSchema = {...}; async execute(args, client) {...} }
    const tools = [new SetTool(), new GetTool()];                 // instances gathered in a collection
    for (const tool of tools) this.tools.set(tool.name, tool);
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const tool = this.tools.get(request.params.name);         // found by the name the model gave
        return tool.execute(request.params.arguments, client);    // and run through a method
    });

What makes such a class a tool is its role, never its spelling: it names itself (a ``name`` field, a
``name`` getter or a ``getName()`` method returning a string, ``this.name = "..."`` or ``super({ name })`` in
its constructor), its instances are gathered (constructed as an element of a list, an argument of a call, a
value of an object, or the receiver of a call: ``new CreateUiTool().register(server)``; or bound to a name a later
statement of its block gathers: ``const t = new SetTool(); tools.push(t)``), and what it is
gathered for is served to a model: a lookup by the tool's name dispatched through a method inside a CallTool
request handler, or the class (or a base of it) lists ``this.name`` in a tool definition (``toParam()``
returning ``{ type: "function", function: { name: this.name, ... } }``) or registers it
(``server.tool(this.name, ..., this.execute.bind(this))``). Each file records its candidate classes
(``ToolSource`` ``listed``) and what it shows of those three roles (``FileFacts.toolClassUses``); the linker
keeps the candidates the whole tree shows gathered and served, run by the method the dispatch (or the
registration) calls: the class's own, an inherited one of the tree, or, when the class extends a library
base that analysis cannot see, the class's own method the library's calls (``doExecute`` for ``execute``).
A class with a name that nothing gathers, or a table of handlers no model is served, makes no tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.engines.static.facts import ServedElements, ToolClassUses, ToolDef, ToolSource
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, unwrap

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.analyzer import FileAnalyzer
    from assay.backend.engines.static.jsts.scope import Scope
    from assay.backend.engines.static.rules.pack import Rule

# Where a ``new`` puts the instance into a collection (or hands it to a call).
_GATHERING = frozenset({"array", "arguments", "pair", "spread_element"})
_SCHEMAS = ("inputSchema", "parameters", "schema", "input_schema", "argsSchema")


class ClassTools:
    """The tool-class part of ``ToolRecognizer`` (its base class), which holds the state used here."""

    if TYPE_CHECKING:
        a: FileAnalyzer
        gathered: set[str]
        dispatched: dict[str, bool]
        listing: dict[str, str]
        served: list[ServedElements]
        implementing: dict[str, list[str]]

        def schema_keys(self, node: Node | None, depth: int = 0) -> list[str] | None: ...

        def unnamed_tool(self, node: Node, name: Node | None, rule: Rule, scope: Scope | None = None) -> None: ...

    def listed_class(self, cls: str, body: Node, scope: Scope) -> None:
        """A class of the tree that names itself and has methods: a candidate the linker keeps when the
        tree gathers and serves its instances."""
        rule = self.a.rules.listed_class_rule
        if rule is None:
            return
        code = self.a.code
        fields = self.a.fields
        name: str | None = None
        at: Node | None = None
        values: dict[str, Node] = {}
        methods = 0
        for member in body.named_children:
            kind = member.type
            if kind == "public_field_definition":
                key = code.text(member.child_by_field_id(fields.name) or member.child_by_field_id(fields.property))
                value = member.child_by_field_id(fields.value)
                if value is None:
                    continue
                if unwrap(value) is not None and unwrap(value).type in FUNCTIONS:  # type: ignore[union-attr]
                    methods += 1
                values[key] = value
                if key == "name" and name is None:
                    name, at = self.a.constant(value, scope), member
            elif kind == "method_definition":
                method = code.text(member.child_by_field_id(fields.name))
                if method == "constructor":
                    found = self.constructor_name(member, scope)
                    if found is not None and name is None:
                        name, at = found
                    continue
                getter = any(c.type == "get" for c in member.children)
                if (getter and method == "name") or method in rule.match["listed_classes"]["name_methods"]:
                    returned = self.returned_string(member, scope)
                    if returned is not None and name is None:
                        name, at = returned
                    continue
                methods += 1
        if not name or at is None or not methods:
            return
        schema = next((values[k] for k in _SCHEMAS if k in values), None)
        self.a.tools.append(
            ToolDef.found(
                rule,
                name,
                self.a.loc(at),
                description=code.string_value(unwrap(values.get("description"))),
                parameters=self.schema_keys(schema),
                source=ToolSource(kind="listed", ref=cls),
            )
        )

    def returned_string(self, method: Node, scope: Scope) -> tuple[str, Node] | None:
        """``getName() { return "get_hover_info"; }``: the string and the return statement."""
        body = method.child_by_field_id(self.a.fields.body)
        if body is None:
            return None
        statements = [s for s in body.named_children if s.type != "comment"]
        if len(statements) != 1 or statements[0].type != "return_statement" or not statements[0].named_children:
            return None
        value = self.a.constant(statements[0].named_children[0], scope)
        return (value, statements[0]) if value else None

    def constructor_name(self, method: Node, scope: Scope) -> tuple[str, Node] | None:
        """``this.name = "knowledge_search"`` or ``super({ name: "readFile", ... })`` in a constructor."""
        body = method.child_by_field_id(self.a.fields.body)
        if body is None:
            return None
        code = self.a.code
        fields = self.a.fields
        for statement in body.named_children:
            if statement.type != "expression_statement" or not statement.named_children:
                continue
            expr = statement.named_children[0]
            if expr.type == "assignment_expression":
                left = expr.child_by_field_id(fields.left)
                if left is not None and code.raw(left) == b"this.name":
                    value = self.a.constant(expr.child_by_field_id(fields.right), scope)
                    if value:
                        return value, statement
            elif expr.type == "call_expression" and code.raw(expr.child_by_field_id(fields.function)) == b"super":
                args = expr.child_by_field_id(fields.arguments)
                first = unwrap(args.named_children[0]) if args is not None and args.named_children else None
                if first is not None and first.type == "object":
                    value = self.a.constant(code.props(first).get("name"), scope)
                    if value:
                        return value, statement
        return None

    def note_new(self, node: Node, name: str) -> None:
        """``new SetTool()`` as an element, an argument, a value, or the receiver of a call: gathered; so is
        one bound to a name that a later statement of the same block gathers (``const t = new SetTool();
        tools.push(t)``)."""
        parent = node.parent
        while parent is not None and parent.type in ("parenthesized_expression", "await_expression"):
            parent = parent.parent
        if parent is None:
            return
        if parent.type == "variable_declarator":
            if node.type == "new_expression" and self.bound_gathered(parent):
                self.gathered.add(name)
            return
        if parent.type in _GATHERING or (
            parent.type == "member_expression"
            and parent.parent is not None
            and parent.parent.type == "call_expression"
            and parent.parent.child_by_field_id(self.a.fields.function) == parent
        ):
            self.gathered.add(name)

    def bound_gathered(self, declarator: Node) -> bool:
        """Whether the name ``declarator`` binds is, in a later statement of its block, an element, an
        argument or a value (``tools.push(t)``, ``[t, other]``, ``{ shell: t }``). The block's text is
        searched for the name once; only where it occurs is the tree looked at."""
        target = declarator.child_by_field_id(self.a.fields.name)
        statement = declarator.parent
        block = statement.parent if statement is not None else None
        if target is None or target.type != "identifier" or block is None:
            return False
        code = self.a.code
        word = code.raw(target)
        src = code.src
        at = src.find(word, statement.end_byte, block.end_byte)  # type: ignore[union-attr]
        while at != -1:
            found = block.descendant_for_byte_range(at, at + len(word))
            if (
                found is not None
                and found.type == "identifier"
                and found.start_byte == at
                and found.end_byte == at + len(word)
                and found.parent is not None
                and found.parent.type in _GATHERING
                and (found.parent.type != "pair" or found.parent.child_by_field_id(self.a.fields.value) == found)
            ):
                return True
            at = src.find(word, at + len(word), block.end_byte)
        return False

    def note_dispatch(self, func: Node, scope: Scope, serving: bool) -> None:
        """``tool.execute(args)`` with ``tool`` found by a tool's name (``const tool = tools.get(name)``),
        or ``tools.get(name).execute(args)``: the method the found instance runs through."""
        target = unwrap(func.child_by_field_id(self.a.fields.object))
        if target is None:
            return
        if target.type == "identifier":
            if self.a.code.text(target) not in scope.found_vars:
                return
        elif not self.is_lookup(target):
            return
        method = self.a.code.text(func.child_by_field_id(self.a.fields.property))
        if method:
            self.dispatched[method] = self.dispatched.get(method, False) or serving

    def is_lookup(self, node: Node | None) -> bool:
        """``tools.get(name)`` / ``registry.getHandler(request.params.name)`` / ``handlers[toolName]``: a value
        found by a tool's name."""
        node = unwrap(node)
        if node is None:
            return False
        kind = node.type
        if kind == "subscript_expression":
            return self.a.names_tool(node.child_by_field_id(self.a.fields.index))
        if kind != "call_expression":
            return False
        args = node.child_by_field_id(self.a.fields.arguments)
        # Most calls name no tool: a look at the arguments' text spares walking them.
        if args is None or b"name" not in self.a.code.raw(args).lower():
            return False
        func = unwrap(node.child_by_field_id(self.a.fields.function))
        if func is None or func.type != "member_expression":
            return False
        return any(self.a.names_tool(arg) or self.compares_name(arg) for arg in args.named_children)

    def compares_name(self, node: Node) -> bool:
        """``(t) => t.name === name``: a callback picking the element of a tool's name."""
        if node.type not in FUNCTIONS:
            return False
        body = unwrap(node.child_by_field_id(self.a.fields.body))
        if body is None or body.type != "binary_expression" or self.a.code.operator_of(body) not in ("===", "=="):
            return False
        sides = (body.child_by_field_id(self.a.fields.left), body.child_by_field_id(self.a.fields.right))
        return all(self.a.names_tool(side) for side in sides)

    def note_listing(self, name: Node | None, scope: Scope, handler: Node | None = None) -> bool:
        """A tool definition or registration named ``this.name`` / ``this.getName()`` in a method of a class:
        the class (and each class extending it) lists its instances to the model, run by ``handler``'s method
        when the registration names one (``this.execute.bind(this)``)."""
        if scope.cls is None:
            return False
        node = unwrap(name)
        if node is not None and node.type == "call_expression":
            node = unwrap(node.child_by_field_id(self.a.fields.function))
        if node is None or node.type != "member_expression":
            return False
        holder = unwrap(node.child_by_field_id(self.a.fields.object))
        if holder is None or holder.type != "this":
            return False
        self.listing[scope.cls] = self.handler_method(handler) or self.listing.get(scope.cls, "")
        return True

    def handler_method(self, handler: Node | None) -> str | None:
        """``this.execute.bind(this)`` / ``this.execute`` / ``(args) => this.execute(args)``: ``execute``."""
        node = unwrap(handler)
        fields = self.a.fields
        if node is not None and node.type in FUNCTIONS:
            body = unwrap(node.child_by_field_id(fields.body))
            node = unwrap(body.child_by_field_id(fields.function)) if body and body.type == "call_expression" else None
        if node is not None and node.type == "call_expression":  # this.execute.bind(this)
            func = unwrap(node.child_by_field_id(fields.function))
            node = unwrap(func.child_by_field_id(fields.object)) if func and func.type == "member_expression" else None
        if node is None or node.type != "member_expression":
            return None
        holder = unwrap(node.child_by_field_id(fields.object))
        if holder is None or holder.type != "this":
            return None
        return self.a.code.text(node.child_by_field_id(fields.property)) or None

    def note_elements(self, node: Node, name: Node | None, handler: Node | None, rule: Rule, scope: Scope) -> bool:
        """``server.tool(tool.name, tool.description, tool.schema, (p) => tool.handler(p))`` in ``for (const tool
        of this.tools)`` with ``tools: Tool[]`` (a field a container fills: ``@multiInject(TOOL) tools: Tool[]``):
        each element is an instance of a class of the tree implementing ``Tool``, so every such class that names
        itself is a tool, run by the method the handler calls on the element (settled by the linker, which
        answers the registration's frontier item once one is). True when ``name`` is such an element's field."""
        inner = unwrap(name)
        if inner is None or inner.type != "member_expression" or not scope.element_types:
            return False
        holder = unwrap(inner.child_by_field_id(self.a.fields.object))
        if holder is None or holder.type != "identifier":
            return False
        variable = self.a.code.text(holder)
        element = scope.element_types.get(variable)
        if element is None:
            return False
        before = len(self.a.frontier)
        self.unnamed_tool(node, name, rule, scope)
        frontier = self.a.frontier[-1].id if len(self.a.frontier) > before else None
        method = self.element_method(handler, variable) or ""
        self.served.append(ServedElements(type=element, method=method, frontier=frontier))
        return True

    def element_method(self, handler: Node | None, variable: str) -> str | None:
        """The method a registration's handler calls on the element ``variable`` (``(p) => tool.handler(p)``)."""
        node = unwrap(handler)
        if node is None or node.type not in FUNCTIONS:
            return None
        fields = self.a.fields
        code = self.a.code
        pending = [node]
        while pending:
            current = pending.pop()
            if current.type == "call_expression":
                func = unwrap(current.child_by_field_id(fields.function))
                if func is not None and func.type == "member_expression":
                    target = unwrap(func.child_by_field_id(fields.object))
                    if target is not None and target.type == "identifier" and code.text(target) == variable:
                        return code.text(func.child_by_field_id(fields.property)) or None
            pending.extend(reversed(current.named_children))
        return None

    def class_uses(self) -> ToolClassUses | None:
        if not (self.gathered or self.dispatched or self.listing or self.served or self.implementing):
            return None
        return ToolClassUses(
            gathered=sorted(self.gathered),
            dispatched=dict(sorted(self.dispatched.items())),
            listing=dict(sorted(self.listing.items())),
            served=self.served,
            implements=dict(sorted(self.implementing.items())),
        )
