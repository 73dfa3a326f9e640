"""Checks in front of the HTTP route that serves a TypeScript MCP server, held over its tools.

``if (!(await isAuthorized(req))) { res.writeHead(401); return; }`` before the route builds the server
(``const server = createMcpServer(); await server.connect(transport)``) and hands it the request
(``transport.handleRequest(req, res, body)``), or a middleware that refuses requests put in front of the
route (``app.post("/mcp", auth, handler)``, ``app.use("/mcp", auth)``): every tool that server serves is
reached over that route only through the check. A route is a function of the tree that hands a request to
an MCP transport (``FunctionFacts.servesRequests``). The tools it serves are those registered in a function
the route reaches through its calls, or in the route itself: the function a tool's definition record is
paired in (``ToolDef.servedBy``), else the function of the tree whose body holds the registration
(``server.tool(...)`` in ``createServer()``, in ``registerTools(server)``). The gates held are the
authentication and permission checks on every way a route reaches that function: those dominating the
route's call that leads there, with the middleware in front of the route when it is a handler registered by
name (``FunctionFacts.routes``). An entry point serving the same server over stdio hands over no request:
no route (a local process, with nothing to authenticate), so it takes nothing away.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.backend.engines.static.facts import FRONT, ToolDef
from assay.backend.engines.static.link.gates import front_gate
from assay.backend.engines.static.link.graph import Fn
from assay.backend.scans.bundle import Location

# The gate kinds a route's check in front of the server holds over its tools.
_FRONT_KINDS = frozenset({"authentication", "permission", "permission_check"})
# The kind a request-refusing middleware's allow-list is read as here, to stand in front of routes.
_PERMISSION = "permission_check"
# How many functions a route's calls are followed through to the function registering the tools.
_REACH_LIMIT = 4096
# The qualname suffix of a file's top-level code.
_MODULE = "#<module>"


def route_gates(
    tools: list[ToolDef],
    functions: dict[str, Fn],
    resolve: Callable[[str, str], str | None],
    refusing: frozenset[str] = frozenset(),
) -> list[ToolDef]:
    """``tools`` with the checks in front of every HTTP route serving their server added to their
    ``hookGates`` (the gates that hold on every path from a tool). A middleware refusing requests (a gate of
    one of the ``refusing`` rules) whose refusal an allow-list of where the request comes from decides is one
    of them, as an authentication or permission check is."""
    routes = [fn for fn in functions.values() if fn.facts.servesRequests]
    if not routes or not tools:
        return tools
    kinds: dict[str, str] = {
        g.id: _PERMISSION if g.kind == "allowlist" and g.ruleId in refusing else g.kind
        for fn in functions.values()
        for g in fn.gates
    }
    enclosing = _Enclosing(functions)
    served: dict[str, str] = {}
    for tool in tools:
        fid = resolve(tool.servedBy, tool.servedBy) if tool.servedBy is not None else enclosing(tool.location)
        if fid is not None:
            served[tool.id] = fid
    if not served:
        return tools
    registered = _registrations(functions, kinds)
    modules = {fn.path: fid for fid, fn in functions.items() if fn.facts.qualname.endswith(_MODULE)}
    reach: dict[str, frozenset[str]] = {}
    held: dict[str, frozenset[str]] = {}
    for fid in sorted(set(served.values())):
        fronts: list[frozenset[str]] = []
        for route in routes:
            before = registered.get(route.id, frozenset()) | _behind(functions, route, kinds)
            if route.id == fid:
                fronts.append(before)
                continue
            reaches = False
            for call in route.calls:
                target = route.targets.get(call.callee)
                if target is not None and (target == fid or fid in _reached(functions, target, reach)):
                    reaches = True
                    fronts.append(before | {g for g in call.dominatingGates if kinds.get(g) in _FRONT_KINDS})
            module = modules.get(route.path)
            if not reaches and module is not None and (module == fid or fid in _reached(functions, module, reach)):
                # Tools registered by the file's top-level code on a server the route connects later
                # (``const server = new McpServer(...); registerTools(server); app.post("/mcp", ...)``).
                fronts.append(before)
        if fronts:
            held[fid] = frozenset.intersection(*fronts)
    out: list[ToolDef] = []
    for tool in tools:
        fid = served.get(tool.id)
        gates = held.get(fid) if fid is not None else None
        if gates:
            tool = tool.model_copy(update={"hookGates": tuple(sorted({*tool.hookGates, *gates}))})
        out.append(tool)
    return out


def _behind(functions: dict[str, Fn], route: Fn, kinds: dict[str, str]) -> frozenset[str]:
    """The checks active wherever ``route`` hands a request to the transport: one in its handler before the
    hand-over (``if (token !== key) return res.status(401)...``), the middleware put in front of it."""
    gates = (
        front_gate(functions, route, g[len(FRONT) :]) if g.startswith(FRONT) else g for g in route.facts.servedBehind
    )
    return frozenset(g for g in gates if g is not None and kinds.get(g) in _FRONT_KINDS)


def _registrations(functions: dict[str, Fn], kinds: dict[str, str]) -> dict[str, frozenset[str]]:
    """Route handlers registered by name (``app.post("/", auth, handle)``): handler function id -> the
    checks in front of it on every registration (its middleware's gates made concrete)."""
    found: dict[str, list[frozenset[str]]] = {}
    for fn in functions.values():
        for route in fn.facts.routes:
            target = fn.targets.get(route.callee)
            if target is None:
                continue
            gates = {
                front_gate(functions, fn, g[len(FRONT) :]) if g.startswith(FRONT) else g for g in route.dominatingGates
            }
            found.setdefault(target, []).append(
                frozenset(g for g in gates if g is not None and kinds.get(g) in _FRONT_KINDS)
            )
    return {fid: frozenset.intersection(*sets) for fid, sets in found.items()}


def _reached(functions: dict[str, Fn], start: str, memo: dict[str, frozenset[str]]) -> frozenset[str]:
    """The functions ``start`` calls, directly or through others (bounded)."""
    known = memo.get(start)
    if known is not None:
        return known
    seen = {start}
    pending = [start]
    while pending and len(seen) < _REACH_LIMIT:
        fn = functions.get(pending.pop())
        if fn is None:
            continue
        for target, _call in fn.edges:
            if target not in seen:
                seen.add(target)
                pending.append(target)
    found = frozenset(seen)
    memo[start] = found
    return found


class _Enclosing:
    """The function of the tree whose body holds a place (the innermost one), by file."""

    def __init__(self, functions: dict[str, Fn]) -> None:
        self.by_path: dict[str, list[tuple[tuple[int, int], int, str]]] = {}
        # Each file's top-level code, which holds whatever no function of the file does.
        self.modules: dict[str, str] = {}
        for fid, fn in functions.items():
            where = fn.facts.location
            if where.endLine is not None and where.endLine > where.line:
                self.by_path.setdefault(fn.path, []).append(((where.line, where.column), where.endLine, fid))
            if fn.facts.qualname.endswith(_MODULE):
                self.modules[fn.path] = fid

    def __call__(self, location: Location) -> str | None:
        """The innermost function starting before ``location`` and ending after it (a tool's own handler,
        written after its name, is not where it is registered); the file's top-level code when none does
        (``server.tool("shell", ..., handler)`` at the top level of the file)."""
        best: tuple[int, str] | None = None
        at = (location.line, location.column)
        for start, end, fid in self.by_path.get(location.path, ()):
            if start <= at and location.line <= end and (best is None or end - start[0] < best[0]):
                best = (end - start[0], fid)
        return best[1] if best is not None else self.modules.get(location.path)
