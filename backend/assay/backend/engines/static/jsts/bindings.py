"""Bindings: declarations, assignments and classes, i.e. what each name holds (a function of the tree,
a typed client, a constant string, a gate's outcome, a function looked up by key, taint)."""

from __future__ import annotations

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import ArgTaint, CallFact, FunctionFacts
from assay.backend.engines.static.jsts.base import origin_key
from assay.backend.engines.static.jsts.calls import CallLogic
from assay.backend.engines.static.jsts.names import require_spec
from assay.backend.engines.static.jsts.scope import EMPTY, Scope, Taint, call_return_taint, param_taint
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, unwrap
from assay.backend.engines.static.pyast.models import trusted

# The expressions ``cond`` can read a gate from (anything else proves nothing).
_CONDITIONS = frozenset({"unary_expression", "identifier", "call_expression", "binary_expression"})


class BindingLogic(CallLogic):
    """``const``/``let``/``var`` declarations, assignments, CommonJS exports, class bodies and fields."""

    def declare(
        self, decl: Node, scope: Scope, active: frozenset[str], name_node: Node | None, value: Node | None
    ) -> None:
        """One declarator (``decl``) with its name (or pattern) and value nodes, as its statement read them."""
        kinds = self.code.kinds
        if name_node is None:
            return
        if value is None:
            for name in self.code.pattern_names(name_node):
                scope.taint[name] = EMPTY
            if kinds[name_node.kind_id] == "identifier":  # ``let manager: GraphManager;``, assigned later
                self.declared_type(self.code.text(name_node), decl, scope)
            return
        inner = unwrap(value)
        kind = kinds[inner.kind_id] if inner is not None else ""
        is_ident = kinds[name_node.kind_id] == "identifier"
        name_text = self.code.text(name_node) if is_ident else ""
        if inner is not None and is_ident and kind in FUNCTIONS:
            qualname = self.nested_qualname(scope, name_text)
            if not scope.is_module:
                scope.locals[name_text] = qualname
            self.defer(inner, qualname, name_text, cls=scope.cls, outer=scope)
            return
        if inner is not None and is_ident and kind == "class":
            self.class_body(inner, scope, name_text)
            return
        spec = require_spec(inner, self.code) if kind == "call_expression" else None
        if spec is not None:
            if not scope.is_module:  # a require inside a function: bind it like an import
                if is_ident:
                    scope.types[name_text] = self.imports.namespace(spec)
                else:
                    for part in name_node.named_children:
                        if kinds[part.kind_id] == "shorthand_property_identifier_pattern":
                            scope.types[self.code.text(part)] = self.imports.member(spec, self.code.text(part))
            return
        implemented = self.implemented_type(decl, inner) if is_ident and kind == "object" else None
        if implemented is not None and inner is not None:
            # ``const client: DbClient = { run(sql) {...}, exec(sql) {...} }``: its methods are functions of
            # their own, and the object implements the interface it is declared as (``factory_implementations``).
            owner = self.nested_qualname(scope, name_text)
            self.typed_objects[owner] = implemented
            taint = self.object(inner, scope, active, owner=owner)
        elif inner is not None and is_ident and kind == "object" and scope.is_module:
            taint = self.object(inner, scope, active, owner=self.nested_qualname(scope, name_text))
        else:
            taint = self.expr(value, scope, active)
        if not is_ident:
            for name in self.code.pattern_names(name_node):
                scope.taint[name] = taint
                scope.assembled.add(name)
            if inner is not None and kind == "call_expression" and kinds[name_node.kind_id] == "object_pattern":
                self.destructured_result(name_node, inner, scope)
                # ``const { ok } = await prompts({ type: "confirm", ... })``: the fields of a person's answer
                # hold what the question proves, as the whole answer bound to a name does.
                held = self.held_cond(inner, scope)
                for name in self.code.pattern_names(name_node):
                    if held:
                        scope.gate_vars[name] = held
                    else:
                        scope.gate_vars.pop(name, None)
            if kind == "identifier" and kinds[name_node.kind_id] == "object_pattern":  # const { sandbox } = ctx
                holder = self.code.text(inner)
                for part in name_node.named_children:
                    if kinds[part.kind_id] == "shorthand_property_identifier_pattern":
                        key = local = self.code.text(part)
                    elif (
                        kinds[part.kind_id] == "pair_pattern"
                        and (v := part.child_by_field_id(self.fields.value)) is not None
                    ):
                        key, local = self.code.text(part.child_by_field_id(self.fields.key)), self.code.text(v)
                    else:
                        continue
                    member_type = scope.types.get(f"{holder}.{key}")
                    holder_type = scope.types.get(holder)
                    if not member_type and holder_type and "#" in holder_type and not holder_type.endswith("#"):
                        # ``const { docker } = context`` with ``context: ToolContext`` of another file: that
                        # interface's member, named for the linker to read (``FileFacts.bindings``).
                        member_type = f"{holder_type}.{key}"
                    if not member_type and scope.is_module and "#" not in self.imports.aliases.get(holder, "#"):
                        # ``import pkg from "pg"; const { Pool } = pkg``: the package's member (``collect_imports``).
                        member_type = self.imports.aliases.get(local)
                    if member_type:
                        scope.types[local] = member_type
            return
        scope.taint[name_text] = taint
        self.bind_whole(name_text, inner, scope)
        if implemented is not None:
            self.declared_type(name_text, decl, scope)
        if not scope.is_module:
            self.note_fixed(name_text, inner, scope)
        if inner is None:
            return
        if (kind == "call_expression" or kind == "subscript_expression") and self.tool_recognizer.is_lookup(inner):
            scope.found_vars = scope.found_vars | {name_text}  # ``const tool = tools.get(name)``: found by name
        if kind == "binary_expression" and self.code.operator_of(inner) in ("??", "||"):
            # ``globalThis.prisma ?? new PrismaClient()``: a cached instance or a new one, of the fallback's type.
            # ``options.fsApi || fs``, ``opts.client ?? defaultClient``: a client given or the one held here,
            # of the held one's type when that is known (an import, a typed binding).
            made = unwrap(inner.child_by_field_id(self.fields.right))
            if (
                made is not None
                and kinds[made.kind_id] in ("call_expression", "new_expression", "identifier", "member_expression")
                and self.dotted(made, scope)[1]
            ):
                inner, kind = made, kinds[made.kind_id]
        if self.declared_type(name_text, decl, scope):
            pass
        elif kind in ("call_expression", "new_expression", "identifier", "member_expression"):
            type_name, _ = self.dotted(inner, scope)
            if type_name == "util.promisify" and kind == "call_expression":
                # ``const run = promisify(exec)``: ``run`` runs what ``exec`` runs.
                args = inner.child_by_field_id(self.fields.arguments)
                wrapped = args.named_children[0] if args is not None and args.named_children else None
                type_name = self.dotted(wrapped, scope)[0] if wrapped is not None else None
            elif kind == "call_expression" and (bound := self.bound_function(inner)) is not None:
                # ``const run = cp.exec.bind(cp)``: ``run`` runs what ``cp.exec`` runs.
                type_name = self.dotted(bound, scope)[0]
            if type_name:
                scope.types[name_text] = type_name
                if scope.is_module:
                    self.module_types[name_text] = type_name
            # A package's client built for a model host (``createOpenAI({ baseURL })``): read once, where it is bound.
            packaged = type_name is not None and "#" not in type_name and kind in ("call_expression", "new_expression")
            host = self.client_host(inner, scope) if packaged else None
            if host is not None:
                scope.hosts[name_text] = host
                if scope.is_module:
                    self.module_hosts[name_text] = host
        elif kind in ("string", "template_string") and (
            kind == "string"
            or len(inner.named_children)
            == sum(1 for c in inner.named_children if kinds[c.kind_id] == "string_fragment")
        ):
            constant = self.code.string_value(inner)
            if constant is not None:
                scope.consts[name_text] = constant
                if scope.is_module:
                    self.module_consts[name_text] = constant
        elif kind == "ternary_expression":
            arms = [unwrap(inner.child_by_field_id(f)) for f in (self.fields.consequence, self.fields.alternative)]
            values = [
                self.code.string_value(a) if a is not None and kinds[a.kind_id] == "string" else None for a in arms
            ]
            if all(values):
                scope.choices[name_text] = tuple(v for v in values if v)
        elif kind == "template_string":
            scope.shapes[name_text] = self.shape(inner, scope)
        elif kind == "binary_expression" and self.code.operator_of(inner) in ("??", "||"):
            fallback = self.code.string_value(unwrap(inner.child_by_field_id(self.fields.right)))
            if fallback:  # ``const model = process.env.MODEL ?? "gpt-5"``
                scope.fallbacks[name_text] = fallback
                if scope.is_module:
                    self.module_fallbacks[name_text] = fallback
        elif kind == "subscript_expression":
            index = inner.child_by_field_id(self.fields.index)
            if index is not None and kinds[index.kind_id] not in ("string", "number"):
                scope.dispatch_vars.add(name_text)
        self.bind_check(name_text, inner, scope)

    def bound_function(self, call: Node) -> Node | None:
        """``f`` of ``f.bind(thisArg, ...)``: the function a bound copy runs (None for any other call)."""
        func = unwrap(call.child_by_field_id(self.fields.function))
        if func is None or self.code.kinds[func.kind_id] != "member_expression":
            return None
        if self.code.raw(func.child_by_field_id(self.fields.property)) != b"bind":
            return None
        return func.child_by_field_id(self.fields.object)

    def bind_check(self, name: str, inner: Node | None, scope: Scope) -> None:
        """``const ok = ALLOWED.has(cmd)`` / ``permitted = await askPermission(msg)``: the name holds what
        the check proves (its sites held until a path depends on it); any other value replaces that."""
        kinds = self.code.kinds
        cond = self.held_cond(inner, scope) if inner is not None and kinds[inner.kind_id] in _CONDITIONS else None
        if cond:
            scope.gate_vars[name] = cond
        else:
            scope.gate_vars.pop(name, None)

    @staticmethod
    def whole_value(inner: Node | None, scope: Scope, text: str) -> bool:
        """Whether a bound value is another name's value or a call's result, unchanged."""
        if inner is None:
            return False
        return inner.type == "call_expression" or (inner.type == "identifier" and text not in scope.assembled)

    def bind_whole(self, name: str, inner: Node | None, scope: Scope) -> None:
        """Tracks which names hold a value built from others (``scope.assembled``)."""
        kinds = self.code.kinds
        text = self.code.text(inner) if inner is not None and kinds[inner.kind_id] == "identifier" else ""
        if self.whole_value(inner, scope, text):
            scope.assembled.discard(name)
        else:
            scope.assembled.add(name)

    def destructured_result(self, pattern: Node, call: Node, scope: Scope) -> None:
        """``const { resolvePath } = createResolver(root)``, ``createResolver`` a function of the tree: each
        name taken out of its result is that member of the result (``<module>#createResolver.resolvePath``),
        the function a factory returning an object of functions makes of it (``StmtLogic.returned_methods``)."""
        made, _ = self.dotted(call, scope)
        if made is None or "#" not in made or made.endswith("#"):
            return
        for part in pattern.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                key = local = self.code.text(part)
            elif part.type == "pair_pattern" and (v := part.child_by_field_id(self.fields.value)) is not None:
                if v.type != "identifier":
                    continue
                key, local = self.code.key_name(part.child_by_field_id(self.fields.key)), self.code.text(v)
            else:
                continue
            scope.types[local] = f"{made}.{key}"
            if scope.is_module:
                self.module_types[local] = f"{made}.{key}"

    def implemented_type(self, decl: Node, value: Node | None) -> str | None:
        """The type of the tree an object literal of functions is declared as (``const client: DbClient =
        { ... }``), which it implements as a class would; ``None`` for data, or a type that is not the tree's."""
        declared = self.type_name(decl.child_by_field_id(self.fields.type))
        if not declared or "#" not in declared or "." in declared.partition("#")[2] or value is None:
            return None
        return declared if self.has_methods(value) else None

    def has_methods(self, obj: Node) -> bool:
        """Whether an object literal holds functions (``{ run(sql) {...} }``, ``{ run: async (sql) => ... }``)."""
        for child in obj.named_children:
            if child.type == "method_definition":
                return True
            if (
                child.type == "pair"
                and (v := unwrap(child.child_by_field_id(self.fields.value))) is not None
                and v.type in FUNCTIONS
            ):
                return True
        return False

    def declared_type(self, name: str, decl: Node, scope: Scope) -> bool:
        """Binds ``name`` to the class or interface of its TypeScript annotation (``let db: DbAdapter | null``)."""
        type_name = self.type_name(decl.child_by_field_id(self.fields.type))
        if not type_name:
            return False
        scope.types[name] = type_name
        if scope.is_module:
            self.module_types[name] = type_name
        return True

    def assign(self, expr: Node, scope: Scope, active: frozenset[str]) -> Taint:
        left = expr.child_by_field_id(self.fields.left)
        right = expr.child_by_field_id(self.fields.right)
        inner = unwrap(right)
        if left is not None and left.type == "member_expression" and scope.is_module and inner is not None:
            target = self.commonjs_export(self.code.text(left))
            if target is not None and inner.type in FUNCTIONS:
                self.defer(inner, target, target.rsplit("#", 1)[1])
                return EMPTY
            if target is not None and inner.type == "object":
                return self.object(inner, scope, active, owner=f"{self.module}#")
        if (
            left is not None
            and left.type == "identifier"
            and self.code.text(left) in ("exports",)
            and inner is not None
            and inner.type == "object"
        ):
            return self.object(inner, scope, active, owner=f"{self.module}#")
        taint = self.expr(right, scope, active)
        if expr.type == "augmented_assignment_expression" and left is not None and left.type == "identifier":
            scope.taint[self.code.text(left)] = scope.taint_of(self.code.text(left)) | taint
            scope.assembled.add(self.code.text(left))
            if not self.fixed_piece(right, scope):
                scope.fixed.discard(self.code.text(left))
        elif left is not None and left.type == "identifier":
            name = self.code.text(left)
            scope.taint[name] = taint
            scope.fixed.discard(name)
            self.bind_whole(name, inner, scope)
            self.bind_check(name, inner, scope)
            if inner is not None and inner.type in ("call_expression", "new_expression"):
                type_name, _ = self.dotted(inner, scope)
                if type_name:
                    scope.types[name] = type_name
        elif left is not None and left.type in ("member_expression", "subscript_expression"):
            base = left
            while base.type in ("member_expression", "subscript_expression"):
                base = base.child_by_field_id(self.fields.object) or base
                if base.type not in ("member_expression", "subscript_expression"):
                    break
            if base.type == "identifier":
                scope.taint[self.code.text(base)] = scope.taint_of(self.code.text(base)) | taint
            elif base.type == "this" and scope.cls and taint:
                # ``this.command = command``: the class's other methods read it back (``field`` origins).
                key = f"{scope.cls}.{self.field_name(left)}"
                scope.field_writes[key] = scope.field_writes.get(key, EMPTY) | taint
            if (
                base.type == "this"
                and scope.cls
                and left.type == "member_expression"
                and inner is not None
                and inner.type in ("new_expression", "call_expression")
            ):
                type_name, _ = self.dotted(inner, scope)
                prop = self.code.text(left.child_by_field_id(self.fields.property))
                if type_name and left.child_by_field_id(self.fields.object) == base:
                    self.field_types.setdefault(f"{scope.cls}.{prop}", type_name)
                    if inner.type == "new_expression" and self.field_types[f"{scope.cls}.{prop}"] == type_name:
                        self.instance_fields.add(f"{scope.cls}.{prop}")
        elif left is not None:
            for name in self.code.pattern_names(left):
                scope.taint[name] = taint
        return taint

    def field_name(self, member: Node) -> str:
        """The field of ``this`` a member chain starts with (``this.config.cmd`` -> ``config``)."""
        while True:
            inner = member.child_by_field_id(self.fields.object)
            if inner is None or inner.type not in ("member_expression", "subscript_expression"):
                break
            member = inner
        prop = member.child_by_field_id(self.fields.property)
        return self.code.text(prop) if prop is not None else "[]"

    def commonjs_export(self, target: str) -> str | None:
        """The qualname a CommonJS export assignment defines (``exports.run = ...`` -> ``mod#run``)."""
        if target in ("module.exports", "exports"):
            return f"{self.module}#default"
        for prefix in ("module.exports.", "exports."):
            if target.startswith(prefix) and "." not in target[len(prefix) :]:
                return f"{self.module}#{target[len(prefix) :]}"
        return None

    def class_body(self, node: Node, scope: Scope, name: str) -> None:
        """Methods become functions ``<module>#Class.method``; field and constructor-assigned types
        (``this.client = new OpenAI()``) resolve ``this.client.…`` calls in every method."""
        if not name:
            name = self.code.enclosing_binding(node) or f"<class@{node.start_point[0] + 1}>"
        cls = self.nested_qualname(scope, name)
        body = node.child_by_field_id(self.fields.body)
        if body is None:
            return
        found = len(self.tools)
        self.tool_recognizer.class_tool(node, cls, body)
        listed = False
        if len(self.tools) == found:
            self.tool_recognizer.listed_class(cls, body, scope)
            listed = len(self.tools) > found
        self.class_methods[cls] = {
            self.code.text(m.child_by_field_id(self.fields.name) or m.child_by_field_id(self.fields.property)).lstrip(
                "#"
            )
            for m in body.named_children
            if m.type in ("method_definition", "public_field_definition")
        }
        heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
        if heritage is not None and heritage.named_children:
            clause = heritage.named_children[0]
            base_node = clause.child_by_field_id(self.fields.value) if clause.type == "extends_clause" else clause
            base, _ = self.dotted(base_node, scope)
            if base is not None and "#" in base:
                self.class_bases[cls] = base
            elif base is not None:  # ``class Sandbox extends BaseSandbox``: a library class
                self.library_bases[cls] = base
            supertypes = self.supertypes(heritage, base if base is not None and "#" in base else None)
            if listed and supertypes:  # a candidate tool class: what a registration over its type serves
                self.tool_recognizer.implementing[cls] = supertypes
            self.overrides(cls, body, supertypes)
        # Guards put in front of the class's methods (``@UseGuards(G)`` on the class or the method).
        outer = node.parent if node.parent is not None and node.parent.type == "export_statement" else node
        shared = [c for c in outer.named_children if c.type == "decorator"] if self.rules.guard_decorators else []
        if outer is not node:
            shared += [c for c in node.named_children if c.type == "decorator"]
        decorators: list[Node] = []
        for member in body.named_children:
            if member.type == "decorator":
                decorators.append(member)
                continue
            guards = self.decorator_guards(shared + decorators, scope) if decorators or shared else ()
            own_decorators, decorators = decorators, []
            if member.type == "public_field_definition":
                prop = self.code.text(
                    member.child_by_field_id(self.fields.name) or member.child_by_field_id(self.fields.property)
                )
                value = unwrap(member.child_by_field_id(self.fields.value))
                if value is None:  # ``private k8sApi: k8s.CoreV1Api;``, assigned in the constructor
                    annotation = member.child_by_field_id(self.fields.type)
                    elements = self.element_type(annotation)
                    if elements is not None:  # ``private tools: Tool[];``
                        self.field_elements[f"{cls}.{prop}"] = elements
                    declared = self.type_name(annotation)
                    if declared:
                        self.field_types[f"{cls}.{prop}"] = declared
                        self.instance_fields.add(f"{cls}.{prop}")
                    continue
                if value.type in FUNCTIONS:
                    if value.id not in self.claimed:
                        self.defer(value, f"{cls}.{prop}", prop, cls=cls)
                elif value.type in ("new_expression", "call_expression"):
                    type_name, _ = self.dotted(value, scope)
                    if type_name:
                        self.field_types[f"{cls}.{prop}"] = type_name
                        if value.type == "new_expression":
                            self.instance_fields.add(f"{cls}.{prop}")
            elif member.type == "method_definition":
                method = self.code.text(member.child_by_field_id(self.fields.name)).lstrip("#")
                if method == "constructor":
                    self.constructor_fields(member, cls)
                if own_decorators:  # ``@Tool({ name: "count-characters", ... }) countCharacters(...)``
                    self.tool_recognizer.decorated_method(own_decorators, cls, method, scope)
                if member.id not in self.claimed:
                    self.defer(member, f"{cls}.{method}", method, cls=cls, gates=guards)
            elif member.type == "class_static_block":
                body_node = member.child_by_field_id(self.fields.body)
                if body_node is not None and member.id not in self.claimed:
                    self.defer(member, f"{cls}.<static>", "<static>", cls=cls)

    def constructor_fields(self, ctor: Node, cls: str) -> None:
        params = ctor.child_by_field_id(self.fields.parameters)
        for param in params.named_children if params is not None else []:
            if any(c.type == "accessibility_modifier" for c in param.named_children):
                pattern = param.child_by_field_id(self.fields.pattern)
                annotation = param.child_by_field_id(self.fields.type)
                elements = self.element_type(annotation)
                if pattern is not None and elements is not None:  # ``private tools: Tool[]`` (``@multiInject``)
                    self.field_elements[f"{cls}.{self.code.text(pattern)}"] = elements
                type_name = self.type_name(annotation)
                if pattern is not None and type_name:
                    self.field_types[f"{cls}.{self.code.text(pattern)}"] = type_name
                    self.instance_fields.add(f"{cls}.{self.code.text(pattern)}")
        body = ctor.child_by_field_id(self.fields.body)
        for stmt in body.named_children if body is not None else []:
            expr = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
            if expr is None or expr.type != "assignment_expression":
                continue
            left, right = expr.child_by_field_id(self.fields.left), unwrap(expr.child_by_field_id(self.fields.right))
            if left is None or right is None or left.type != "member_expression":
                continue
            if self.code.text(left.child_by_field_id(self.fields.object)) == "this" and right.type in (
                "new_expression",
                "call_expression",
            ):
                type_name, _ = self.dotted(right, None)
                if type_name and not type_name.startswith("this."):  # (a declared field type stays)
                    key = f"{cls}.{self.code.text(left.child_by_field_id(self.fields.property))}"
                    self.field_types.setdefault(key, type_name)
                    if right.type == "new_expression" and self.field_types[key] == type_name:
                        self.instance_fields.add(key)

    def supertypes(self, heritage: Node, base: str | None) -> list[str]:
        """The class of the tree a class extends (``base``) and the types of the tree it implements."""
        supertypes = [base] if base is not None else []
        for clause in heritage.named_children:
            if clause.type == "implements_clause":
                for item in clause.named_children:
                    name = self.type_name(item)
                    if name and "#" in name:
                        supertypes.append(name)
        return supertypes

    def overrides(self, cls: str, body: Node, supertypes: list[str]) -> None:
        """A call typed by an interface or a base class (``adapter: DbAdapter``, ``adapter.all(q)``) runs
        the method of whichever class implements it: for each method of ``cls``, a function named as the
        supertype's method (``<module>#DbAdapter.all``) that calls ``cls``'s. The linker joins those of
        every implementing class, in every file, so the call reaches them all."""
        if not supertypes:
            return
        for member in body.named_children:
            if member.type != "method_definition":
                continue
            method = self.code.text(member.child_by_field_id(self.fields.name)).lstrip("#")
            if method in ("constructor", "") or any(c.type == "static" for c in member.children):
                continue
            params, _ = self.params(member)
            target = f"{cls}.{method}"
            call = trusted(
                CallFact,
                location=self.loc(member),
                callee=target,
                resolved=True,
                dominatingGates=[],
                args=[
                    ArgTaint(index=i, origins=sorted(param_taint(p, i), key=origin_key), whole=True)
                    for i, p in enumerate(params)
                ],
            )
            returned = sorted(call_return_taint(target), key=origin_key)
            # ``async getNewPage(name): Promise<Page>``: what the method says it gives, so a call of the
            # supertype's method (``pageService.getNewPage(n)`` with ``pageService: PageService``) gives it too.
            declared = self.type_name(member.child_by_field_id(self.fields.return_type))
            for supertype in supertypes:
                qualname = f"{supertype}.{method}"
                self.functions.append(
                    trusted(
                        FunctionFacts,
                        id=short_id("fn", self.path, qualname),
                        qualname=qualname,
                        name=method,
                        location=self.loc(member),
                        params=list(params),
                        calls=[call],
                        actions=[],
                        gates=[],
                        returns=returned,
                        fieldWrites=[],
                        returnShape=ArgTaint(origins=returned, whole=True),
                        returnType=declared,
                    )
                )
