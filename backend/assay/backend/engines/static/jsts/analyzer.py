"""The walk over one file: functions, statements with structured gate dominance, expressions with taint.

Every function in the file becomes a ``FunctionFacts``: top-level code is ``<module>#<module>``, named
functions and class methods get their own qualnames, tool handlers ``<module>#tool:<name>``. Anonymous
callbacks (``arr.map(x => ...)``, ``new Promise((res) => ...)``, ``limiter.schedule(() => ...)``) are
analysed in place, as part of the function that creates them: they can only run after they are created,
so the gates that hold where they are created hold inside them, and their calls and actions are reached
from wherever the enclosing function is.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    EXIT,
    OK_EXIT,
    VALUE_EXIT,
    ArgTaint,
    CallFact,
    FieldWrite,
    FunctionFacts,
    GateSite,
)
from assay.backend.engines.static.jsts.base import origin_key
from assay.backend.engines.static.jsts.declarations import Declarations
from assay.backend.engines.static.jsts.graph_state import GraphStateLogic
from assay.backend.engines.static.jsts.names import Imports
from assay.backend.engines.static.jsts.rules import JsRules
from assay.backend.engines.static.jsts.scope import Pending, Scope, call_return_taint, param_taint
from assay.backend.engines.static.jsts.statements import StmtLogic
from assay.backend.engines.static.jsts.syntax import Code
from assay.backend.engines.static.jsts.tools import ToolRecognizer
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.scans.bundle import Location


class FileAnalyzer(StmtLogic, GraphStateLogic):
    """Analyses one parsed file into functions, models, tools and frontier sites."""

    def __init__(self, path: str, code: Code, root: Node, rules: JsRules, imports: Imports) -> None:
        super().__init__(path, code, root, rules, imports)
        self.tool_recognizer = ToolRecognizer(self)
        self.gemini_declarations = Declarations(self)

    def run(self) -> None:
        module_scope = self.module_scope
        active: frozenset[str] = frozenset()
        self.function_types()
        if self.rules.declaration_rule is not None:
            self.gemini_declarations.prepare(self.rules.declaration_rule)
        for stmt in self.root.named_children:
            try:
                active = self.stmt(stmt, module_scope, active)
            except RecursionError:
                self.too_deep(stmt)
        self.emit(module_scope, None, "<module>")
        done: set[int] = set()
        index = 0
        while index < len(self.pending):
            item = self.pending[index]
            index += 1
            if item.node.id in done:
                continue
            done.add(item.node.id)
            self.function(item)
        self.factory_implementations()

    def factory_implementations(self) -> None:
        """``function createGateway(notion: Client): Gateway { return { async getPage(id) {...} } }``: a function
        declared to return a type of the tree, whose returned object's methods are functions of their own
        (``<factory>.getPage``, ``returned_methods``), implements that type as a class would. A call typed by it
        (``gateway.getPage(id)`` with ``gateway: Gateway``) runs the method: for each, a function named as the
        type's method (``<module>#Gateway.getPage``) that calls it, joined by the linker with those of every
        implementing class or factory (as ``overrides`` does for classes). An object literal of functions
        declared as such a type (``const client: DbClient = { run(sql) {...} }``) implements it the same way."""
        factories = {f: t for f, t in self.return_types.items() if "#" in t and "." not in t.partition("#")[2]}
        factories.update(self.typed_objects)
        if not factories:
            return
        made: list[FunctionFacts] = []
        for fn in self.functions:
            owner, _, method = fn.qualname.rpartition(".")
            supertype = factories.get(owner)
            if supertype is None or not method:
                continue
            qualname = f"{supertype}.{method}"
            call = trusted(
                CallFact,
                location=fn.location,
                callee=fn.qualname,
                resolved=True,
                dominatingGates=[],
                args=[
                    ArgTaint(index=i, origins=sorted(param_taint(p, i), key=origin_key), whole=True)
                    for i, p in enumerate(fn.params)
                ],
            )
            made.append(
                trusted(
                    FunctionFacts,
                    id=short_id("fn", self.path, qualname),
                    qualname=qualname,
                    name=method,
                    location=fn.location,
                    params=list(fn.params),
                    calls=[call],
                    actions=[],
                    gates=[],
                    returns=sorted(call_return_taint(fn.qualname), key=origin_key),
                    fieldWrites=[],
                )
            )
        self.functions.extend(made)

    def function_types(self) -> None:
        """A type alias of a function type (``type ClientFactory = () => ISSHClient``): calling a value of that
        type gives what the alias returns, so ``clientFactory().execute(cmd)`` is a call of
        ``ISSHClient.execute`` (and through it of every class implementing it). Here and in importing files
        (the linker reads the alias as a function of no body whose ``returnType`` says it)."""
        for name, shape in self.imports.shapes.items():
            if shape.type != "function_type":
                continue
            returned = self.type_name(shape.child_by_field_id(self.fields.return_type))
            if not returned or "#" not in returned:
                continue
            qualname = f"{self.module}#{name}"
            self.return_types[qualname] = returned
            self.functions.append(
                trusted(
                    FunctionFacts,
                    id=short_id("fn", self.path, qualname),
                    qualname=qualname,
                    name=name,
                    location=self.loc(shape),
                    params=[],
                    calls=[],
                    actions=[],
                    gates=[],
                    returns=[],
                    fieldWrites=[],
                    returnShape=None,
                    returnType=returned,
                )
            )

    def defer(
        self,
        node: Node,
        qualname: str,
        name: str,
        cls: str | None = None,
        gates: Sequence[GateSite] = (),
        outer: Scope | None = None,
    ) -> None:
        """Analyse ``node`` as a function of its own, after the current one. ``outer`` is the scope it is
        created in: a closure sees the typed variables of the function around it (``db: SqlDatabase``
        in a factory that builds tools over it)."""
        self.claimed.add(node.id)
        returned = self.type_name(node.child_by_field_id(self.fields.return_type))
        if returned:
            self.return_types[qualname] = returned
        closure = outer if outer is not None and not outer.is_module else None
        types = closure.types if closure is not None and closure.types else None
        functions = closure.locals if closure is not None and closure.locals else None
        self.pending.append(
            Pending(node=node, qualname=qualname, name=name, cls=cls, gates=tuple(gates), types=types, locals=functions)
        )

    def function(self, item: Pending) -> None:
        self.known_callees.clear()  # only ever left over when a chain was too deep to walk
        params, types = self.params(item.node)
        if item.types:  # a closure: the enclosing function's typed names, unless a parameter shadows them
            types = {**{k: v for k, v in item.types.items() if k not in params}, **types}
        scope = Scope(qualname=item.qualname, params=params, cls=item.cls, types=types)
        scope.state = self.state_param(item.node)
        scope.opaque_params = self.opaque_params(item.node)
        self.param_defaults(item.node, scope)
        if item.locals:  # a closure calls the functions declared around it (``validatePath`` in a factory)
            scope.locals.update({k: v for k, v in item.locals.items() if k not in params})
        for index, param in enumerate(params):
            scope.taint[param] = param_taint(param, index)
        for gate in item.gates:
            scope.add_gate(gate)
        if "next" in params:  # a middleware: refusing some requests, it is a gate in front of a route
            front = self.middleware_gate(item.node, scope)
            if front is not None:
                self.front_gates[item.qualname] = front
        entry = frozenset(g.id for g in item.gates)
        body = item.node.child_by_field_id(self.fields.body)
        try:
            if body is not None and body.type == "statement_block":
                end = self.block(body.named_children, scope, entry)
                exits = end if scope.exits is None else scope.exits & end
                if exits - entry:
                    self.exit_gates(scope, item.node, exits)
                if scope.ok_exits is not None and scope.ok_exits - entry:
                    self.exit_gates(scope, item.node, scope.ok_exits, OK_EXIT)
                if scope.value_exits is not None and scope.value_exits - entry and scope.value_exits != exits:
                    self.exit_gates(scope, item.node, scope.value_exits, VALUE_EXIT)
            elif body is not None:  # an arrow function's expression body is its return value
                taint = self.return_value(body, scope, entry)
                self.value_exit(body, scope, entry)
                if scope.value_exits is not None and scope.value_exits - entry:
                    self.exit_gates(scope, item.node, scope.value_exits, VALUE_EXIT)
                scope.returns |= taint
                self.note_return(body, taint, scope)
                self.returned_type(body, scope)
                self.returned_middleware(body, scope)
                self.tool_recognizer.returned_tools(body, scope)
        except RecursionError:
            self.too_deep(item.node)
        self.emit(scope, item.node, item.name)

    def exit_gates(self, scope: Scope, node: Node, exits: frozenset[str], callee: str = EXIT) -> None:
        """The gates that hold whenever the function returns normally (a validator that throws unless
        its check passes), as a call to ``<exit>``: the linker gives them to every statement after a
        call to this function (see ``StmtLogic.after_call``). With ``OK_EXIT``: those that hold where it
        returns a success result (``{ ok: true }``), given to a check of that flag."""
        scope.calls.append(
            trusted(
                CallFact,
                location=self.loc(node),
                callee=callee,
                resolved=True,
                dominatingGates=sorted(exits),
                args=[],
            )
        )

    def params(self, node: Node) -> tuple[list[str], dict[str, str]]:
        """A function's parameter names (destructured names flattened) and the TypeScript types of
        the plain ones (``client: OpenAI``)."""
        kinds = self.code.kinds
        params_node = node.child_by_field_id(self.fields.parameters) or node.child_by_field_id(self.fields.parameter)
        if params_node is None:
            return [], {}
        if kinds[params_node.kind_id] == "identifier":
            return [self.code.text(params_node)], {}
        names: list[str] = []
        types: dict[str, str] = {}
        for param in params_node.named_children:
            typed = kinds[param.kind_id].endswith("_parameter")  # required_parameter / optional_parameter (TypeScript)
            pattern = param.child_by_field_id(self.fields.pattern) if typed else param
            if pattern is None:
                continue
            if kinds[pattern.kind_id] != "identifier":
                names.extend(self.code.pattern_names(pattern))
                if typed and kinds[pattern.kind_id] == "object_pattern":
                    self.destructured_types(pattern, param.child_by_field_id(self.fields.type), types)
                continue
            name = self.code.text(pattern)
            names.append(name)
            if typed:
                annotation = param.child_by_field_id(self.fields.type)
                type_name = self.type_name(annotation)
                if type_name:
                    types[name] = type_name
                members: dict[str, str] = {}
                self.member_types(annotation, members)
                for member, member_type in members.items():  # ``const { sandbox } = ctx`` later
                    types[f"{name}.{member}"] = member_type
        return names, types

    def param_defaults(self, node: Node, scope: Scope) -> None:
        """``(prompt, model = "gpt-4o-mini")``, ``({ modelId = DEFAULT_MODEL }: Options)``: a parameter's string
        default is the value used unless a caller passes one, a fallback as ``process.env.MODEL ?? "gpt-5"``
        is (the model id a call names through it, never a constant the code always uses)."""
        kinds = self.code.kinds
        params_node = node.child_by_field_id(self.fields.parameters)
        if params_node is None:
            return
        fields = self.fields
        for param in params_node.named_children:
            if kinds[param.kind_id].endswith("_parameter"):  # required_parameter / optional_parameter (TypeScript)
                pattern, value = param.child_by_field_id(fields.pattern), param.child_by_field_id(fields.value)
            elif kinds[param.kind_id] == "assignment_pattern":
                pattern, value = param.child_by_field_id(fields.left), param.child_by_field_id(fields.right)
            else:
                pattern, value = param, None
            if pattern is None:
                continue
            if value is not None and kinds[pattern.kind_id] == "identifier":
                self._param_default(pattern, value, scope)
            elif kinds[pattern.kind_id] == "object_pattern":
                for part in pattern.named_children:
                    if kinds[part.kind_id] == "object_assignment_pattern":
                        left = part.child_by_field_id(fields.left)
                        right = part.child_by_field_id(fields.right)
                        if (
                            left is not None
                            and right is not None
                            and kinds[left.kind_id] == "shorthand_property_identifier_pattern"
                        ):
                            self._param_default(left, right, scope)

    def _param_default(self, name: Node, value: Node, scope: Scope) -> None:
        text = self.constant(value, scope)
        if text:
            scope.fallbacks[self.code.text(name)] = text
        elif self.code.kinds[value.kind_id] == "identifier":
            # ``createWebTools(runner = defaultRunner)``: a call through the parameter runs the function it defaults to,
            # of the tree or imported (what a caller passes instead is the caller's; ``createWebTools()`` passes none).
            held = self.code.text(value)
            found = self.imports.local_defs.get(held) or self.imports.aliases.get(held)
            if found is not None:
                scope.types[self.code.text(name)] = found

    def opaque_params(self, node: Node) -> frozenset[str]:
        """The plain parameters whose type the code does not say: no annotation, ``any`` or ``unknown``
        (a call on one of their members is read by the linker as a call on what the callers pass)."""
        kinds = self.code.kinds
        params_node = node.child_by_field_id(self.fields.parameters) or node.child_by_field_id(self.fields.parameter)
        if params_node is None:
            return frozenset()
        if kinds[params_node.kind_id] == "identifier":
            return frozenset({self.code.text(params_node)})
        out: set[str] = set()
        for param in params_node.named_children:
            typed = kinds[param.kind_id].endswith("_parameter")
            pattern = param.child_by_field_id(self.fields.pattern) if typed else param
            if pattern is None or kinds[pattern.kind_id] != "identifier":
                continue
            annotation = param.child_by_field_id(self.fields.type) if typed else None
            written = self.code.text(annotation).lstrip(":").strip() if annotation is not None else ""
            if written in ("", "any", "unknown"):
                out.add(self.code.text(pattern))
        return frozenset(out)

    def member_types(self, annotation: Node | None, types: dict[str, str]) -> None:
        """The typed members of an interface or object type of this file (``ctx: RunContext`` whose
        ``sandbox: Sandbox``): member name -> type."""
        shape = annotation.named_children[0] if annotation is not None and annotation.named_children else None
        if shape is not None and shape.type == "type_identifier":
            shape = self.imports.shapes.get(self.code.text(shape))
        if shape is None or shape.type not in ("object_type", "interface_body"):
            return
        for m in shape.named_children:
            if m.type == "property_signature":
                found = self.type_name(m.child_by_field_id(self.fields.type))
                if found:
                    types[self.code.text(m.child_by_field_id(self.fields.name))] = found

    def destructured_types(self, pattern: Node, annotation: Node | None, types: dict[str, str]) -> None:
        """``{ sandbox, writer }: Dependencies`` (an interface or type of this file) or ``{ sandbox }:
        { sandbox: Sandbox }``: each destructured name takes its property's type."""
        shape = annotation.named_children[0] if annotation is not None and annotation.named_children else None
        if shape is not None and shape.type == "type_identifier":
            named = shape
            shape = self.imports.shapes.get(self.code.text(shape))
            if shape is None:
                # ``{ browserService }: BrowserToolContext`` with the interface imported: each name is that
                # member of the type (``<other>#BrowserToolContext.browserService``), which the declaring file
                # types (``frontend._member_types``) for the linker.
                held = self.type_name(named)
                if held is not None and "#" in held:
                    for key, local in self._destructured_names(pattern):
                        types[local] = f"{held}.{key}"
                return
        if shape is None or shape.type not in ("object_type", "interface_body"):
            return
        members = {
            self.code.text(m.child_by_field_id(self.fields.name)): m.child_by_field_id(self.fields.type)
            for m in shape.named_children
            if m.type == "property_signature"
        }
        for key, local in self._destructured_names(pattern):
            found = self.type_name(members.get(key))
            if found:
                types[local] = found

    def _destructured_names(self, pattern: Node) -> list[tuple[str, str]]:
        """The (property, local name) pairs an object pattern binds: ``{ a, b: c }`` -> ``a, a``, ``b, c``."""
        out: list[tuple[str, str]] = []
        for part in pattern.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                out.append((self.code.text(part), self.code.text(part)))
            elif (
                part.type == "pair_pattern"
                and (value := part.child_by_field_id(self.fields.value)) is not None
                and value.type == "identifier"
            ):
                out.append((self.code.text(part.child_by_field_id(self.fields.key)), self.code.text(value)))
        return out

    def emit(self, scope: Scope, node: Node | None, name: str) -> str:
        """Records the function ``scope`` walked; returns its qualname (made unique in the file)."""
        if node is None and not (scope.calls or scope.actions or scope.gates or scope.qualname in self.route_handlers):
            return scope.qualname
        location = self.loc(node) if node is not None else Location(path=self.path, line=1, column=1)
        qualname = scope.qualname
        behind = self.request_servers.get(qualname)
        front_gate = self.front_gates.get(qualname)
        fronts = self.front_names.get(qualname, [])
        routes = self.route_handlers.get(qualname, [])
        if qualname in self.emitted:  # a getter and its setter, a redeclared function: keep both
            qualname = f"{qualname}@{location.line}:{location.column}"
        self.emitted.add(qualname)
        returned = self.return_type(node, scope) if node is not None else None
        self.functions.append(
            trusted(
                FunctionFacts,
                id=short_id("fn", self.path, qualname),
                qualname=qualname,
                name=name,
                location=location,
                params=list(scope.params),  # copies, as validation would make: the scope's lists are shared
                calls=list(scope.calls),
                actions=list(scope.actions),
                gates=sorted(scope.gates, key=lambda g: (g.location.line, g.location.column, g.id)),
                returns=sorted(scope.returns, key=origin_key),
                fieldWrites=[
                    FieldWrite(field=key, origins=sorted(taint, key=origin_key))
                    for key, taint in sorted(scope.field_writes.items())
                ],
                servesRequests=behind is not None,
                servedBehind=tuple(sorted(behind)) if behind else (),
                frontGate=front_gate,
                fronts=tuple(fronts),
                routes=tuple(routes),
                returnShape=scope.return_shape,
                returnType=returned,
                returnCandidates=self.return_candidates(scope) if node is not None and returned is None else None,
            )
        )
        return qualname

    def nested_qualname(self, scope: Scope, name: str) -> str:
        if scope.is_module:
            return self.imports.local_defs.get(name, f"{self.module}#{name}")
        return f"{scope.qualname}.{name}"
