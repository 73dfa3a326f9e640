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

from tree_sitter import Node

from assay.backend.engines.static.facts import FRONT, CallFact
from assay.backend.engines.static.jsts.scope import Scope
from assay.backend.engines.static.jsts.sites import SiteLogic
from assay.backend.engines.static.jsts.syntax import FUNCTIONS, unwrap

# Statuses that refuse a request (the rules say which gate each is), as the code spells them.
_STATUSES = {b"401": 401, b"403": 403}
# Keys and fields that set a response's status (``{ status: 401 }``, ``res.statusCode = 401``).
_STATUS_KEYS = frozenset({b"status", b"statusCode", b'"status"', b"'status'"})
_STATUS_FIELDS = (b".status", b".statusCode")
# A middleware's body is read this far for its refusals.
_READ_LIMIT = 20000
_NONE: frozenset[str] = frozenset()


def _covers(prefix: str | None, path: str | None) -> bool:
    """Whether middleware put in front of ``prefix`` (None: every route) runs before a route at ``path``."""
    if prefix is None:
        return True
    base = prefix.rstrip("*").rstrip("/")
    if not base:
        return True
    return path is not None and (path.rstrip("/") == base or path.startswith(base + "/"))


class RouteLogic(SiteLogic):
    """Middleware gates and the gates in front of a route's handler."""

    def middleware_gate(self, node: Node, scope: Scope) -> str | None:
        """The gate of the function ``node`` when it is a middleware that refuses requests (once per
        function: the first scope that asks records its site)."""
        known = self.middleware_sites.get(node.id, "")
        if known != "":
            return known
        gate: str | None = None
        refusals = self.rules.refusals
        if refusals:
            names, _ = self.params(node)
            if "next" in names:
                status = self.refusal_status(node.child_by_field_id(self.fields.body))
                rule = refusals.get(status) if status is not None else None
                if rule is not None:
                    gate = scope.add_gate(self.make_gate(rule, node, f"a middleware refusing requests with {status}"))
        self.middleware_sites[node.id] = gate
        return gate

    def returned_middleware(self, value: Node | None, scope: Scope) -> None:
        """``return async (c, next) => { ... 401 ... }``: a factory of a middleware that refuses requests
        (``bearerAuth(key)``) holds that middleware's gate in front of the route it is called for."""
        inner = unwrap(value)
        if inner is not None and inner.type in FUNCTIONS:
            gate = self.middleware_gate(inner, scope)
            if gate is not None:
                self.front_gates.setdefault(scope.qualname, gate)

    def refusal_status(self, body: Node | None) -> int | None:
        """401 when the body (its nested functions left out) answers a request with 401, else 403 when with
        403, else None."""
        found: int | None = None
        pending = [body] if body is not None else []
        code = self.code
        for _ in range(_READ_LIMIT):
            if not pending:
                break
            node = pending.pop()
            kind = node.type
            if kind in FUNCTIONS:
                continue
            if kind == "number":
                status = _STATUSES.get(code.raw(node))
                if status is not None and self.sets_status(node):
                    if status == 401:
                        return status
                    found = status
                continue
            pending.extend(node.named_children)
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
        if method not in self.rules.route_methods or not args:
            return None
        first = unwrap(args[0])
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
            if index < last or method == "use":
                put |= self.middleware_front(inner, scope, name)
        if method == "use" and put:
            self.route_uses.setdefault(key, []).append((path, frozenset(put)))
        return fronts

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

    def middleware_front(self, inner: Node, scope: Scope, route: str, depth: int = 0) -> frozenset[str]:
        """The gates a middleware argument holds in front of what follows it: its own gate (a function written
        here, or one this file defines, refusing requests), the gate of a library's auth middleware call
        (``requireBearerAuth(...)``), or a ``FRONT`` id for a function of the tree named or called here."""
        kind = inner.type
        if kind in FUNCTIONS:
            gate = self.middleware_gate(inner, scope)
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
                gate = self.middleware_gate(value, scope)
                found = frozenset((gate,)) if gate is not None else _NONE
            elif value is not None and value.type == "call_expression" and depth < 4:
                found = self.middleware_front(value, scope, route, depth + 1)
        rule = self.rules.auth_middleware
        if not found and rule is not None and self.rules.auth_names.matches(text):
            # A middleware named for authentication that the code here does not show (kept where it is
            # defined in this file, else where it is put in front): a site of the bundle, tied to nothing.
            self.gate_site(scope, rule, self.top_definition(text) or inner, f"{text} in front of {route}")
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
