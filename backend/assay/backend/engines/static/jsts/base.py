"""State and name resolution shared by the parts of the JS/TS analyzer (``AnalyzerBase``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tree_sitter import Node

from assay.backend.canonical import short_id
from assay.backend.engines.static.facts import (
    ActionSite,
    CallFact,
    FrontierSite,
    FunctionFacts,
    GateSite,
    ModelSite,
    TaintOrigin,
    ToolDef,
)
from assay.backend.engines.static.jsts.names import Imports, require_spec
from assay.backend.engines.static.jsts.rules import JsRules, classify
from assay.backend.engines.static.jsts.scope import Pending, Scope, Taint
from assay.backend.engines.static.jsts.syntax import WRAPPERS, Code, unwrap
from assay.backend.engines.static.pyast.models import trusted
from assay.backend.engines.static.rules.pack import Rule
from assay.backend.scans.bundle import Location

if TYPE_CHECKING:
    from assay.backend.engines.static.jsts.tools import ToolRecognizer

# Callee names resolved ahead, by call node id, with the scope they were resolved in (see ``dotted``).
Callees = dict[int, tuple[Scope | None, str | None, bool]]

# Generic types whose value, awaited, is their type argument.
_AWAITED = frozenset({b"Promise", b"PromiseLike", b"Awaited"})
# Generic collections whose one type argument is the type of their elements.
_COLLECTIONS = frozenset({b"Array", b"ReadonlyArray", b"Set", b"ReadonlySet", b"Iterable", b"AsyncIterable"})

# Global functions and objects of JavaScript runtimes: calls to them are resolved (never frontier).
BUILTINS = frozenset(
    {
        "eval",
        "Function",
        "fetch",
        "require",
        "console",
        "JSON",
        "Math",
        "Object",
        "Array",
        "Promise",
        "String",
        "Number",
        "Boolean",
        "BigInt",
        "Symbol",
        "Date",
        "Error",
        "TypeError",
        "RangeError",
        "Set",
        "Map",
        "WeakMap",
        "WeakSet",
        "RegExp",
        "Reflect",
        "Proxy",
        "parseInt",
        "parseFloat",
        "isNaN",
        "isFinite",
        "encodeURIComponent",
        "decodeURIComponent",
        "encodeURI",
        "decodeURI",
        "setTimeout",
        "setInterval",
        "setImmediate",
        "clearTimeout",
        "clearInterval",
        "queueMicrotask",
        "structuredClone",
        "atob",
        "btoa",
        "URL",
        "URLSearchParams",
        "TextEncoder",
        "TextDecoder",
        "AbortController",
        "Headers",
        "Request",
        "Response",
        "FormData",
        "Blob",
        "Buffer",
        "process",
        "globalThis",
        "Bun",
        "Deno",
        "Intl",
        "Uint8Array",
        "ArrayBuffer",
        "DataView",
    }
)

_IMPACT = {"low": 1, "medium": 2, "high": 3, "critical": 4}


class AnalyzerBase:
    """One file's analysis state: its code, rules, imports, the facts found so far, and how names resolve."""

    def __init__(self, path: str, code: Code, root: Node, rules: JsRules, imports: Imports) -> None:
        self.path = path
        self.code = code
        self.fields = code.fields
        self.module = imports.module
        self.root = root
        self.rules = rules
        self.imports = imports
        if rules.generated_packages:
            generated_imports(imports, rules.generated_packages)
        self.module_types: dict[str, str] = {}
        self.module_consts: dict[str, str] = {}
        # Top-level arrays of string literals (``const OPS = ["query", "count"] as const``), read once.
        self.string_lists: dict[str, frozenset[str]] | None = None
        self.declared_in_block: dict[int, dict[str, Node]] = {}  # statement block id -> ``GateLogic.block_consts``
        # Checks that text starts with a read-only statement keyword (``q.startsWith("select")``): refusing
        # what passes them is no check (``StmtLogic.denied``).
        self.read_prefixes: set[str] = set()
        # ``refused.push(p)`` statements that are the whole branch of a refusing check (``Scope.failures``).
        self.failure_pushes: set[int] = set()
        # Functions whose every ``return`` gives one of several string literals (a classifier), by node id.
        self.classifiers: dict[int, bool] = {}
        # Dispatch branches labelled by another file's constant: qualname -> ``<other>#Name.member``.
        self.case_refs: dict[str, str] = {}
        self.module_fallbacks: dict[str, str] = {}
        # Module names bound to a client built for a model host (``createOpenAI({ baseURL: OLLAMA })``): its provider.
        self.module_hosts: dict[str, str] = {}
        self.field_types: dict[str, str] = {}
        # Fields holding a collection of a type of the tree (``private tools: Tool[]``): ``Class.field`` -> the type.
        self.field_elements: dict[str, str] = {}
        # The fields whose type their declaration gives, or a ``new`` stored in them (not a call's result,
        # whose type may be unknown): a method returning one gives its call that type.
        self.instance_fields: set[str] = set()
        self.functions: list[FunctionFacts] = []
        self.models: list[ModelSite] = []
        self.tools: list[ToolDef] = []
        self.frontier: list[FrontierSite] = []
        self._imported_names: frozenset[str] | None = None
        self.pending: list[Pending] = []
        self.claimed: set[int] = set()  # function nodes analysed on their own (not inline)
        self.call_gates: dict[int, str | None] = {}  # call node id -> its gate, once walked
        self.emitted: set[str] = set()
        # Functions (by qualname, their callbacks walked in place included) that hand an HTTP request to an
        # MCP transport (``transport.handleRequest(req, res, body)``): routes serving an MCP server, each with
        # the gates active at every such hand-over (a check in the handler, the middleware in front of it).
        self.request_servers: dict[str, frozenset[str]] = {}
        # Whether the file writes a refusing status at all (``401``/``403``/``429``): only then are its ``if``
        # branches read for a request they refuse (``RouteLogic.request_refusal``); the gates so made.
        self.refuses_requests = bool(rules.refusals) and any(str(s).encode() in code.src for s in rules.refusals)
        self.refusal_gates: set[str] = set()
        # Middleware (``routes.py``): function node id -> the gate it makes (None: it refuses nothing); by
        # qualname, the gate of the middleware a function is or returns, the names of the tree's functions put
        # in front of its routes, the handlers it registers by name; (qualname, receiver) -> the middleware
        # put in front of that app's or router's routes so far (``app.use("/mcp", auth)``): (path, gates).
        self.middleware_sites: dict[int, str | None] = {}
        self.front_gates: dict[str, str] = {}
        self.front_names: dict[str, list[str]] = {}
        self.route_handlers: dict[str, list[CallFact]] = {}
        self.route_uses: dict[tuple[str, str], list[tuple[str | None, frozenset[str]]]] = {}
        # Hooks listed for an event before each tool call (``PreToolUse: [{ matcher, hooks }]``): the
        # matcher (None: every tool), the gates its functions make, and the hook list's node.
        self.tool_hooks: list[tuple[str | None, list[str], Node]] = []
        self.known_callees: Callees = {}  # filled and emptied by the walk of each call chain
        self.handler_args = False  # walking the arguments of a request handler call
        self.tool_serving = False  # walking the callback of a CallTool request handler (``tool_classes``)
        self.locations: dict[int, Location] = {}  # node id -> its location, built once
        # Classes of this file: their methods, and the class each extends when it is in the tree.
        self.class_methods: dict[str, set[str]] = {}
        self.class_bases: dict[str, str] = {}
        # ``container.bind<IFoo>(TYPES.Foo).to(FooImpl)``: the classes a container gives for a type (``bound_class``).
        self.bound_classes: dict[str, set[str]] = {}
        # Classes of the file that extend a library class: class -> the library class.
        self.library_bases: dict[str, str] = {}
        # Functions of the tree named by a string: { get_weather: getWeather }, case "get_weather": ...
        self.named_impls: dict[str, str] = {}
        # Locals bound to a tool's name under another word (``const operation = name as Op``).
        self.tool_name_vars: set[str] = set()
        # What functions of this file return, by their TypeScript return type (``(): Promise<Pool>``).
        self.return_types: dict[str, str] = {}
        # Object literals of functions declared as a type of the tree (``const client: DbClient = {...}``):
        # the owner their methods are named under -> that type.
        self.typed_objects: dict[str, str] = {}
        self.module_scope = Scope(qualname=f"{self.module}#<module>", params=[], root=True)

    if TYPE_CHECKING:
        # The walk is layered (gates, sites, calls, bindings, expressions, statements, analyzer), each
        # layer a subclass of the one before; these are the later layers' methods the earlier ones call.
        tool_recognizer: ToolRecognizer

        def defer(
            self,
            node: Node,
            qualname: str,
            name: str,
            cls: str | None = None,
            gates: Sequence[GateSite] = (),
            outer: Scope | None = None,
        ) -> None: ...

        def params(self, node: Node) -> tuple[list[str], dict[str, str]]: ...

        def param_defaults(self, node: Node, scope: Scope) -> None: ...

        def nested_qualname(self, scope: Scope, name: str) -> str: ...

        def block(self, statements: Sequence[Node], scope: Scope, active: frozenset[str]) -> frozenset[str]: ...

        def stmt(self, stmt: Node, scope: Scope, active: frozenset[str]) -> frozenset[str]: ...

        def expr(self, node: Node | None, scope: Scope, active: frozenset[str]) -> Taint: ...

        def inline(
            self,
            node: Node,
            scope: Scope,
            active: frozenset[str],
            param_taint: Taint,
            *,
            own: bool = False,
            element: tuple[int, str] | None = None,
            settles: bool = False,
            given_to: tuple[str, int] | None = None,
        ) -> Taint: ...

        def object(self, node: Node, scope: Scope, active: frozenset[str], owner: str | None = None) -> Taint: ...

        def class_body(self, node: Node, scope: Scope, name: str) -> None: ...

        def emit(self, scope: Scope, node: Node | None, name: str) -> str: ...

    def add_tool_function(
        self,
        qualname: str,
        tool_name: str,
        location: Location,
        *,
        calls: Sequence[CallFact] = (),
        actions: Sequence[ActionSite] = (),
        gates: Sequence[GateSite] = (),
    ) -> None:
        """A function the code does not write but a tool runs (an agent used as a tool, a code tool, a
        library's tool, a built-in one): named ``tool:<name>``, its one parameter ``input`` what the model
        sends, doing what ``calls``, ``actions`` and ``gates`` say."""
        self.functions.append(
            trusted(
                FunctionFacts,
                id=short_id("fn", self.path, qualname),
                qualname=qualname,
                name=f"tool:{tool_name}",
                location=location,
                params=["input"],
                calls=list(calls),
                actions=list(actions),
                gates=list(gates),
                returns=[],
                fieldWrites=[],
                returnShape=None,
                returnType=None,
            )
        )

    def loc(self, node: Node) -> Location:
        # A call site is often several facts at once (a gate and an action, a model and its taint):
        # one frozen Location per node serves them all.
        location = self.locations.get(node.id)
        if location is None:
            line, column = node.start_point
            location = self.locations[node.id] = trusted(
                Location, path=self.path, line=line + 1, column=column + 1, endLine=node.end_point[0] + 1
            )
        return location

    def dotted(self, node: Node | None, scope: Scope | None, record: Callees | None = None) -> tuple[str | None, bool]:
        """The resolved dotted name of an expression (callee, constructor, receiver), and whether it
        is known (imported, defined in the tree, a typed variable or a runtime global).

        With ``record``, the callee name of every call and ``new`` met on the way is kept there by node
        id: a chain ``a.b().c().d()`` is resolved once for its outer call instead of once per link."""
        if node is None:
            return None, False
        kinds = self.code.kinds
        kind = kinds[node.kind_id]
        if kind in WRAPPERS:
            node = unwrap(node)
            if node is None:
                return None, False
            kind = kinds[node.kind_id]
        if kind == "identifier":
            return self.resolve_name(self.code.src[node.start_byte : node.end_byte].decode("utf-8", "replace"), scope)
        if kind == "this":
            if scope is not None and scope.cls is not None:
                return scope.cls, True
            return "this", False
        if kind == "super":
            cls = scope.cls if scope is not None else None
            base = self.class_bases.get(cls) if cls is not None else None
            if base is None and cls is not None:
                # ``class SendEmailTool extends DynamicStructuredTool { constructor() { super({ name, func }) } }``:
                # the library class's constructor (and its methods, ``super.invoke(...)``).
                base = self.library_bases.get(cls)
            return (base, True) if base is not None else (None, False)
        if kind == "member_expression":
            base, ok = self.dotted(node.child_by_field_id(self.fields.object), scope, record)
            if base is None:
                return None, False
            prop = self.code.text(node.child_by_field_id(self.fields.property)).lstrip("#")
            joined = f"{base}{prop}" if base.endswith("#") else f"{base}.{prop}"
            return self.field_types.get(joined, joined), ok
        if kind == "call_expression":
            func = node.child_by_field_id(self.fields.function)
            if func is not None and (kinds[func.kind_id] == "import" or self.code.raw(func) == b"require"):
                spec = require_spec(node, self.code)
                if spec is not None:  # require("fs").promises
                    return self.imports.namespace(spec), True
            name, known = self.dotted(func, scope, record)  # ``callee``, with the function node read once
            if record is not None:
                record[node.id] = (scope, name, known)
            # As a value: the handler of the tool the call makes (``queryTool.invoke(input)`` runs it), or
            # what a function of this file returns, by its declared type (``(): Promise<Pool>``).
            handler = self.tool_recognizer.handler_of.get(node.id)
            if handler is not None:
                return handler, True
            if name is not None and "#" in name:
                return self.return_types.get(name, name), known
            if name is not None and self.rules.chain_methods and name.rpartition(".")[2] in self.rules.chain_methods:
                piped = self.piped_model(node, func, scope)
                if piped is not None:
                    return piped, True
            return name, known
        if kind == "new_expression":
            return self.callee(node, self.fields.constructor, scope, record)
        if kind == "subscript_expression":
            base, ok = self.dotted(node.child_by_field_id(self.fields.object), scope, record)
            key = unwrap(node.child_by_field_id(self.fields.index))
            choices = scope.choices.get(self.code.text(key)) if scope is not None and key is not None else None
            if base is not None and choices and key is not None and key.type == "identifier":
                return self.chosen_method(base, choices), ok
            return base, ok
        return None, False

    def piped_model(self, node: Node, func: Node | None, scope: Scope | None) -> str | None:
        """``prompt.pipe(model)``, ``chain.pipe(parser)`` on such a chain: the type of the chat model in the chain (the
        receiver's or an argument's type whose ``invoke`` answers with model output), else None."""
        kinds = self.code.kinds
        operands = (
            [func.child_by_field_id(self.fields.object)]
            if func is not None and kinds[func.kind_id] == "member_expression"
            else []
        )
        args = node.child_by_field_id(self.fields.arguments)
        if args is not None:
            operands += [a for a in args.named_children if kinds[a.kind_id] != "comment"]
        for operand in operands:
            typed, ok = self.dotted(operand, scope)
            if ok and typed is not None and classify(self.rules, f"{typed}.invoke").taint_source is not None:
                return typed
        return None

    def chosen_method(self, base: str, choices: tuple[str, ...]) -> str:
        """``collection[m](...)`` with ``m`` one of a few literals: the method of those the rules weigh
        most (a write before a read), so the call is what its worst choice does."""
        named = [(self.rules.action(f"{base}.{m}"), f"{base}.{m}") for m in choices]
        ranked = sorted(
            (_IMPACT.get(r.impact or "", 0), -i, name) for i, (r, name) in enumerate(named) if r is not None
        )
        return ranked[-1][2] if ranked else base

    def callee(self, node: Node, field: int, scope: Scope | None, record: Callees | None) -> tuple[str | None, bool]:
        """The resolved name of what a call (or ``new``) calls (its ``field``: function or constructor);
        kept in ``record`` when one is given."""
        name, known = self.dotted(node.child_by_field_id(field), scope, record)
        if record is not None:
            record[node.id] = (scope, name, known)
        return name, known

    def resolve_name(self, name: str, scope: Scope | None) -> tuple[str | None, bool]:
        """What a bare name refers to, innermost binding first (see ``dotted``). The tables map names to
        strings, never to None, so one ``get`` answers both "is it bound" and "to what"."""
        if scope is not None:
            found = scope.types.get(name)
            if found is not None:
                return found, True
            found = scope.locals.get(name)
            if found is not None:
                return found, True
            if name in scope.taint:  # a local variable of unknown type shadows imports
                return name, False
        found = self.module_types.get(name)
        if found is not None:
            return found, True
        imports = self.imports
        found = imports.aliases.get(name)
        if found is not None:
            return found, name not in imports.unresolvable
        found = imports.local_defs.get(name)
        if found is not None:
            return found, True
        return name, name in BUILTINS

    def type_name(self, annotation: Node | None) -> str | None:
        """The resolved name of a TypeScript type annotation's type (``client: OpenAI``)."""
        if annotation is None:
            return None
        node = _annotated(annotation)
        if node.type == "union_type":  # ``DbAdapter | null``: the first member that names a type
            for member in node.named_children:
                found = self.type_name(member)
                if found:
                    return found
            return None
        if node.type == "generic_type":
            name_node = node.child_by_field_id(self.fields.name)
            arguments = next((c for c in node.named_children if c.type == "type_arguments"), None)
            if self.code.raw(name_node) in _AWAITED:  # Promise<Sandbox>: what awaiting it gives
                return self.type_name(arguments.named_children[0]) if arguments and arguments.named_children else None
            query = arguments.named_children[0] if arguments and arguments.named_children else None
            if self.code.raw(name_node) == b"ReturnType" and query is not None and query.type == "type_query":
                # ``ReturnType<typeof createTools>``: what that function returns, named by the function
                # (as a call's result is: ``this.tools = createTools(sql)``).
                named = query.named_children[0] if query.named_children else None
                found, _ = self.dotted(named, None) if named is not None else (None, False)
                return found if found is not None and "#" in found else None
            node = name_node or node
        if node.type in ("type_identifier", "identifier"):
            name = self.code.text(node)
            found = (
                self.imports.aliases.get(name) or self.imports.local_defs.get(name) or self.imports.own_types.get(name)
            )
            if found:
                return self.rules.client_types.get(found, found)
            # Platform types no import names (Cloudflare ``SqlStorage``, ``D1Database``...), by the rules.
            return name if name in self.rules.global_types else None
        if node.type == "nested_type_identifier":
            head, _, rest = self.code.text(node).partition(".")
            base = self.imports.aliases.get(head)
            return self.rules.client_types.get(f"{base}.{rest}", f"{base}.{rest}") if base else None
        return None

    def element_type(self, annotation: Node | None) -> str | None:
        """The type of the tree a collection annotation holds: ``Tool[]``, ``readonly Tool[]``, ``Array<Tool>``,
        ``ReadonlyArray<Tool>``, ``Set<Tool>``, ``Iterable<Tool>``; else None."""
        if annotation is None:
            return None
        node = _annotated(annotation)
        if node.type == "readonly_type" and node.named_children:
            node = node.named_children[0]
        if node.type == "array_type" and node.named_children:
            found = self.type_name(node.named_children[0])
        elif node.type == "generic_type" and self.code.raw(node.child_by_field_id(self.fields.name)) in _COLLECTIONS:
            arguments = next((c for c in node.named_children if c.type == "type_arguments"), None)
            found = self.type_name(arguments.named_children[0]) if arguments and arguments.named_children else None
        else:
            return None
        return found if found is not None and "#" in found else None

    def returned_type(self, node: Node | None, scope: Scope) -> None:
        """Records the resolved type of a returned value (a typed name, a call, ``new``, a field of the
        instance whose type its declaration or constructor gives: ``getOperator() { return this.operator }``)
        in ``scope``."""
        inner = unwrap(node)
        if inner is None:
            return
        if inner.type == "member_expression":
            holder = inner.child_by_field_id(self.fields.object)
            if holder is None or holder.type != "this" or scope.cls is None:
                return
            prop = self.code.text(inner.child_by_field_id(self.fields.property)).lstrip("#")
            key = f"{scope.cls}.{prop}"
            if key in self.instance_fields:
                scope.return_types.add(self.field_types[key])
            return
        if inner.type not in ("identifier", "call_expression", "new_expression"):
            return
        name, known = self.dotted(inner, scope)
        if name and known:
            scope.return_types.add(name)

    @staticmethod
    def return_candidates(scope: Scope) -> list[str] | None:
        """The packages' types a function's returns give when they are several and share no type
        (``return await mysql.createConnection(...)`` on one branch, ``return client`` of a ``pg.Client``
        on another): a call on its result is a call on whichever the rules name for it."""
        types = sorted(t for t in scope.return_types if "#" not in t)
        return types if len(types) > 1 else None

    def return_type(self, node: Node, scope: Scope) -> str | None:
        """What a function returns: its annotation (``Promise<Sandbox>``), else the one type its return
        statements give, or what those types share (``Sandbox.get`` and ``Sandbox.create``: ``Sandbox``)."""
        annotation = node.child_by_field_id(self.fields.return_type)
        if annotation is not None and self.code.raw(annotation).lstrip(b": \n").rstrip() == b"never":
            return "never"  # it always throws: a call to it ends the branch it is in
        annotated = self.type_name(annotation)
        if annotated:
            return annotated
        types = sorted(scope.return_types)
        if not types:
            return None
        if len(types) == 1:
            return types[0]
        split = [t.split(".") for t in types]
        shared: list[str] = []
        for parts in zip(*split, strict=False):
            if any(p != parts[0] for p in parts):
                break
            shared.append(parts[0])
        if len(shared) >= 2:
            return ".".join(shared)
        # A factory that returns one of several packages' chat models (``switch (vendor) { case "anthropic":
        # return new ChatAnthropic(config) ... }``) returns a model: a call on its result is a model call.
        models = [t for t in types if self.rules.model(t) is not None]
        return models[0] if models and all("#" not in t for t in types) else None

    def constant(self, node: Node | None, scope: Scope, *, strict: bool = False) -> str | None:
        """A string literal, a template's constant text, or a ``const`` bound to a string. ``strict``: a
        template only when every substitution is itself constant or a field of the instance
        (``${this.database}``, set when the object is configured, never by a caller): text fixed in the
        code, as SQL must be to be classified by what it says."""
        node = unwrap(node)
        if node is None:
            return None
        if node.type == "identifier":
            name = self.code.text(node)
            return scope.consts.get(name, self.module_consts.get(name))
        if node.type == "member_expression":  # ToolName.ECHO, TOOLS.READ
            return self.imports.consts.get(self.code.text(node))
        if node.type == "template_string":
            parts: list[str] = []
            for child in node.named_children:
                if child.type == "string_fragment":
                    parts.append(self.code.text(child))
                elif child.type == "template_substitution" and child.named_children:
                    value = self.constant(child.named_children[0], scope, strict=strict)
                    if (
                        value is None
                        and strict
                        and not self.instance_field(child.named_children[0])
                        and not self.fixed_piece(child.named_children[0], scope)
                    ):
                        return None
                    parts.append(value or "")
            return "".join(parts)
        return self.code.string_value(node)

    def shape(self, node: Node, scope: Scope) -> str:
        """A template's text with each substitution whose value is not constant written ``*``."""
        parts: list[str] = []
        for child in node.named_children:
            if child.type == "string_fragment":
                parts.append(self.code.text(child))
            elif child.type == "template_substitution" and child.named_children:
                parts.append(self.constant(child.named_children[0], scope) or "*")
        return "".join(parts)

    def url_text(self, node: Node | None, scope: Scope) -> str | None:
        """What a URL argument says: a constant (a literal, a ``const``), else the shape of a template
        written in place or bound to a name (its unknown values ``*``)."""
        found = self.constant(node, scope)
        if found:
            return found
        inner = unwrap(node)
        if inner is None:
            return None
        if inner.type == "template_string":
            return self.shape(inner, scope)
        if inner.type == "identifier":
            return scope.shapes.get(self.code.text(inner))
        return None

    def fixed_piece(self, node: Node | None, scope: Scope, depth: int = 0) -> bool:
        """Text the code spells out piece by piece, though no one constant: a literal, a constant, a template
        of such pieces, a name bound only to such text (``scope.fixed``: a lookup in an object of string
        literals, ``fieldToColumn[key]``; an array of such pieces), such an array joined
        (``sets.join(", ")``), a concatenation of them. Whatever values a caller or a model sends are not."""
        node = unwrap(node)
        if node is None or depth > 8:
            return False
        kind = node.type
        if kind in ("string", "number"):
            return True
        if kind == "identifier":
            name = self.code.text(node)
            return name in scope.fixed or self.constant(node, scope) is not None
        if kind == "template_string":
            return all(
                self.fixed_piece(c.named_children[0], scope, depth + 1)
                for c in node.named_children
                if c.type == "template_substitution" and c.named_children
            )
        if kind == "binary_expression" and self.code.operator_of(node) == "+":
            return self.fixed_piece(node.child_by_field_id(self.fields.left), scope, depth + 1) and self.fixed_piece(
                node.child_by_field_id(self.fields.right), scope, depth + 1
            )
        if kind == "subscript_expression":
            holder = unwrap(node.child_by_field_id(self.fields.object))
            return holder is not None and holder.type == "identifier" and self.code.text(holder) in scope.text_maps
        if kind == "call_expression":  # ``sets.join(", ")``
            func = unwrap(node.child_by_field_id(self.fields.function))
            if func is None or func.type != "member_expression":
                return False
            holder = unwrap(func.child_by_field_id(self.fields.object))
            return (
                self.code.raw(func.child_by_field_id(self.fields.property)) == b"join"
                and holder is not None
                and holder.type == "identifier"
                and self.code.text(holder) in scope.fixed
            )
        return False

    def note_fixed(self, name: str, value: Node | None, scope: Scope) -> None:
        """Keeps ``scope.fixed`` and ``scope.text_maps`` for a name just bound to ``value``."""
        kinds = self.code.kinds
        inner = unwrap(value)
        scope.fixed.discard(name)
        scope.text_maps.discard(name)
        if inner is None:
            return
        if kinds[inner.kind_id] == "object":
            values = [
                c.child_by_field_id(self.fields.value) for c in inner.named_children if kinds[c.kind_id] != "comment"
            ]
            if values and all(v is not None and kinds[v.kind_id] == "string" for v in values):
                scope.text_maps.add(name)
        elif kinds[inner.kind_id] == "array":
            if all(self.fixed_piece(e, scope) for e in inner.named_children if kinds[e.kind_id] != "comment"):
                scope.fixed.add(name)
        elif kinds[inner.kind_id] == "subscript_expression" and self.fixed_piece(inner, scope):
            scope.fixed.add(name)

    def note_push(self, func: Node | None, args: list[Node], scope: Scope) -> None:
        """``sets.push(...)`` on an array of fixed pieces: it stays one only while what is pushed is."""
        if not scope.fixed:
            return
        func = unwrap(func)
        if func is None or func.type != "member_expression":
            return
        holder = unwrap(func.child_by_field_id(self.fields.object))
        if holder is None or holder.type != "identifier" or self.code.text(holder) not in scope.fixed:
            return
        method = self.code.raw(func.child_by_field_id(self.fields.property))
        if method in (b"push", b"unshift", b"splice", b"concat") and not all(self.fixed_piece(a, scope) for a in args):
            scope.fixed.discard(self.code.text(holder))

    def instance_field(self, node: Node | None) -> bool:
        """``this.database`` / ``this.config.schema``: a field of the instance."""
        node = unwrap(node)
        while node is not None and node.type == "member_expression":
            node = unwrap(node.child_by_field_id(self.fields.object))
        return node is not None and node.type == "this"

    def gate_site(self, scope: Scope, rule: Rule, node: Node, detail: str, values: tuple[str, ...] = ()) -> str:
        """A check's gate site (held while the scope is ``holding``: see ``Scope.check_site``)."""
        return scope.check_site(self.make_gate(rule, node, detail, values))

    def make_gate(self, rule: Rule, node: Node, detail: str, values: tuple[str, ...] = ()) -> GateSite:
        location = self.loc(node)
        return GateSite(
            id=short_id("gate", self.path, location.line, location.column, rule.gateKind, detail),
            kind=rule.gateKind or "permission_check",
            ruleId=rule.id,
            location=location,
            detail=detail,
            values=values,
        )

    def too_deep(self, node: Node) -> None:
        """Code nested deeper than the walk follows (minified or generated): say so, keep the rest."""
        location = self.loc(node)
        self.frontier.append(
            FrontierSite(
                id=short_id("fr", "too_deep", self.path, location.line, location.column),
                kind="parse_error",
                detail=f"code at line {location.line} is nested too deeply to analyse; "
                "what it calls and does there is not visible",
                location=location,
            )
        )

    def inherited(self, callee: str) -> str:
        """``<module>#Child.run`` -> ``<module>#Base.run`` when ``Child`` does not define ``run`` itself
        and extends a class of the tree (followed a few levels, cycle-safe)."""
        for _ in range(8):
            cls, _, method = callee.rpartition(".")
            methods = self.class_methods.get(cls)
            base = self.class_bases.get(cls)
            if methods is None or method in methods or base is None:
                return callee
            callee = f"{base}.{method}"
        return callee


def generated_imports(imports: Imports, generated: tuple[tuple[str, str], ...]) -> None:
    """Imports of a package a generator wrote into the project (``import { PrismaClient } from
    "../generated/prisma"``, the Prisma client at its ``output`` path): the package's members, as an import of the
    package by name would bind them (``@prisma/client.PrismaClient``)."""
    for local, name in imports.aliases.items():
        module, sep, member = name.partition("#")
        if not sep:
            continue
        for ending, package in generated:
            if module == ending or module.endswith(f"/{ending}"):
                imports.aliases[local] = f"{package}.{member}" if member else package
                imports.packages.add(package)
                break


def origin_key(origin: TaintOrigin) -> tuple[str, int, int, str, str]:
    loc = origin.location
    return (origin.kind, loc.line if loc else 0, loc.column if loc else 0, origin.param or "", origin.callee or "")


def _annotated(annotation: Node) -> Node:
    """The type a ``: T`` annotation names (its child), or the type node itself."""
    return (
        annotation.named_children[0]
        if annotation.type == "type_annotation" and annotation.named_children
        else annotation
    )
