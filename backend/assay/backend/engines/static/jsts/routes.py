"""Middleware in front of HTTP routes (Express, Connect, Koa, Hono): which functions refuse requests, and
what a route's handler runs behind.

A middleware is a function given the continuation ``next``; one that answers some requests with status
401 or 403 instead of passing them on (``res.status(401)``, ``c.json(body, 401)``, ``reply.code(403)``,
``new Response(body, { status: 401 })``) is one gate, recorded at the function (``JS-GATE-HTTP-*``): what it
checks is decided by what it does, not by its name. One that refuses nothing (logging, cors, body parsers,
size limits answering 413) is no gate. Put in front of a route (``app.post("/mcp", auth, handler)``, or
``app.use("/mcp", auth)`` / ``router.use(auth)`` before the route on the same app or router), its gate holds
over everything the handler does: the handler walked in place runs with it, a handler named instead is
recorded with it (``FunctionFacts.routes``). A middleware of another module, or made by a factory of the
tree (``bearerAuth(key)``), is a ``FRONT`` gate id the linker makes concrete (``link/gates.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from assay.backend.engines.static.facts import FRONT, CallFact, GateSite
from assay.backend.engines.static.jsts.scope import Cond, Scope
from assay.backend.engines.static.jsts.sites import SiteLogic
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, unwrap

# Statuses that refuse a request (the rules say which gate each is), as the code spells them.
_STATUSES = {b"401": 401, b"403": 403, b"429": 429}
# Keys and fields that set a response's status (``{ status: 401 }``, ``res.statusCode = 401``).
_STATUS_KEYS = frozenset({b"status", b"statusCode", b'"status"', b"'status'"})
_STATUS_FIELDS = (b".status", b".statusCode")
# A middleware's body is read this far for its refusals.
_READ_LIMIT = 20000
_NONE: frozenset[str] = frozenset()
# The method of a NestJS guard deciding whether a request goes on (``canActivate(context)``).
_CAN_ACTIVATE = "canActivate"
# Where a request comes from, as code reads it: a header naming its origin or host, its address.
_REQUESTER = re.compile(r"\.headers(\.|\[\s*[\"'`])(origin|host|referer|x-forwarded-for)\b|\.(ip|ips|hostname)\b", re.I)
# The call registering a Fastify hook (``app.addHook("onRequest", fn)``).
_ADD_HOOK = "addHook"


def _covers(prefix: str | None, path: str | None) -> bool:
    """Whether middleware put in front of ``prefix`` (None: every route) runs before a route at ``path``."""
    if prefix is None:
        return True
    base = prefix.rstrip("*").rstrip("/")
    if not base:
        return True
    return path is not None and (path.rstrip("/") == base or path.startswith(base + "/"))


def _outside_functions(body: Node | None) -> Iterator[Node]:
    """The nodes of ``body`` in source order, the functions nested in it left out (bounded: ``_READ_LIMIT``
    nodes are looked at)."""
    pending = [body] if body is not None else []
    for _ in range(_READ_LIMIT):
        if not pending:
            return
        node = pending.pop()
        if node.type in FUNCTIONS:
            continue
        yield node
        pending.extend(reversed(node.named_children))


class RouteLogic(SiteLogic):
    """Middleware gates and the gates in front of a route's handler."""

    def middleware_gate(self, node: Node, scope: Scope, hook: bool = False) -> str | None:
        """The gate of the function ``node`` when it is a middleware that refuses requests (once per
        function: the first scope that asks records its site). A middleware is given the continuation
        ``next``; a ``hook`` (a function a framework runs before the handler: ``addHook("onRequest", fn)``)
        need not be, and refuses also through a function of this file it calls (``await checkKey(req, reply)``),
        the gate recorded at that function."""
        key = ~node.id if hook else node.id
        known = self.middleware_sites.get(key, "")
        if known != "":
            return known
        self.middleware_sites[key] = None  # (a hook calling itself)
        gate: str | None = None
        refusals = self.rules.refusals
        if refusals:
            names, _ = self.params(node)
            if hook or "next" in names:
                body = node.child_by_field_id(self.fields.body)
                status = self.refusal_status(body)
                rule = refusals.get(status) if status is not None else None
                if rule is not None and status == 403 and self.listed_requester(body):
                    # (the refusal's rule, of the kind of what decides it: the middleware stays in front of routes)
                    rule = rule.model_copy(update={"gateKind": "allowlist"})
                if rule is not None:
                    gate = scope.add_gate(self.make_gate(rule, node, f"a middleware refusing requests with {status}"))
                elif hook:
                    gate = self.called_refusal(body, scope)
        self.middleware_sites[key] = gate
        return gate

    def listed_requester(self, body: Node | None) -> bool:
        """``const origin = request.headers.origin; if (trustedOrigins.includes(origin)) {...} else { reply.status(403)
        ... }``: a middleware whose refusal is decided by whether where the request comes from (a header: its
        origin or host; its address) is in a list refuses what the list leaves out, an allow-list rather than a
        check of who is asking. Read in the body (its nested functions left out): an ``if`` holding a 403 in a
        branch, tested by ``includes`` / ``has`` of such a value (or of a name the body binds to one)."""
        code = self.code
        bound: dict[str, str] = {}
        for node in _outside_functions(body):
            if node.type == "variable_declarator":
                name, value = node.child_by_field_id(self.fields.name), node.child_by_field_id(self.fields.value)
                if name is not None and value is not None and name.type == "identifier":
                    bound[code.text(name)] = code.text(value)
            if node.type != "if_statement":
                continue
            condition = node.child_by_field_id(self.fields.condition)
            branches = [
                node.child_by_field_id(self.fields.consequence),
                node.child_by_field_id(self.fields.alternative),
            ]
            if not any(self.refusal_status(b) == 403 for b in branches if b is not None):
                continue
            for call in _outside_functions(condition):
                if call.type != "call_expression":
                    continue
                func = call.child_by_field_id(self.fields.function)
                if func is None or func.type != "member_expression":
                    continue
                if code.raw(func.child_by_field_id(self.fields.property)) not in (b"includes", b"has"):
                    continue
                args = call.child_by_field_id(self.fields.arguments)
                first = unwrap(args.named_children[0]) if args is not None and args.named_children else None
                if first is None:
                    continue
                text = code.text(first)
                if _REQUESTER.search(bound.get(text, text)):
                    return True
        return False

    def called_refusal(self, body: Node | None, scope: Scope) -> str | None:
        """The gate of the first function of this file a hook's body calls that refuses requests."""
        for node in _outside_functions(body):
            if node.type == "call_expression":
                callee = node.child_by_field_id(self.fields.function)
                if callee is not None and callee.type == "identifier":
                    decl = self.top_definition(self.code.text(callee))
                    value = (
                        decl
                        if decl is None or decl.type == "function_declaration"
                        else unwrap(decl.child_by_field_id(self.fields.value))
                    )
                    if value is not None and (value.type in FUNCTIONS or value.type == "function_declaration"):
                        gate = self.middleware_gate(value, scope, hook=True)
                        if gate is not None:
                            return gate
        return None

    def returned_middleware(self, value: Node | None, scope: Scope) -> None:
        """``return async (c, next) => { ... 401 ... }``: a factory of a middleware that refuses requests
        (``bearerAuth(key)``) holds that middleware's gate in front of the route it is called for."""
        inner = unwrap(value)
        if inner is not None and inner.type in FUNCTIONS:
            # (Fastify's hooks take no ``next``: ``return async (req, reply) => { ... reply.code(401) ... }``.)
            gate = self.middleware_gate(inner, scope, hook=len(self.params(inner)[0]) >= 2)
            if gate is not None:
                self.front_gates.setdefault(scope.qualname, gate)

    def request_refusal(self, stmt: Node, consequence: Node | None, cond: Cond, scope: Scope) -> frozenset[str]:
        """``if (token !== key) { return res.status(401).json(...) }`` in a route's handler or a hook: a branch
        that answers the request with a refusing status and ends is a gate of that status's kind at the ``if``
        over what follows (unless the test already is one: ``if (!isAuthorized(req))``)."""
        status = self.refusal_status(consequence)
        rule = self.rules.refusals.get(status) if status is not None else None
        if rule is None or any(g.id in cond.t or g.id in cond.f for g in scope.gates if g.kind == rule.gateKind):
            return _NONE
        condition = stmt.child_by_field_id(self.fields.condition)
        detail = f"a request refused with {status} unless {self.code.text(condition)[:120]}"
        gate = scope.add_gate(self.make_gate(rule, stmt, detail))
        self.refusal_gates.add(gate)
        return frozenset((gate,))

    def refusal_status(self, body: Node | None) -> int | None:
        """401 when the body (its nested functions left out) answers a request with 401, else 403 when with
        403, else 429 when with 429 (too many requests), else None."""
        found: int | None = None
        code = self.code
        for node in _outside_functions(body):
            if node.type == "number":
                status = _STATUSES.get(code.raw(node))
                if status is not None and self.sets_status(node):
                    if status == 401:
                        return status
                    found = status if found is None else min(found, status)
        return found

    def sets_status(self, number: Node) -> bool:
        """Whether a status literal is given to a call (``res.status(401)``, ``c.json(body, 401)``), set as a
        response's status (``{ status: 401 }``, ``res.statusCode = 401``): not compared with one."""
        parent = number.parent
        if parent is None:
            return False
        kind = parent.type
        if kind == "arguments":
            return True
        if kind == "pair":
            return self.code.raw(parent.child_by_field_id(self.fields.key)) in _STATUS_KEYS
        if kind == "assignment_expression":
            return self.code.raw(parent.child_by_field_id(self.fields.left)).endswith(_STATUS_FIELDS)
        return False

    def route_front(
        self, node: Node, func: Node | None, name: str, args: list[Node], scope: Scope, active: frozenset[str]
    ) -> dict[int, frozenset[str]] | None:
        """``app.post("/mcp", auth, handler)`` / ``app.use("/mcp", auth)``: for each argument after the path,
        the gates of the middleware in front of it (those put before the route on the same app or router by
        ``use``, and the arguments before it); a handler named by reference is recorded with them. None when
        the call puts nothing in front of a route."""
        method = name.rpartition(".")[2]
        if method == _ADD_HOOK:
            self.hook_front(func, args, scope, name)
            return None
        if method not in self.rules.route_methods or not args:
            return None
        first = unwrap(args[0])
        if method == "route" and first is not None and first.type == "object":
            self.declared_route(first, func, scope, name, active)
            return None
        path = self.code.string_value(first) if first is not None and first.type == "string" else None
        start = 0 if path is None else 1
        if method != "use" and (path is None or len(args) < 2):
            return None
        if start >= len(args):
            return None
        inner_func = unwrap(func)
        receiver = inner_func.child_by_field_id(self.fields.object) if inner_func is not None else None
        if receiver is None:
            return None
        key = (scope.qualname, self.code.text(receiver))
        uses = self.route_uses.get(key)
        front = frozenset(g for prefix, gates in uses if _covers(prefix, path) for g in gates) if uses else _NONE
        fronts: dict[int, frozenset[str]] = {}
        last = len(args) - 1
        put: set[str] = set()
        for index in range(start, len(args)):
            fronts[index] = front | put
            inner = unwrap(args[index])
            if inner is None:
                continue
            if index == last or method == "use":
                self.named_handler(inner, scope, active | front | put)
            if inner.type == "object":
                put |= self.option_hooks(inner, scope, name)
            elif index < last or method == "use":
                put |= self.middleware_front(inner, scope, name)
        if method == "use" and put:
            self.route_uses.setdefault(key, []).append((path, frozenset(put)))
        return fronts

    def declared_route(self, options: Node, func: Node | None, scope: Scope, name: str, active: frozenset[str]) -> None:
        """``app.route({ method: "POST", url: "/mcp", preHandler: verify, handler })`` (Fastify's full
        declaration): the hooks of its options and the middleware put before it on the instance for its
        ``url`` are in front of its handler named by reference (a handler written in the object is not yet
        reached)."""
        inner_func = unwrap(func)
        receiver = inner_func.child_by_field_id(self.fields.object) if inner_func is not None else None
        if receiver is None:
            return
        props = self.code.props(options)
        url = unwrap(props.get("url"))
        path = self.code.string_value(url) if url is not None and url.type == "string" else None
        uses = self.route_uses.get((scope.qualname, self.code.text(receiver)))
        front = frozenset(g for prefix, gates in uses if _covers(prefix, path) for g in gates) if uses else _NONE
        gates = front | self.option_hooks(options, scope, name)
        handler = unwrap(props.get("handler"))
        if handler is not None:
            self.named_handler(handler, scope, active | gates)

    def option_hooks(self, options: Node, scope: Scope, route: str) -> frozenset[str]:
        """``app.post("/mcp", { preHandler: verify }, handler)``: hooks given in a route's options (Fastify's
        ``onRequest`` / ``preHandler`` ..., a function or a list of them, of a phase of ``hook_phases``) run
        before that route's handler, as ``addHook`` puts them before every route; later phases do not."""
        put: frozenset[str] = _NONE
        for key, value in self.code.props(options).items():
            if key not in self.rules.hook_phases:
                continue
            inner = unwrap(value)
            hooks = inner.named_children if inner is not None and inner.type == "array" else [inner]
            for hook in hooks:
                found = unwrap(hook)
                if found is not None:
                    put |= self.middleware_front(found, scope, route, hook=True)
        return put

    def hook_front(self, func: Node | None, args: list[Node], scope: Scope, name: str) -> None:
        """``app.addHook("onRequest", fn)``: a hook run before the handler of every route of that instance (a
        phase of ``hook_phases``) that refuses some requests is put in front of the routes registered after it on
        the same instance, as ``app.use(fn)`` is; hooks of later phases (``onResponse``) run after the handler."""
        if len(args) < 2:
            return
        phase = unwrap(args[0])
        if phase is None or phase.type != "string" or self.code.string_value(phase) not in self.rules.hook_phases:
            return
        inner_func = unwrap(func)
        receiver = inner_func.child_by_field_id(self.fields.object) if inner_func is not None else None
        hook = unwrap(args[1])
        if receiver is None or hook is None:
            return
        put = self.middleware_front(hook, scope, name, hook=True)
        if put:
            self.route_uses.setdefault((scope.qualname, self.code.text(receiver)), []).append((None, put))

    def named_handler(self, inner: Node, scope: Scope, gates: frozenset[str]) -> None:
        """``app.post("/", auth, handle)`` with ``handle`` a function of the tree: recorded with the gates in
        front of it, for the linker."""
        if inner.type not in ("identifier", "member_expression"):
            return
        named, _ = self.dotted(inner, scope)
        if named and "#" in named:
            self.route_handlers.setdefault(scope.qualname, []).append(
                CallFact(location=self.loc(inner), callee=named, resolved=True, dominatingGates=sorted(gates))
            )

    def middleware_front(
        self, inner: Node, scope: Scope, route: str, depth: int = 0, hook: bool = False
    ) -> frozenset[str]:
        """The gates a middleware argument holds in front of what follows it: its own gate (a function written
        here, or one this file defines, refusing requests), the gate of a library's auth middleware call
        (``requireBearerAuth(...)``), or a ``FRONT`` id for a function of the tree named or called here."""
        kind = inner.type
        if kind in FUNCTIONS:
            gate = self.middleware_gate(inner, scope, hook)
            return frozenset((gate,)) if gate is not None else _NONE
        if kind == "call_expression":
            # A factory of the tree is read for what the middleware it returns does (its name guesses).
            named, _ = self.dotted(inner.child_by_field_id(self.fields.function), scope)
            if named and "#" in named:
                return self.front_name(named, scope)
            gate = self.call_gates.get(inner.id)
            return frozenset((gate,)) if gate is not None else _NONE
        if kind != "identifier":
            return _NONE
        text = self.code.text(inner)
        decl = self.top_definition(text)
        if decl is None:
            named, _ = self.dotted(inner, scope)
            found = self.front_name(named, scope)
        else:
            value = decl if decl.type == "function_declaration" else unwrap(decl.child_by_field_id(self.fields.value))
            found = _NONE
            if value is not None and (value.type in FUNCTIONS or value.type == "function_declaration"):
                gate = self.middleware_gate(value, scope, hook)
                found = frozenset((gate,)) if gate is not None else _NONE
            elif value is not None and value.type == "call_expression" and depth < 4:
                found = self.middleware_front(value, scope, route, depth + 1)
        rule = self.rules.auth_middleware
        if not found and rule is not None and self.rules.auth_names.matches(text):
            # A middleware named for authentication that the code here does not show (kept where it is
            # defined in this file, else where it is put in front): a site of the bundle, tied to nothing.
            self.gate_site(scope, rule, self.top_definition(text) or inner, f"{text} in front of {route}")
        return found

    def decorator_guards(self, decorators: list[Node], scope: Scope) -> tuple[GateSite, ...]:
        """``@UseGuards(ApiKeyGuard)`` on a controller or its method (NestJS): a guard class of this file whose
        ``canActivate`` can refuse (it throws, or returns ``false``) is a gate held over the method, at the
        decorator: authentication when it throws an unauthorized error (401), else a permission check (403).
        A guard this file does not define, named for authentication, is a site of the bundle tied to nothing."""
        rules = self.rules
        found: list[GateSite] = []
        for decorator in decorators:
            call = decorator.named_children[0] if decorator.named_children else None
            if call is None or call.type != "call_expression":
                continue
            callee = call.child_by_field_id(self.fields.function)
            if self.code.text(callee) not in rules.guard_decorators:
                continue
            args = call.child_by_field_id(self.fields.arguments)
            for arg in args.named_children if args is not None else []:
                guard = unwrap(arg)
                if guard is None or guard.type != "identifier":
                    continue
                text = self.code.text(guard)
                status = self.guard_refusal(text)
                rule = rules.refusals.get(status) if status is not None else None
                if rule is not None:
                    found.append(self.make_gate(rule, decorator, f"{text}.canActivate refusing with {status}"))
                elif status is None and rules.auth_middleware is not None and rules.auth_names.matches(text):
                    self.gate_site(scope, rules.auth_middleware, decorator, f"{text} guarding a route")
        return tuple(found)

    def guard_refusal(self, name: str) -> int | None:
        """401 when the class ``name`` of this file has a ``canActivate`` that throws an unauthorized error,
        403 when it throws another or returns ``false``, 0 when it refuses nothing, None when it is not here."""
        for stmt in self.root.named_children:
            decl = stmt.named_children[-1] if stmt.type == "export_statement" and stmt.named_children else stmt
            if decl.type != "class_declaration" or self.code.text(decl.child_by_field_id(self.fields.name)) != name:
                continue
            body = decl.child_by_field_id(self.fields.body)
            for member in body.named_children if body is not None else []:
                if (
                    member.type == "method_definition"
                    and self.code.text(member.child_by_field_id(self.fields.name)) == _CAN_ACTIVATE
                ):
                    return self.guard_status(member.child_by_field_id(self.fields.body))
            return 0
        return None

    def guard_status(self, body: Node | None) -> int:
        """What a guard's ``canActivate`` body refuses with (its nested functions left out): 401, 403 or 0."""
        found = 0
        pending: list[tuple[Node, bool]] = [(body, False)] if body is not None else []
        for _ in range(_READ_LIMIT):
            if not pending:
                break
            node, returned = pending.pop()
            kind = node.type
            if kind in FUNCTIONS:
                continue
            if kind == "throw_statement":
                thrown = unwrap(node.named_children[0]) if node.named_children else None
                made = thrown.child_by_field_id(self.fields.constructor) if thrown is not None else None
                if made is not None and self.code.text(made) in self.rules.unauthorized_errors:
                    return 401
                found = 403
            elif kind == "false" and returned:  # ``return false``, ``return ok ? true : false``
                found = 403
            returned = returned or kind == "return_statement"
            pending.extend((child, returned) for child in node.named_children)
        return found

    def top_definition(self, name: str) -> Node | None:
        """The top-level declaration of ``name`` in this file (a function or a const), or None."""
        for stmt in self.root.named_children:
            decl = stmt.named_children[0] if stmt.type == "export_statement" and stmt.named_children else stmt
            if decl.type == "function_declaration":
                if self.code.text(decl.child_by_field_id(self.fields.name)) == name:
                    return decl
            elif decl.type in ("lexical_declaration", "variable_declaration"):
                for part in decl.named_children:
                    if (
                        part.type == "variable_declarator"
                        and self.code.text(part.child_by_field_id(self.fields.name)) == name
                    ):
                        return part
        return None

    def front_name(self, named: str | None, scope: Scope) -> frozenset[str]:
        """``FRONT + name`` for a function of the tree, noted for the linker to resolve."""
        if not named or "#" not in named:
            return _NONE
        names = self.front_names.setdefault(scope.qualname, [])
        if named not in names:
            names.append(named)
        return frozenset((FRONT + named,))
